"""Peak memory while downloading a 200 MB job artifacts archive from the simulator.

labdeck streams to disk in chunks; the target is < 60 MB above idle (RSS sampled every 5 ms, and
the tracemalloc peak of Python allocations). python-gitlab's streamed download
(``job.artifacts(streamed=True, action=file.write)``) is measured the same way for comparison.
The simulator runs in a child process so its buffers do not count.

    .venv/bin/python bench/bench_download.py [--megabytes 200]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import tempfile
import threading
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import gitlab
from _report import record
from _sim_process import SimProcess

from labdeck.api import ApiClient
from labdeck.base.secret import Secret
from labdeck.sim.dataset.build import DEMO_TOKENS

MB = 1024 * 1024
_PAGE = os.sysconf("SC_PAGE_SIZE")


def rss() -> int:
    with open("/proc/self/statm") as handle:
        return int(handle.read().split()[1]) * _PAGE


class PeakSampler:
    """Samples RSS in a thread; ``peak - idle`` is the growth during the measured block."""

    def __init__(self) -> None:
        self.idle = rss()
        self.peak = self.idle
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        while not self._stop.is_set():
            self.peak = max(self.peak, rss())
            time.sleep(0.005)

    def __enter__(self) -> PeakSampler:
        tracemalloc.start()
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()
        self.peak = max(self.peak, rss())
        self.traced_peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()


def measure(label: str, action: Callable[[], int]) -> float:
    sampler = PeakSampler()
    started = time.perf_counter()
    with sampler:
        size = action()
    elapsed = time.perf_counter() - started
    growth = (sampler.peak - sampler.idle) / MB
    print(f"{label:<28} {size / MB:7.1f} MB in {elapsed:5.2f} s ({size / MB / elapsed:6.1f} MB/s) | "
          f"RSS +{growth:6.1f} MB | tracemalloc peak {sampler.traced_peak / MB:6.1f} MB")
    return growth


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--megabytes", type=int, default=200)
    args = parser.parse_args()
    token = DEMO_TOKENS["admin"]
    with SimProcess(big_artifact=args.megabytes * MB) as sim, tempfile.TemporaryDirectory() as tmp:
        pid, job_id = sim.info["project_id"], sim.info["job_id"]

        def ours() -> int:
            async def go() -> int:
                async with ApiClient(sim.base_url, Secret(token)) as client:
                    path = await client.jobs.download_artifacts(pid, job_id, Path(tmp) / "ours.zip")
                    return path.stat().st_size
            return asyncio.run(go())

        def theirs() -> int:
            gl = gitlab.Gitlab(sim.base_url, private_token=token)
            job = gl.projects.get(pid, lazy=True).jobs.get(job_id)
            target = Path(tmp) / "theirs.zip"
            with target.open("wb") as handle:
                job.artifacts(streamed=True, action=handle.write)
            return target.stat().st_size

        growth = measure("labdeck download_artifacts", ours)
        measure("python-gitlab streamed", theirs)
    limit = 60.0
    print(f"target: labdeck RSS growth < {limit:.0f} MB -> {'met' if growth < limit else 'MISSED'}")
    record("200 MB artifact download: RSS growth", f"< {limit:.0f} MB", f"{growth:.1f} MB", growth < limit,
           how="http")
    return 0 if growth < limit else 1


if __name__ == "__main__":
    raise SystemExit(main())
