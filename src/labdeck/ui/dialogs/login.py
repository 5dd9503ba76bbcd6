"""Sign-in modal shown when the server answers 401: a masked token field, validated against the
server before it is accepted. The token stays in memory (a :class:`Secret`); saving it to the
keyring is the ``labdeck login`` command's job."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import ClassVar

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Label

from labdeck.base.secret import Secret
from labdeck.ui.type_ahead import HoldsTypeAhead

Validator = Callable[[Secret], Awaitable[str]]
"""Checks a token against the server; returns the username or raises an error with
``user_message()`` (``labdeck.api.errors.ApiError``)."""


class LoginScreen(HoldsTypeAhead, ModalScreen[Secret | None]):
    """Ask for a token; dismiss with the validated :class:`Secret`, or None when cancelled."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Cancel", id="login.cancel"),
    ]
    DEFAULT_CSS = """
    LoginScreen { align: center middle; background: $background 70%; }
    LoginScreen > #dialog {
        width: 70; max-width: 96%; height: auto;
        border: thick $warning; background: $surface; padding: 1 2;
    }
    LoginScreen #title { text-style: bold; width: 100%; }
    LoginScreen #why { color: $ld-text-muted; width: 100%; margin: 0 0 1 0; }
    LoginScreen #error { color: $ld-text-error; width: 100%; height: auto; }
    LoginScreen #buttons { height: auto; align-horizontal: right; margin: 1 0 0 0; }
    LoginScreen Button { margin: 0 0 0 2; }
    """

    def __init__(self, instance: str, reason: str, validate: Validator) -> None:
        super().__init__()
        self._instance = instance
        self._reason = reason
        self._validate = validate

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog"):
            yield Label(Text(f"Sign in to {self._instance}"), id="title")
            yield Label(Text(self._reason), id="why")
            yield Input(password=True, placeholder="personal access token", id="token")
            yield Label("", id="error", markup=False)
            with Horizontal(id="buttons"):
                yield Button("Cancel", id="cancel")
                yield Button("Sign in", id="sign-in", variant="primary")

    def on_mount(self) -> None:
        self.query_one("#token", Input).focus()
        self.release_keys()

    @on(Input.Submitted, "#token")
    @on(Button.Pressed, "#sign-in")
    def _submit(self) -> None:
        value = self.query_one("#token", Input).value.strip()
        if not value:
            self.query_one("#error", Label).update("Enter a token.")
            return
        self.query_one("#error", Label).update("Checking…")
        self._check(Secret(value))

    @work(exclusive=True, group="login-check", exit_on_error=False)
    async def _check(self, token: Secret) -> None:
        try:
            username = await self._validate(token)
        except Exception as error:  # every failure is shown in the dialog, never raised
            message = error.user_message() if hasattr(error, "user_message") else type(error).__name__
            self.query_one("#error", Label).update(Text(f"Sign-in failed: {message}"))
            return
        self.notify(f"Signed in as {username}", title="Signed in", markup=False)
        self.dismiss(token)

    @on(Button.Pressed, "#cancel")
    def action_cancel(self) -> None:
        """Close without a token (the console stays open, showing what it has)."""
        self.dismiss(None)
