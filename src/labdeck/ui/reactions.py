"""How the console reacts to an error from a worker: a toast, the sign-in dialog, or a modal.

The mapping is pure (no Textual), so it is easy to test; ``LabdeckApp.handle_worker_state`` acts
on the :class:`Reaction`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from labdeck.api import errors


@dataclass(frozen=True)
class Reaction:
    """What to show for one error."""

    kind: Literal["toast", "login", "modal", "read-only"]
    title: str
    message: str
    severity: Literal["information", "warning", "error"] = "error"


def _message(error: BaseException) -> str:
    user_message = getattr(error, "user_message", None)
    if callable(user_message):
        return str(user_message())
    return f"{type(error).__name__}: {error}"


def react_to(error: BaseException) -> Reaction:
    """Decide how to show ``error`` (any exception a worker raised)."""
    message = _message(error)
    if isinstance(error, errors.Unauthorized):
        return Reaction("login", "Sign-in needed", message)
    if isinstance(error, errors.ReadOnlyError):
        return Reaction("toast", "Read-only", message, "warning")
    if isinstance(error, errors.RateLimited):
        return Reaction("toast", "Rate limited", message, "warning")
    if isinstance(error, errors.OutcomeUnknown):
        return Reaction("modal", "Outcome unknown", message)
    if isinstance(error, errors.Forbidden):
        if "insufficient_scope" in error.message or "insufficient scope" in error.message.lower():
            return Reaction("read-only", "Read-only token",
                            f"{message}\nThe token cannot make changes: switched to read-only mode.",
                            "warning")
        return Reaction("toast", "Forbidden", message)
    if isinstance(error, errors.TransportError | errors.ServerError):
        return Reaction("toast", "Connection problem", message, "warning")
    if isinstance(error, errors.ApiError):
        return Reaction("toast", "Request failed", message)
    return Reaction("modal", "Unexpected error",
                    f"{message}\n\nThe console keeps running; the action did not complete.")
