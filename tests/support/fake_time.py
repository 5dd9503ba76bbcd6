"""One fake clock for every test that injects time: a monotonic clock and a wall clock moved only by
the injected ``sleep`` (or by the test setting ``now``), every wait recorded, and an optional
``world`` callback that lets the world move on after each sleep (``world(now)``)."""

from __future__ import annotations

from collections.abc import Callable


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
