"""The on-call board's poller on 300 projects: detection latency of new failures and requests per
minute while nothing changes, labdeck's shared poller vs the naive way (every watched project's
jobs every 10 s), measured in the same run against the same simulator.

- The simulator (300 projects, seed 42, ``latency=100`` ms per request) runs in its own process on
  a manual clock that this script moves forward with the wall clock (every 0.2 s), so a job's
  ``finished_at`` says exactly when its failure became visible on the server. Its own pipeline
  generator is off and two hours are played first: the warm-up jobs have finished, only the demo's
  stuck jobs are left waiting. Nothing changes until this script pushes pipelines.
- Each poller runs in its own process (so each one's CPU time is its own), watching all 300
  projects: labdeck's ``BoardPoller`` with its default settings, and the naive poller (8 requests
  in flight, every project's first page of jobs every 10 s).
- Phases: start-up (first reads), idle (nothing changes: requests/min and CPU), failures (a
  pipeline whose only job fails after 5–8 s is pushed every 2 s to a random project; latency =
  when the board first shows the failed job − when it failed on the server).

The console's CPU (the UI on top of the poller) is not measured here: the number below is the
poller's own process, headless.

    .venv/bin/python bench/bench_board.py [--startup 11] [--idle 60] [--pushes 8]
"""

from __future__ import annotations

import argparse
import asyncio
import bisect
import contextlib
import multiprocessing
import os
import random
import sys
import threading
import time
from datetime import datetime
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _board_big
from _board_big import percentile

from labdeck.sim.dataset.build import DEMO_TOKENS

TOKEN = DEMO_TOKENS["admin"]
PROJECTS = 300
NAIVE_PERIOD = 10.0
NAIVE_IN_FLIGHT = 8
PUSH_EVERY = 2.0
TAIL = 60.0
"""Seconds after the last push before the pollers stop."""


# --- the simulator process ---------------------------------------------------------------------------


def _serve(conn: Connection) -> None:
    from datetime import UTC, datetime, timedelta

    from labdeck.sim.ci.engine import store
    from labdeck.sim.core.clock import SimClock
    from labdeck.sim.core.faults import FaultConfig, set_config
    from labdeck.sim.dataset.build import build_state
    from labdeck.sim.server import SimServer

    settle = timedelta(hours=2)
    clock = SimClock(mode="manual", start=datetime.now(UTC) - settle)
    state = build_state(seed=42, clock=clock, projects=PROJECTS)
    store(state).next_pipeline_at = None  # only this benchmark pushes pipelines
    clock.advance(settle.total_seconds() + (datetime.now(UTC) - clock.now()).total_seconds())
    state.tick()
    set_config(state, FaultConfig.parse("latency=100"))
    server = SimServer(state).start()
    archived = {p.id for p in state.projects.values() if p.archived}
    conn.send({"base_url": server.base_url, "ids": sorted(state.projects), "archived": sorted(archived)})
    conn.recv()
    server.stop()


class ClockDriver(threading.Thread):
    """Moves the simulator's clock along with the wall clock; logs (wall, simulated) after each move."""

    def __init__(self, base_url: str) -> None:
        super().__init__(daemon=True)
        self.client = httpx.Client(base_url=base_url, headers={"PRIVATE-TOKEN": TOKEN}, timeout=10)
        self.walls: list[float] = []
        self.sims: list[float] = []
        self.stopping = threading.Event()

    def run(self) -> None:
        sim_now = datetime.fromisoformat(self.client.get("/-/sim/clock").json()["now"].replace("Z", "+00:00"))
        last = time.time()
        offset = sim_now.timestamp() - last
        while not self.stopping.wait(0.2):
            wall = time.time()
            # Keep simulated time = wall time + the offset at start (never backwards).
            target = wall + offset
            step = max(0.0, target - sim_now.timestamp())
            answer = self.client.post("/-/sim/clock/advance", params={"seconds": f"{step:.3f}"}).json()
            sim_now = datetime.fromisoformat(answer["now"].replace("Z", "+00:00"))
            self.walls.append(time.time())
            self.sims.append(sim_now.timestamp())

    def visible_at(self, sim_moment: float) -> float | None:
        """Wall time of the first clock move after which ``sim_moment`` had passed on the server."""
        index = bisect.bisect_left(self.sims, sim_moment)
        return self.walls[index] if index < len(self.walls) else None


