"""Scenarios of bench_board.py at scale (issue 21): monorepo pipelines and a 2,000-project board.

- ``monorepo``: 300 watched projects on a simulator answering in 100 ms (each dialect in turn),
  30 of them running a 1,500-job pipeline (1,200 tests, 300 deploys), nothing else changing.
  Every test job has passed but two per pipeline, which run for a day: ``unit-0001`` (the
  pipeline's oldest job: the *last* page of its job list) and ``unit-1200``. During the failures
  phase, one of those two fails in one pipeline every 2 s (alternating the last and the first page).
  labdeck's shared poller and the naive way (every project's 40 newest jobs every 10 s) run side by
  side in their own processes: idle requests/min, detection latency (when the board first shows
  the failed job − when it failed on the server) and missed failures.
- ``group``: ``--projects 2000``, the board on ``:board group:<path>`` (the biggest top-level
  group): the time until every project of the group is read, the requests that took, and the
  requests/min while nothing changes afterwards.
"""

from __future__ import annotations

import asyncio
import math
import multiprocessing
import tempfile
import time
from datetime import UTC, datetime, timedelta
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

import httpx

from labdeck.sim.dataset.build import DEMO_TOKENS

TOKEN = DEMO_TOKENS["admin"]
HOT = 30
TESTS, DEPLOYS = 1200, 300
DAY = 86_400.0


def _serve(conn: Connection, dialect: str, projects: int, hot: int) -> None:
    """The simulator process: ``projects`` projects, latency 100 ms; ``hot`` of them get a 1,500-job
    pipeline whose fast jobs have run (the clock is played forward before the server answers)."""
    from labdeck.sim.ci.engine import store
    from labdeck.sim.core.clock import SimClock
    from labdeck.sim.core.faults import FaultConfig, set_config
    from labdeck.sim.dataset.build import build_state
    from labdeck.sim.server import SimServer

    settle = timedelta(hours=2)
    clock = SimClock(mode="manual", start=datetime.now(UTC) - settle)
    state = build_state(seed=42, clock=clock, projects=projects, dialect=dialect)
    ci = store(state)
    ci.next_pipeline_at = None  # only this benchmark pushes pipelines
    usable = [r for r in ci.runners.values() if r.is_shared and r.active and r.connected and r.contacted_at]
    sentinel = usable[0]  # runs the day-long jobs (tagged), 2 per pipeline, all at once
    sentinel.tags, sentinel.run_untagged, sentinel.concurrent = ["sentinel"], False, 4 * hot + 10
    for runner in usable[1:]:
        runner.concurrent = max(runner.concurrent, 40)  # the fast jobs: minutes, not hours, of simulated time
    clock.advance(settle.total_seconds() - 1800)
    state.tick()
    server = SimServer(state).start()
    t0 = time.time()
    live = [p.id for p in state.projects.values() if not p.archived]
    chosen = sorted(live)[:: max(1, len(live) // max(hot, 1))][:hot]
    pushed: dict[int, dict[str, int]] = {}
    with httpx.Client(base_url=server.base_url, headers={"PRIVATE-TOKEN": TOKEN}, timeout=120) as admin:
        for pid in chosen:
            body = {"ref": "monorepo", "stages": [
                {"name": "test", "jobs": [{"name": f"unit-{i:04d}", "duration": DAY, "tags": ["sentinel"]}
                                          if i in (1, TESTS) else {"name": f"unit-{i:04d}", "duration": 1}
                                          for i in range(1, TESTS + 1)]},
                {"name": "deploy", "jobs": [{"name": f"deploy-{i:04d}", "duration": 1}
                                            for i in range(1, DEPLOYS + 1)]}]}
            answer = admin.post(f"/-/sim/projects/{pid}/pipelines", json=body)
            answer.raise_for_status()
            jobs = {job["name"]: job["id"] for job in answer.json()["jobs"]}
            pushed[pid] = {"pipeline": answer.json()["id"], "first": jobs["unit-0001"], "last": jobs[f"unit-{TESTS:04d}"]}
    t1 = time.time()
    clock.advance(max(0.0, datetime.now(UTC).timestamp() - clock.now().timestamp()))  # fast jobs run
    state.tick()
    set_config(state, FaultConfig.parse("latency=100"))
    print(f"  (pushing {len(chosen)} pipelines: {t1 - t0:.1f} s; running their fast jobs: {time.time() - t1:.1f} s)",
          flush=True)
    groups: dict[str, int] = {}
    for project in state.projects.values():
        top = state.project_full_path(project).split("/")[0]
        groups[top] = groups.get(top, 0) + 1
    biggest = max(groups, key=lambda name: groups[name])
    conn.send({"base_url": server.base_url, "ids": sorted(state.projects), "pushed": pushed,
               "group": biggest, "group_size": groups[biggest]})
    while True:
        order = conn.recv()
        if order == "stop":
            break
        # ("fail", job id): that job fails now (its planned end moved to the present).
        kind, job_id = order
        with state.lock:
            job = ci.jobs[job_id]
            job.will_fail = True
            # Its planned end is now: the next tick of the clock finishes it (as failed).
            job.planned_duration = max(0.0, (clock.now() - job.started_at).total_seconds()) if job.started_at else 0.0
            ci.queue.replanned(job_id)  # the run queue indexes running jobs by their planned end
        conn.send(kind)
    server.stop()


def start_simulator(dialect: str, projects: int, hot: int) -> tuple[Any, Connection, dict[str, Any]]:
    context = multiprocessing.get_context("spawn")
    here, child = context.Pipe()
    process = context.Process(target=_serve, args=(child, dialect, projects, hot), daemon=True)
    process.start()
    return process, here, here.recv()


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, math.ceil(share * len(ordered)) - 1))] if ordered else float("nan")


