"""Outages: one toast when the server cannot be reached, then retries with back-off until it answers,
and the screens whose last load failed load again by themselves.

This works the same whether the server was down when the console started or went away later: the
first failed request opens the outage, :meth:`ConnectionWatch.recovered` closes it.
"""

from __future__ import annotations

import math
import re
from collections.abc import Awaitable, Callable, Sequence
from datetime import UTC, datetime
from typing import Any

from rich.cells import cell_len, set_cell_size

from labdeck.api import answers, errors
from labdeck.api.core import TOKEN_REFUSED

RECONNECT_DELAYS: Sequence[float] = (1.0, 2.0, 4.0, 8.0, 15.0, 30.0)
"""Seconds between reconnection attempts (the last one repeats)."""


def trouble_text(health: Any, now: datetime | None = None, *, countdown: bool = True) -> str | None:
    """What the server answered when it is in trouble, said the same way on the status line, the
    board and the log viewer: ``token refused (401)``, ``rate limited — retrying in 5 s``, ``502
    Bad Gateway (nginx) — retrying in 8 s``, ``offline — retrying in 12 s`` (no answer came). None
    while the connection is fine, or when no answer came and no next try is known. ``health`` is the client's
    :class:`~labdeck.api.results.ConnectionHealth`; ``now`` the real time (UTC), not the server's;
    ``countdown``: add when the client tries again."""
    if health is None or getattr(health, "state", "ok") == "ok":
        return None
    waiting = getattr(health, "waiting", None)
    if waiting:
        return f"no answer for {int(waiting)} s"  # the server took the request and says nothing
    text = getattr(health, "reason", None)
    retry_at = getattr(health, "retry_at", None)
    if not text:
        # No answer came (refused, reset, timed out): "offline", and when the client tries again.
        left = (retry_at - (now or datetime.now(UTC))).total_seconds() if retry_at is not None else 0.0
        if countdown and left > 0.05:
            return f"offline — retrying in {math.ceil(left - 0.05)} s"
        if countdown and retry_at is not None and getattr(health, "state", "") == "reconnecting":
            return "offline — retrying now"  # the wait is over: the next read tests the server
        return None
    if retry_at is not None and countdown:
        left = (retry_at - (now or datetime.now(UTC))).total_seconds()
        if left > 0:
            text = f"{text} — retrying in {math.ceil(left - 0.05)} s"
        elif getattr(health, "state", "") == "reconnecting":
            text = f"{text} — retrying now"
    return text


def stalled_text(health: Any, now: datetime | None = None) -> str | None:
    """Why reads fail now, in a few words for a header that must not claim ``● live``: ``server
    errors (502)``, ``no answer for 40 s``, ``token refused``, ``rate limited``, ``not the API's
    answer``. None while the connection is fine. The same source as :func:`trouble_text` (the
    client's :class:`~labdeck.api.results.ConnectionHealth`); ``now``: the real time (UTC)."""
    if health is None or getattr(health, "state", "ok") == "ok":
        return None
    waiting = getattr(health, "waiting", None)
    if waiting:
        return f"no answer for {int(waiting)} s"
    reason = getattr(health, "reason", None)
    if not reason:
        # Refused, reset, timed out: no answer since the last one that came.
        last_ok = getattr(health, "last_ok_at", None)
        if last_ok is None:
            return "no answer"
        return f"no answer for {max(0, int(((now or datetime.now(UTC)) - last_ok).total_seconds()))} s"
    if reason == TOKEN_REFUSED:
        return "token refused"
    if reason.startswith("rate limited"):
        return "rate limited"
    status = _STATUS.match(reason)
    if status is not None:
        code = int(status.group(1))
        return f"server errors ({code})" if code >= 500 else f"the server answered {code}"
    for long, short in SHORT_REASONS:
        if long in reason:
            return short
    return reason


_STATUS = re.compile(r"(?:HTTP )?(\d{3})\b")
REASON_ROOM = 12
"""Cells of the reason kept, at least, when it is cut to leave room for the countdown."""
_SERVER_NAME = re.compile(r" \([^()]*\)$")
"""``502 Bad Gateway (nginx)``: the server's name, in brackets at the end of a reason."""


COUNTDOWN = re.compile(r"retry(?:ing)? (?:in \d+ s|now)")
"""When the next try is, as the trouble texts say it (``retrying in 12 s``, ``retry in 12 s``,
``retrying now``)."""


def keep_countdown(text: str, room: int) -> str | None:
    """``text`` (a reason and its countdown) in at most ``room`` cells with the countdown whole and
    the reason cut as short as it must be (``not the A… — retry in 12 s``); None when the text has
    no countdown or not even a few cells of the reason fit beside it."""
    if " — " not in text or not COUNTDOWN.search(text):
        return None
    for long, short in SHORT_REASONS:
        text = text.replace(long, short, 1)
    what, when = text.split(" — ", 1)
    what = _SERVER_NAME.sub("", what)
    when = when.replace("retrying in ", "retry in ", 1)
    if cell_len(f"{what} — {when}") <= room:
        return f"{what} — {when}"
    for long, short in SHORTEST_REASONS:
        what = what.replace(long, short, 1)
    if cell_len(f"{what} — {when}") <= room:
        return f"{what} — {when}"
    left = room - cell_len(f"… — {when}")
    if left < 3:  # "off…": less says nothing of what happened
        return None
    return set_cell_size(what, left).rstrip() + f"… — {when}"


