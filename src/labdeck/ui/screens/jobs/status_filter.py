"""The jobs list's status filter: any number of statuses, sent to the server as ``scope[]``."""

from __future__ import annotations

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Label, SelectionList
from textual.widgets.selection_list import Selection

from labdeck.ui.dialogs.download import DIALOG_CSS
from labdeck.ui.screens.jobs.table import ALL_SCOPES


class StatusFilterDialog(ModalScreen[frozenset[str] | None]):
    """Pick any number of statuses (sent as ``scope[]``); none selected means all jobs."""

    DEFAULT_CSS = DIALOG_CSS
    BINDINGS = [Binding("escape", "cancel", "Cancel")]

    def __init__(self, selected: frozenset[str]) -> None:
        super().__init__()
        self._selected = selected

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label("Show jobs with status (none = all):")
            yield SelectionList[str](
                *(Selection(status, status, status in self._selected) for status in ALL_SCOPES),
                id="statuses",
            )
            with Horizontal(classes="buttons"):
                yield Button("Cancel", id="cancel")
                yield Button("Apply", id="apply", variant="primary")

    def on_mount(self) -> None:
        """Start in the list."""
        self.query_one("#statuses", SelectionList).focus()

    @on(Button.Pressed, "#apply")
    def _apply(self) -> None:
        self.dismiss(frozenset(self.query_one("#statuses", SelectionList).selected))

    @on(Button.Pressed, "#cancel")
    def action_cancel(self) -> None:
        """Close without changing the filter."""
        self.dismiss(None)
