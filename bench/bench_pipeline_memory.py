"""Memory of the pipeline view: does closing a big pipeline give its memory back (issue 29,
point 6)? HEADLESS (Pilot, in this process) against a simulator in another process: four
5,000-job pipelines (4,000 tests, the first 40 failing, 1,000 deploys) are opened one after the
other as ``enter`` on a board row opens them, read completely, then closed. Figures: the
console's RSS before, with the four opened (each closed before the next opens), and after the
last is closed and a full collection ("before" once the console has settled: its RSS moved by
less than 0.5 MB over 5 s); the target is that it comes back to within 25 MB of
where it started (before this change: 171 → 345 MB in a real console, and it stayed there).

    .venv/bin/python bench/bench_pipeline_memory.py
"""

from __future__ import annotations

import asyncio
import gc
import multiprocessing
import sys
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _report import record

ADMIN = "labdeck-demo-admin-token"  # the simulator's documented demo token, not a secret
PROJECT_ID = 7
PROJECT_PATH = "platform/audit-log"
PIPELINES = 4
TARGET_MB = 25.0


def _serve(conn: Connection) -> None:
    import httpx

    from labdeck.sim.ci.engine import store
    from labdeck.sim.core.clock import SimClock
    from labdeck.sim.dataset.build import build_state
    from labdeck.sim.server import SimServer

    state = build_state(seed=42, clock=SimClock(mode="manual"), dialect="gitlab")
    store(state).next_pipeline_at = None
    server = SimServer(state).start()
    headers = {"PRIVATE-TOKEN": ADMIN}
    stages = [{"name": "test", "jobs": [{"name": "unit", "count": 4000, "fail": list(range(1, 41)), "duration": 5}]},
              {"name": "deploy", "jobs": [{"name": "deploy", "count": 1000, "duration": 5}]}]
    ids = []
    for _ in range(PIPELINES):
        created = httpx.post(f"{server.base_url}/-/sim/projects/{PROJECT_ID}/pipelines", headers=headers,
                             json={"ref": "main", "stages": stages}, timeout=120)
        created.raise_for_status()
        ids.append(int(created.json()["id"]))
    httpx.post(f"{server.base_url}/-/sim/clock/advance?seconds=14400", headers=headers, timeout=300).raise_for_status()
    conn.send({"base_url": server.base_url, "pipeline_ids": ids})
    conn.recv()
    server.stop()


def rss_mb() -> float:
    """This process's resident set, in MB (Linux)."""
    with open("/proc/self/statm", encoding="ascii") as handle:
        pages = int(handle.read().split()[1])
    import os

    return pages * os.sysconf("SC_PAGE_SIZE") / 1e6


def pymalloc_mb() -> tuple[float, float]:
    """Python's small-object allocator: (MB of its arenas, MB of blocks in use in them), read from
    ``sys._debugmallocstats`` (written to the C stderr, caught through a pipe). An arena goes back
    to the system only once every block in it is free: the difference is memory held by a few
    live blocks scattered over otherwise empty arenas (fragmentation), not by live objects."""
    import os

    read, write = os.pipe()
    saved = os.dup(2)
    try:
        os.dup2(write, 2)
        sys._debugmallocstats()
    finally:
        os.dup2(saved, 2)
        os.close(write)
        os.close(saved)
    chunks = []
    while chunk := os.read(read, 1 << 16):
        chunks.append(chunk)
    os.close(read)
    found: dict[str, float] = {}
    for line in b"".join(chunks).decode("ascii", "replace").splitlines():
        name, _, value = line.partition("=")
        if name.strip() in ("# arenas allocated current", "# bytes in allocated blocks"):
            found[name.strip()] = float(value.strip().replace(",", ""))
    return found.get("# arenas allocated current", 0.0) * 1048576 / 1e6, found.get("# bytes in allocated blocks", 0.0) / 1e6


def every_object() -> list[Any]:
    """Every object the collector tracks, frozen ones included (``gc.get_objects`` leaves out what
    the console froze, and closing a big view freezes what is alive again)."""
    gc.unfreeze()
    try:
        return gc.get_objects()
    finally:
        gc.freeze()


