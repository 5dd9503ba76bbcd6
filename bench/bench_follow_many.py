"""Following many jobs at once (``F``), HEADLESS (Pilot, in this process) against a simulator in
another process (real clock, ``trace_range`` on: 206 answers to ``Range``).

Thirteen jobs each write 200 lines a second (bulk logs, ~50 bytes a line) for ``SECONDS`` (60 s by
default). The console follows twelve of them in the merged view (``FollowScreen``) and, in the same
run, the thirteenth in the single log viewer (``TraceScreen``, under it in the screen stack: it keeps
following). Measured:

- requests a second of the merged view (logs and statuses): on average and at most in any one
  second (target ≤ 2 in all), and at most one read of a job in flight (the budget's count);
- bytes received (response bodies + headers, counted by an httpx event hook on the app's client)
  versus bytes the twelve jobs wrote (target ≤ 1.05×); the single viewer's figures beside;
- key → action while following (``p``/``f`` alternately, every 0.25 s; target ≤ 50 ms max);
- RSS of the console process at the end.

Run standalone: ``.venv/bin/python bench/bench_follow_many.py [seconds] [--no-memory]`` (``--no-memory``:
the following run alone, without the merged log's memory figure).
"""

from __future__ import annotations

import asyncio
import multiprocessing
import os
import statistics
import sys
import time
from collections import Counter
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _report import record

SECONDS = 60.0
JOBS = 12
LINES_PER_SECOND = 200
BYTES_PER_LINE = 50.5  # average line of the simulator's bulk logs
ADMIN = "labdeck-demo-admin-token"
PROJECT = 1


def _serve(conn: Connection) -> None:
    from labdeck.sim.core.clock import SimClock
    from labdeck.sim.dataset.build import build_state
    from labdeck.sim.server import SimServer

    state = build_state(seed=42, clock=SimClock(mode="real"))
    state.extra["trace_range"] = True
    for runner in state.runners.values():
        runner.concurrent = 30
    server = SimServer(state).start()
    conn.send({"base_url": server.base_url})
    conn.recv()
    server.stop()


def rss_mb(field: str = "VmRSS") -> float:
    """Resident memory of this process (``VmHWM`` = peak) in MB."""
    with open("/proc/self/status", encoding="ascii") as status:
        for line in status:
            if line.startswith(field + ":"):
                return int(line.split()[1]) / 1024
    return float("nan")


class Wire:
    """Bytes and requests of the merged view on the app's client, by kind: ``trace`` (the logs of
    the followed jobs) or ``status`` (the reads of their pipeline's jobs). The rest of the console
    (the single viewer beside it, the board's poller) is left out."""

    def __init__(self) -> None:
        self.headers: Counter[str] = Counter()
        self.bodies: Counter[str] = Counter()
        self.requests: Counter[str] = Counter()
        self.times: list[float] = []
        self.traces: set[str] = set()

    async def on_response(self, response: httpx.Response) -> None:
        path = response.request.url.path
        if path.endswith("/trace") and path in self.traces:
            kind = "trace"
        elif "/pipelines/" in path and path.endswith("/jobs"):
            kind = "status"
        else:
            return
        self.requests[kind] += 1
        self.times.append(time.perf_counter())
        size = 17 + sum(len(k) + len(v) + 4 for k, v in response.headers.raw)
        self.headers[kind] += size
        if kind == "status":
            self.bodies[kind] += int(response.headers.get("content-length") or 0)


async def make_jobs(http: httpx.AsyncClient) -> list[int]:
    rate = int(LINES_PER_SECOND * BYTES_PER_LINE)
    answer = await http.post(f"/-/sim/projects/{PROJECT}/pipelines", json={"ref": "main", "stages": [
        {"name": "test", "jobs": [{"name": f"shard-{number:02d}", "duration": None, "trace_bytes": 0,
                                   "trace_rate": rate} for number in range(1, JOBS + 2)]}]})
    answer.raise_for_status()
    ids = [job["id"] for job in answer.json()["jobs"]]
    for _ in range(200):
        statuses = [(await http.get(f"/api/v4/projects/{PROJECT}/jobs/{job_id}")).json()["status"] for job_id in ids]
        if all(status == "running" for status in statuses):
            break
        await asyncio.sleep(0.05)
    return ids


