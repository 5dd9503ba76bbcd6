"""The board's poller: its own cost per step (planning which read goes next), at 800 and 2,000
watched projects.

In-process: a simulator (manual clock, seed 42, ``--projects N``; five projects run a day-long job
all the time, as in ``tests/watch/test_fairness.py``) and a :class:`BoardPoller` driven step by
step on a fake clock (no real waiting: each ``step()`` is followed by a jump of the fake clock by
the delay it asked for). Once every project has been read once, the poller runs
``LABDECK_BENCH_STEP_SECONDS`` seconds of its clock (default 600: at 60 requests a minute, the
steady state of the rotation, busy projects and change checks).

Reported per N: steps, their mean and p95 wall time *excluding the reads they await* (a step's
time minus the longest read it launched: the reads run concurrently and the step waits for all),
and the mean of the steps that launched nothing (pure planning + publishing + the next wake-up).
No target: the figure is compared before/after a change (issue 29: 2.4 ms at 802 projects).

    .venv/bin/python bench/bench_poller_step.py [800 2000]
"""

from __future__ import annotations

import asyncio
import os
import random
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import httpx
from _report import record

from labdeck.api import ApiClient
from labdeck.base.secret import Secret
from labdeck.sim.core.clock import SimClock
from labdeck.sim.dataset.build import DEMO_TOKENS, build_state
from labdeck.sim.server import SimServer
from labdeck.watch import BoardPoller, PollerSettings, ServerClock, WatchedProject, WatchedProjects

BUSY = 5


class _Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def clock(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        self.now += seconds


def _push_busy(server: SimServer, ids: list[int]) -> None:
    with httpx.Client(base_url=server.base_url, headers={"PRIVATE-TOKEN": DEMO_TOKENS["admin"]}, timeout=30) as admin:
        for pid in ids[:BUSY]:
            for _ in range(3):
                answer = admin.post(f"/-/sim/projects/{pid}/pipelines", json={
                    "ref": "master", "stages": [{"name": "test", "jobs": [{"name": "soak", "duration": 86_400}]}]})
                answer.raise_for_status()
        admin.post("/-/sim/clock/advance", params={"seconds": 5}).raise_for_status()


async def _measure(server: SimServer, seconds: float) -> dict[str, Any]:
    ids = sorted(server.state.projects)
    fake = _Clock()
    client = ApiClient(server.base_url, Secret(DEMO_TOKENS["admin"]))
    client.gate.clock = fake.clock
    poller = BoardPoller(client, PollerSettings(), clock=fake.clock, sleep=fake.sleep,
                         server_clock=ServerClock(source=server.state.now), rng=random.Random(3))
    reads: list[float] = []
    guarded = poller._guarded

    async def timed(item: Any, *, progress: bool = False) -> None:
        began = time.perf_counter()
        try:
            await guarded(item, progress=progress)
        finally:
            reads.append(time.perf_counter() - began)

    poller._guarded = timed  # type: ignore[method-assign]
    board: list[Any] = []
    poller.subscribe_board(board.append, watched=WatchedProjects(tuple(WatchedProject(pid, str(pid)) for pid in ids)))

    async def step() -> tuple[float, float, int]:
        reads.clear()
        began = time.perf_counter()
        delay = await poller.step()
        spent = time.perf_counter() - began
        fake.now += delay
        return spent - max(reads, default=0.0), spent, len(reads)

    loading_steps = 0
    while not (board and board[-1].loading == 0):
        await step()
        loading_steps += 1
        if loading_steps > 20_000:
            raise RuntimeError("the board never loaded")
    own: list[float] = []
    idle: list[float] = []
    launched = 0
    end = fake.now + seconds
    while fake.now < end:
        cost, _, count = await step()
        own.append(cost)
        launched += count
        if not count:
            idle.append(cost)
    poller.close()
    await client.aclose()
    own.sort()
    return {"steps": len(own), "mean": statistics.fmean(own), "p95": own[int(len(own) * 0.95)],
            "idle": statistics.fmean(idle) if idle else 0.0, "idle_steps": len(idle), "reads": launched,
            "requests": poller.stats.requests}


def main() -> int:
    sizes = [int(arg) for arg in sys.argv[1:]] or [800, 2000]
    seconds = float(os.environ.get("LABDECK_BENCH_STEP_SECONDS", "600"))
    for size in sizes:
        server = SimServer(build_state(seed=42, clock=SimClock(mode="manual"), projects=size)).start()
        try:
            _push_busy(server, sorted(server.state.projects))
            found = asyncio.run(_measure(server, seconds))
        finally:
            server.stop()
        label = f"poller: own time per step, {size} watched projects ({BUSY} busy), 60 req/min"
        print(f"{size} projects: {found['steps']} steps in {seconds:.0f} s of poller time "
              f"({found['reads']} reads, {found['requests']} requests in all); own time per step "
              f"mean {found['mean'] * 1000:.3f} ms, p95 {found['p95'] * 1000:.3f} ms; steps that launched "
              f"nothing ({found['idle_steps']}): mean {found['idle'] * 1000:.3f} ms", flush=True)
        record(label, "no target (before/after)", f"{found['mean'] * 1000:.2f} ms", None, how="in-process",
               note=f"p95 {found['p95'] * 1000:.2f} ms; idle steps {found['idle'] * 1000:.2f} ms; {found['steps']} steps")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
