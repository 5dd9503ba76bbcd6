"""The trace viewer of the real console, HEADLESS (Pilot, in this process) against a simulator in
another process.

1. Open the finished trace of a 1,000,000-line job: time to the first screen of text (from pushing
   the screen until the viewer has painted a full screen of log lines), time until the whole log
   is indexed, peak memory (RSS high-water mark) of the console process, then a search for a word
   that is only on the last line (from the top).
   Targets: first screen ≤ 1.0 s, peak RSS ≤ 150 MB, search < 2 s.
2. Follow a running job that writes 20,000 lines per second for a while: lines shown vs lines
   written (the viewer keeps up), and how fast keys are answered meanwhile (event-loop lag and
   key-to-action latency). Target: a key answered within 100 ms.

Peer: Textual's ``RichLog`` fed ``Text.from_ansi`` lines (what most Textual log viewers do), timed
on a slice of the same log and extrapolated.

Run standalone: ``.venv/bin/python bench/bench_trace_view.py [follow_seconds] [--freeze] [-v]``
(``--freeze``: ``gc.freeze()`` right after start-up instead of when the first log opens, which the
console does by itself; ``-v``: list moments the event loop stalled).
"""

from __future__ import annotations

import asyncio
import gc
import multiprocessing
import statistics
import sys
import time
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _report import record

LINES = 1_000_000
PEER_LINES = 10_000
FOLLOW_SECONDS = 6.0
"""How long the job writes 20,000 lines/s while keys are pressed (about 25 keys)."""
FOLLOW_RATE_LINES = 20_000
BYTES_PER_LINE = 50.5  # average line of the simulator's bulk logs
ADMIN = "labdeck-demo-admin-token"


def _serve(conn: Connection, trace_range: bool = False) -> None:
    from labdeck.sim.core.clock import SimClock
    from labdeck.sim.dataset.build import build_state
    from labdeck.sim.dataset.ci import add_benchmark_jobs
    from labdeck.sim.server import SimServer

    state = build_state(seed=42, clock=SimClock(mode="real"))
    state.extra["trace_range"] = trace_range
    made = add_benchmark_jobs(state, ci_million_line_trace=LINES)["million_lines"]
    server = SimServer(state).start()
    # The simulator generates the log on its first read (a real server has it stored already):
    # read it once here, so neither the generation nor the download counts in the console's figures.
    started = time.perf_counter()
    with httpx.Client(base_url=server.base_url, headers={"PRIVATE-TOKEN": ADMIN}, timeout=120) as http:
        http.get(f"/api/v4/projects/{made['project_id']}/jobs/{made['job_id']}/trace").raise_for_status()
    conn.send({"base_url": server.base_url, "sim_generation": time.perf_counter() - started, **made})
    conn.recv()
    server.stop()


def rss_mb(field: str = "VmRSS") -> float:
    """Resident memory of this process (``VmHWM`` = peak) in MB."""
    with open("/proc/self/status", encoding="ascii") as status:
        for line in status:
            if line.startswith(field + ":"):
                return int(line.split()[1]) / 1024
    return float("nan")


async def wait_for(predicate: Any, limit: float = 120.0) -> float:
    """Seconds until ``predicate()`` holds (polling the event loop)."""
    started = time.perf_counter()
    while not predicate():
        if time.perf_counter() - started > limit:
            raise TimeoutError("benchmark step did not finish")
        await asyncio.sleep(0.005)
    return time.perf_counter() - started


