"""A board over several instances (issue 30): two simulated instances of 300 projects each (spec and
gitlab dialects, every answer 100 ms), beside one instance of 300 projects, in the same run.

For each case a console (headless, Textual's Pilot, in a process of its own with a throw-away home)
watches every project of every instance and opens the board. Measured:

- time to a complete board: from the board's first frame until every watched project of every
  instance has been read (the merged snapshot loads nothing more);
- idle requests per minute per instance: after the board is complete, the busiest 60 s window of
  ``LABDECK_BENCH_INSTANCES_IDLE`` seconds (default 150) of requests reaching each instance,
  counted by a recording proxy in front of it (``tests/support/fault_switch.py``); the budget is
  the board's 60 a minute per instance;
- RSS of the console's process at the end (the simulators run in processes of their own).

Run: ``.venv/bin/python bench/bench_instances.py`` (``make bench`` runs it too).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from _console_env import ADMIN_TOKEN, PYTHON, Server, console_env
from _report import record

PROJECTS = 300
BUDGET = 60
IDLE = float(os.environ.get("LABDECK_BENCH_INSTANCES_IDLE", "150"))
COMPLETE_LIMIT = 300.0


# --- the console, in its own process ----------------------------------------------------------------


async def _console(plan: dict[str, Any]) -> dict[str, Any]:
    from labdeck.base.config import BoardSettings
    from labdeck.base.secret import Secret
    from labdeck.base.session import Session
    from labdeck.base.statefile import StateStore
    from labdeck.ui.app import LabdeckApp
    from labdeck.ui.screens.board.board import BoardScreen
    from labdeck.ui.ui_state import UiState

    sessions = [Session(base_url=url, token=Secret(ADMIN_TOKEN), profile=f"i{index + 1}", board=BoardSettings())
                for index, url in enumerate(plan["urls"])]
    app = LabdeckApp(sessions[0], ui_state=UiState(StateStore(Path(plan["home"]) / "ui.json")),
                     more_sessions=sessions[1:])
    result: dict[str, Any] = {}
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause(0.5)
        await pilot.press("0")
        began = time.monotonic()
        screen = app.screen
        assert isinstance(screen, BoardScreen)

        def complete() -> bool:
            watching = [instance.watching for instance in app.instances]
            return all(w is not None and w.watched.resolved and w.poller.freshness().loading == 0 for w in watching) \
                and screen.table.row_count > 0

        each: dict[int, float] = {}
        while not complete():
            if time.monotonic() - began > COMPLETE_LIMIT:
                break
            for instance in app.instances:
                w = instance.watching
                if instance.index not in each and w is not None and w.watched.resolved and \
                        w.poller.freshness().loading == 0:
                    each[instance.index] = time.monotonic() - began
            await pilot.pause(0.25)
        result["each_s"] = [round(each.get(index, time.monotonic() - began), 1) for index in range(len(app.instances))]
        result["complete_s"] = time.monotonic() - began if complete() else None
        result["complete_wall"] = time.time()
        result["rows"] = screen.table.row_count
        idle_until = time.monotonic() + IDLE
        while time.monotonic() < idle_until:
            await pilot.pause(1.0)
        result["rss_mb"] = _rss_mb()
    return result


def _rss_mb() -> float:
    with open("/proc/self/status", encoding="utf-8") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return float("nan")


def child(plan_file: str) -> int:
    """The console process: run the plan, print one JSON line."""
    import asyncio

    plan = json.loads(Path(plan_file).read_text())
    print(json.dumps(asyncio.run(_console(plan))), flush=True)
    return 0


# --- the benchmark ----------------------------------------------------------------------------------


def _watch_everything(home: Path, server: Server, url: str) -> None:
    """The console's state file watches every project of ``server``, under the address it is given
    (the recording proxy's)."""
    from labdeck.base.statefile import StateStore
    from labdeck.watch.watched import WatchStore

    store = WatchStore(StateStore(home / "state" / "labdeck" / "state.json"), url)
    page = 1
    while True:
        projects = server.get(f"projects?per_page=100&page={page}&order_by=id&sort=asc")
        assert isinstance(projects, list)
        for project in projects:
            store.add(int(project["id"]), str(project["path_with_namespace"]))
        if len(projects) < 100:
            break
        page += 1


def _busiest_minute(times: list[float], start: float, end: float) -> int:
    inside = sorted(t for t in times if start <= t <= end)
    best, low = 0, 0
    for high, moment in enumerate(inside):
        while inside[low] < moment - 60.0:
            low += 1
        best = max(best, high - low + 1)
    return best


def run_case(count: int, base: Path) -> dict[str, Any]:
    """One console over ``count`` instances (spec, gitlab …) of :data:`PROJECTS` projects each."""
    from tests.support.fault_switch import FaultSwitch

    dialects = ("spec", "gitlab")
    servers = [Server("--projects", str(PROJECTS), "--clock", "manual", "--faults", "latency=100", "--seed",
                      str(42 + index), "--dialect", dialects[index % 2]) for index in range(count)]
    home = base / f"home-{count}"
    entered: list[Any] = []
    try:
        for server in servers:
            entered.append(server.__enter__())
        switches = [FaultSwitch(server.url).start() for server in servers]
        env = console_env(home)
        for server, switch in zip(servers, switches, strict=True):
            _watch_everything(home, server, switch.url)
        plan = base / f"plan-{count}.json"
        plan.write_text(json.dumps({"urls": [switch.url for switch in switches], "home": str(home)}))
        answer = subprocess.run([PYTHON, __file__, "--child", str(plan)], env=env, capture_output=True, text=True,
                                timeout=COMPLETE_LIMIT + IDLE + 120, check=False)
        lines = [line for line in answer.stdout.splitlines() if line.startswith("{")]
        if answer.returncode != 0 or not lines:
            raise RuntimeError(f"the console failed: {answer.stderr[-2000:]}")
        result: dict[str, Any] = json.loads(lines[-1])
        # Idle: from the board's completion (wall clock → the proxies' monotonic clock) to the end.
        shift = time.time() - time.monotonic()
        start = result["complete_wall"] - shift + 5.0
        result["idle_per_minute"] = [
            _busiest_minute([moment for moment, *_ in switch.requests], start, start + IDLE) for switch in switches]
        for switch in switches:
            switch.stop()
        return result
    finally:
        for server in entered:
            server.__exit__(None, None, None)


def main() -> int:
    with tempfile.TemporaryDirectory(prefix="labdeck-bench-instances-") as tmp:
        base = Path(tmp)
        print(f"board over several instances: {PROJECTS} projects each, 100 ms answers, idle window {IDLE:.0f} s",
              flush=True)
        one = run_case(1, base)
        print(f"  one instance:  complete in {one['complete_s']:.1f} s ({one['rows']} rows), idle requests/min "
              f"{one['idle_per_minute']}, RSS {one['rss_mb']:.0f} MB", flush=True)
        two = run_case(2, base)
        print(f"  two instances: complete in {two['complete_s']:.1f} s (each: {two['each_s']} s; {two['rows']} rows), "
              f"idle requests/min "
              f"{two['idle_per_minute']} (per instance), RSS {two['rss_mb']:.0f} MB", flush=True)
    how = "headless"
    note = f"{PROJECTS} projects per instance, 100 ms answers; busiest 60 s of {IDLE:.0f} s idle"
    record("board over 2 instances: time to a complete board", "(beside one instance)",
           f"{two['complete_s']:.1f} s (each {', '.join(map(str, two['each_s']))} s; one instance: "
           f"{one['complete_s']:.1f} s)", None, how=how, note=note)
    worst = max(two["idle_per_minute"])
    record("board over 2 instances: idle requests/min per instance", f"≤ {BUDGET} each",
           f"{', '.join(map(str, two['idle_per_minute']))} (one instance: {one['idle_per_minute'][0]})",
           worst <= BUDGET, how=how, note=note)
    ratio = two["rss_mb"] / one["rss_mb"]
    record("board over 2 instances: RSS", "< 2× one instance",
           f"{two['rss_mb']:.0f} MB vs {one['rss_mb']:.0f} MB ({ratio:.2f}×)", ratio < 2.0, how=how, note=note)
    return 0


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--child":
        raise SystemExit(child(sys.argv[2]))
    raise SystemExit(main())
