"""Shared helpers of the watch tests: job records, a fake poller clock, a poller on a simulator."""

from __future__ import annotations

import random
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx

from labdeck.api import ApiClient, RetryPolicy
from labdeck.api.models import Job
from labdeck.base.secret import Secret
from labdeck.sim.dataset.build import DEMO_TOKENS
from labdeck.sim.server import SimServer
from labdeck.watch import BoardPoller, PollerSettings, ServerClock

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


class FakeClock:
    """The poller's monotonic clock and sleep, moved only by the test (or by the poller's sleeps)."""

    def __init__(self) -> None:
        self.now = 1000.0

    def clock(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        self.now += seconds


def api_client(server: SimServer, role: str = "admin", *, retries: bool = True) -> ApiClient:
    """A real client over loopback HTTP; ``retries=False``: the API layer gives every answer back
    at once (so a 429 reaches the poller instead of being waited out inside the client)."""
    policy = RetryPolicy() if retries else RetryPolicy(max_attempts=1)
    return ApiClient(server.base_url, Secret(DEMO_TOKENS[role]), retry=policy)


def make_poller(client: ApiClient, server: SimServer, fake: FakeClock, **settings: Any) -> BoardPoller:
    """A poller on ``client`` with the fake clock, reading the simulator's own (simulated) time as
    the server's: the simulator's ``Date`` header is the wall clock, not its simulated one. The
    client's back-off from a failing server (``client.gate``) follows the fake clock too."""
    client.gate.clock = fake.clock
    return BoardPoller(client, PollerSettings(**settings), clock=fake.clock, sleep=fake.sleep,
                       server_clock=ServerClock(source=server.state.now), rng=random.Random(3))


async def run_for(poller: BoardPoller, fake: FakeClock, seconds: float, *, max_steps: int = 10_000) -> None:
    """Step the poller for ``seconds`` of its clock, sleeping (fake) as it asks."""
    end = fake.now + seconds
    for _ in range(max_steps):
        if fake.now >= end:
            return
        delay = await poller.step()
        fake.now = min(end, fake.now + delay) if delay > 0 else fake.now
    raise AssertionError("the poller never slept")


async def run_until(poller: BoardPoller, fake: FakeClock, done: Callable[[], bool], *, limit: float = 120.0) -> float:
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


def control(server: SimServer) -> httpx.Client:
    """The simulator's control surface (admin, loopback)."""
    return httpx.Client(base_url=server.base_url, headers={"PRIVATE-TOKEN": DEMO_TOKENS["admin"]}, timeout=10)


def advance(server: SimServer, seconds: float) -> None:
    with control(server) as admin:
        assert admin.post("/-/sim/clock/advance", params={"seconds": seconds}).status_code == 200


def push_pipeline(server: SimServer, project_id: int, jobs: list[dict[str, Any]], ref: str = "master") -> dict[str, Any]:
    """Create a one-stage pipeline through the control surface (counts as a push)."""
    with control(server) as admin:
        response = admin.post(f"/-/sim/projects/{project_id}/pipelines",
                              json={"ref": ref, "stages": [{"name": "test", "jobs": jobs}]})
    assert response.status_code == 201, response.text
    body: dict[str, Any] = response.json()
    return body


def set_faults(server: SimServer, faults: dict[str, Any]) -> None:
    with control(server) as admin:
        assert admin.put("/-/sim/faults", json=faults).status_code == 200


def project_id(server: SimServer, path: str) -> int:
    found = server.state.project_by_ref(path)
    assert found is not None, path
    return int(found.id)


def big_stages(*, tests: int = 1200, deploys: int = 300, fail: tuple[int, ...] = (), allowed: tuple[int, ...] = (),
               long: tuple[int, ...] = (), flaky: tuple[int, ...] = (),
               durations: dict[int, float] | None = None) -> list[dict[str, Any]]:
    """A monorepo pipeline listed job by job: stage ``test`` (``unit-0001`` …) then ``deploy``
    (``deploy-0001`` …, skipped once a test fails). ``fail``/``allowed``/``long``/``flaky``: 1-based
    indexes of test jobs that fail, fail with ``allow_failure``, run for a day, fail once then pass;
    ``durations``: seconds of particular test jobs (others run for one)."""
    def unit(i: int) -> dict[str, Any]:
        spec: dict[str, Any] = {"name": f"unit-{i:04d}",
                                "duration": 86_400 if i in long else (durations or {}).get(i, 1)}
        if i in fail or i in allowed:
            spec["fail"] = True
        if i in allowed:
            spec["allow_failure"] = True
        if i in flaky:
            spec["flaky"] = True
        return spec

    return [{"name": "test", "jobs": [unit(i) for i in range(1, tests + 1)]},
            {"name": "deploy", "jobs": [{"name": f"deploy-{i:04d}", "duration": 1} for i in range(1, deploys + 1)]}]


def push_stages(server: SimServer, project_id: int, stages: list[dict[str, Any]], ref: str = "master") -> dict[str, Any]:
    """Create a pipeline of several stages through the control surface (counts as a push)."""
    with control(server) as admin:
        response = admin.post(f"/-/sim/projects/{project_id}/pipelines", json={"ref": ref, "stages": stages},
                              timeout=60)
    assert response.status_code == 201, response.text
    body: dict[str, Any] = response.json()
    return body
