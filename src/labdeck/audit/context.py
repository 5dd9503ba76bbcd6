"""What the UI says about a change: the :class:`AuditTarget` and the :func:`audit_context` block.

The context lives in a :class:`contextvars.ContextVar`, so it follows the code that makes the
request (including tasks started inside the block) without being passed through the resource
methods. See :mod:`labdeck.audit.log` for how it ends up in the log.
"""

from __future__ import annotations

import contextlib
import secrets
from collections.abc import Iterator, Mapping
from contextvars import ContextVar
from dataclasses import asdict, dataclass, fields, replace
from datetime import UTC, datetime
from typing import Any


@dataclass(frozen=True)
class AuditTarget:
    """What an action is about. ``project`` is an id or a full path; ``name`` names anything else
    (an integration slug, a branch)."""

    project: int | str | None = None
    group: int | str | None = None
    job: int | None = None
    pipeline: int | None = None
    issue: int | None = None
    runner: int | None = None
    hook: int | None = None
    name: str | None = None

    def to_dict(self) -> dict[str, int | str]:
        """The fields that are set."""
        return {key: value for key, value in asdict(self).items() if value is not None}

    def filled_from(self, other: AuditTarget) -> AuditTarget:
        """This target, with the fields it leaves unset taken from ``other``."""
        values: dict[str, Any] = {each.name: getattr(self, each.name) if getattr(self, each.name) is not None
                                  else getattr(other, each.name) for each in fields(self)}
        return AuditTarget(**values)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> AuditTarget:
        """Read back :meth:`to_dict` (unknown keys ignored)."""
        known = {key: data[key] for key in cls.__dataclass_fields__ if key in data}
        return cls(**known)

    def describe(self) -> str:
        """``g/p job 12``-style text (``project 5 job 12`` when only the id is known)."""
        owner, kind = (self.project, "project") if self.project is not None else (self.group, "group")
        parts = [f"{kind} {owner}" if isinstance(owner, int) else str(owner or "")]
        for key in ("pipeline", "job", "issue", "runner", "hook"):
            value = getattr(self, key)
            if value is not None:
                parts.append(f"{key} {'#' if key == 'issue' else ''}{value}")
        if self.name:
            parts.append(self.name)
        return " ".join(part for part in parts if part)


@dataclass(frozen=True)
class AuditContext:
    """What the UI knows about the requests made inside one :func:`audit_context` block."""

    action: str | None = None
    target: AuditTarget | None = None
    confirmation: str | None = None
    operation: str | None = None
    """Shared by every request of one user action (all jobs of a bulk cancel)."""
    profile: str | None = None
    user: str | None = None


_CONTEXT: ContextVar[AuditContext | None] = ContextVar("labdeck_audit_context", default=None)


@contextlib.contextmanager
def audit_context(*, action: str | None = None, target: AuditTarget | None = None,
                  confirmation: str | None = None, profile: str | None = None,
                  user: str | None = None) -> Iterator[AuditContext]:
    """Attach UI context to every change sent inside the block (see the module docstring).

    ``confirmation`` says what the user did to confirm: ``"dialog"``, ``"typed:group/project"``,
    ``"none"`` (no confirmation needed). An enclosing block's values fill the ones left None.
    """
    outer = _CONTEXT.get()
    mine = AuditContext(action, target, confirmation, None, profile, user)
    if outer is not None:
        mine = AuditContext(
            action or outer.action,
            target.filled_from(outer.target) if target and outer.target else (target or outer.target),
            confirmation or outer.confirmation, outer.operation, profile or outer.profile, user or outer.user)
    if mine.operation is None:
        mine = replace(mine, operation=new_id())
    token = _CONTEXT.set(mine)
    try:
        yield mine
    finally:
        _CONTEXT.reset(token)


def current_context() -> AuditContext | None:
    """The innermost :func:`audit_context` in effect, if any."""
    return _CONTEXT.get()


def new_id() -> str:
    """A random 16-hex-digit id."""
    return secrets.token_hex(8)


def utc_stamp(moment: datetime) -> str:
    """``2024-05-01T10:00:00.123Z``."""
    return moment.astimezone(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")