# --- the pollers (each in its own process) --------------------------------------------------------------


def _failed_jobs(rows: Any) -> list[int]:
    return [job.id for row in rows for job in row.jobs if job.status == "failed" and not job.allow_failure]


def _poller_process(kind: str, base_url: str, ids: list[int], schedule: dict[str, float], conn: Connection) -> None:
    asyncio.run(_poller_main(kind, base_url, ids, schedule, conn))


async def _poller_main(kind: str, base_url: str, ids: list[int], schedule: dict[str, float], conn: Connection) -> None:
    from labdeck.api import ApiClient
    from labdeck.base.secret import Secret

    seen: dict[int, float] = {}
    counter = {"requests": 0}

    stamps: list[float] = []

    async def count(response: httpx.Response) -> None:
        counter["requests"] += 1
        stamps.append(time.time())

    client = ApiClient(base_url, Secret(TOKEN))
    client.http.event_hooks["response"].append(count)
    loaded = _Loaded()
    ready = loaded.ready
    if kind == "labdeck":
        task, stop = _start_labdeck(client, ids, seen, loaded)
    else:
        task, stop = _start_naive(client, ids, seen, loaded)
    samples: dict[str, tuple[int, float, float]] = {}
    for name in ("idle_start", "idle_end", "end"):
        await asyncio.sleep(max(0.0, schedule[name] - time.time()))
        if name == "idle_start":
            # Idle begins once every project was read: the first reads use the start-up
            # allowance, and a slow machine's start-up must not be counted as the idle budget.
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(ready.wait(), max(0.0, schedule["idle_end"] - 20 - time.time()))
        samples[name] = (counter["requests"], time.process_time(), time.time())
    stop()
    await asyncio.wait_for(task, 15)
    await client.aclose()
    after = [stamp for stamp in stamps if loaded and stamp >= loaded[0]]  # in order: they were appended so
    ended = time.time()
    busiest = max((bisect.bisect_left(after, start + 60) - index for index, start in enumerate(after)
                   if start + 60 <= ended), default=0)
    conn.send({"seen": seen, "samples": samples, "loaded_at": loaded[0] if loaded else None, "busiest": busiest})


class _Loaded(list[float]):
    """When the poller had read every project (its first entry), with an event set then."""

    def __init__(self) -> None:
        super().__init__()
        self.ready = asyncio.Event()

    def append(self, value: float) -> None:
        super().append(value)
        self.ready.set()


def _start_labdeck(client: Any, ids: list[int], seen: dict[int, float], loaded: list[float]) -> tuple[Any, Any]:
    from labdeck.watch import BoardPoller, BoardSnapshot, WatchedProject, WatchedProjects

    poller = BoardPoller(client)

    def on_board(snapshot: BoardSnapshot) -> None:
        now = time.time()
        for job_id in _failed_jobs(snapshot.rows):
            seen.setdefault(job_id, now)
        if snapshot.loading == 0 and not loaded:
            loaded.append(now)

    poller.subscribe_board(on_board, watched=WatchedProjects(tuple(WatchedProject(pid, str(pid)) for pid in ids)))
    return asyncio.create_task(poller.run()), poller.stop