async def console_run(base_url: str, seconds: float) -> dict[str, Any]:
    from textual import events

    from labdeck.base.secret import Secret
    from labdeck.base.session import Session
    from labdeck.ui.app import LabdeckApp
    from labdeck.ui.screens.follow.screen import FollowScreen
    from labdeck.ui.screens.jobs.trace import TraceScreen

    session = Session(base_url, Secret(ADMIN), profile="bench")
    app = LabdeckApp(session)
    app.freeze_loaded_data = True
    wire = Wire()
    figures: dict[str, Any] = {}
    async with app.run_test(size=(120, 40)) as pilot, \
            httpx.AsyncClient(base_url=base_url, headers={"PRIVATE-TOKEN": ADMIN}, timeout=60) as http:
        await pilot.pause(0.5)
        ids = await make_jobs(http)
        started = time.perf_counter()
        jobs = [await app.client.jobs.get(PROJECT, job_id) for job_id in ids]
        wire.traces = {f"/api/v4/projects/{PROJECT}/jobs/{job_id}/trace" for job_id in ids[:JOBS]}
        app.client.http.event_hooks["response"].append(wire.on_response)
        single = TraceScreen(PROJECT, "bench/project", jobs[-1])
        await app.push_screen(single)
        follow = FollowScreen(PROJECT, "bench/project", jobs[:JOBS], title="shards")
        await app.push_screen(follow)
        rss_start = rss_mb()
        keys: list[float] = []
        keys_cpu: list[float] = []
        moments: list[float] = []
        load_start = os.getloadavg()[0]
        stop = started + seconds
        while time.perf_counter() < stop:
            await asyncio.sleep(0.25)
            view = follow.view
            before = view.following
            pressed = time.perf_counter()
            pressed_cpu = time.thread_time()
            moments.append(pressed)
            app.post_message(events.Key("p" if before else "f", "p" if before else "f"))
            for _ in range(5000):
                if view.following != before:
                    break
                await asyncio.sleep(0.001)
            keys.append(time.perf_counter() - pressed)
            # The event loop's own work while the key waited (this thread's CPU time): on a
            # machine shared with other busy processes, the wall time also holds the time the
            # process waited for a core.
            keys_cpu.append(time.thread_time() - pressed_cpu)
            if "-v" in sys.argv and keys[-1] > 0.05:
                print(f"slow key at {pressed - started:.1f} s: {keys[-1] * 1000:.0f} ms", flush=True)
        follow.view.resume()
        elapsed = time.perf_counter() - started
        # Stop every job: the followers make their last read, then stop reading.
        for job_id in ids:
            (await http.post(f"/api/v4/projects/{PROJECT}/jobs/{job_id}/cancel")).raise_for_status()
        for _ in range(600):
            if follow.follower.finished and single.finished_reading:
                break
            await asyncio.sleep(0.1)
        written = [len((await http.get(f"/api/v4/projects/{PROJECT}/jobs/{job_id}/trace")).content) for job_id in ids]
        multi = follow.follower
        grants = [moment for moment, _key in multi.budget.grants]
        window = [moment for moment in grants if moment - grants[0] < elapsed] if grants else []
        per_second = Counter(int(moment - grants[0]) for moment in grants)
        trace_received = multi.payload_bytes
        single_follower = single.follower
        figures = {
            "elapsed": elapsed,
            "requests": multi.requests,
            "requests_per_s": len(window) / elapsed,
            "max_in_a_second": max(per_second.values(), default=0),
            "written": sum(written[:JOBS]),
            "payload": trace_received,
            "received": trace_received + wire.headers["trace"] + wire.headers["status"] + wire.bodies["status"],
            "status_bytes": wire.headers["status"] + wire.bodies["status"],
            "finished": multi.finished,
            "single_requests": (single_follower.stats.trace_requests + single_follower.stats.job_requests)
            if single_follower else 0,
            "single_payload": single_follower.stats.payload_bytes if single_follower else 0,
            "single_written": written[JOBS],
            "keys": sorted(keys),
            "keys_cpu": sorted(keys_cpu),
            "key_times": [(moment - started, wall, cpu) for moment, wall, cpu in zip(moments, keys, keys_cpu, strict=True)],
            "load": (load_start, os.getloadavg()[0]),
            "rss_start": rss_start,
            "rss_end": rss_mb(),
            "rss_peak": rss_mb("VmHWM"),
            "lines": multi.log.total,
        }
    return figures


