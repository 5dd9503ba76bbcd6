"""The ``:`` command line: an input at the bottom of the screen, over the current section.

``tab`` (or ``right`` at the end) accepts the completion shown in grey, ``up``/``down`` walk the
history, ``enter`` runs, ``escape`` closes. Dismisses with the line typed (or None).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.screen import ModalScreen
from textual.suggester import SuggestFromList
from textual.widgets import Input, Label

from labdeck.ui.type_ahead import HoldsTypeAhead


class CommandInput(Input):
    """An input with history and tab completion."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("tab", "complete", "Complete", show=False, id="command-line.complete"),
        Binding("up", "history(-1)", "Previous command", show=False, id="command-line.history-back"),
        Binding("down", "history(1)", "Next command", show=False, id="command-line.history-forward"),
    ]

    def __init__(self, history: Sequence[str], completions: Sequence[str], value: str = "") -> None:
        super().__init__(
            value=value, placeholder="command (tab completes, ↑ history, esc closes)",
            suggester=SuggestFromList(completions, case_sensitive=False), id="command",
        )
        self._history = list(history)
        self._position = len(self._history)

    def action_complete(self) -> None:
        """Accept the suggestion shown after the cursor."""
        if self._suggestion and self._suggestion != self.value:
            self.value = self._suggestion
        self.cursor_position = len(self.value)

    def action_history(self, step: int) -> None:
        """Move through earlier command lines."""
        if not self._history:
            return
        self._position = max(0, min(len(self._history), self._position + step))
        self.value = self._history[self._position] if self._position < len(self._history) else ""
        self.cursor_position = len(self.value)


class CommandLineScreen(HoldsTypeAhead, ModalScreen[str | None]):
    """A one-line prompt docked at the bottom."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "close", "Close", id="command-line.close"),
    ]
    DEFAULT_CSS = """
    CommandLineScreen { background: $background 0%; align: left bottom; }
    CommandLineScreen > #prompt-row { dock: bottom; height: 3; width: 100%; background: $panel; }
    CommandLineScreen #colon { width: 2; height: 3; content-align: center middle; color: $primary; text-style: bold; }
    CommandLineScreen #command { width: 1fr; border: tall $primary; }
    """

    def __init__(self, history: Sequence[str], completions: Sequence[str], value: str = "") -> None:
        super().__init__()
        self._history = history
        self._completions = completions
        self._value = value

    def compose(self) -> ComposeResult:
        from textual.containers import Horizontal

        with Horizontal(id="prompt-row"):
            yield Label(":", id="colon")
            yield CommandInput(self._history, self._completions, self._value)

    def on_mount(self) -> None:
        command = self.query_one(CommandInput)
        command.focus()
        command.cursor_position = len(command.value)
        self.release_keys()  # keys typed right after ":" go into the field, in order

    @on(Input.Submitted)
    def _submitted(self, event: Input.Submitted) -> None:
        self.dismiss(event.value.strip() or None)

    def action_close(self) -> None:
        """Close without running anything."""
        self.dismiss(None)
