"""One read budget shared by every job being followed.

Twelve running jobs read on their own would make twelve requests every second; the budget grants
*turns* instead, at most ``rate`` per second in all. The job served least recently goes first, so
every job is read in its turn, and a job whose follower waits longer between reads (its log is
quiet, :class:`~labdeck.operations.follower.TraceFollower` doubles its interval) simply asks less
often. A job holds at most one turn at a time: never two reads of one job in flight.
"""

from __future__ import annotations

import asyncio
import itertools
import math
import time
from collections import deque
from collections.abc import AsyncIterator, Awaitable, Callable, Hashable
from contextlib import asynccontextmanager
from typing import Any


class ReadBudget:
    """Turns for reads: at most ``rate`` per second over all keys, one at a time per key."""

    def __init__(self, rate: float = 2.0, *, clock: Callable[[], float] = time.monotonic,
                 sleep: Callable[[float], Awaitable[Any]] = asyncio.sleep) -> None:
        if rate <= 0:
            raise ValueError("rate must be positive")
        self.interval = 1.0 / rate
        self._clock = clock
        self._sleep = sleep
        self._next = -math.inf
        self._order = itertools.count()
        self._waiting: dict[Hashable, tuple[float, int, asyncio.Future[None]]] = {}
        self._served: dict[Hashable, float] = {}
        self.in_flight: set[Hashable] = set()
        """Keys holding a turn now."""
        self.grants: deque[tuple[float, Hashable]] = deque(maxlen=10_000)
        """``(time, key)`` of the recent turns granted (tests and benchmarks read it)."""
        self.granted = 0
        self._pump: asyncio.Task[None] | None = None

    @property
    def waiting(self) -> int:
        """Keys waiting for a turn."""
        return len(self._waiting)

    @asynccontextmanager
    async def turn(self, key: Hashable) -> AsyncIterator[None]:
        """Wait for a turn of ``key``, hold it for the body (one read), then give it back."""
        await self.acquire(key)
        try:
            yield
        finally:
            self.release(key)

    async def acquire(self, key: Hashable) -> None:
        """Wait until ``key`` may send one request. A key asking while it holds or awaits a turn
        is a bug (two reads of one job at once): it raises."""
        if key in self.in_flight or key in self._waiting:
            raise RuntimeError(f"a read of {key!r} is already in flight")
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._waiting[key] = (self._served.get(key, -math.inf), next(self._order), future)
        if self._pump is None or self._pump.done():
            self._pump = asyncio.get_running_loop().create_task(self._run(), name="read-budget")
        try:
            await future
        except asyncio.CancelledError:
            entry = self._waiting.get(key)
            if entry is not None and entry[2] is future:
                del self._waiting[key]
            elif future.done() and not future.cancelled():
                self.in_flight.discard(key)
            raise

    def release(self, key: Hashable) -> None:
        """The read of ``key`` is over."""
        self.in_flight.discard(key)

    async def _run(self) -> None:
        while self._waiting:
            wait = self._next - self._clock()
            if wait > 0:
                await self._sleep(wait)
                continue
            key = min(self._waiting, key=lambda name: self._waiting[name][:2])
            _, _, future = self._waiting.pop(key)
            if future.done():
                continue
            now = self._clock()
            self._served[key] = now
            self._next = now + self.interval
            self.in_flight.add(key)
            self.grants.append((now, key))
            self.granted += 1
            future.set_result(None)
            # Let the granted read start before the next grant is weighed.
            await asyncio.sleep(0)

    def close(self) -> None:
        """Stop granting (waiters are cancelled)."""
        if self._pump is not None:
            self._pump.cancel()
        for _, _, future in self._waiting.values():
            future.cancel()
        self._waiting.clear()
