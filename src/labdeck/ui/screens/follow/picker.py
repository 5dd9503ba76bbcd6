"""The job picker of the merged view: choose one job to show alone (or all of them)."""

from __future__ import annotations

from collections.abc import Sequence

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import ModalScreen
from textual.widgets import OptionList
from textual.widgets.option_list import Option


class JobPicker(ModalScreen[int | None]):
    """Answers the index of the job chosen, ``-1`` for every job, None when dismissed."""

    DEFAULT_CSS = """
    JobPicker { align: center middle; }
    JobPicker OptionList { width: 60; max-width: 90%; height: auto; max-height: 80%; border: round $accent; }
    """
    BINDINGS = [Binding("escape", "dismiss_picker", "Close", id="follow.picker.close")]

    def __init__(self, choices: Sequence[str]) -> None:
        super().__init__()
        self.choices = list(choices)

    def compose(self) -> ComposeResult:
        options = [Option(Text("every job"), id="all")]
        options += [Option(Text(choice), id=str(number)) for number, choice in enumerate(self.choices)]
        yield OptionList(*options)

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        """A job (or every job) was chosen."""
        chosen = event.option.id
        self.dismiss(-1 if chosen == "all" or chosen is None else int(chosen))

    def action_dismiss_picker(self) -> None:
        """Close without choosing."""
        self.dismiss(None)