def _start_naive(client: Any, ids: list[int], seen: dict[int, float], loaded: list[float]) -> tuple[Any, Any]:
    from datetime import UTC, datetime

    from labdeck.api.models import Job
    from labdeck.watch.pipelines import derive_pipelines

    stopping = asyncio.Event()
    semaphore = asyncio.Semaphore(NAIVE_IN_FLIGHT)

    async def one(pid: int) -> None:
        async with semaphore:
            try:
                jobs = await client.get(f"projects/{pid}/jobs", list[Job], {"per_page": 40})
            except Exception:
                return
        now = time.time()
        for job_id in _failed_jobs(derive_pipelines(pid, str(pid), jobs, now=datetime.now(UTC))):
            seen.setdefault(job_id, now)

    async def loop() -> None:
        while not stopping.is_set():
            started = time.time()
            await asyncio.gather(*(one(pid) for pid in ids))
            if not loaded:
                loaded.append(time.time())
            try:
                await asyncio.wait_for(stopping.wait(), max(0.0, NAIVE_PERIOD - (time.time() - started)))
            except TimeoutError:
                pass

    return asyncio.create_task(loop()), stopping.set


# --- the run -------------------------------------------------------------------------------------------


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--startup", type=float, default=11.0, help="seconds for the first reads")
    parser.add_argument("--idle", type=float, default=60.0,
                        help="seconds of the idle measurement (the budget is per minute: a shorter window scaled up\n"
                             "counts a burst the budget allows as over it)")
    parser.add_argument("--pushes", type=int, default=8, help="failing pipelines pushed, one every 2 s")
    parser.add_argument("--scenario", choices=("all", "pushes", "monorepo", "group", "fresh"), default="all",
                        help="pushes: small failing pipelines; monorepo: 30 running 1,500-job pipelines "
                             "(both dialects); group: a 2,000-project board; fresh: budget per minute, "
                             "failure and retry to row, oldest row (300 and 2,000 projects, fake clock)")
    parser.add_argument("--sizes", default="300,2000", help="projects of the fresh scenario")
    parser.add_argument("--latency", type=float, default=0.0,
                        help="fresh: seconds of the poller's clock each request costs (0.1: a 100 ms server)")
    parser.add_argument("--fresh-failures", type=int, default=5,
                        help="fresh: failures pushed per kind (recently active, quiet)")
    parser.add_argument("--dialect", choices=("both", "spec", "gitlab"), default="both")
    parser.add_argument("--projects", type=int, default=2000, help="projects of the group scenario")
    args = parser.parse_args()
    verdict = 0
    if args.scenario in ("all", "pushes"):
        verdict |= run_pushes(args)
    if args.scenario in ("all", "monorepo"):
        for dialect in (("spec", "gitlab") if args.dialect == "both" else (args.dialect,)):
            verdict |= run_monorepo(dialect, max(args.startup, 25.0), max(args.idle, 30.0), args.pushes)
    if args.scenario in ("all", "group"):
        verdict |= _board_big.run_group(args.projects, max(args.idle, 30.0))
    if args.scenario in ("all", "fresh"):
        import _board_fresh

        os.environ["LABDECK_BENCH_LATENCY"] = str(args.latency)

        # LABDECK_BENCH_SRC: another checkout's src (the current poller) measured beside this one.
        sources = {"this": str(Path(__file__).resolve().parents[1] / "src")}
        if os.environ.get("LABDECK_BENCH_SRC"):
            sources["other"] = os.environ["LABDECK_BENCH_SRC"]
        dialects = ["spec", "gitlab"] if args.dialect == "both" else [args.dialect]
        verdict |= _board_fresh.run(sources, dialects, [int(size) for size in args.sizes.split(",")],
                                    args.fresh_failures)
    return verdict


