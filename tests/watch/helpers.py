"""Shared helpers of the watch tests: job records, a fake poller clock, a poller on a simulator (the
simulator's control surface: :mod:`tests.support.sim_control`)."""

from __future__ import annotations

import random
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from labdeck.api import ApiClient, RetryPolicy
from labdeck.api.models import Job
from labdeck.base.secret import Secret
from labdeck.sim.dataset.build import DEMO_TOKENS
from labdeck.sim.server import SimServer
from labdeck.watch import (
    BoardPoller,
    BoardSnapshot,
    PollerSettings,
    ServerClock,
    WatchedProject,
    WatchedProjects,
)
from labdeck.watch.pipelines import FAILED
from tests.support.fake_time import FakeTime
from tests.support.sim_control import advance, project_id, push_pipeline

T0 = datetime(2026, 11, 2, 9, 0, tzinfo=UTC)


def job(job_id: int, name: str, status: str, *, pipeline: int = 1, ref: str = "main", minutes: float = 0,
        allow_failure: bool = False, user: str = "alice", started: float | None = None,
        finished: float | None = None) -> Job:
    """A job record as the API returns it; times are minutes after :data:`T0`."""
    def at(offset: float | None) -> str | None:
        return None if offset is None else (T0 + timedelta(minutes=offset)).isoformat()

    return Job.model_validate({
        "id": job_id, "name": name, "status": status, "ref": ref, "allow_failure": allow_failure,
        "created_at": at(minutes), "started_at": at(started), "finished_at": at(finished),
        "pipeline": {"id": pipeline, "ref": ref, "sha": f"{pipeline:040x}", "status": status},
        "user": {"id": 1, "username": user, "name": user},
    })


def fake_clock() -> FakeTime:
    """The poller's monotonic clock and sleep, moved only by the test (or by the poller's sleeps)."""
    return FakeTime(now=1000.0)


def api_client(server: SimServer, role: str = "admin", *, retries: bool = True) -> ApiClient:
    """A real client over loopback HTTP; ``retries=False``: the API layer gives every answer back
    at once (so a 429 reaches the poller instead of being waited out inside the client)."""
    policy = RetryPolicy() if retries else RetryPolicy(max_attempts=1)
    return ApiClient(server.base_url, Secret(DEMO_TOKENS[role]), retry=policy)


def make_poller(client: ApiClient, server: SimServer, fake: FakeTime, **settings: Any) -> BoardPoller:
    """A poller on ``client`` with the fake clock, reading the simulator's own (simulated) time as
    the server's: the simulator's ``Date`` header is the wall clock, not its simulated one. The
    client's back-off from a failing server (``client.gate``) follows the fake clock too."""
    client.gate.clock = fake.clock
    return BoardPoller(client, PollerSettings(**settings), clock=fake.clock, sleep=fake.sleep,
                       server_clock=ServerClock(source=server.state.now), rng=random.Random(3))


@asynccontextmanager
async def one_project_board(server: SimServer, path: str) -> AsyncIterator[
        tuple[ApiClient, BoardPoller, FakeTime, list[BoardSnapshot], int]]:
    """A board watching the project at ``path`` alone: ``(client, poller, fake clock, the board's
    snapshots, the project's id)``; the client is closed on the way out."""
    pid = project_id(server, path)
    fake = fake_clock()
    board: list[BoardSnapshot] = []
    async with api_client(server) as client:
        poller = make_poller(client, server, fake)
        poller.subscribe_board(board.append, watched=WatchedProjects((WatchedProject(pid, path),)))
        yield client, poller, fake, board, pid


async def run_for(poller: BoardPoller, fake: FakeTime, seconds: float, *, max_steps: int = 10_000) -> None:
    """Step the poller for ``seconds`` of its clock, sleeping (fake) as it asks."""
    end = fake.now + seconds
    for _ in range(max_steps):
        if fake.now >= end:
            return
        delay = await poller.step()
        fake.now = min(end, fake.now + delay) if delay > 0 else fake.now
    raise AssertionError("the poller never slept")


async def run_until(poller: BoardPoller, fake: FakeTime, done: Callable[[], bool], *, limit: float = 120.0) -> float:
    """Step until ``done()``; returns the poller-clock seconds it took (fails past ``limit``)."""
    start = fake.now
    for _ in range(10_000):
        if done():
            return fake.now - start
        if fake.now - start > limit:
            break
        delay = await poller.step()
        fake.now += delay
    raise AssertionError(f"not done within {limit} s of poller time")