async def open_huge_trace(app: Any, pilot: Any, info: dict[str, Any]) -> dict[str, float]:
    from labdeck.ui.screens.jobs.trace import TraceScreen

    figures: dict[str, float] = {"rss_start": rss_mb()}
    job = await app.client.jobs.get(info["project_id"], info["job_id"])
    figures["sim_generation"] = info["sim_generation"]
    started = time.perf_counter()
    screen = TraceScreen(info["project_id"], "bench/project", job)
    painted: list[float] = []
    await app.push_screen(screen)
    view = screen.view
    height = view.scrollable_content_region.height or 30
    render_line = view.render_line

    def watched(y: int) -> Any:
        # The compositor asks for the viewer's lines when it paints them (then writes the frame).
        strip = render_line(y)
        if not painted and view.line_count >= height and y == height - 1 and strip.text.strip():
            painted.append(time.perf_counter())
        return strip

    view.render_line = watched  # type: ignore[method-assign]
    await wait_for(lambda: bool(painted))
    figures["first_screen"] = painted[0] - started
    del view.render_line
    await wait_for(lambda: screen.finished_reading, limit=300)
    figures["indexed"] = time.perf_counter() - started
    figures["lines"] = view.line_count
    await pilot.pause()
    figures["rss_after"] = rss_mb()
    figures["rss_peak"] = rss_mb("VmHWM")

    await pilot.press("home")
    await pilot.press("slash", *"succeeded")
    started = time.perf_counter()
    await pilot.press("enter")
    await wait_for(lambda: view.match_line is not None)
    figures["search_last_line"] = time.perf_counter() - started
    figures["search_found_line"] = view.match_line or -1
    await wait_for(lambda: view.match_total is not None, limit=60)
    figures["match_count_done"] = time.perf_counter() - started
    app.pop_screen()
    await pilot.pause()
    return figures


async def follow_fast_job(app: Any, pilot: Any, base_url: str, project_id: int, seconds: float) -> dict[str, Any]:
    from textual import events

    from labdeck.ui.screens.jobs.trace import TraceScreen

    rate = int(FOLLOW_RATE_LINES * BYTES_PER_LINE)
    async with httpx.AsyncClient(base_url=base_url, headers={"PRIVATE-TOKEN": ADMIN}) as http:
        answer = await http.post(f"/-/sim/projects/{project_id}/pipelines", json={"ref": "main", "stages": [
            {"name": "build", "jobs": [{"name": "firehose", "duration": None, "trace_bytes": 0,
                                        "trace_rate": rate}]}]})
        answer.raise_for_status()
        job_id = answer.json()["jobs"][0]["id"]
        for _ in range(100):
            state = (await http.get(f"/api/v4/projects/{project_id}/jobs/{job_id}")).json()["status"]
            if state == "running":
                break
            await asyncio.sleep(0.05)
        running_since = time.perf_counter()
        job = await app.client.jobs.get(project_id, job_id)
        screen = TraceScreen(project_id, "bench/project", job)
        await app.push_screen(screen)
        view = screen.view

        lags: list[float] = []
        keys: list[float] = []
        behind: list[float] = []
        stop = time.perf_counter() + seconds

        begun = time.perf_counter()
        slow: list[tuple[float, float]] = []

        async def sample_lag() -> None:
            while time.perf_counter() < stop:
                before = time.perf_counter()
                await asyncio.sleep(0.02)
                lags.append(time.perf_counter() - before - 0.02)
                if lags[-1] > 0.05:
                    slow.append((before - begun, lags[-1]))

        sampler = asyncio.create_task(sample_lag())
        while time.perf_counter() < stop:
            await asyncio.sleep(0.25)
            raw_before = view.raw
            pressed = time.perf_counter()
            app.post_message(events.Key("v", "v"))
            await wait_for(lambda raw=raw_before: view.raw != raw, limit=10)
            keys.append(time.perf_counter() - pressed)
            written = (time.perf_counter() - running_since) * FOLLOW_RATE_LINES
            behind.append(max(0.0, written - view.line_count) / FOLLOW_RATE_LINES)
        await sampler
        if "-v" in sys.argv:
            print("slow moments (s since start, lag s):", [(round(a, 2), round(b, 3)) for a, b in slow])
        if view.raw:
            view.set_raw(False)
        shown = view.line_count
        whole = (await http.get(f"/api/v4/projects/{project_id}/jobs/{job_id}/trace", timeout=60)).content
        on_server = whole.count(b"\n")
        server_rate = on_server / max(1e-9, time.perf_counter() - running_since)
        (await http.post(f"/api/v4/projects/{project_id}/jobs/{job_id}/cancel")).raise_for_status()
    lags.sort()
    keys.sort()
    return {
        "lines_shown": shown,
        "lines_on_server": on_server,
        "server_rate": server_rate,
        "behind_median_s": statistics.median(behind) if behind else float("nan"),
        "behind_max_s": max(behind) if behind else float("nan"),
        "lag_p99_ms": lags[int(len(lags) * 0.99) - 1] * 1000 if lags else float("nan"),
        "lag_max_ms": lags[-1] * 1000 if lags else float("nan"),
        "key_median_ms": statistics.median(keys) * 1000 if keys else float("nan"),
        "key_max_ms": keys[-1] * 1000 if keys else float("nan"),
        "keys": len(keys),
        "waits": [round(wait, 2) for wait in (screen.follower.stats.waits if screen.follower else [])],
    }