def run_monorepo(dialect: str, startup: float, idle: float, fails: int) -> int:
    """30 of 300 projects running 1,500-job pipelines: idle requests/min, deep failures found."""
    began = time.time()
    sim, control, info = _board_big.start_simulator(dialect, PROJECTS, _board_big.HOT)
    print(f"\n[monorepo, {dialect} dialect] simulator ready after {time.time() - began:.1f} s", flush=True)
    base_url, ids = info["base_url"], info["ids"]
    driver = ClockDriver(base_url)
    driver.start()
    context = multiprocessing.get_context("spawn")
    now = time.time()
    schedule = {"idle_start": now + 2 + startup}
    schedule["idle_end"] = schedule["idle_start"] + idle
    schedule["end"] = schedule["idle_end"] + PUSH_EVERY * fails + TAIL
    pollers = {}
    for kind in ("labdeck", "naive"):
        mine, theirs = context.Pipe()
        process = context.Process(target=_poller_process, args=(kind, base_url, ids, schedule, theirs), daemon=True)
        process.start()
        pollers[kind] = (process, mine)
    time.sleep(max(0.0, schedule["idle_end"] - time.time()))
    injected: list[int] = []
    # Random pipelines (not in the poller's reading order), one every 2 s.
    chosen = random.Random(7).sample(sorted(info["pushed"].items()), min(fails, len(info["pushed"])))
    for number, (_pid, jobs) in enumerate(chosen):
        job_id = jobs["first"] if number % 2 == 0 else jobs["last"]  # the last page, then the first
        control.send(("fail", job_id))
        control.recv()
        injected.append(job_id)
        time.sleep(PUSH_EVERY)
    results = {kind: conn.recv() for kind, (_, conn) in pollers.items()}
    driver.stopping.set()
    driver.join(5)
    failures: dict[int, float] = {}
    with httpx.Client(base_url=base_url, headers={"PRIVATE-TOKEN": TOKEN}, timeout=10) as client:
        for job_id in injected:
            job = next((j for pid, jobs in info["pushed"].items() if job_id in jobs.values()
                        for j in [client.get(f"/api/v4/projects/{pid}/jobs/{job_id}").json()]), None)
            if job and job["status"] == "failed" and job["finished_at"]:
                moment = datetime.fromisoformat(job["finished_at"].replace("Z", "+00:00")).timestamp()
                visible = driver.visible_at(moment)
                if visible is not None:
                    failures[job_id] = visible
    for process, _ in pollers.values():
        process.join(10)
    control.send("stop")
    sim.join(10)
    return report(f"300 projects, 30 running 1,500-job pipelines, {dialect} dialect, latency 100 ms; "
                  f"{len(failures)} of {len(injected)} injected failures (unit-0001 / unit-1200, alternately)",
                  results, failures, idle, began)


def report(title: str, results: dict[str, Any], failures: dict[int, float], idle: float, began: float) -> int:
    """The table of one scenario; 1 when labdeck misses its targets."""
    print(title + f"; idle measured over {idle:.0f} s")
    print(f"{'poller':<8} {'start-up':>9} {'idle req/min':>13} {'idle CPU':>9} {'p50 det.':>9} {'p95 det.':>9} "
          f"{'max':>6} {'missed':>6} {'req/min w/ failures':>20}")
    verdict = 0
    details: list[str] = []
    for kind, result in results.items():
        samples = result["samples"]
        (r0, c0, w0), (r1, c1, w1), (r2, _, w2) = samples["idle_start"], samples["idle_end"], samples["end"]
        idle_rate = (r1 - r0) * 60.0 / (w1 - w0)
        busy_rate = (r2 - r1) * 60.0 / (w2 - w1)
        cpu = 100.0 * (c1 - c0) / (w1 - w0)
        latencies = [result["seen"][job_id] - at for job_id, at in failures.items() if job_id in result["seen"]]
        missed = len(failures) - len(latencies)
        startup = (result["loaded_at"] - began) if result["loaded_at"] else float("nan")
        p50, p95 = percentile(latencies, 0.5), percentile(latencies, 0.95)
        top = max(latencies) if latencies else float("nan")
        print(f"{kind:<8} {startup:>8.1f}s {idle_rate:>13.1f} {cpu:>8.2f}% {p50:>8.1f}s {p95:>8.1f}s {top:>5.1f}s "
              f"{missed:>6} {busy_rate:>20.1f}")
        details.append(f"  {kind} latencies (s): " + " ".join(f"{value:.1f}" for value in sorted(latencies))
                       + f" (idle measured over {w1 - w0:.0f} s, "
                       + ("from when every project was read" if result["loaded_at"] and result["loaded_at"] <= w0
                          else "NOT every project read by then")
                       + f"; busiest 60 s after that, failures included: {result.get('busiest', '?')} requests)")
        if kind == "labdeck" and not (idle_rate <= 60 and p95 <= 10 and missed == 0):
            verdict = 1
    print("\n".join(details))
    print(f"targets (labdeck): idle ≤ 60 req/min, p95 ≤ 10 s, none missed: {'met' if verdict == 0 else 'NOT met'}; "
          f"run took {time.time() - began:.0f} s", flush=True)
    return verdict