def _memory(conn: Connection, jobs: int, lines: int) -> None:
    """In a fresh process: the merged log of ``jobs`` jobs × ``lines`` lines each, fed as reads of
    about a thousand lines arrive (interleaved), then the peak RSS."""
    from labdeck.operations.following.merged import MergedLog

    before = rss_mb()
    log = MergedLog([f"shard-{number:02d}" for number in range(jobs)])
    chunk = 1000
    for start in range(0, lines, chunk):
        for job in range(jobs):
            log.feed(job, "".join(f"tests/test_mod.py::test_{job}_{number:07d} \x1b[32mPASSED\x1b[0m\n"
                                  for number in range(start, start + chunk)))
    conn.send({"before": before, "after": rss_mb(), "peak": rss_mb("VmHWM"), "total": log.total,
               "kept": len(log), "dropped": log.dropped})
    log.close()


def memory(jobs: int = JOBS, lines: int = 100_000) -> dict[str, Any]:
    """:func:`_memory` in a child process (its RSS is the merged log's alone, plus Python)."""
    context = multiprocessing.get_context("spawn")
    mine, child = context.Pipe()
    process = context.Process(target=_memory, args=(child, jobs, lines), daemon=True)
    process.start()
    figures: dict[str, Any] = mine.recv()
    process.join(timeout=30)
    return figures


def percentile(values: list[float], share: float) -> float:
    """The value below which ``share`` % of the sorted ``values`` lie (nearest rank)."""
    if not values:
        return float("nan")
    return values[min(len(values) - 1, max(0, round(share / 100 * len(values)) - 1))]


class SimInProcess:
    def __init__(self) -> None:
        context = multiprocessing.get_context("spawn")
        self._conn, child = context.Pipe()
        self._process = context.Process(target=_serve, args=(child,), daemon=True)

    def __enter__(self) -> dict[str, Any]:
        self._process.start()
        info: dict[str, Any] = self._conn.recv()
        return info

    def __exit__(self, *exc: object) -> None:
        self._conn.send("stop")
        self._process.join(timeout=10)


def main(seconds: float) -> None:
    if "--no-memory" not in sys.argv:  # the merged view's run alone (repeated runs of it)
        library_memory()
    with SimInProcess() as info:
        figures = asyncio.run(console_run(info["base_url"], seconds))
    report(figures)


def library_memory() -> None:
    """The merged log of twelve jobs × 100,000 lines: peak RSS."""
    held = memory()
    print(f"{JOBS} jobs × 100,000 lines in the merged log (library): RSS {held['before']:.0f} MB before, "
          f"{held['after']:.0f} MB after, peak {held['peak']:.0f} MB (target < 250 MB: "
          f"{'ok' if held['peak'] < 250 else 'MISSED'}); {held['kept']:,} lines addressable, "
          f"{held['dropped']:,} left the window")
    record(f"F: {JOBS} jobs × 100,000 lines, peak RSS", "< 250 MB", f"{held['peak']:.0f} MB", held["peak"] < 250,
           how="library", note=f"{held['kept']:,} lines addressable, {held['dropped']:,} dropped with a note")