SHORT_REASONS = (
    (answers.WEB_PAGE, "a web page, not the API"),
    ("the server's answer was not what the API returns", "not the API's answer"),
    (answers.CUT_OFF, "answer cut off"),
    ("the server answered ", "answered "),
)
"""Long reasons and their short forms, for a status line with little room (80 columns)."""
SHORTEST_REASONS = (
    ("a web page, not the API", "web page"),
    ("not the API's answer", "not the API"),
    ("answer cut off", "cut off"),
)
"""Shorter still, when the short form and the countdown do not fit side by side."""


def short_trouble(text: str, room: int) -> str:
    """``text`` in at most ``room`` cells: the reason's short form first (``a web page, not the
    API``), then without the server's name in brackets (``502 Bad Gateway — retrying in 44 s``) or
    with the countdown said shorter (``— retry in 44 s``), then cut before the countdown (``a web
    page, n… — retry in 44 s``), then without its countdown, then cut with an ellipsis. What the server answered stays; the data
    age beside it on the status line must never be pushed off."""
    for long, short in SHORT_REASONS:
        if cell_len(text) <= room:
            break
        if long in text:
            text = text.replace(long, short, 1)
    if cell_len(text) > room and " — " in text:
        what, when = text.split(" — ", 1)
        # When the next try is says more than which proxy answered (point 3: the screen says when).
        bare = _SERVER_NAME.sub("", what)
        short_when = when.replace("retrying in ", "retry in ", 1)
        fits = [form for form in (f"{bare} — {when}", f"{what} — {short_when}", f"{bare} — {short_when}")
                if cell_len(form) <= room]
        # Then the reason cut (at least REASON_ROOM cells of it) before the countdown goes.
        left = room - cell_len(f" — {short_when}")
        if not fits and left >= REASON_ROOM and cell_len(bare) > left:
            fits = [set_cell_size(bare, left - 1).rstrip() + f"… — {short_when}"]
        text = fits[0] if fits else what
    if cell_len(text) <= room:
        return text
    return set_cell_size(text, max(0, room - 1)).rstrip() + "…" if room > 0 else ""


def rate_note(rate: Any, health_state: str, now: datetime | None = None) -> str | None:
    """``1990/2000`` for the status line, from the client's last ``RateLimit-*`` headers; None when
    there is nothing true to say. A note outlives the answer it came from only while it can still
    be true: once its window has reset (``now``: real time, UTC), or once a read succeeded after a
    ``0`` left (a 429 storm's headers, with none on the good answers that followed), it goes."""
    if rate is None or not getattr(rate, "limit", None):
        return None
    reset_at = getattr(rate, "reset_at", None)
    if reset_at is not None and reset_at <= (now or datetime.now(UTC)):
        return None
    remaining = getattr(rate, "remaining", None)
    if remaining == 0 and health_state == "ok":
        return None
    return f"{remaining}/{rate.limit}"


def is_outage(error: BaseException) -> bool:
    """True for a failure that says the server is unreachable or broken, not that we did wrong."""
    return isinstance(error, errors.TransportError | errors.ServerError)


class ConnectionWatch:
    """Tracks an outage and retries until the server answers.

    ``probe()`` is a cheap request (who am I); ``on_back(user)`` runs once it succeeds;
    ``schedule(delay, attempt)`` runs ``attempt`` later (the app's timer, then a short worker):
    no long-running task, so nothing waits on an outage that lasts."""

    def __init__(self, probe: Callable[[], Awaitable[str]], on_back: Callable[[str], None],
                 schedule: Callable[[float, Callable[[], None]], object], *,
                 delays: Sequence[float] = RECONNECT_DELAYS) -> None:
        self._probe = probe
        self._on_back = on_back
        self._schedule = schedule
        self.delays = delays
        self.in_outage = False
        """True from the first unreachable request until the server answers again."""
        self.attempts = 0
        """Reconnection attempts of the current outage."""
        self._attempt_scheduled = False

    def start_outage(self, retry: Callable[[], None]) -> bool:
        """Record a failed request; True when this opens a new outage (the one moment to toast).
        ``retry`` starts :meth:`attempt` (in a worker)."""
        if self.in_outage:
            return False
        self.in_outage = True
        self.attempts = 0
        self._retry_later(retry)
        return True

    def _retry_later(self, retry: Callable[[], None]) -> None:
        if self._attempt_scheduled:
            return
        self._attempt_scheduled = True

        def due() -> None:
            self._attempt_scheduled = False
            retry()

        self._schedule(self.delays[min(self.attempts, len(self.delays) - 1)], due)

    async def attempt(self, retry: Callable[[], None]) -> None:
        """One reconnection attempt; schedules the next one while the server stays unreachable."""
        if not self.in_outage:
            return
        self.attempts += 1
        try:
            user = await self._probe()
        except errors.ApiError as error:
            if not is_outage(error):
                # The server answers (a 401, say): the outage is over; others handle that error.
                self.in_outage = False
                raise
            self._retry_later(retry)
            return
        self.in_outage = False
        self._on_back(user)