def run_pushes(args: argparse.Namespace) -> int:
    """Small failing pipelines pushed to random projects (the original scenario)."""
    context = multiprocessing.get_context("spawn")
    here, child = context.Pipe()
    sim = context.Process(target=_serve, args=(child,), daemon=True)
    began = time.time()
    sim.start()
    info = here.recv()
    print(f"simulator ready after {time.time() - began:.1f} s", flush=True)
    base_url, ids = info["base_url"], info["ids"]
    driver = ClockDriver(base_url)
    driver.start()
    now = time.time()
    schedule = {"idle_start": now + 2 + args.startup}
    schedule["idle_end"] = schedule["idle_start"] + args.idle
    # A minute after the last push: a failure not on the board by then is missed, not merely late
    # (19 s left the last push 11–14 s: a slow detection counted as a miss).
    schedule["end"] = schedule["idle_end"] + PUSH_EVERY * args.pushes + TAIL
    pollers = {}
    for kind in ("labdeck", "naive"):
        mine, theirs = context.Pipe()
        process = context.Process(target=_poller_process, args=(kind, base_url, ids, schedule, theirs), daemon=True)
        process.start()
        pollers[kind] = (process, mine)

    time.sleep(max(0.0, schedule["idle_end"] - time.time()))
    rng = random.Random(7)
    candidates = [pid for pid in ids if pid not in set(info["archived"])]
    pushed: list[tuple[int, int]] = []  # (project id, job id)
    with httpx.Client(base_url=base_url, headers={"PRIVATE-TOKEN": TOKEN}, timeout=10) as control:
        for number in range(args.pushes):
            pid = rng.choice(candidates)
            body = {"ref": f"bench-{number}", "stages": [{"name": "test", "jobs": [
                {"name": "unit-tests", "tags": ["docker"], "fail": True, "duration": rng.uniform(5, 8)}]}]}
            answer = control.post(f"/-/sim/projects/{pid}/pipelines", json=body)
            answer.raise_for_status()
            pushed.append((pid, answer.json()["jobs"][0]["id"]))
            time.sleep(PUSH_EVERY)
        results = {kind: conn.recv() for kind, (_, conn) in pollers.items()}
        driver.stopping.set()
        driver.join(5)
        failures: dict[int, float] = {}
        for pid, job_id in pushed:
            job = control.get(f"/api/v4/projects/{pid}/jobs/{job_id}").json()
            if job["status"] == "failed" and job["finished_at"]:
                moment = datetime.fromisoformat(job["finished_at"].replace("Z", "+00:00")).timestamp()
                visible = driver.visible_at(moment)
                if visible is not None:
                    failures[job_id] = visible
    for process, _ in pollers.values():
        process.join(10)
    here.send("stop")
    sim.join(10)

    return report(f"300 projects, simulator latency 100 ms; {len(failures)} of {len(pushed)} pushed jobs failed in time",
                  results, failures, args.idle, began)


if __name__ == "__main__":
    raise SystemExit(main())
