"""Simulator CI data: data-set build time, benchmark logs and a big streamed artifact.

Peer for the artifact: building the whole archive in memory and answering it as one body (what a
naive ``Response(body)`` would do). Run standalone:
``.venv/bin/python bench/bench_sim_traces.py [artifact_mb]``.
Targets: data set well under 1 s; a 200 MB download whose server-side peak memory stays a small
fraction of the archive (it streams from a spooled file).
"""

from __future__ import annotations

import resource
import sys
import time
from pathlib import Path

import httpx

from labdeck.sim.core.clock import SimClock
from labdeck.sim.dataset.build import DEMO_TOKENS, build_state
from labdeck.sim.dataset.ci import add_benchmark_jobs
from labdeck.sim.server import SimServer

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _report import record


def rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def main() -> int:
    artifact_mb = int(sys.argv[1]) if len(sys.argv) > 1 else 200
    started = time.perf_counter()
    state = build_state(seed=42, clock=SimClock(mode="manual"))
    build_s = time.perf_counter() - started
    jobs = add_benchmark_jobs(state, ci_huge_trace_bytes=20_000_000, ci_huge_trace_rate=10240,
                              ci_million_line_trace=1_000_000, ci_big_artifact_bytes=artifact_mb * 1024 * 1024)
    print(f"data set: {len(state.jobs)} jobs, {len(state.runners)} runners, built in {build_s * 1000:.0f} ms")
    server = SimServer(state).start()
    headers = {"PRIVATE-TOKEN": DEMO_TOKENS["admin"]}
    try:
        with httpx.Client(base_url=server.api_url, headers=headers, timeout=120) as client:
            ref = jobs["big_artifact"]
            url = f"/projects/{ref['project_id']}/jobs/{ref['job_id']}/artifacts"
            before = rss_mb()
            began = time.perf_counter()
            size = 0
            with client.stream("GET", url) as response:
                for chunk in response.iter_bytes(1024 * 1024):
                    size += len(chunk)
            took = time.perf_counter() - began
            growth = rss_mb() - before
            print(f"artifact: {size / 1e6:.0f} MB in {took:.2f} s ({size / 1e6 / took:.0f} MB/s); "
                  f"process peak RSS grew {growth:.0f} MB")
            print(f"ratio vs in-memory peer (needs >= {size / 1e6:.0f} MB): "
                  f"{max(growth, 1) / (size / 1e6):.2f}x of the archive size")
            record("simulator: 200 MB artifact, server peak RSS growth", "small fraction of the archive",
                   f"{growth:.0f} MB ({max(growth, 1) / (size / 1e6):.2f}x)", growth < 0.25 * size / 1e6, how="http")
            for key in ("huge_trace", "million_lines"):
                ref = jobs[key]
                url = f"/projects/{ref['project_id']}/jobs/{ref['job_id']}/trace"
                for attempt in ("first", "cached"):
                    began = time.perf_counter()
                    body = client.get(url).content
                    took = time.perf_counter() - began
                    lines = body.count(b"\n")
                    print(f"{key:14s} {attempt:6s} GET: {len(body) / 1e6:6.1f} MB, {lines:>9,} lines "
                          f"in {took:.2f} s")
            state.clock.advance(10)
            ref = jobs["huge_trace"]
            grown = client.get(f"/projects/{ref['project_id']}/jobs/{ref['job_id']}/trace").content
            print(f"huge_trace after 10 simulated s: {len(grown):,} bytes")
    finally:
        server.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
