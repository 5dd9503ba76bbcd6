"""Simulated time: real (scaled by ``--speed``) or manual (advanced only when told)."""

from __future__ import annotations

import functools
import threading
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta

# Fixed epoch so that the same seed always yields the same data.
DEFAULT_START = datetime(2026, 11, 2, 9, 0, 0, tzinfo=UTC)


class SimClock:
    """The simulator's clock.

    In ``real`` mode simulated time runs ``speed`` times faster than the wall clock. In ``manual``
    mode it only moves through :meth:`advance` (the control surface, or tests).
    """

    def __init__(self, mode: str = "real", speed: float = 1.0, start: datetime = DEFAULT_START,
                 wall: Callable[[], float] = time.monotonic) -> None:
        if mode not in ("real", "manual"):
            raise ValueError(f"clock mode must be 'real' or 'manual', not {mode!r}")
        self.mode = mode
        self.speed = speed
        self._wall = wall
        self._wall_start = wall()
        self._base = start
        self._offset = 0.0
        self._lock = threading.Lock()

    def now(self) -> datetime:
        """Current simulated time (aware, UTC)."""
        with self._lock:
            elapsed = self._offset
            if self.mode == "real":
                elapsed += (self._wall() - self._wall_start) * self.speed
            return self._base + timedelta(seconds=elapsed)

    def advance(self, seconds: float) -> datetime:
        """Move simulated time forward by ``seconds`` in either mode."""
        if seconds < 0:
            raise ValueError("time only moves forward")
        with self._lock:
            self._offset += seconds
        return self.now()


def iso(moment: datetime | None) -> str | None:
    """GitLab's timestamp form: ``2026-11-02T09:00:00.000Z``."""
    if moment is None:
        return None
    return _iso(moment)


@functools.lru_cache(maxsize=65536)
def _iso(moment: datetime) -> str:
    # Cached: list pages render the same creation and activity times on every request.
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"
