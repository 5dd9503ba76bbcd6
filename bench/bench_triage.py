"""``labdeck triage`` over 50 projects on a simulator that answers in 100 ms: cold (empty log cache)
and warm (the same round again: no log read), against reading every failed job's log, in the same run.

- The simulator (gitlab dialect, seed 42, padded to 50 CI projects) runs in its own process with
  ``latency=100`` ms on every request. Each of the 50 projects gets three failed pipelines pushed
  through the control surface: a test failure (the log decides), a runner system failure
  (``failure_reason`` decides: no log needed) and, in every third project, an image pull failure
  reported as ``script_failure`` (the log decides); each test failure is pushed twice so the
  project's page holds an older failed attempt too.
- The 50 projects are the watched set (the ``w`` list in the state file of a temporary home).
- ``labdeck triage --json`` runs as the real executable (a new process, token in the environment):
  cold with an empty cache, then warm. The JSON's ``stats.logs_read`` says how many logs it fetched.
- labdeck's own modules are compiled to bytecode first (an installed labdeck has it; with
  ``PYTHONDONTWRITEBYTECODE`` set no run would write it).
- The warm round's floor: the same 50 jobs pages read and not parsed (16 in flight, the client's pool).
- The comparison reads each project's first jobs page and then every failed job's log (8 requests
  in flight, like labdeck), with the same client, in this process.

    .venv/bin/python bench/bench_triage.py
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import tempfile
import time
from datetime import timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import httpx
from _report import record
from _sim_process import SimProcess

from labdeck.sim.dataset.build import DEMO_TOKENS

TOKEN = DEMO_TOKENS["admin"]
PROJECTS = 50
COLD_TARGET, WARM_TARGET = 5.0, 1.0


def _seed(base_url: str) -> list[tuple[int, str]]:
    """Push the failures; returns the 50 projects (id, path) that have them."""
    with httpx.Client(base_url=base_url, headers={"PRIVATE-TOKEN": TOKEN}, timeout=60) as admin:
        listed: list[dict[str, object]] = []
        page = 1
        while len(listed) < PROJECTS + 20:
            batch = admin.get("/api/v4/projects", params={"per_page": 100, "page": page, "archived": "false"}).json()
            if not batch:
                break
            listed += batch
            page += 1
        projects = [(int(p["id"]), str(p["path_with_namespace"])) for p in listed if not p.get("archived")][:PROJECTS]
        for index, (pid, _) in enumerate(projects):
            jobs = [{"name": "unit", "tags": ["docker"], "fail": True, "duration": 20, "script_lines": ["pytest -q"]},
                    {"name": "build", "tags": ["docker"], "fail": True, "failure_reason": "runner_system_failure",
                     "duration": 20}]
            if index % 3 == 0:
                jobs.append({"name": "build-image", "tags": ["docker"], "fail": True, "failure_log": "image_pull",
                             "duration": 20})
            for _ in range(2):
                created = admin.post(f"/-/sim/projects/{pid}/pipelines", json={"stages": [{"name": "test", "jobs": jobs}]})
                assert created.status_code == 201, created.text
                admin.post("/-/sim/clock/advance", params={"seconds": 900})
        assert admin.put("/-/sim/faults", json={"latency_ms": 100}).status_code == 200
    return projects


def _home(base_url: str, projects: list[tuple[int, str]]) -> dict[str, str]:
    home = Path(tempfile.mkdtemp(prefix="labdeck-bench-triage-"))
    state = home / "state" / "labdeck"
    state.mkdir(parents=True)
    (state / "state.json").write_text(json.dumps({"watch": {base_url.rstrip("/"): {
        "projects": [{"id": pid, "path": path} for pid, path in projects], "groups": []}}}))
    env = {**os.environ, "HOME": str(home), "XDG_CONFIG_HOME": str(home / "config"),
           "XDG_STATE_HOME": str(home / "state"), "XDG_CACHE_HOME": str(home / "cache"),
           "LABDECK_TOKEN": TOKEN, "PYTHONPATH": str(Path(__file__).resolve().parents[1] / "src")}
    env.pop("LABDECK_CONFIG", None)
    return env


def _triage(base_url: str, env: dict[str, str]) -> tuple[float, dict[str, object]]:
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "labdeck", "triage", "--url", base_url, "--json", "--since", "2d"],
                          env=env, capture_output=True, text=True, check=False)
    elapsed = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"labdeck triage failed ({done.returncode}): {done.stderr[-2000:]}")
    data: dict[str, object] = json.loads(done.stdout)
    return elapsed, data


async def _read_everything(base_url: str, projects: list[tuple[int, str]]) -> tuple[float, int]:
    from labdeck.api import ApiClient
    from labdeck.base.secret import Secret

    gate = asyncio.Semaphore(8)
    started = time.perf_counter()
    async with ApiClient(base_url, Secret(TOKEN)) as client:
        async def page(pid: int) -> list[object]:
            async with gate:
                return list(await client.jobs.list(pid, per_page=100).first_page())

        pages = await asyncio.gather(*(page(pid) for pid, _ in projects))

        async def log(pid: int, job_id: int) -> int:
            async with gate:
                return len((await client.jobs.trace(pid, job_id)).data)

        failed = [(pid, job.id) for (pid, _), jobs in zip(projects, pages, strict=True)
                  for job in jobs if getattr(job, "status", "") == "failed"]
        await asyncio.gather(*(log(pid, job_id) for pid, job_id in failed))
    return time.perf_counter() - started, len(failed)


async def _read_pages(base_url: str, projects: list[tuple[int, str]]) -> float:
    """Only the jobs pages a warm round reads, as many in flight as the client's pool allows
    (16): what the server takes to answer them, a floor for the warm round."""
    from labdeck.api import ApiClient
    from labdeck.base.secret import Secret

    gate = asyncio.Semaphore(16)
    started = time.perf_counter()
    async with ApiClient(base_url, Secret(TOKEN)) as client:
        async def page(pid: int) -> int:
            async with gate:
                response = await client.request("GET", f"projects/{pid}/jobs", params={"per_page": 100})
                return len(response.content)

        await asyncio.gather(*(page(pid) for pid, _ in projects))
    return time.perf_counter() - started


async def _warm_round(base_url: str, projects: list[tuple[int, str]], env: dict[str, str]) -> tuple[float, int]:
    """The same warm round in this process: no interpreter start, no imports, no token chain."""
    from labdeck.api import ApiClient
    from labdeck.base.secret import Secret
    from labdeck.triage.collect import Triager
    from labdeck.triage.logcache import LogCache

    cache = LogCache(Path(env["XDG_CACHE_HOME"]) / "labdeck" / "logs")
    started = time.perf_counter()
    async with ApiClient(base_url, Secret(TOKEN)) as client:
        report = await Triager(client, cache).round(projects, since=timedelta(days=2))
    return time.perf_counter() - started, report.logs_read


def _compile_sources() -> None:
    """Bytecode for labdeck's own modules, as an installed (or once-run) labdeck has: with
    ``PYTHONDONTWRITEBYTECODE`` set in the environment no run writes it, and every "warm" process
    would compile ~80 modules again (~0.2 s) that no user's second run compiles."""
    import compileall

    compileall.compile_dir(str(Path(__file__).resolve().parents[1] / "src" / "labdeck"), quiet=1)


