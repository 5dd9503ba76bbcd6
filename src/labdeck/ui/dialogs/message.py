"""A modal that shows an error (or any message) with the server's text, verbatim."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Label, Static


class MessageScreen(ModalScreen[None]):
    """Title + message + OK. Texts are shown as plain text (server strings are never markup)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,enter", "close", "Close", id="message.close"),
        # The focus is on OK: these keys scroll a long text all the same (``:help``).
        Binding("down,j", "scroll_body(1)", "Down", show=False, id="message.down"),
        Binding("up,k", "scroll_body(-1)", "Up", show=False, id="message.up"),
        Binding("pagedown,space", "scroll_body(10)", "Page down", show=False, id="message.page-down"),
        Binding("pageup", "scroll_body(-10)", "Page up", show=False, id="message.page-up"),
        Binding("home,g", "scroll_body(-100000)", "Top", show=False, id="message.top"),
        Binding("end,G", "scroll_body(100000)", "Bottom", show=False, id="message.bottom"),
    ]
    DEFAULT_CSS = """
    MessageScreen { align: center middle; background: $background 60%; }
    MessageScreen > #dialog {
        width: 72; max-width: 96%; height: auto; max-height: 90%;
        border: thick $error; background: $surface; padding: 1 2;
    }
    MessageScreen.-info > #dialog { border: thick $primary; }
    MessageScreen #title { text-style: bold; width: 100%; }
    MessageScreen #body { height: auto; max-height: 70vh; margin: 1 0; }
    MessageScreen #buttons { height: auto; align-horizontal: right; }
    """

    def __init__(self, title: str, message: str, *, error: bool = True) -> None:
        super().__init__(classes="" if error else "-info")
        self._title = title
        self._message = message

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog"):
            yield Label(Text(self._title), id="title")
            with VerticalScroll(id="body"):
                yield Static(Text(self._message))
            with Vertical(id="buttons"):
                yield Button("OK", id="ok", variant="primary")

    def on_mount(self) -> None:
        self.query_one("#ok", Button).focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.dismiss(None)

    def action_scroll_body(self, lines: int) -> None:
        """Scroll the text by ``lines`` (negative: up)."""
        body = self.query_one("#body", VerticalScroll)
        body.scroll_to(y=max(0, body.scroll_y + lines), animate=False)

    def action_close(self) -> None:
        """Close the dialog."""
        self.dismiss(None)
