"""Clocks of the watch layer: the poller's own (monotonic, injectable) and the server's.

Ages and "duration so far" are measured against the server's time: the API client does not expose
it (see the report: ``ApiClient.server_time`` is the change we would prefer), so
:class:`ServerClock` learns the offset between the local wall clock and the server's ``Date``
headers, which :class:`labdeck.watch.tap.WireTap` feeds it from every response.

``Date`` has a resolution of one second, so the offset is the median of recent samples taken at
the middle of that second. A server whose ``Date`` is not on the clock of its data (the simulator
with a manual clock serves a simulated time but a wall-clock ``Date``) can be given an explicit
``source`` instead.
"""

from __future__ import annotations

import asyncio
import statistics
import time
from collections import deque
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime

Clock = Callable[[], float]
"""Monotonic seconds (scheduling)."""
Sleep = Callable[[float], Awaitable[None]]
WallClock = Callable[[], float]
"""Unix seconds."""


def parse_http_date(value: str | None) -> datetime | None:
    """An HTTP ``Date`` header as an aware UTC datetime; None when missing or malformed."""
    if not value:
        return None
    try:
        parsed = parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError, OverflowError):
        return None
    if parsed is None:
        return None
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=UTC)
    return parsed.astimezone(UTC)


class ServerClock:
    """The server's current time, estimated from ``Date`` headers.

    Args:
        wall: the local wall clock (Unix seconds); injectable for tests.
        source: when given, the server's time comes from it and headers are ignored (a simulator
            whose ``Date`` does not follow its simulated clock, screenshots with a frozen time).
        samples: how many recent offsets the median is taken over.
    """

    def __init__(self, *, wall: WallClock = time.time, source: Callable[[], datetime] | None = None,
                 samples: int = 9) -> None:
        self._wall = wall
        self._source = source
        self._offsets: deque[float] = deque(maxlen=max(1, samples))
        self._offset: float | None = None

    @property
    def offset(self) -> float | None:
        """Server minus local time in seconds (None until a ``Date`` header was seen)."""
        return self._offset

    @property
    def synchronised(self) -> bool:
        """True when the time comes from the server (an explicit source or a seen ``Date``)."""
        return self._source is not None or self._offset is not None

    def observe(self, date_header: str | None, received_at: float | None = None) -> None:
        """Learn from one response's ``Date`` header (``received_at``: local wall time of arrival)."""
        moment = parse_http_date(date_header)
        if moment is None:
            return
        local = self._wall() if received_at is None else received_at
        # The header truncates to the second: the server's time was somewhere in [date, date+1).
        self._offsets.append(moment.timestamp() + 0.5 - local)
        self._offset = statistics.median(self._offsets)

    def now(self) -> datetime:
        """The server's time now (the local time until anything was learned)."""
        if self._source is not None:
            return self._source()
        return datetime.fromtimestamp(self._wall() + (self._offset or 0.0), UTC)


async def interruptible_sleep(sleep: Sleep, seconds: float, wake: asyncio.Event) -> bool:
    """Sleep ``seconds`` with ``sleep`` unless ``wake`` is set first; True when woken.

    The event is cleared on return, so one wake-up is consumed once.
    """
    if wake.is_set():
        wake.clear()
        return True
    sleeper = asyncio.ensure_future(sleep(max(seconds, 0.0)))
    waiter = asyncio.ensure_future(wake.wait())
    try:
        await asyncio.wait({sleeper, waiter}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        # Cancelled, not awaited: awaiting here could swallow a cancellation of the caller.
        for task in (sleeper, waiter):
            if not task.done():
                task.cancel()
    woken = wake.is_set()
    wake.clear()
    return woken