async def richlog_peer(sample_lines: int) -> dict[str, float]:
    """RichLog.write(Text.from_ansi(line)) for a slice of the same log."""
    from rich.text import Text
    from textual.app import App, ComposeResult
    from textual.widgets import RichLog

    from labdeck.logtext.sanitize import sanitize
    from labdeck.sim.ci.traces import BulkTrace

    lines = sanitize(BulkTrace(started_unix=1_700_000_000, lines=sample_lines).read(0.0).decode()).splitlines()

    class Peer(App[None]):
        def compose(self) -> ComposeResult:
            yield RichLog(max_lines=None)

    app = Peer()
    before = rss_mb()
    async with app.run_test(size=(120, 40)) as pilot:
        log = app.query_one(RichLog)
        started = time.perf_counter()
        for line in lines:
            log.write(Text.from_ansi(line))
        await pilot.pause()
        elapsed = time.perf_counter() - started
        after = rss_mb()
    return {"lines": len(lines), "seconds": elapsed, "rss_growth_mb": after - before}


class SimInProcess:
    """A simulator (real clock) in a child process, so the console's figures are its own."""

    def __init__(self, trace_range: bool) -> None:
        context = multiprocessing.get_context("spawn")
        self._conn, child = context.Pipe()
        self._process = context.Process(target=_serve, args=(child, trace_range), daemon=True)

    def __enter__(self) -> dict[str, Any]:
        self._process.start()
        info: dict[str, Any] = self._conn.recv()
        return info

    def __exit__(self, *exc: object) -> None:
        self._conn.send("stop")
        self._process.join(timeout=10)


async def console_run(info: dict[str, Any], follow_seconds: float, *, huge: bool) -> dict[str, Any]:
    from labdeck.base.secret import Secret
    from labdeck.base.session import Session
    from labdeck.ui.app import LabdeckApp

    session = Session(info["base_url"], Secret(ADMIN), profile="bench")
    app = LabdeckApp(session)
    app.freeze_loaded_data = True  # as labdeck.ui.app.run_console sets it for the real executable
    results: dict[str, Any] = {}
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause(0.5)
        if "--freeze" in sys.argv:
            # What the console's start-up could do: move the long-lived start-up objects out
            # of the collector's way, so full collections (pauses) only walk new objects.
            gc.collect()
            gc.freeze()
        if huge:
            results["huge"] = await open_huge_trace(app, pilot, info)
        results["follow"] = await follow_fast_job(app, pilot, info["base_url"], info["project_id"], follow_seconds)
    return results


