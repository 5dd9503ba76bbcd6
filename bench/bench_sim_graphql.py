"""Simulator speed: one GraphQL batch of 100 projects (the board's query) on a 2,000-project instance.

Run standalone: ``.venv/bin/python bench/bench_sim_graphql.py [--projects 2000] [--requests 40]``.
The simulator (gitlab dialect, manual clock) runs in its own process; 100 projects get a pipeline
each through the control surface (99 of 20 jobs, one of 1,500 jobs on a widened runner, with a
failure deep in its running stage), the clock moves a minute, then the board's query
(``projects(ids: […100 ids…], first: 100) { nodes { … pipelines(first: 1) { nodes { …
failedJobs: jobs(statuses: [FAILED], retried: false) { count } runningJobs: … } } } }``) is sent
``--requests`` times over one persistent connection.

Figures: the median wall time per query (loopback HTTP), and the simulator's own CPU time per query
(its process's user + system time, from ``/proc``, over all the requests, divided by their
number). Target: under 100 ms of simulator CPU per query.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

import httpx

from labdeck.sim.dataset.build import DEMO_TOKENS

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _report import record

TARGET_CPU_MS = 100.0
QUERY = """query($ids: [ID!], $first: Int, $after: String) {
  projects(ids: $ids, first: $first, after: $after) {
    pageInfo { hasNextPage endCursor }
    nodes { id fullPath lastActivityAt
      pipelines(first: 1) { nodes {
        id iid status updatedAt createdAt startedAt finishedAt ref sha duration
        failedJobs: jobs(statuses: [FAILED], retried: false) { count }
        runningJobs: jobs(statuses: [RUNNING, PENDING]) { count } } } } } }"""

_SERVER_CODE = """
import sys, uvicorn
from labdeck.sim.core.clock import SimClock
from labdeck.sim.dataset.build import build_state
from labdeck.sim.server import create_app, free_port
state = build_state(seed=42, clock=SimClock(mode="manual"), projects=int(sys.argv[1]), dialect="gitlab")
port = free_port()
state.base_url = f"http://127.0.0.1:{port}"
print(port, len(state.projects), flush=True)
uvicorn.run(create_app(state), host="127.0.0.1", port=port, log_level="warning", access_log=False, lifespan="off")
"""


def _cpu_seconds(pid: int) -> float | None:
    """User + system CPU time of a process (Linux ``/proc``), or None elsewhere."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _populate(base_url: str, admin: httpx.Client) -> list[str]:
    """A pipeline in each of 100 projects (one of 1,500 jobs); returns their global ids."""
    projects = admin.get(f"{base_url}/api/v4/projects", params={"per_page": 100, "order_by": "id", "sort": "asc"})
    ids = [int(project["id"]) for project in projects.json()]
    runners = admin.get(f"{base_url}/api/v4/runners/all", params={"per_page": 100}).json()
    shared = next(r for r in runners if r["description"] == "shared-docker-01")
    admin.put(f"{base_url}/-/sim/runners/{shared['id']}", json={"concurrent": 5000}).raise_for_status()
    small = [{"name": "test", "jobs": [{"name": "unit", "count": 20, "duration": 30, "fail": [7]}]}]
    big = [{"name": "test", "jobs": [{"name": "unit", "count": 1200, "duration": 3600, "fail": [900]}]},
           {"name": "deploy", "jobs": [{"name": "deploy", "count": 300, "duration": 30}]}]
    for index, number in enumerate(ids):
        admin.post(f"{base_url}/-/sim/projects/{number}/pipelines", json={"ref": "main", "stages": big if index == 0
                                                                           else small}, timeout=120).raise_for_status()
    admin.post(f"{base_url}/-/sim/clock/advance", params={"seconds": 60}).raise_for_status()
    return [f"gid://gitlab/Project/{number}" for number in ids]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--projects", type=int, default=2000)
    parser.add_argument("--requests", type=int, default=40)
    args = parser.parse_args()
    process = subprocess.Popen([sys.executable, "-c", _SERVER_CODE, str(args.projects)], stdout=subprocess.PIPE,
                               text=True)
    try:
        assert process.stdout is not None
        port, count = process.stdout.readline().split()
        base_url = f"http://127.0.0.1:{port}"
        headers = {"PRIVATE-TOKEN": DEMO_TOKENS["admin"]}
        with httpx.Client(headers=headers, timeout=60) as admin:
            _wait_until_up(admin, base_url)
            ids = _populate(base_url, admin)
            variables = {"ids": ids, "first": 100}
            first = admin.post(f"{base_url}/api/graphql", json={"query": QUERY, "variables": variables}).json()
            nodes = first["data"]["projects"]["nodes"]
            assert "errors" not in first and len(nodes) == 100, first
            failing = sum(1 for node in nodes for p in node["pipelines"]["nodes"] if p["failedJobs"]["count"])
            print(f"data set: {count} projects; the batch: {len(nodes)} projects, {failing} with a failed job")
            timings = []
            cpu_before = _cpu_seconds(process.pid)
            for _ in range(args.requests):
                started = time.perf_counter()
                response = admin.post(f"{base_url}/api/graphql", json={"query": QUERY, "variables": variables})
                timings.append((time.perf_counter() - started) * 1000)
                response.raise_for_status()
            cpu_after = _cpu_seconds(process.pid)
    finally:
        process.terminate()
        process.wait(timeout=10)
    median = statistics.median(timings)
    print(f"POST /api/graphql, 100 projects: median {median:.1f} ms wall "
          f"(min {min(timings):.1f}, max {max(timings):.1f}, n={len(timings)})")
    record("simulator: GraphQL batch of 100 projects (2,000-project instance), wall", "—", f"{median:.1f} ms",
           None, how="http")
    if cpu_before is None or cpu_after is None:
        print("simulator CPU per query: not measurable here (no /proc)")
        return 0
    cpu_ms = (cpu_after - cpu_before) * 1000 / len(timings)
    met = cpu_ms < TARGET_CPU_MS
    print(f"simulator CPU per query: {cpu_ms:.1f} ms (target < {TARGET_CPU_MS:.0f} ms): {'OK' if met else 'ABOVE TARGET'}")
    record("simulator: GraphQL batch of 100 projects, simulator CPU", f"< {TARGET_CPU_MS:.0f} ms",
           f"{cpu_ms:.1f} ms", met, how="http")
    return 0 if met else 1


def _wait_until_up(client: httpx.Client, base_url: str) -> None:
    deadline = time.monotonic() + 60
    while True:
        try:
            client.get(base_url + "/api/v4/version")
            return
        except httpx.TransportError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.05)


if __name__ == "__main__":
    raise SystemExit(main())