def fixed(server: SimServer, *paths: str) -> WatchedProjects:
    """A fixed watched set: the projects at ``paths`` on ``server``."""
    return WatchedProjects(tuple(WatchedProject(project_id(server, path), path) for path in paths))


def busiest_minute(times: list[float]) -> int:
    """The most requests in any 60 s window."""
    times = sorted(times)
    best, start = 0, 0
    for end, moment in enumerate(times):
        while times[start] <= moment - 60.0:
            start += 1
        best = max(best, end - start + 1)
    return best


BUSY_FAILING = (1, 2, 10, 11, 12, 17)
"""Projects with runners of their own (their jobs start at once): where failures are pushed."""


def keep_busy(server: SimServer, others: int = 24) -> list[int]:
    """:data:`BUSY_FAILING` and ``others`` more projects, the others busy all day (a job that waits
    for a runner that never comes); returned with :data:`BUSY_FAILING` first."""
    failing = list(BUSY_FAILING)
    busy = failing + [pid for pid in sorted(server.state.projects) if pid not in failing][:others]
    for pid in busy[len(failing):]:
        push_pipeline(server, pid, [{"name": "soak", "duration": 86_400, "tags": ["nowhere"]}])
    return busy


async def lockstep(poller: BoardPoller, fake: FakeTime, server: SimServer, seconds: int) -> None:
    """Run the poller and the simulator ``seconds`` seconds, one second at a time."""
    for _ in range(seconds):
        advance(server, 1)
        await run_for(poller, fake, 1)


@dataclass
class BusyBoard:
    """A poller watching every project of a busy world, loaded: see :func:`busy_board`."""

    poller: BoardPoller
    fake: FakeTime
    board: list[BoardSnapshot]
    busy: list[int]


@asynccontextmanager
async def busy_board(server: SimServer) -> AsyncIterator[BusyBoard]:
    """Every project of ``server`` watched, :func:`keep_busy` busy, the poller and the simulator
    run in :func:`lockstep` four minutes (loaded, the busy ones past their first minutes); the
    poller is closed afterwards."""
    busy = keep_busy(server)
    advance(server, 5)
    fake = fake_clock()
    board: list[BoardSnapshot] = []
    watched = WatchedProjects(tuple(WatchedProject(pid, str(pid)) for pid in sorted(server.state.projects)))
    async with api_client(server) as client:
        poller = make_poller(client, server, fake, stuck_after=3600.0)
        poller.subscribe_board(board.append, watched=watched)
        await lockstep(poller, fake, server, 240)
        try:
            yield BusyBoard(poller, fake, board, busy)
        finally:
            poller.close()


def push_failures(server: SimServer, duration: int) -> dict[int, dict[str, Any]]:
    """A pipeline into each of :data:`BUSY_FAILING` whose one job fails after ``duration`` seconds
    (7 s more for each next one): project id → the control surface's answer."""
    return {pid: push_pipeline(server, pid, [{"name": f"unit-{index}", "fail": True, "duration": duration + 7 * index}])
            for index, pid in enumerate(BUSY_FAILING)}


async def failure_delays(poller: BoardPoller, fake: FakeTime, server: SimServer, board: list[BoardSnapshot],
                         pushed: dict[int, dict[str, Any]], *, seconds: int) -> list[int]:
    """Run the poller and the simulator in lockstep until every pushed pipeline (project id → the
    control surface's answer, its first job failing) is ``failed`` on the board, at most
    ``seconds``; the seconds from each job's failure to its row, sorted (every one must show)."""
    failed_at: dict[int, int] = {}
    shown_at: dict[int, int] = {}
    for second in range(seconds):
        advance(server, 1)
        await run_for(poller, fake, 1)
        for pid, created in pushed.items():
            job_id = created["jobs"][0]["id"]
            if pid not in failed_at and server.state.jobs[job_id].status == "failed":
                failed_at[pid] = second
            if pid not in shown_at and any(row.pipeline_id == created["id"] and row.status == FAILED
                                           for row in board[-1].rows):
                shown_at[pid] = second
        if len(shown_at) == len(pushed):
            break
    delays = sorted(shown_at[pid] - failed_at[pid] for pid in pushed if pid in shown_at and pid in failed_at)
    assert len(delays) == len(pushed), (failed_at, shown_at)
    return delays