async def main(follow_seconds: float) -> None:
    with SimInProcess(trace_range=False) as info:
        gitlab_like = await console_run(info, follow_seconds, huge=True)
    with SimInProcess(trace_range=True) as info:
        ranged = await console_run(info, follow_seconds, huge=False)
    huge = gitlab_like["huge"]
    peer = await richlog_peer(PEER_LINES)

    def verdict(ok: bool) -> str:
        return "ok" if ok else "MISSED"

    print(f"1. finished trace of {int(huge['lines']):,} lines ({LINES * BYTES_PER_LINE / 1e6:.0f} MB)")
    print(f"   (the simulator generated it in {huge['sim_generation']:.2f} s before timing)")
    print(f"   first screen of text:        {huge['first_screen']:.2f} s   (target ≤ 1.0 s: "
          f"{verdict(huge['first_screen'] <= 1.0)})")
    print(f"   whole log indexed:           {huge['indexed']:.2f} s   (the view is usable meanwhile)")
    print(f"   console RSS: start {huge['rss_start']:.0f} MB, after {huge['rss_after']:.0f} MB, "
          f"peak {huge['rss_peak']:.0f} MB   (target ≤ 150 MB: {verdict(huge['rss_peak'] <= 150)})")
    print(f"   search 'succeeded' from the top → line {int(huge['search_found_line']) + 1:,}: "
          f"{huge['search_last_line']:.2f} s   (target < 2 s: {verdict(huge['search_last_line'] < 2)}); "
          f"match count ready after {huge['match_count_done']:.2f} s")
    for title, follow in (("server ignores Range, as GitLab does: the whole log on every poll",
                           gitlab_like["follow"]),
                          ("server honours Range: only the new bytes", ranged["follow"])):
        print(f"2. following a job writing {FOLLOW_RATE_LINES:,} lines/s for {follow_seconds:.0f} s; {title}")
        print(f"   lines written by the job: {int(follow['lines_on_server']):,} (≈ {follow['server_rate']:,.0f}/s); "
              f"shown at the end: {int(follow['lines_shown']):,} "
              f"({(follow['lines_on_server'] - follow['lines_shown']) / max(1, follow['server_rate']):.1f} s behind)")
        print(f"   waits between polls (TraceFollower): {follow['waits']}")
        print(f"   key → action ({int(follow['keys'])} keys): median {follow['key_median_ms']:.0f} ms, "
              f"max {follow['key_max_ms']:.0f} ms   (target < 100 ms: {verdict(follow['key_max_ms'] < 100)})")
        print(f"   event-loop lag: p99 {follow['lag_p99_ms']:.0f} ms, max {follow['lag_max_ms']:.0f} ms")
    per_line_peer = peer["seconds"] / peer["lines"]
    extrapolated = per_line_peer * LINES
    print(f"peer RichLog + Text.from_ansi on {int(peer['lines']):,} lines: {peer['seconds']:.2f} s, "
          f"+{peer['rss_growth_mb']:.0f} MB RSS → 1,000,000 lines ≈ {extrapolated:.0f} s and "
          f"≈ {peer['rss_growth_mb'] * LINES / peer['lines']:.0f} MB")
    print(f"   ratio (labdeck / peer): time to whole log {huge['indexed'] / extrapolated:.2f}x, "
          f"first screen {huge['first_screen'] / extrapolated:.3f}x, memory growth "
          f"{(huge['rss_after'] - huge['rss_start']) / (peer['rss_growth_mb'] * LINES / peer['lines']):.2f}x")
    record("1,000,000-line log: first screen", "≤ 1.0 s", f"{huge['first_screen']:.2f} s",
           huge["first_screen"] <= 1.0, how="headless", note=f"whole log indexed {huge['indexed']:.1f} s")
    record("1,000,000-line log: peak RSS", "≤ 150 MB", f"{huge['rss_peak']:.0f} MB", huge["rss_peak"] <= 150,
           how="headless", note=f"start {huge['rss_start']:.0f} MB, after {huge['rss_after']:.0f} MB")
    record("1,000,000-line log: search to last line", "< 2 s", f"{huge['search_last_line']:.2f} s",
           huge["search_last_line"] < 2, how="headless")
    for title, follow in (("GitLab-like", gitlab_like["follow"]), ("Range", ranged["follow"])):
        record(f"following 20,000 lines/s ({title}): key → action, max", "< 100 ms",
               f"{follow['key_max_ms']:.0f} ms", follow["key_max_ms"] < 100, how="headless",
               note=f"median {follow['key_median_ms']:.0f} ms, loop lag max {follow['lag_max_ms']:.0f} ms")
    record(f"peer: RichLog + Text.from_ansi, 1,000,000 lines (from {int(peer['lines']):,})", "—",
           f"≈ {extrapolated:.0f} s, ≈ {peer['rss_growth_mb'] * LINES / peer['lines']:.0f} MB", None, how="headless")


if __name__ == "__main__":
    numbers = [arg for arg in sys.argv[1:] if not arg.startswith("-")]
    asyncio.run(main(float(numbers[0]) if numbers else FOLLOW_SECONDS))
