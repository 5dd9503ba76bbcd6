"""Listing 5,000 projects (per_page 100) from the simulator: labdeck vs python-gitlab.

The simulator runs in a child process. Runs twice: with 100 ms of simulated latency per request (the simulator's fault config) and with
none. labdeck fetches pages 2..N concurrently once page 1 announces X-Total-Pages; python-gitlab's
``projects.list(get_all=True)`` follows the pages one by one. Target: >= 3x with latency.

    .venv/bin/python bench/bench_api_list.py [--projects 5000] [--latency-ms 100]
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

import gitlab
import httpx

from labdeck.api import ApiClient
from labdeck.base.secret import Secret
from labdeck.sim.dataset.build import DEMO_TOKENS

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _report import record
from _sim_process import SimProcess


async def labdeck_list(base_url: str, token: str) -> tuple[int, float]:
    async with ApiClient(base_url, Secret(token)) as client:
        started = time.perf_counter()
        projects = await client.projects.list(per_page=100).all()
        return len(projects), time.perf_counter() - started


def gitlab_list(base_url: str, token: str) -> tuple[int, float]:
    gl = gitlab.Gitlab(base_url, private_token=token)
    started = time.perf_counter()
    projects = gl.projects.list(get_all=True, per_page=100)
    return len(projects), time.perf_counter() - started


def set_latency(base_url: str, token: str, latency_ms: float) -> None:
    """Through the simulator's control surface (``PUT /-/sim/faults``)."""
    response = httpx.put(f"{base_url}/-/sim/faults", json={"latency_ms": latency_ms},
                         headers={"PRIVATE-TOKEN": token})
    response.raise_for_status()


def run(server: SimProcess, latency_ms: float, token: str) -> float:
    set_latency(server.base_url, token, latency_ms)
    ours_count, ours = asyncio.run(labdeck_list(server.base_url, token))
    theirs_count, theirs = gitlab_list(server.base_url, token)
    assert ours_count == theirs_count, (ours_count, theirs_count)
    ratio = theirs / ours
    print(f"latency {latency_ms:>5.0f} ms | {ours_count} projects | labdeck {ours:6.2f} s | "
          f"python-gitlab {theirs:6.2f} s | speed-up x{ratio:.1f}")
    return ratio


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--projects", type=int, default=5000)
    parser.add_argument("--latency-ms", type=float, default=100.0)
    args = parser.parse_args()
    token = DEMO_TOKENS["admin"]
    with SimProcess(projects=args.projects) as server:
        with_latency = run(server, args.latency_ms, token)
        run(server, 0.0, token)
    target = 3.0
    print(f"target with latency: >= x{target:.0f} -> {'met' if with_latency >= target else 'MISSED'}")
    record(f"listing {args.projects:,} projects, {args.latency_ms:.0f} ms latency: vs python-gitlab", f"≥ x{target:.0f}",
           f"x{with_latency:.1f}", with_latency >= target, how="http")
    return 0 if with_latency >= target else 1


if __name__ == "__main__":
    raise SystemExit(main())