def main() -> int:
    _compile_sources()
    with SimProcess(projects=PROJECTS + 30, dialect="gitlab") as sim:
        projects = _seed(sim.base_url)
        env = _home(sim.base_url, projects)
        cold, cold_data = _triage(sim.base_url, env)
        warm, warm_data = _triage(sim.base_url, env)
        warm_runs = [warm] + [_triage(sim.base_url, env)[0] for _ in range(2)]
        in_process, in_process_logs = asyncio.run(_warm_round(sim.base_url, projects, env))
        pages_only = asyncio.run(_read_pages(sim.base_url, projects))
        everything, logs = asyncio.run(_read_everything(sim.base_url, projects))
    warm = sorted(warm_runs)[1]
    cold_stats, warm_stats = cold_data["stats"], warm_data["stats"]
    assert isinstance(cold_stats, dict) and isinstance(warm_stats, dict)
    failures = len(cold_data["failures"])  # type: ignore[arg-type]
    print(f"{PROJECTS} projects (+ the admin's starred), simulator latency 100 ms, gitlab dialect")
    print(f"labdeck triage cold: {cold:.2f} s, {cold_stats['logs_read']} logs read, {failures} failures, "
          f"{len(cold_data['clusters'])} clusters")  # type: ignore[arg-type]
    print(f"labdeck triage warm: {warm:.2f} s median of 3 ({', '.join(f'{t:.2f}' for t in warm_runs)}), "
          f"{warm_stats['logs_read']} logs read")
    print(f"warm round in-process (no start-up): {in_process:.2f} s, {in_process_logs} logs read")
    print(f"the {PROJECTS} jobs pages alone, unparsed (the warm round's floor): {pages_only:.2f} s")
    print(f"pages + every failed job's log: {everything:.2f} s, {logs} logs read (in-process, no start-up)")
    record("labdeck triage, 50 projects, cold", f"≤ {COLD_TARGET:.0f} s", f"{cold:.2f} s ({cold_stats['logs_read']} logs)",
           cold <= COLD_TARGET, how="http", note="real executable; 100 ms server")
    record("labdeck triage, 50 projects, warm", f"≤ {WARM_TARGET:.0f} s, no log read",
           f"{warm:.2f} s ({warm_stats['logs_read']} logs)", warm <= WARM_TARGET and warm_stats["logs_read"] == 0,
           how="http", note="real executable; 100 ms server")
    record("triage round, 50 projects, warm, in-process", "(floor)", f"{in_process:.2f} s ({in_process_logs} logs)",
           None, how="library", note="no interpreter start-up or imports")
    record("read the 50 jobs pages only, unparsed", "(floor)", f"{pages_only:.2f} s", None, how="http",
           note="the warm round's floor: the server's time; 16 in flight, in-process")
    record("read every failed job's log, 50 projects", "(peer)", f"{everything:.2f} s ({logs} logs)", None,
           how="http", note="pages + all failed logs, in-process")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
