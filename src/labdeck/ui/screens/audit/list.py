"""``:audit``: the local audit log of changes sent from this machine, newest first.

One row per attempt: when (UTC, and local time), the action, the request (method and path), the
target, the outcome (``done (201)``, ``refused (403: …)``, ``unknown``, ``sent (no answer
recorded)`` when the process stopped before the answer) and how it was confirmed. ``/`` filters on
every column and on the profile, user and instance; ``enter`` opens the target; ``i`` switches
between every instance and the one the console is connected to; ``ctrl+r`` reads the log again.

The log is read in a thread (it may be a few rotated files of 10 MB): the screen never waits on it.
"""

from __future__ import annotations

import asyncio
from datetime import datetime, timedelta
from typing import Any, ClassVar

from rich.text import Text
from textual.binding import Binding, BindingType

from labdeck.api import errors
from labdeck.audit.read import AuditEntry, read_audit
from labdeck.ui.screens.audit.targets import NothingToOpen, target_screen
from labdeck.ui.screens.table_section import TableSectionScreen
from labdeck.ui.widgets.cells import clean, coloured, shown
from labdeck.ui.widgets.resource_table import Column, ResourceTable, TableRow

COLUMNS = (
    Column("utc", "Time (UTC)", max_width=19),
    Column("local", "Local", max_width=14),
    Column("action", "Action", min_width=8, max_width=28, flex=True),
    Column("request", "Request", min_width=10, max_width=70, flex=True),
    Column("target", "Target", min_width=8, max_width=40, flex=True),
    Column("outcome", "Outcome", min_width=7, max_width=48, flex=True),
    Column("confirmed", "Confirmed", min_width=6, max_width=30, flex=True),
)
OUTCOME_COLOURS: dict[str, tuple[str, ...]] = {
    "done": ("success",),
    "refused": ("error",),
    "failed": ("error",),
    "unknown": ("warning",),
    "sent": ("warning",),
}


def local_time(moment: datetime) -> str:
    """``14:03:07 CEST`` (with the date when it differs from the UTC one)."""
    local = moment.astimezone()
    text = local.strftime("%H:%M:%S %Z").strip()
    return text if local.date() == moment.date() else f"{local:%m-%d} {text}"


def audit_row(app: Any, entry: AuditEntry) -> TableRow:
    """One row; the search text adds the profile, user, instance and field names."""
    outcome = coloured(app, entry.outcome_text(), *OUTCOME_COLOURS.get(entry.outcome, ()),
                       bold=entry.outcome != "done")
    cells = (entry.time.strftime("%Y-%m-%d %H:%M:%S"), local_time(entry.time), shown(entry.action),
             shown(f"{entry.method} {entry.path}"), shown(entry.target.describe()), outcome,
             shown(entry.confirmation or "not recorded"))
    extra = " ".join(clean(part) for part in (entry.profile, entry.user, entry.instance, *entry.fields) if part)
    search = " ".join(cell.plain if isinstance(cell, Text) else cell for cell in cells) + " " + extra
    return TableRow(key=entry.id, cells=cells, data=entry, search_text=search.lower())


class AuditScreen(TableSectionScreen):
    """The audit log as a table (see the module docstring)."""

    SECTION_TITLE = "Audit"
    TABLE_ID = "audit-table"
    COLUMNS = COLUMNS
    LOADING_TEXT = "reading the log…"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "open_target", "Open target", id="audit.open"),
        Binding("i", "toggle_instance", "This instance/All", id="audit.instance"),
    ]

    def __init__(self, since: datetime | timedelta | None = None, *, this_instance: bool = False) -> None:
        """``since``: only entries sent from then (a time, or a duration back from now)."""
        super().__init__()
        self.since = since
        self.this_instance = this_instance
        self.entries: list[AuditEntry] = []

    def _view_text(self) -> str:
        where = f"this instance ({clean(self.console_app.audit_log.instance)})" if self.this_instance else "every instance"
        since = "" if self.since is None else f" · since {self._since_text()}"
        return f"{where}{since} · newest first · enter: open · i: instance"

    def _since_text(self) -> str:
        if isinstance(self.since, timedelta):
            return f"{int(self.since.total_seconds() // 60)} min ago"
        return self.since.strftime("%Y-%m-%d %H:%M UTC") if self.since is not None else ""

    def reload(self) -> None:
        """Read the log again."""
        self.context_text = self._view_text()
        super().reload()

    async def load(self) -> None:
        audit = self.console_app.audit_log
        instance = audit.instance if self.this_instance else None
        entries = await asyncio.to_thread(read_audit, self.since, instance=instance)
        self.entries = list(reversed(entries))
        self.replace_rows(audit_row(self.app, entry) for entry in self.entries)
        if audit.write_error:
            self.context_text = f"{self._view_text()} · {clean(audit.write_error)}"
        self.mark_loaded()

    def copy_target(self) -> str | None:
        entry = self.table.cursor_data
        return None if entry is None else f"{entry.method} {entry.path}"

    def action_toggle_instance(self) -> None:
        """Every instance, or only the one the console is connected to."""
        self.this_instance = not self.this_instance
        self.reload()

    def on_resource_table_selected(self, event: ResourceTable.Selected) -> None:
        event.stop()
        self.action_open_target()

    def action_open_target(self) -> None:
        """Open what the highlighted change was about (job log, issue, runner, project's jobs …)."""
        entry = self.table.cursor_data
        if entry is None:
            return

        async def open_it() -> None:
            try:
                screen = await target_screen(self.console_app, entry)
            except NothingToOpen as reason:
                self.notify(str(reason), severity="warning", timeout=5)
                return
            except errors.NotFound:
                self.notify(f"{clean(entry.target.describe())} is not there any more (or not visible to this "
                            "account).", severity="warning", timeout=6)
                return
            if screen is not None:
                self.app.push_screen(screen)

        self.run_api(open_it, "open")
