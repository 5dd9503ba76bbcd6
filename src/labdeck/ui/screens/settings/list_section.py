"""``ListSection``: the base of the settings screens (one table filled by ``fetch``, forms and
confirmed requests), and the helpers they share."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from labdeck.ui.dialogs.confirm import ConfirmScreen
from labdeck.ui.screens.table_section import TableSectionScreen
from labdeck.ui.widgets.cells import clean
from labdeck.ui.widgets.resource_table import ResourceTable, TableRow


def local_path(value: Any) -> Path:
    """A path typed by the user (``~`` expanded)."""
    return Path(str(value).strip()).expanduser()


class ListSection(TableSectionScreen):
    """A section made of one table filled by :meth:`fetch` (override ``COLUMNS`` and ``fetch``)."""

    TABLE_ID = "list-table"

    def __init__(self, context: str = "") -> None:
        super().__init__()
        self.context_text = clean(context)

    async def fetch(self) -> list[TableRow]:
        """The rows to show (override)."""
        return []

    async def load(self) -> None:
        self.replace_rows(await self.fetch())
        self.mark_loaded()

    def current(self) -> Any:
        """The highlighted row's data (a toast when none)."""
        data = self.table.cursor_data
        if data is None:
            self.notify("Nothing selected.", severity="warning", timeout=3)
        return data

    def on_resource_table_selected(self, event: ResourceTable.Selected) -> None:
        event.stop()
        self.open(self.table.get_data(event.key))

    def open(self, data: Any) -> None:
        """``enter`` on a row (override)."""

    def confirm_and_send(self, dialog: ConfirmScreen, send: Callable[[], Awaitable[Any]], done: str,
                         worker: str) -> None:
        """Ask with ``dialog``; once confirmed, run ``send()`` in the worker ``worker``, then toast
        ``done`` and reload."""

        def confirmed(answer: bool | None) -> None:
            if answer:
                async def run() -> None:
                    await send()
                    self.notify(done, timeout=4, markup=False)
                    self.reload()

                self.run_api(run, worker)

        self.app.push_screen(dialog, confirmed)
