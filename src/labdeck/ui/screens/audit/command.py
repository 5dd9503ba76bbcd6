"""The ``:audit`` command (kept apart from the screen so that registering it imports no screen).

    registry.add(AUDIT_COMMAND)      # in labdeck.ui.sections.register

``:audit`` shows the whole log, ``:audit since=2h`` (or ``30m``, ``1d``, ``2024-05-01``) the recent
part, ``:audit here`` only the changes sent to the instance the console is connected to.
"""

from __future__ import annotations

from datetime import datetime

from labdeck.ui.console import Command, CommandError, ConsoleApp

USAGE = "audit [since=30m|2h|1d|2024-05-01] [here]"


def parse_audit_args(args: list[str]) -> tuple[datetime | None, bool]:
    """``["since=2h", "here"]`` → (the time 2 h ago, True). Raises :class:`CommandError`."""
    from labdeck.audit.read import parse_since

    since: datetime | None = None
    here = False
    for word in args:
        if word in ("here", "this"):
            here = True
        elif word.startswith("since="):
            try:
                since = parse_since(word.removeprefix("since="))
            except ValueError as error:
                raise CommandError(str(error)) from None
        else:
            raise CommandError(f"usage: :{USAGE}")
    return since, here


def run_audit(app: ConsoleApp, args: list[str]) -> None:
    """Push the audit screen."""
    since, here = parse_audit_args(args)
    from labdeck.ui.screens.audit.list import AuditScreen

    app.push_screen(AuditScreen(since, this_instance=here))


AUDIT_COMMAND = Command("audit", "Changes sent from this machine (the local audit log)", run_audit, usage=USAGE,
                        complete=lambda app: ["since=1h", "since=1d", "here"])
"""``:audit`` for :meth:`labdeck.ui.console.CommandRegistry.add`."""