# --- the 2,000-project board ------------------------------------------------------------------------


def _group_process(base_url: str, group: str, idle: float, conn: Connection) -> None:
    asyncio.run(_group_main(base_url, group, idle, conn))


async def _group_main(base_url: str, group: str, idle: float, conn: Connection) -> None:
    from labdeck.api import ApiClient
    from labdeck.base.secret import Secret
    from labdeck.base.statefile import StateStore
    from labdeck.watch import BoardPoller, BoardSnapshot, WatchedSet, WatchStore

    counter = {"requests": 0}

    async def count(response: httpx.Response) -> None:
        counter["requests"] += 1

    client = ApiClient(base_url, Secret(TOKEN))
    client.http.event_hooks["response"].append(count)
    with tempfile.TemporaryDirectory() as tmp:
        store = WatchStore(StateStore(Path(tmp) / "state.json"), base_url)
        store.add_group(group)
        watched = WatchedSet(client, store)
        poller = BoardPoller(client)
        done: dict[str, float] = {}
        size = {"watched": 0}

        complete = asyncio.Event()

        def on_board(snapshot: BoardSnapshot) -> None:
            projects = len(snapshot.watched.projects) if snapshot.watched is not None else 0
            if projects and snapshot.loading == 0 and "complete" not in done:
                done["complete"] = time.time()
                done["requests"] = counter["requests"]
                size["watched"] = projects
                complete.set()

        started = time.time()
        poller.subscribe_board(on_board, watched=watched)
        task = asyncio.create_task(poller.run())
        try:
            await asyncio.wait_for(complete.wait(), 300)
        except TimeoutError:
            pass
        await asyncio.sleep(5)  # the first steady round after start-up is not "idle"
        before, at = counter["requests"], time.time()
        await asyncio.sleep(idle)
        idle_rate = (counter["requests"] - before) * 60.0 / (time.time() - at)
        poller.stop()
        await asyncio.wait_for(task, 15)
    await client.aclose()
    conn.send({"complete": done.get("complete", float("nan")) - started, "requests": done.get("requests"),
               "watched": size["watched"], "idle_rate": idle_rate})


def run_group(projects: int, idle: float) -> int:
    began = time.time()
    sim, control, info = start_simulator("gitlab", projects, 0)
    print(f"simulator ready ({projects} projects, 100 ms) after {time.time() - began:.1f} s; "
          f"board on group:{info['group']} ({info['group_size']} projects)", flush=True)
    context = multiprocessing.get_context("spawn")
    mine, theirs = context.Pipe()
    process = context.Process(target=_group_process, args=(info["base_url"], info["group"], idle, theirs), daemon=True)
    process.start()
    result = mine.recv()
    process.join(10)
    control.send("stop")
    sim.join(10)
    print(f"{'board':<22} {'watched':>8} {'complete':>9} {'requests':>9} {'idle req/min':>13}")
    print(f"group:{info['group']:<16} {result['watched']:>8} {result['complete']:>8.1f}s {result['requests']:>9} "
          f"{result['idle_rate']:>13.1f}")
    met = result["complete"] <= 60 and result["idle_rate"] <= 60
    print(f"targets: complete ≤ 60 s, idle ≤ 60 req/min: {'met' if met else 'NOT met'}")
    return 0 if met else 1
