"""Following a running job's trace: bytes on the wire, labdeck's TraceFollower vs glab's loop.

Scenarios (simulator on loopback, manual clock advanced in 0.5 s steps, 60 simulated seconds):

A. a 20 MB log growing 10 KB/s, simulator with ``trace_range`` (206 answers to ``Range``);
B. the same log, simulator without it (like GitLab: the whole log on every read);
C. a quiet 1 MB log (a job waiting on something), without ``trace_range``: 304s count.

Peer: glab ``ci trace`` (docs/wire-facts.md §3.2): every 3 s, GET the job and GET the whole trace, skip
the bytes already printed. Both followers run in the same simulated minute against the same job.
Bytes are counted at the HTTP level (status line + headers + body) by a counting transport, and
split into trace requests and job-status requests.

Targets: A — labdeck's trace bytes after the first read ≤ 1.1x the bytes appended; C — no log
download while unchanged (every later trace poll a 304).
Run standalone: ``.venv/bin/python bench/bench_trace_follow.py``.
"""

from __future__ import annotations

import asyncio
import sys
from collections import Counter
from collections.abc import Callable, Coroutine
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

from labdeck.api import ApiClient
from labdeck.base.secret import Secret
from labdeck.operations.follower import TraceFollower
from labdeck.sim.core.clock import SimClock
from labdeck.sim.dataset.build import DEMO_TOKENS, build_state
from labdeck.sim.dataset.ci import add_benchmark_jobs
from labdeck.sim.server import SimServer

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _report import record

DURATION = 60.0
STEP = 0.5
GLAB_TICK = 3.0


@dataclass
class Tally:
    """Bytes and requests seen by one follower, by kind of request."""

    bytes: Counter[str] = field(default_factory=Counter)
    requests: Counter[str] = field(default_factory=Counter)
    statuses: Counter[int] = field(default_factory=Counter)
    first_trace_bytes: int | None = None


class CountingTransport(httpx.AsyncBaseTransport):
    """Counts what crosses the wire: request line + headers out, status line + headers + body in."""

    def __init__(self, tally: Tally) -> None:
        self.inner = httpx.AsyncHTTPTransport()
        self.tally = tally

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        response = await self.inner.handle_async_request(request)
        body = await response.aread()
        kind = "trace" if request.url.path.endswith("/trace") else "job"
        size = len(body) + 17 + sum(len(k) + len(v) + 4 for k, v in response.headers.raw)
        size += len(request.method) + len(request.url.raw_path) + 12
        size += sum(len(k) + len(v) + 4 for k, v in request.headers.raw)
        self.tally.bytes[kind] += size
        self.tally.requests[kind] += 1
        if kind == "trace":
            self.tally.statuses[response.status_code] += 1
            if self.tally.first_trace_bytes is None:
                self.tally.first_trace_bytes = size
        return httpx.Response(response.status_code, headers=response.headers, content=body,
                              request=request, extensions=response.extensions)

    async def aclose(self) -> None:
        await self.inner.aclose()