async def measure(info: dict[str, Any]) -> dict[str, Any]:
    """RSS before, at the peak (a pipeline open), and after the last one closed."""
    from labdeck.base.secret import Secret
    from labdeck.base.session import Session
    from labdeck.ui.app import LabdeckApp
    from labdeck.ui.screens.pipeline.screen import PipelineScreen

    session = Session(info["base_url"], Secret(ADMIN), profile="bench")
    app = LabdeckApp(session)
    figures: dict[str, Any] = {}
    async with app.run_test(size=(120, 40)) as pilot:
        # Before: once the console has settled (its first screen's listing and CI reads take
        # ~10 s and ~9 MB; taken at 1 s, as before, they were counted against the pipelines).
        settled = rss_mb()
        for _ in range(24):
            await pilot.pause(5.0)
            now = rss_mb()
            if abs(now - settled) < 0.5:
                break
            settled = now
        gc.collect()
        figures["before"] = rss_mb()
        figures["jobs_before"] = sum(1 for thing in every_object() if type(thing).__name__ == "Job")
        figures["blocks_before"] = sys.getallocatedblocks() / 1e6
        figures["arenas_before"], figures["live_before"] = pymalloc_mb()
        peak = 0.0
        for pipeline_id in info["pipeline_ids"]:
            app.open_pipeline(PROJECT_ID, PROJECT_PATH, pipeline_id)
            await pilot.pause()
            screen = app.screen
            assert isinstance(screen, PipelineScreen)
            for _ in range(12000):  # 60 s at most
                if screen.complete:
                    break
                await pilot.pause(0.005)
            assert screen.complete and len(screen.jobs) >= 5000, len(screen.jobs)
            peak = max(peak, rss_mb())
            del screen
            await pilot.press("escape")
            await pilot.pause(0.3)
        figures["peak"] = peak
        await pilot.pause(1.0)
        gc.collect()
        figures["after"] = rss_mb()
        from labdeck.ui.collector import give_back

        give_back()  # what the view's close already asked for, once more after the last one
        figures["trimmed"] = rss_mb()
        figures["arenas_after"], figures["live_after"] = pymalloc_mb()
        holders: dict[str, int] = {}
        for thing in every_object():
            if type(thing).__name__ == "Job":
                for referrer in gc.get_referrers(thing)[:3]:
                    name = type(referrer).__name__
                    holders[name] = holders.get(name, 0) + 1
        figures["holders"] = holders  # type: ignore[assignment]
        figures["jobs_after"] = sum(1 for thing in every_object() if type(thing).__name__ == "Job")
        figures["blocks_after"] = sys.getallocatedblocks() / 1e6
    return figures


def main() -> None:
    context = multiprocessing.get_context("spawn")
    conn, child = context.Pipe()
    process = context.Process(target=_serve, args=(child,), daemon=True)
    process.start()
    try:
        info: dict[str, Any] = conn.recv()
        figures = asyncio.run(measure(info))
    finally:
        conn.send("stop")
        process.join(timeout=10)
    kept = figures["after"] - figures["before"]
    print(f"pipeline view memory: before {figures['before']:.0f} MB, peak {figures['peak']:.0f} MB with a "
          f"5,000-job pipeline open, after closing {PIPELINES} of them {figures['after']:.0f} MB "
          f"(+{kept:.0f} MB kept); Job objects alive {figures['jobs_before']:.0f} → {figures['jobs_after']:.0f}, "
          f"Python blocks {figures['blocks_before']:.2f} M → {figures['blocks_after']:.2f} M; "
          f"after malloc_trim {figures['trimmed']:.0f} MB; Job objects held by {figures['holders']}")
    print(f"of which Python's small-object arenas {figures['arenas_before']:.0f} → {figures['arenas_after']:.0f} MB, "
          f"blocks in use in them {figures['live_before']:.1f} → {figures['live_after']:.1f} MB (the rest of the "
          "arenas' growth is free space held by scattered live blocks)")
    record(f"RSS kept after closing {PIPELINES} 5,000-job pipelines", f"≤ {TARGET_MB:.0f} MB",
           f"+{kept:.0f} MB", kept <= TARGET_MB, how="headless, RSS of this process",
           note=f"before {figures['before']:.0f} MB, peak {figures['peak']:.0f} MB, after {figures['after']:.0f} MB; "
                f"Job objects alive after: {figures['jobs_after']:.0f}; pymalloc arenas {figures['arenas_before']:.0f}"
                f"→{figures['arenas_after']:.0f} MB, in use {figures['live_before']:.0f}→{figures['live_after']:.0f} MB")


if __name__ == "__main__":
    main()
