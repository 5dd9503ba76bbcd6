"""Simulator speed: median time of a 100-item page of GET /projects.

Run standalone: ``.venv/bin/python bench/bench_sim.py [--projects 5000] [--requests 50]``.
Target: under 20 ms per page (median), measured over real loopback HTTP with a persistent client,
against a data set padded to ``--projects`` projects, the simulator running in its own process.
The peer ratio is against a nominal 200 ms for the same page from a real GitLab instance: an
assumed reference figure, not something this script measures.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from pathlib import Path

import httpx

from labdeck.sim.dataset.build import DEMO_TOKENS

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _report import record

TARGET_MS = 20.0
PEER_MS = 200.0


def measure(api_url: str, token: str, requests: int, params: dict[str, str]) -> list[float]:
    """Wall-clock milliseconds of each request, over one persistent connection."""
    timings = []
    with httpx.Client(base_url=api_url, headers={"PRIVATE-TOKEN": token}) as client:
        client.get("/projects", params=params).raise_for_status()  # warm-up
        for _ in range(requests):
            started = time.perf_counter()
            response = client.get("/projects", params=params)
            timings.append((time.perf_counter() - started) * 1000)
            response.raise_for_status()
            assert len(response.json()) == 100
    return timings


_SERVER_CODE = """
import sys, uvicorn
from labdeck.sim.core.clock import SimClock
from labdeck.sim.dataset.build import build_state
from labdeck.sim.server import create_app, free_port
state = build_state(seed=42, clock=SimClock(mode="manual"), projects=int(sys.argv[1]), families=False)
port = free_port()
state.base_url = f"http://127.0.0.1:{port}"
print(port, len(state.projects), flush=True)
uvicorn.run(create_app(state), host="127.0.0.1", port=port, log_level="warning", access_log=False, lifespan="off")
"""


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--projects", type=int, default=5000)
    parser.add_argument("--requests", type=int, default=50)
    args = parser.parse_args()
    # The simulator runs in its own process, as under ``labdeck serve``, so that the measuring client
    # does not share its interpreter. Other families' data is left out: it takes no part in the list.
    process = subprocess.Popen([sys.executable, "-c", _SERVER_CODE, str(args.projects)], stdout=subprocess.PIPE,
                               text=True)
    try:
        assert process.stdout is not None
        port, count = process.stdout.readline().split()
        api_url = f"http://127.0.0.1:{port}/api/v4"
        _wait_until_up(api_url)
        print(f"data set: {count} projects")
        worst = 0.0
        for role, extra in (("admin", {}), ("user", {}), ("user", {"order_by": "name", "sort": "asc"}),
                            ("user", {"simple": "true"}), ("admin", {"statistics": "true", "page": "7"})):
            params = {"per_page": "100", **extra}
            timings = measure(api_url, DEMO_TOKENS[role], args.requests, params)
            median = statistics.median(timings)
            worst = max(worst, median)
            label = f"{role:<5} {' '.join(f'{k}={v}' for k, v in extra.items()) or '(defaults)'}"
            print(f"GET /projects?per_page=100 {label:<40} median {median:6.2f} ms   "
                  f"p90 {sorted(timings)[int(len(timings) * 0.9) - 1]:6.2f} ms   "
                  f"vs nominal GitLab {PEER_MS:.0f} ms: x{PEER_MS / median:.0f}")
    finally:
        process.terminate()
        process.wait(timeout=10)
    verdict = "OK" if worst < TARGET_MS else "ABOVE TARGET"
    print(f"worst median {worst:.2f} ms (target < {TARGET_MS:.0f} ms): {verdict}")
    record("simulator: 100-project page, worst median", f"< {TARGET_MS:.0f} ms", f"{worst:.2f} ms",
           worst < TARGET_MS, how="http")
    return 0 if worst < TARGET_MS else 1


def _wait_until_up(api_url: str) -> None:
    deadline = time.monotonic() + 30
    while True:
        try:
            httpx.get(api_url + "/version")
            return
        except httpx.TransportError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.05)


if __name__ == "__main__":
    raise SystemExit(main())
