"""``TableSectionScreen``: a section whose body is one :class:`ResourceTable` filled by :meth:`load`.

It gives a subclass, for free: the table (``TABLE_ID``, ``COLUMNS`` or :meth:`make_table`), the
:attr:`table` property, focus on the table and a first load on mount, and :meth:`reload`, which shows
``LOADING_TEXT`` in the title row while :meth:`load` runs in the screen's ``load`` worker and counts
the completed loads in :attr:`load_count` (tests wait on it).

    class RunnersScreen(TableSectionScreen):
        TABLE_ID = "runners-table"
        COLUMNS = (Column("id", "Id"), ...)

        async def load(self) -> None:
            self.replace_rows(runner_row(r) for r in await client.runners.list().all())
            self.mark_loaded()

Subclasses that compute something before each load (the title's context text) override
:meth:`reload` and call ``super().reload()``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import datetime
from typing import ClassVar

from textual.app import ComposeResult

from labdeck.api import errors
from labdeck.ui.screens.base import SectionScreen
from labdeck.ui.widgets.resource_table import Column, ResourceTable, TableRow
from labdeck.ui.widgets.status_line import StatusLine


class TableSectionScreen(SectionScreen):
    """Base class for one-table sections; see the module docstring."""

    TABLE_ID: ClassVar[str] = "section-table"
    """The id of the table widget (CSS and tests refer to it)."""
    COLUMNS: ClassVar[Sequence[Column]] = ()
    """The table's columns (or override :meth:`make_table`)."""
    LOADING_TEXT: ClassVar[str] = "loading…"
    """Shown in the title row while :meth:`load` runs."""
    REFRESH_EVERY: ClassVar[float | None] = None
    """Seconds between automatic refreshes while the screen is on top (None: only ``ctrl+r``);
    the status line turns the data age amber past twice this."""
    RETIME_EVERY: ClassVar[int] = 30
    """Seconds between re-renders of the relative times ("3m ago") in the rows."""

    def __init__(self, name: str | None = None, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self.load_count = 0
        """Completed loads (tests wait on it)."""
        self._retimed_period: int | None = None

    def make_table(self) -> ResourceTable:
        """The section's table widget (override for other columns than ``COLUMNS``)."""
        return ResourceTable(self.COLUMNS, id=self.TABLE_ID)

    def compose_content(self) -> ComposeResult:
        yield self.make_table()

    @property
    def table(self) -> ResourceTable:
        """The section's table."""
        return self.query_one(f"#{self.TABLE_ID}", ResourceTable)

    def on_mount(self) -> None:
        self.table.focus()
        if self.REFRESH_EVERY:
            for status in self.query(StatusLine):
                status.stale_after = 2 * self.REFRESH_EVERY
        self.reload()

    def tick(self, now: datetime) -> None:
        """Refresh when due, and let relative times move on."""
        loaded = self.data_loaded_at
        if self.REFRESH_EVERY and loaded is not None and not self.loading_text and \
                (now - loaded).total_seconds() >= self.REFRESH_EVERY:
            self.refresh_due()
        # Once per period, whichever tick first sees it: a tick that lands a second late, or a
        # server clock that jumps (a suspended laptop, a simulator's manual clock), never skips one.
        period = int(now.timestamp()) // self.RETIME_EVERY
        if period != self._retimed_period:
            if self._retimed_period is not None:
                self.retime(now)
            self._retimed_period = period

    def refresh_due(self) -> None:
        """The automatic refresh (override for something cheaper than a full reload)."""
        self.reload()

    def retime(self, now: datetime) -> None:
        """Re-render the rows whose relative times changed (override in screens that show some)."""

    def reload(self) -> None:
        """Fetch the data again (in the ``load`` worker)."""
        self.loading_text = self.LOADING_TEXT
        self.update_title()
        self.run_api(self._load, "load")

    async def load(self) -> None:
        """Fetch the data and fill the table (override)."""

    async def _load(self) -> None:
        try:
            await self.load()
            self.load_count += 1
            self.load_failed = False
            self.read_note = ""
        except (errors.TransportError, errors.ServerError) as exc:
            self.load_failed = True
            self._read_failed(exc)
            raise
        except errors.ApiError as exc:
            self._read_failed(exc)
            raise
        finally:
            self.loading_text = ""
            self.update_title()

    def _read_failed(self, exc: errors.ApiError) -> None:
        self.read_note = "not read" if self.load_count == 0 else "last rows kept (stale)"
        self.mark_failed(exc.user_message())

    def replace_rows(self, rows: Iterable[TableRow], *, keep_cursor: bool = True) -> None:
        """Show ``rows`` instead of the table's rows; the cursor stays on the same key when
        ``keep_cursor`` is set and that key is still there."""
        table = self.table
        keep = table.cursor_key if keep_cursor else None
        table.clear()
        table.append_rows(rows)
        if keep is not None:
            table.move_cursor_to_key(keep)

    def cursor_cell_text(self, column: int) -> str | None:
        """The plain text of cell ``column`` of the highlighted row (None without one)."""
        table = self.table
        key = table.cursor_key
        for row in table.rows():
            if row.key == key:
                value = row.cells[column]
                return value if isinstance(value, str) else value.plain
        return None
