"""Small result types returned by the client."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Generic, Literal, TypeVar

T = TypeVar("T")


@dataclass(frozen=True)
class ActionResult(Generic[T]):
    """The outcome of an action or a polled read.

    ``changed`` is False when nothing changed for *this caller*: an action answered 304 (already
    starred, already subscribed …; ``value`` None, a 304 carries no body), or a poll whose ETag is
    still the one the caller passed as ``since`` (``value`` None: the caller already holds it).
    ``etag`` is the validator of a polled value (the list version for a paginator's poll): pass
    it back as ``since`` next time.
    """

    value: T | None
    changed: bool = True
    status: int = 200
    etag: str | None = None


@dataclass(frozen=True)
class ConnectionHealth:
    """Connection state for the status bar."""

    state: Literal["ok", "reconnecting", "error"] = "ok"
    last_error: str | None = None
    """Short and safe: ``502 Bad Gateway (nginx)``, ``token refused (401)``, ``rate limited``."""
    last_ok_at: datetime | None = None
    retry_at: datetime | None = None
    """When the client sends again (a wait the server asked for, or the back-off of an outage)."""
    reason: str | None = None
    """What the server answered, said short, when it answered (401, 429, 5xx); None when no answer
    came (unreachable): the status line then says "offline"."""
    waiting: float | None = None
    """Seconds the oldest request still without an answer has waited, once that is long enough to
    say (a server that accepts and never answers looks "online" otherwise); None when it is not."""


@dataclass(frozen=True)
class TraceRead:
    """One read of a job trace (see :meth:`labdeck.api.resources.jobs.JobsResource.trace`).

    - ``status``: 200 (full body received), 206 (server honoured ``Range``), 304 (unchanged
      since ``etag``), 416 (nothing at/after ``offset``).
    - ``data``: always the bytes from ``offset`` on (sliced client-side on a 200); empty on
      304 and 416.
    - ``total_length``: the whole trace's length when known (200: body length; 206/416: from
      ``Content-Range``); ``total_length < offset`` means the trace was truncated or erased.
    - ``etag``: the validator to send next time (None when the server sent none).
    - ``range_honoured``: True only on a 206.
    """

    status: int
    data: bytes
    etag: str | None
    range_honoured: bool
    total_length: int | None = None

    def truncated_below(self, offset: int) -> bool:
        """True when the trace is now shorter than ``offset`` (erased or rewritten)."""
        return self.total_length is not None and self.total_length < offset
