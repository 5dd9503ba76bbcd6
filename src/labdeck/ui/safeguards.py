"""What keeps the console truthful and safe when things go wrong around it (issue 24): a token the
server refuses (the sign-in dialog, once), write access probed after the first frame, an audit log
that cannot be written (ask once, or refuse changes), and a full redraw after ``ctrl+z`` and ``fg``.
:class:`~labdeck.ui.app.LabdeckApp` builds on this class."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable, Iterable
from typing import Any

from textual.app import App

from labdeck.api.core import TOKEN_REFUSED
from labdeck.audit.log import AuditLog
from labdeck.base.session import Session

WRITE_CHECK_DELAY = 2.0
"""Seconds after the first frame at which the token's write access is probed (one ``POST
/projects`` the server refuses before acting): on a slow link, never before the first frame."""


class Safeguards(App[int]):
    """See the module docstring; state is set up by the app (``_check_write``, ``_audit_asked``)."""

    session: Session
    read_only: bool
    signed_out: bool
    _check_write: bool
    _audit_asked: bool

    # Provided by the app:
    client: Any
    audit_log: AuditLog
    show_login: Callable[..., None]
    refresh_status: Callable[[], None]
    _all_screens: Callable[[], Iterable[Any]]

    def _redraw_after_resume(self, _app: object = None) -> None:
        """Back from ``ctrl+z``/SIGTSTP and ``fg``: the terminal kept nothing of the screen, so
        every widget of the screen on top is laid out and painted again (header, status line,
        key bar), not only what changed meanwhile."""
        with contextlib.suppress(Exception):  # shutting down
            screen = self.screen
            for widget in screen.walk_children(with_self=True):
                widget.refresh()
            screen.refresh(repaint=True, layout=True)
            self.refresh_status()

    def _start_audit_check(self) -> None:
        self.run_worker(self._audit_check(), group="app-audit-check", exclusive=True, exit_on_error=False)

    async def _audit_check(self) -> None:
        """At start-up: can changes be recorded? If not, ask once whether to send them without."""
        if self.read_only:
            return
        problem = await asyncio.to_thread(self.audit_log.problem)
        if problem is not None:
            self.ask_about_audit(problem)

    def ask_about_audit(self, reason: str) -> None:
        """Once per session: send changes without an audit record, or refuse them (and say why)."""
        if self._audit_asked:
            return
        self._audit_asked = True
        from labdeck.ui.dialogs.confirm import ConfirmScreen

        def answered(send: bool | None) -> None:
            self.audit_log.allow_unrecorded = bool(send)
            if send:
                self.notify("Changes will be sent without an audit record in this session.", severity="warning",
                            timeout=8)
            else:
                self.notify(f"Changes are refused until the audit log can be written: {reason}.",
                            title="No audit record, no change", severity="warning", timeout=10)

        self.push_screen(ConfirmScreen(
            "Audit log not writable",
            f"Every change is recorded in the audit log before it leaves, but {reason}.\n\n"
            "Send without an audit record? (No: changes are refused, reads go on.)",
            action_label="Send without records", danger=True), answered)

    def _start_write_check(self) -> None:
        self.run_worker(self._write_check(), group="app-write-check", exclusive=True, exit_on_error=False)

    async def _write_check(self) -> None:
        """After the first frame: may the token write? If not, read-only mode, and why."""
        from labdeck.auth.probe import write_access

        if self.read_only:
            return
        check = await write_access(self.client)
        if check.access == "read-only" and not self.read_only:
            self.session.read_only = True
            self.session.read_only_reason = check.reason
            self.read_only = True
            self.client.read_only = True
            for screen in self._all_screens():
                with contextlib.suppress(Exception):
                    screen.refresh_bindings()
            self.refresh_status()
            self.notify(f"Read-only mode: {check.reason}.", title="This token may not write", timeout=8)

    def _notice_refused_token(self) -> None:
        """The server refuses the token (the poller's reads say so even when no screen asks):
        offer the sign-in dialog once, as a screen's refused read does."""
        health = getattr(self.client, "health", None)
        if getattr(health, "reason", None) == TOKEN_REFUSED and not self.signed_out:
            self.signed_out = True
            self.show_login("The server refused the token (401): it was revoked or has expired.")
        # The other instances of a board over several profiles: each signs in again on its own.
        for instance in getattr(self, "instances", ())[1:]:
            health = getattr(instance.client, "health", None)
            if getattr(health, "reason", None) == TOKEN_REFUSED and not instance.signed_out:
                instance.signed_out = True
                self.show_login("The server refused the token (401): it was revoked or has expired.",
                                instance)
