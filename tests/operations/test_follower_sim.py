"""Following a running job on the simulator over real loopback HTTP, through a flaky network."""

from __future__ import annotations

import random
from collections.abc import Callable

import httpx
import pytest

from labdeck.api import ApiClient
from labdeck.api.retry import RetryPolicy
from labdeck.base.secret import Secret
from labdeck.logtext.lines import LineIndex
from labdeck.operations.follower import TraceEvent, TraceFollower
from labdeck.sim.server import SimServer
from tests.operations.flaky_proxy import FlakyProxy

PROJECT = 1


class RunningJob:
    """A job created through the control surface whose log only holds what the test appends."""

    def __init__(self, server: SimServer, token: str) -> None:
        self.server = server
        self.control = httpx.AsyncClient(base_url=server.base_url, headers={"PRIVATE-TOKEN": token})
        self.job_id = 0

    async def create(self) -> RunningJob:
        answer = await self.control.post(f"/-/sim/projects/{PROJECT}/pipelines", json={"stages": [
            {"name": "build", "jobs": [{"name": "tail-me", "generate_trace": False, "duration": None}]}]})
        assert answer.status_code == 201, answer.text
        self.job_id = answer.json()["jobs"][0]["id"]
        await self.advance(5)
        return self

    async def advance(self, seconds: float) -> None:
        answer = await self.control.post("/-/sim/clock/advance", params={"seconds": seconds})
        assert answer.status_code == 200

    async def append(self, data: bytes) -> None:
        answer = await self.control.post(f"/-/sim/projects/{PROJECT}/jobs/{self.job_id}/trace", content=data)
        assert answer.status_code == 201, answer.text

    async def cancel(self) -> None:
        answer = await self.control.post(f"/api/v4/projects/{PROJECT}/jobs/{self.job_id}/cancel")
        assert answer.status_code == 201, answer.text

    async def whole_log(self) -> bytes:
        answer = await self.control.get(f"/api/v4/projects/{PROJECT}/jobs/{self.job_id}/trace")
        assert answer.status_code == 200
        return answer.content


def random_chunk(rng: random.Random) -> bytes:
    pieces = ["plain text ", "é€😀", "\x1b[32;1m$ make\x1b[0;m", "\r", "\n", "section_start:1700000000:s\r\x1b[0K",
              "\x1b]52;c;Zm9v\x07", "Downloading 50%\rDownloading 100%"]
    return "".join(rng.choice(pieces) for _ in range(rng.randint(1, 12))).encode()


async def follow_through(proxy_url: str, token: str, job: RunningJob, world: Callable[[], object],
                         retry: RetryPolicy | None = None) -> list[TraceEvent]:
    async def sleep(_seconds: float) -> None:
        await world()  # type: ignore[misc]

    events: list[TraceEvent] = []
    # No back-off of the client's own (base 0): ``sleep`` moves the world, not the clock the
    # client's gate waits on, and these tests are about bytes, not about waits.
    policy = retry or RetryPolicy(max_attempts=1, base=0.0, cap=0.0)
    async with ApiClient(proxy_url, Secret(token), retry=policy) as client:
        async for event in TraceFollower(client, PROJECT, job.job_id, sleep=sleep):
            events.append(event)
            assert len(events) < 5000
    return events


@pytest.mark.parametrize("trace_range", [False, True])
async def test_ten_random_disconnects_lose_no_byte_and_repeat_none(
        sim_factory: Callable[..., SimServer], tokens: dict[str, str], trace_range: bool) -> None:
    server = sim_factory()
    server.state.extra["trace_range"] = trace_range
    job = await RunningJob(server, tokens["admin"]).create()
    proxy = await FlakyProxy(server.host, server.port).start()
    rng = random.Random(7 if trace_range else 8)
    steps = {"count": 0}

    async def world() -> None:
        steps["count"] += 1
        if steps["count"] > 60 and proxy.drops >= 10 and proxy.armed == 0:
            await job.cancel()
            return
        await job.append(random_chunk(rng))
        await job.advance(1)
        if proxy.drops + proxy.armed < 10 and rng.random() < 0.3:
            proxy.arm()

    try:
        events = await follow_through(proxy.url, tokens["admin"], job, world)
        server_log = await job.whole_log()
    finally:
        await proxy.stop()
        await job.control.aclose()
    assert proxy.drops == 10
    assert sum(1 for e in events if e.kind == "error") >= 5
    assert not any(e.kind == "reset" for e in events)
    received = "".join(e.data for e in events if e.kind == "data")
    assert received == server_log.decode("utf-8", "replace")
    assert events[-1].kind == "end" and events[-1].status == "canceled"


async def test_the_client_retries_absorb_single_drops(sim_factory: Callable[..., SimServer],
                                                      tokens: dict[str, str]) -> None:
    server = sim_factory()
    job = await RunningJob(server, tokens["admin"]).create()
    proxy = await FlakyProxy(server.host, server.port).start()
    sent = [b"first line\n", b"second ", b"line\n", b"third line\n"]

    async def world() -> None:
        if sent:
            await job.append(sent.pop(0))
            proxy.arm()
        else:
            await job.cancel()

    try:
        events = await follow_through(proxy.url, tokens["admin"], job, world,
                                      retry=RetryPolicy(max_attempts=3, base=0.0, cap=0.0))
    finally:
        await proxy.stop()
        await job.control.aclose()
    assert proxy.drops >= 3
    assert "".join(e.data for e in events if e.kind == "data") == "first line\nsecond line\nthird line\n"


async def test_an_erased_job_log_is_announced_not_duplicated(sim_factory: Callable[..., SimServer],
                                                             tokens: dict[str, str]) -> None:
    server = sim_factory()
    job = await RunningJob(server, tokens["admin"]).create()
    await job.append(b"token=hunter2 printed by mistake\n")

    async def world() -> None:
        # Between two polls the job is canceled and its log erased by someone else.
        await job.cancel()
        answer = await job.control.post(f"/api/v4/projects/{PROJECT}/jobs/{job.job_id}/erase")
        assert answer.status_code == 201, answer.text

    events = await follow_through(server.base_url, tokens["admin"], job, world)
    await job.control.aclose()
    assert [e.kind for e in events] == ["status", "data", "status", "reset", "end"]
    assert "erased or truncated" in events[3].message
    assert events[1].data == "token=hunter2 printed by mistake\n"


async def test_the_followed_log_renders_like_the_whole_log(sim_factory: Callable[..., SimServer],
                                                           tokens: dict[str, str]) -> None:
    server = sim_factory()
    server.state.extra["trace_range"] = True
    job = await RunningJob(server, tokens["admin"]).create()
    rng = random.Random(3)
    remaining = {"steps": 30}

    async def world() -> None:
        remaining["steps"] -= 1
        if remaining["steps"] < 0:
            await job.cancel()
        else:
            await job.append(random_chunk(rng))

    events = await follow_through(server.base_url, tokens["admin"], job, world)
    server_log = await job.whole_log()
    await job.control.aclose()
    followed = LineIndex()
    for event in events:
        if event.kind == "data":
            followed.append(event.data)
    followed.finish()
    whole = LineIndex()
    whole.append(server_log)
    whole.finish()
    assert [followed.line(i) for i in range(len(followed))] == [whole.line(i) for i in range(len(whole))]
