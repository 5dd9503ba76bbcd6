"""Following several jobs of the simulator at once, over real loopback HTTP."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Callable
from typing import Any

import httpx

from labdeck.api import ApiClient
from labdeck.base.secret import Secret
from labdeck.operations.following.multi import MultiFollower
from labdeck.operations.following.statuses import FollowedJob
from labdeck.sim.server import SimServer

PROJECT = 1
ONLY_SGR = re.compile(r"\x1b\[[0-9;]*m")
HOSTILE = ("\x1b]0;pwned\x07title \x1b[2J\x1b[31mred\x1b[0m \x1b]52;c;Zm9v\x07clip "
           "\x1bP+q544e\x1b\\dcs \u202eevil\u202c \x9b31m\n")


class Stage:
    """Jobs created through the control surface whose logs hold only what the test appends."""

    def __init__(self, server: SimServer, token: str) -> None:
        self.control = httpx.AsyncClient(base_url=server.base_url, headers={"PRIVATE-TOKEN": token})
        self.jobs: list[dict[str, Any]] = []
        self.written: dict[int, int] = {}

    async def create(self, specs: list[dict[str, Any]]) -> Stage:
        answer = await self.control.post(f"/-/sim/projects/{PROJECT}/pipelines", json={"stages": [
            {"name": "deploy", "jobs": [{"generate_trace": False, **spec} for spec in specs]}]})
        assert answer.status_code == 201, answer.text
        self.jobs = answer.json()["jobs"]
        return self

    def followed(self) -> list[FollowedJob]:
        return [FollowedJob(PROJECT, job["id"], job["name"], job["pipeline"]["id"], job["status"])
                for job in self.jobs]

    async def advance(self, seconds: float) -> None:
        assert (await self.control.post("/-/sim/clock/advance", params={"seconds": seconds})).status_code == 200

    async def append(self, number: int, data: str) -> None:
        job_id = self.jobs[number]["id"]
        answer = await self.control.post(f"/-/sim/projects/{PROJECT}/jobs/{job_id}/trace", content=data.encode())
        assert answer.status_code == 201, answer.text
        self.written[job_id] = self.written.get(job_id, 0) + len(data.encode())

    async def cancel(self, number: int) -> None:
        answer = await self.control.post(f"/api/v4/projects/{PROJECT}/jobs/{self.jobs[number]['id']}/cancel")
        assert answer.status_code == 201, answer.text


async def run_until(follower: MultiFollower, step: Callable[[int], Any], rounds: int = 400) -> None:
    task = asyncio.create_task(follower.run())
    try:
        for number in range(rounds):
            if task.done():
                break
            await step(number)
            await asyncio.sleep(0.02)
        await asyncio.wait_for(task, 10)
    finally:
        task.cancel()


def lines_of(follower: MultiFollower, job: int) -> list[str]:
    log = follower.log
    return [log.entry(seq).text for seq in range(log.dropped, log.total)
            if log.entry(seq).job == job and log.entry(seq).line is not None]


async def test_each_byte_is_read_once_hostile_text_is_cleaned_and_each_end_is_said(
        sim_factory: Callable[..., SimServer], tokens: dict[str, str]) -> None:
    server = sim_factory()
    server.state.extra["trace_range"] = True
    stage = await Stage(server, tokens["admin"]).create([
        {"name": "deploy-eu", "duration": 100, "fail": True},
        {"name": "deploy-us", "duration": 100},
        {"name": "deploy-ap", "duration": None}])
    await stage.advance(5)

    async def step(number: int) -> None:
        if number < 20:
            for job in range(3):
                await stage.append(job, f"{stage.jobs[job]['name']} line {number}\n")
            if number % 5 == 0:
                await stage.append(0, HOSTILE)
                await stage.append(1, HOSTILE)
        elif number == 20:
            await stage.append(0, "error: the rollout of eu failed\n")
            await stage.cancel(2)
            await stage.advance(300)

    async with ApiClient(server.base_url, Secret(tokens["admin"])) as client:
        follower = MultiFollower(client, stage.followed(), rate=50, min_interval=0.02, max_interval=0.1,
                                 status_interval=0.05)
        await run_until(follower, step)

    assert follower.finished
    # No byte twice, none lost: exactly what was written arrived.
    for job, reader in zip(stage.jobs, follower.followers, strict=True):
        assert reader.stats.payload_bytes == stage.written[job["id"]]
    for job in range(3):
        lines = lines_of(follower, job)
        name = stage.jobs[job]["name"]
        assert [line for line in lines if line.startswith(name)] == [f"{name} line {n}" for n in range(20)]
    for job in (0, 1):
        hostile = [line for line in lines_of(follower, job) if "title" in line]
        assert len(hostile) == 4
        for line in hostile:
            assert ONLY_SGR.sub("", line).isprintable()
            assert "pwned" not in line and "Zm9v" not in line and "\u202e" not in line
    ends = {follower.log.entry(seq).job: follower.log.entry(seq).text
            for seq in range(follower.log.total) if follower.log.entry(seq).note == "end"}
    assert ends[0].startswith("✗ failed after ")
    assert ends[1].startswith("✓ passed after ")
    assert ends[2].startswith("⊘ canceled")
    assert follower.worst_status() == "failed"
    assert follower.log.jobs[0].error_count >= 1
    first_error = follower.log.next_error(-1)
    assert first_error is not None and "rollout of eu failed" in follower.log.entry(first_error).text


async def test_jobs_not_started_are_not_read_until_they_run(
        sim_factory: Callable[..., SimServer], tokens: dict[str, str]) -> None:
    server = sim_factory()
    stage = await Stage(server, tokens["admin"]).create([
        {"name": "deploy-eu", "duration": None}, {"name": "deploy-us", "duration": None}])
    async with ApiClient(server.base_url, Secret(tokens["admin"])) as client:
        follower = MultiFollower(client, stage.followed(), rate=50, min_interval=0.02, max_interval=0.1,
                                 status_interval=0.05)
        task = asyncio.create_task(follower.run())
        await asyncio.sleep(0.5)
        assert [reader.stats.trace_requests for reader in follower.followers] == [0, 0]
        assert {state.status for state in follower.states} <= {"pending", "created"}
        await stage.advance(5)
        await stage.append(0, "hello\n")
        for _ in range(100):
            if lines_of(follower, 0):
                break
            await asyncio.sleep(0.02)
        assert lines_of(follower, 0) == ["hello"]
        await stage.cancel(0)
        await stage.cancel(1)
        await asyncio.wait_for(task, 10)
    assert follower.worst_status() == "canceled"


async def test_a_job_whose_log_stops_is_said_to_end_without_waiting_for_the_status_turn(
        sim_factory: Callable[..., SimServer], tokens: dict[str, str]) -> None:
    """Statuses are read every minute here: the end line (and `labdeck follow`'s exit) still
    comes seconds after the job's log stopped, because a log that went still is asked about."""
    server = sim_factory()
    stage = await Stage(server, tokens["admin"]).create([{"name": "deploy-eu", "duration": 20}])
    await stage.advance(5)
    async with ApiClient(server.base_url, Secret(tokens["admin"])) as client:
        follower = MultiFollower(client, stage.followed(), rate=50, min_interval=0.05, max_interval=0.2,
                                 status_interval=30)
        task = asyncio.create_task(follower.run())
        try:
            for number in range(5):
                await stage.append(0, f"rolling out {number}\n")
                await asyncio.sleep(0.1)
            await stage.advance(60)
            await asyncio.wait_for(asyncio.shield(task), 8)
        finally:
            task.cancel()
    assert follower.finished and follower.states[0].ended
    ends = [follower.log.entry(seq).text for seq in range(follower.log.total) if follower.log.entry(seq).note == "end"]
    assert ends and ends[0].startswith("✓ passed after ")


class CountingTransport(httpx.AsyncBaseTransport):
    """Every request the client sends, when it starts, and the reads of each job under way (until
    its body is closed): what the server sees, not what the budget believes."""

    def __init__(self) -> None:
        self._inner = httpx.AsyncHTTPTransport()
        self.started: list[tuple[float, str]] = []
        self.open: dict[str, int] = {}
        self.most_open: dict[str, int] = {}

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        found = re.search(r"/jobs/(\d+)/trace", request.url.path)
        key = found.group(1) if found else "statuses"
        self.started.append((asyncio.get_running_loop().time(), key))
        self.open[key] = self.open.get(key, 0) + 1
        self.most_open[key] = max(self.most_open.get(key, 0), self.open[key])
        try:
            response = await self._inner.handle_async_request(request)
        except BaseException:
            self.open[key] -= 1
            raise
        return httpx.Response(response.status_code, headers=response.headers, extensions=response.extensions,
                              stream=_Closing(response.stream, lambda: self._closed(key)))

    def _closed(self, key: str) -> None:
        self.open[key] -= 1

    async def aclose(self) -> None:
        await self._inner.aclose()


class _Closing(httpx.AsyncByteStream):
    def __init__(self, inner: Any, closed: Callable[[], None]) -> None:
        self._inner, self._closed, self._done = inner, closed, False

    async def __aiter__(self) -> Any:
        async for chunk in self._inner:
            yield chunk

    async def aclose(self) -> None:
        await self._inner.aclose()
        if not self._done:
            self._done = True
            self._closed()


async def test_twelve_running_jobs_share_one_budget_one_read_each_at_a_time_quiet_ones_less(
        sim_factory: Callable[..., SimServer], tokens: dict[str, str]) -> None:
    """Eleven logs that grow all the time and one that is quiet, followed at a budget of twenty
    requests a second (two in the console, with reads up to 30 s apart for a quiet log: the same
    code, ten times faster): every request the server gets (statuses included) is a turn of the
    budget, turns are a twentieth of a second apart, no job has two reads open at once, and the
    quiet job is read less often than any busy one."""
    server = sim_factory()
    server.state.extra["trace_range"] = True
    for runner in server.state.runners.values():
        runner.concurrent = 30  # every job runs at once
    stage = await Stage(server, tokens["admin"]).create(
        [{"name": f"shard-{number:02d}", "duration": None, "generate_trace": True, "trace_bytes": 100,
          "trace_rate": 2000} for number in range(11)] + [{"name": "quiet", "duration": None}])
    await stage.advance(5)
    await stage.append(11, "one line, then nothing\n")
    counting = CountingTransport()

    async def sim_time_moves() -> None:
        while True:
            await stage.advance(0.1)
            await asyncio.sleep(0.1)

    async with ApiClient(server.base_url, Secret(tokens["admin"]), transport=counting) as client:
        follower = MultiFollower(client, stage.followed(), rate=20, min_interval=0.05, max_interval=3.0,
                                 status_interval=0.5)
        clock = asyncio.create_task(sim_time_moves())
        task = asyncio.create_task(follower.run())
        await asyncio.sleep(8)
        task.cancel()
        clock.cancel()
        await asyncio.gather(task, clock, return_exceptions=True)

    assert {state.status for state in follower.states} == {"running"}
    grants = [moment for moment, _ in follower.budget.grants]
    assert len(grants) >= 100
    assert all(later - earlier >= 0.05 - 1e-6 for earlier, later in zip(grants, grants[1:], strict=False))
    assert any(key[0] == "status" for _, key in follower.budget.grants)  # statuses pay their turns too
    # Nothing reaches the server outside a turn (the last turn may be granted as following stops,
    # before its request is sent).
    assert 0 <= follower.budget.granted - len(counting.started) <= 1
    assert max(counting.most_open.values()) == 1
    # Once its reads have backed off (the last half of the run), the quiet log is read at most half
    # as often as the busiest ones are.
    half = (counting.started[0][0] + counting.started[-1][0]) / 2
    late = [sum(1 for moment, key in counting.started if moment > half and key == str(job["id"]))
            for job in stage.jobs]
    assert 1 <= late[11] and 2 * late[11] <= min(late[:11]), late
