"""``?``: the keys of the current screen, with their descriptions and binding ids (the ids are
what the config file's ``[keymap]`` uses to remap them)."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import ActiveBinding, Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Label

from labdeck.ui.widgets.resource_table import Column, ResourceTable, TableRow


class KeysScreen(ModalScreen[None]):
    """A table of key → action → id for the bindings active on the screen below."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,question_mark,q", "close", "Close", id="keys.close"),
    ]
    DEFAULT_CSS = """
    KeysScreen { align: center middle; background: $background 60%; }
    KeysScreen > #dialog {
        width: 84; max-width: 98%; height: 90%;
        border: thick $primary; background: $surface; padding: 0 1;
    }
    KeysScreen #title { text-style: bold; width: 100%; padding: 0 1; }
    KeysScreen #hint { color: $ld-text-muted; width: 100%; padding: 0 1; }
    KeysScreen #note { width: 100%; padding: 0 1; }
    """

    def __init__(self, title: str, bindings: dict[str, ActiveBinding], note: str = "") -> None:
        super().__init__()
        self._title = title
        self._active = bindings
        self._note = note
        """A line about the screen below (the board: how often every project is read)."""

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog"):
            yield Label(Text(f"Keys: {self._title}"), id="title")
            if self._note:
                yield Label(Text(self._note), id="note")
            yield ResourceTable(
                [Column("key", "Key", max_width=16), Column("action", "Action", max_width=36),
                 Column("id", "Binding id (for [keymap])", max_width=30)],
                id="keys-table",
            )
            yield Label("Remap in the config file: [keymap] <binding id> = \"keys\"", id="hint", markup=False)

    def on_mount(self) -> None:
        table = self.query_one(ResourceTable)
        rows: list[TableRow] = []
        seen: set[tuple[str, str]] = set()
        for key, active in self._active.items():
            binding = active.binding
            if not binding.description or not active.enabled:
                continue
            display = self.app.get_key_display(binding)
            marker = (binding.action, display)
            if marker in seen:
                continue
            seen.add(marker)
            rows.append(TableRow(key=key, cells=(display, binding.description, binding.id or "")))
        rows.sort(key=lambda row: (row.cells[2] == "", str(row.cells[2])))
        table.append_rows(rows)
        table.focus()

    def action_close(self) -> None:
        """Close the list."""
        self.dismiss(None)