def report(figures: dict[str, Any]) -> None:
    """Print and record the merged view's figures."""
    keys = figures["keys"]
    ratio = figures["received"] / max(1, figures["written"])
    single_ratio = figures["single_payload"] / max(1, figures["single_written"])
    key_max = keys[-1] * 1000 if keys else float("nan")
    key_median = statistics.median(keys) * 1000 if keys else float("nan")
    key_p95, key_p99 = percentile(keys, 95) * 1000, percentile(keys, 99) * 1000
    cpu = figures["keys_cpu"]
    ok = lambda met: "ok" if met else "MISSED"  # noqa: E731
    print(f"{JOBS} jobs × {LINES_PER_SECOND} lines/s for {figures['elapsed']:.0f} s, merged view (F), Range honoured")
    print(f"  lines in the view: {figures['lines']:,}; every job followed to its end: {figures['finished']}")
    print(f"  requests: {figures['requests']} in all ({figures['requests_per_s']:.2f}/s on average while following, at most "
          f"{figures['max_in_a_second']} in any one second; target ≤ 2/s: {ok(figures['max_in_a_second'] <= 2)})")
    print(f"  bytes written by the jobs: {figures['written'] / 1e6:.2f} MB; log bytes received "
          f"{figures['payload'] / 1e6:.2f} MB; all bytes received (bodies + headers, statuses included) "
          f"{figures['received'] / 1e6:.2f} MB = {ratio:.3f}× (target ≤ 1.05×: {ok(ratio <= 1.05)}); "
          f"statuses {figures['status_bytes'] / 1e3:.0f} KB")
    print(f"  key → action ({len(keys)} keys): median {key_median:.1f} ms, p95 {key_p95:.1f} ms, p99 {key_p99:.1f} ms, "
          f"max {key_max:.1f} ms (target ≤ 50 ms: {ok(key_max <= 50)}); the event loop's CPU time while a key "
          f"waited: median {percentile(cpu, 50) * 1000:.1f} ms, max {percentile(cpu, 100) * 1000:.1f} ms; "
          f"load average {figures['load'][0]:.1f} → {figures['load'][1]:.1f} on {os.cpu_count()} cores")
    print(f"  console RSS: {figures['rss_start']:.0f} MB at start of following, {figures['rss_end']:.0f} MB at the end, "
          f"peak {figures['rss_peak']:.0f} MB")
    print(f"beside it, the single log viewer following one such job: {figures['single_requests']} requests "
          f"({figures['single_requests'] / figures['elapsed']:.2f}/s), log bytes {single_ratio:.3f}× what it wrote")
    record(f"F: {JOBS} jobs × {LINES_PER_SECOND} lines/s, requests in any second", "≤ 2",
           f"{figures['max_in_a_second']} (avg {figures['requests_per_s']:.2f}/s)", figures["max_in_a_second"] <= 2,
           how="headless", note=f"single viewer beside: {figures['single_requests'] / figures['elapsed']:.2f}/s")
    record(f"F: {JOBS} jobs, bytes received / written", "≤ 1.05×", f"{ratio:.3f}×", ratio <= 1.05, how="headless",
           note=f"log bytes {figures['payload'] / max(1, figures['written']):.3f}×; single viewer {single_ratio:.3f}×")
    record(f"F: {JOBS} jobs following, key → action max", "≤ 50 ms", f"{key_max:.1f} ms", key_max <= 50,
           how="headless", note=f"median {key_median:.1f} ms, p95 {key_p95:.1f} ms, p99 {key_p99:.1f} ms, "
           f"{len(keys)} keys; loop CPU while waiting max {percentile(cpu, 100) * 1000:.1f} ms; "
           f"load {figures['load'][0]:.1f}")
    record(f"F: {JOBS} jobs following, console RSS", "—", f"{figures['rss_end']:.0f} MB", None, how="headless",
           note=f"peak {figures['rss_peak']:.0f} MB")


if __name__ == "__main__":
    numbers = [argument for argument in sys.argv[1:] if not argument.startswith("-")]
    main(float(numbers[0]) if numbers else SECONDS)
