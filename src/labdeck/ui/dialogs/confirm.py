"""The one confirmation dialog every mutating action goes through.

Usage (from any screen)::

    def after(confirmed: bool | None) -> None:
        if confirmed:
            self.cancel_job(job)        # start the worker that sends the request

    self.app.push_screen(
        ConfirmScreen("Cancel job", f"Cancel job #{job.id} ({job.name})?", action_label="Cancel job",
                      target=f"{project_path} · job #{job.id}"),
        after,
    )

Irreversible actions pass ``typed=...``: the Confirm button stays disabled until the user types that
exact text (e.g. the job id or the project path).

Safety rules (reliability.md §5): focus starts on Cancel (on the text box when a target must be
typed: whatever is typed goes there, even keys typed before the dialog was drawn); confirming is
ignored during the first :attr:`ConfirmScreen.GUARD_SECONDS` after the dialog opens (key
auto-repeat guard), and the dialog says so; ``escape`` cancels; the dialog shows the instance and
the target.
"""

from __future__ import annotations

import time
from typing import ClassVar

from rich.text import Text
from textual import events, on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Label, Static

from labdeck.ui.instances import Instance, target_label
from labdeck.ui.type_ahead import HoldsTypeAhead


def guard_clock() -> float:
    """The clock of the key guard (tests replace this function, never ``time.monotonic``)."""
    return time.monotonic()


class ConfirmScreen(HoldsTypeAhead, ModalScreen[bool]):
    instance: Instance | None = None
    """The instance the change goes to (the screen's that opened the dialog): named, in its colour."""

    """Ask before a mutating action; dismisses with True only on an explicit confirmation."""

    GUARD_SECONDS: ClassVar[float] = 0.5
    """Confirm presses within this time after opening are ignored."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Cancel", id="confirm.cancel"),
        Binding("left,h", "app.focus_previous", "Previous", show=False, id="confirm.previous"),
        Binding("right,l", "app.focus_next", "Next", show=False, id="confirm.next"),
    ]
    DEFAULT_CSS = """
    ConfirmScreen {
        align: center middle;
        background: $background 60%;
    }
    ConfirmScreen > #dialog {
        width: 64;
        max-width: 96%;
        height: auto;
        max-height: 96%;
        border: thick $primary;
        background: $surface;
        padding: 1 2;
    }
    ConfirmScreen #title { text-style: bold; color: $text; width: 100%; }
    ConfirmScreen #message { margin: 1 0 0 0; width: 100%; }
    ConfirmScreen #target { color: $ld-text-muted; width: 100%; }
    ConfirmScreen #typed-hint { margin: 1 0 0 0; color: $ld-text-warning; }
    ConfirmScreen #why-not { color: $ld-text-warning; width: 100%; }
    ConfirmScreen #why-not.-hidden { display: none; }
    ConfirmScreen #buttons { height: auto; margin: 1 0 0 0; align-horizontal: right; }
    ConfirmScreen Button { margin: 0 0 0 2; min-width: 12; }
    """

    def __init__(
        self,
        title: str,
        message: str,
        *,
        action_label: str = "Confirm",
        target: str | None = None,
        typed: str | None = None,
        also_accept: tuple[str, ...] = (),
        danger: bool = True,
    ) -> None:
        """``title``/``message`` are shown verbatim (no markup). ``target`` names the object acted on;
        ``typed`` is the text the user must type for irreversible actions (``also_accept``: other
        spellings of it, such as ``#12`` for ``12``)."""
        super().__init__()
        self._title = title
        self._message = message
        self._action_label = action_label
        self._target = target
        self._typed = typed
        self._accepted = frozenset((typed, *also_accept)) if typed is not None else frozenset()
        self._danger = danger
        self._opened_at = guard_clock()

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog"):
            yield Label(Text(self._title), id="title")
            target = target_label(self.app, self)
            if self._target:
                target.append(f" · {self._target}" if target.plain else self._target)
            if target.plain:
                yield Label(target, id="target")
            yield Static(Text(self._message), id="message")
            if self._typed is not None:
                yield Label(Text(f"This cannot be undone. Type {self._typed} to confirm:"), id="typed-hint")
                yield Input(placeholder=self._typed, id="typed", select_on_focus=False)
            yield Label("", id="why-not", classes="-hidden")
            with Horizontal(id="buttons"):
                yield Button("Cancel", id="cancel", variant="default")
                yield Button(
                    Text(self._action_label), id="confirm", variant="error" if self._danger else "primary",
                    disabled=self._typed is not None,
                )

    def on_mount(self) -> None:
        self._opened_at = guard_clock()
        self.query_one("#typed" if self._typed is not None else "#cancel").focus()
        self.release_keys()

    def on_key(self, event: events.Key) -> None:
        """When a target must be typed, letters go into its box wherever the focus is: ``h``/``l``
        would otherwise move the focus and a fast typist would lose the first letters."""
        if self._typed is None or not event.is_printable or event.character is None:
            return
        box = self.query_one("#typed", Input)
        if self.focused is box:
            return
        event.stop()
        event.prevent_default()
        box.focus()
        box.insert_text_at_cursor(event.character)

    def _say_why_not(self, text: str) -> None:
        why = self.query_one("#why-not", Label)
        why.update(Text(text))
        why.set_class(not text, "-hidden")

    @property
    def guarded(self) -> bool:
        """True while confirm presses are still ignored."""
        return guard_clock() - self._opened_at < self.GUARD_SECONDS

    def _is_typed(self, value: str) -> bool:
        return value.strip() in self._accepted

    @on(Input.Changed, "#typed")
    def _typed_changed(self, event: Input.Changed) -> None:
        self.query_one("#confirm", Button).disabled = not self._is_typed(event.value)
        self._say_why_not("")

    @on(Input.Submitted, "#typed")
    def _typed_submitted(self, event: Input.Submitted) -> None:
        if self._is_typed(event.value):
            self.query_one("#confirm", Button).focus()
        else:
            self._say_why_not(f"That is not {self._typed}: type it exactly, or press escape.")

    @on(Button.Pressed, "#cancel")
    def action_cancel(self) -> None:
        """Close without acting."""
        self.dismiss(False)

    @on(Button.Pressed, "#confirm")
    def _confirm(self) -> None:
        if self.guarded:
            # A key held down or typed ahead must not confirm: say so, the user presses again.
            self._say_why_not("Not confirmed: pressed too soon after the dialog opened. Press again.")
            return
        if self._typed is not None and not self._is_typed(self.query_one("#typed", Input).value):
            self._say_why_not(f"Type {self._typed} to confirm.")
            return
        self.dismiss(True)
