"""One fake clock for every test that injects time: a monotonic clock and a wall clock moved only by
the injected ``sleep`` (or by the test setting ``now``), every wait recorded, and an optional
``world`` callback that lets the world move on after each sleep (``world(now)``); and
:class:`VirtualTime`, the same for code running concurrently against a real server."""

from __future__ import annotations

import asyncio
import contextlib
import heapq
import itertools
from collections.abc import AsyncIterator, Callable
from typing import Any

import httpx

from labdeck.api.retry import RetryPolicy
from labdeck.api.transport import DEFAULT_LIMITS


class FakeTime:
    """``clock``/``wall``/``sleep`` to hand to the code under test; ``sleeps`` lists every wait."""

    def __init__(self, world: Callable[[float], None] | None = None, *, now: float = 0.0,
                 wall: float = 1_700_000_000.0) -> None:
        self.now = now
        self.wall_start = wall
        self.sleeps: list[float] = []
        self.world = world

    def clock(self) -> float:
        return self.now

    def wall(self) -> float:
        return self.wall_start + self.now

    async def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.now += seconds
        if self.world is not None:
            self.world(self.now)


class VirtualTime:
    """Virtual time for code that talks to a real server over loopback: ``sleep`` on this clock
    returns as soon as every task is waiting (in deadline order), so a minute of back-off takes a
    second, while the requests themselves stay real.

    Time moves only while no exchange is on the wire (``transport`` counts them), so a request
    takes no virtual time and gaps between requests are the waits the code chose. Run the code
    under test inside ``async with time.running():``.
    """

    def __init__(self, *, now: float = 0.0, wall: float = 1_700_000_000.0, settle: float = 0.001) -> None:
        self.now = now
        self.wall_start = wall
        self.settle = settle
        """Real seconds with nothing on the wire and no new sleep before time moves (twice that
        after a move): the loop's time to bring woken tasks to the wire or to their next sleep."""
        self.on_the_wire = 0
        self.activity = 0
        """Sleeps begun and exchanges begun or ended: time moves only after a quiet ``settle``."""
        self.sleeps: list[float] = []
        self._sleepers: list[tuple[float, int, asyncio.Future[None]]] = []
        self._count = itertools.count()

    def clock(self) -> float:
        return self.now

    def wall(self) -> float:
        return self.wall_start + self.now

    async def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.activity += 1
        waiter: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        heapq.heappush(self._sleepers, (self.now + max(seconds, 0.0), next(self._count), waiter))
        await waiter

    def policy(self, **options: Any) -> RetryPolicy:
        """A retry policy (``ApiClient(retry=…)``) whose waits and budget run on this time."""
        return RetryPolicy(sleep=self.sleep, clock=self.clock, wall=self.wall, **options)

    def transport(self, inner: httpx.AsyncBaseTransport | None = None) -> httpx.AsyncBaseTransport:
        """A transport (``ApiClient(transport=…)``) during whose exchanges time stands still;
        ``inner`` defaults to httpx's, with the client's read pool limits."""
        return _Counted(self, inner or httpx.AsyncHTTPTransport(limits=DEFAULT_LIMITS))

    @contextlib.asynccontextmanager
    async def running(self) -> AsyncIterator[VirtualTime]:
        """Move time while the body runs."""
        mover = asyncio.create_task(self._move())
        try:
            yield self
        finally:
            mover.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await mover

    async def _move(self) -> None:
        seen = -1
        while True:
            await asyncio.sleep(self.settle)
            while self._sleepers and self._sleepers[0][2].done():  # cancelled sleeps
                heapq.heappop(self._sleepers)
            if self.on_the_wire or not self._sleepers or self.activity != seen:
                seen = self.activity  # something moved: let it settle before time does
                continue
            self.now = max(self.now, self._sleepers[0][0])
            while self._sleepers and self._sleepers[0][0] <= self.now:
                waiter = heapq.heappop(self._sleepers)[2]
                if not waiter.done():
                    waiter.set_result(None)
            seen = -1


class _Counted(httpx.AsyncBaseTransport):
    def __init__(self, time: VirtualTime, inner: httpx.AsyncBaseTransport) -> None:
        self.time = time
        self.inner = inner

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        """The exchange is on the wire until its body is read (or it failed)."""
        self.time.on_the_wire += 1
        self.time.activity += 1
        try:
            response = await self.inner.handle_async_request(request)
        except BaseException:
            self.time.on_the_wire -= 1
            self.time.activity += 1
            raise
        assert isinstance(response.stream, httpx.AsyncByteStream)
        response.stream = _Body(self.time, response.stream)
        return response

    async def aclose(self) -> None:
        await self.inner.aclose()


class _Body(httpx.AsyncByteStream):
    def __init__(self, time: VirtualTime, inner: httpx.AsyncByteStream) -> None:
        self.time = time
        self.inner = inner
        self.open = True

    async def __aiter__(self) -> AsyncIterator[bytes]:
        async for chunk in self.inner:
            yield chunk

    async def aclose(self) -> None:
        try:
            await self.inner.aclose()  # the connection goes back to the pool (it may yield)
        finally:
            if self.open:
                self.open = False
                self.time.on_the_wire -= 1
                self.time.activity += 1