class VirtualTime:
    """Simulated seconds shared by the driver, the simulator's clock and both followers."""

    def __init__(self, clock: SimClock) -> None:
        self.now = 0.0
        self.sim_clock = clock
        self._waiters: list[tuple[float, asyncio.Future[None]]] = []
        self.participants = 0
        self._changed = asyncio.Event()

    def leave(self, _task: object = None) -> None:
        """A follower stopped (ended or failed): stop waiting for it to fall asleep."""
        self.participants -= 1
        self._changed.set()

    def clock(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._waiters.append((self.now + max(seconds, 0.0), future))
        self._changed.set()
        await future

    def asleep(self) -> int:
        return sum(1 for _, future in self._waiters if not future.done())

    async def run_until(self, end: float) -> None:
        """Advance in steps; at each step wake the due sleepers and wait until all sleep again."""
        while self.now < end:
            await self._settle()
            self.now += STEP
            self.sim_clock.advance(STEP)
            due = [(t, f) for t, f in self._waiters if t <= self.now + 1e-9]
            self._waiters = [(t, f) for t, f in self._waiters if t > self.now + 1e-9]
            for _, future in due:
                future.set_result(None)
        await self._settle()

    async def _settle(self) -> None:
        while self.asleep() < self.participants:
            self._changed.clear()
            await self._changed.wait()


async def labdeck_follow(url: str, tally: Tally, project_id: int, job_id: int, time: VirtualTime) -> int:
    received = 0
    async with ApiClient(url, Secret(DEMO_TOKENS["admin"]), transport=CountingTransport(tally)) as client:
        async for event in TraceFollower(client, project_id, job_id, sleep=time.sleep, clock=time.clock):
            if event.kind == "data":
                received += len(event.data.encode())
    return received


async def glab_follow(url: str, tally: Tally, project_id: int, job_id: int, time: VirtualTime) -> int:
    """glab's runTrace: every 3 s GET the job, GET the whole trace, print what is past the offset."""
    offset = 0
    headers = {"PRIVATE-TOKEN": DEMO_TOKENS["admin"]}
    async with httpx.AsyncClient(base_url=url + "/api/v4", headers=headers,
                                 transport=CountingTransport(tally)) as http:
        while True:
            job = (await http.get(f"/projects/{project_id}/jobs/{job_id}")).json()
            trace = (await http.get(f"/projects/{project_id}/jobs/{job_id}/trace")).content
            offset = max(offset, len(trace))
            if job["status"] in ("success", "failed", "cancelled"):
                return offset
            await time.sleep(GLAB_TICK)


async def scenario(name: str, *, trace_range: bool, initial: int, rate: float) -> dict[str, Tally]:
    clock = SimClock(mode="manual")
    state = build_state(seed=42, clock=clock)
    state.extra["trace_range"] = trace_range
    if rate:
        job = add_benchmark_jobs(state, ci_huge_trace_bytes=initial, ci_huge_trace_rate=rate)["huge_trace"]
    else:
        # A rate of 0 means "the default rate" to the simulator: a tiny one keeps the log still.
        job = add_benchmark_jobs(state, ci_huge_trace_bytes=initial, ci_huge_trace_rate=0.001)["huge_trace"]
    server = SimServer(state).start()
    time = VirtualTime(clock)
    tallies = {"labdeck": Tally(), "glab": Tally()}
    followers: list[Callable[..., Coroutine[Any, Any, int]]] = [labdeck_follow, glab_follow]
    time.participants = len(followers)
    tasks = [asyncio.create_task(follow(server.base_url, tallies[key], job["project_id"], job["job_id"], time))
             for key, follow in zip(tallies, followers, strict=True)]
    for task in tasks:
        task.add_done_callback(time.leave)
    try:
        await time.run_until(DURATION)
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        server.stop()
    appended = int(rate * DURATION)
    print(f"\n{name}")
    print(f"  log: {initial / 1e6:.1f} MB at start, {appended / 1e3:.0f} KB appended in {DURATION:.0f} s "
          f"(simulator trace_range={'on' if trace_range else 'off'})")
    for key, tally in tallies.items():
        trace_total = tally.bytes["trace"]
        after_first = trace_total - (tally.first_trace_bytes or 0)
        ratio = f", {after_first / appended:.2f}x the appended bytes" if appended else ""
        codes = ", ".join(f"{code}×{count}" for code, count in sorted(tally.statuses.items()))
        print(f"  {key:8s} trace: {tally.requests['trace']:3d} requests ({codes}), {trace_total / 1e6:8.2f} MB "
              f"in all, {after_first / 1e3:9.1f} KB after the first read{ratio}; job status: "
              f"{tally.requests['job']} requests, {tally.bytes['job'] / 1e3:.1f} KB")
    ours, peer = tallies["labdeck"].bytes["trace"], tallies["glab"].bytes["trace"]
    print(f"  labdeck / glab trace bytes: {ours / peer:.3f}x")
    return tallies


async def main() -> int:
    a = await scenario("A. growing 20 MB log, server honours Range", trace_range=True,
                       initial=20_000_000, rate=10_240)
    await scenario("B. growing 20 MB log, server ignores Range (like GitLab)", trace_range=False,
                   initial=20_000_000, rate=10_240)
    c = await scenario("C. quiet 1 MB log, server ignores Range", trace_range=False, initial=1_000_000, rate=0)
    tally = a["labdeck"]
    after_first = tally.bytes["trace"] - (tally.first_trace_bytes or 0)
    verdict_a = after_first <= 1.1 * 10_240 * DURATION
    quiet = c["labdeck"]
    verdict_c = quiet.statuses[200] == 1 and quiet.statuses[304] == quiet.requests["trace"] - 1
    print(f"\ntarget A (≤ 1.1x appended after the first read): {'ok' if verdict_a else 'MISSED'}")
    print(f"target C (no download while unchanged, 304s only): {'ok' if verdict_c else 'MISSED'}")
    record("following a growing 20 MB log (Range): bytes after the first read", "≤ 1.1x appended",
           f"{after_first / (10_240 * DURATION):.2f}x", verdict_a, how="http")
    record("following a quiet log (no Range): downloads while unchanged", "304s only",
           f"{quiet.statuses[200]}×200, {quiet.statuses[304]}×304", verdict_c, how="http")
    return 0


if __name__ == "__main__":
    raise SystemExit(asyncio.run(main()))
