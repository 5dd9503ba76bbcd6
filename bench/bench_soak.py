"""The board left open for a simulated half-day: does the console's memory stay flat?

The real ``labdeck`` executable in an 80x24 pty, on the board (``0``) watching every project of a
separately started ``labdeck serve --projects 300 --speed N`` (real clock: N simulated seconds per
second, so its CI keeps moving: new pipelines, jobs starting, failing, finishing). Once the board
has read every project (its header no longer says "loading"), the console's RSS
(``/proc/<pid>/status`` VmRSS) is taken at every simulated hour for
``LABDECK_BENCH_SOAK_HOURS`` hours (default 12).

Reported: RSS at each simulated hour; growth per simulated hour after the first hour (least-squares
slope over hours 1..N, so one allocator step does not decide it); the console's CPU (% of one core)
and the simulator's; bytes written to the terminal per second. Target (issue 24): at most 0.1 MB
per simulated hour, i.e. at most 17 MB over a week.

Environment: ``LABDECK_BENCH_SOAK_HOURS`` (simulated hours after loading, default 12),
``LABDECK_BENCH_SOAK_SPEED`` (the simulator's ``--speed``, default 360: 12 simulated hours in two
minutes; the issue's 60 and 120 work too), ``LABDECK_BENCH_SOAK_TRACE=<seconds>`` (runs the console
with ``LABDECK_DEBUG_TRACEMALLOC`` and prints its last report: what grew, by traceback).
Run standalone: ``LABDECK_BENCH_SOAK_HOURS=4 .venv/bin/python bench/bench_soak.py``.
"""

from __future__ import annotations

import contextlib
import os
import re
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _console_env import LABDECK, Server, temp_dir, watching_all
from _pty import PtyProgram, cpu_seconds, strip_escapes
from _report import record

PROJECTS = 300
TARGET_MB_PER_HOUR = 0.1
LOAD_TIMEOUT = 180.0
"""Seconds allowed for the board's first reads of every project (a busy 2-core machine)."""
_HEADER = re.compile(r"projects watched( · loading \d+)?")


def rss_mb(pid: int) -> float:
    """Resident set of process ``pid`` in MB (10^6 bytes)."""
    with open(f"/proc/{pid}/status", encoding="ascii") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024 / 1e6
    raise RuntimeError(f"no VmRSS for {pid}")


def slope(points: list[tuple[float, float]]) -> float:
    """Least-squares slope of ``(x, y)`` points (0 with fewer than two)."""
    if len(points) < 2:
        return 0.0
    mean_x = sum(x for x, _ in points) / len(points)
    mean_y = sum(y for _, y in points) / len(points)
    spread = sum((x - mean_x) ** 2 for x, _ in points)
    return sum((x - mean_x) * (y - mean_y) for x, y in points) / spread if spread else 0.0


def _loaded(output: bytes) -> bool:
    """The board's header last drawn without "loading N" (every watched project read once)."""
    found = _HEADER.findall(strip_escapes(output[-20000:]))
    return bool(found) and found[-1] == ""


def main() -> int:
    hours = int(float(os.environ.get("LABDECK_BENCH_SOAK_HOURS", "12")))
    speed = float(os.environ.get("LABDECK_BENCH_SOAK_SPEED", "360"))
    trace = os.environ.get("LABDECK_BENCH_SOAK_TRACE", "")
    hour_seconds = 3600 / speed
    label = f"soak: board, {PROJECTS} watched projects, --speed {speed:g}: RSS growth per simulated hour"
    target = f"≤ {TARGET_MB_PER_HOUR} MB/h"
    with temp_dir("labdeck-bench-soak-") as tmp, \
            Server("--projects", str(PROJECTS), "--speed", f"{speed:g}") as server:
        home = Path(tmp) / "home"
        extra = {"PYTHONPYCACHEPREFIX": str(Path(tmp) / "pycache")}
        if trace:
            extra["LABDECK_DEBUG_TRACEMALLOC"] = trace
        env = watching_all(server, home, extra, at_least=PROJECTS)
        first = server.project_paths()[0][:16]
        samples: list[tuple[int, float]] = []
        try:
            with PtyProgram([LABDECK], env=env, columns=80, rows=24) as program:
                program.wait_for(lambda out: first in strip_escapes(out), 60)
                program.send("0")
                program.wait_for(lambda out: "watched" in strip_escapes(out), 30)
                # The header may be drawn before the first round has started (nothing said to be
                # loading yet): wait for "loading N" to show, then to go.
                with contextlib.suppress(TimeoutError):
                    program.wait_for(lambda out: not _loaded(out), 20)
                loaded_after = program.wait_for(_loaded, LOAD_TIMEOUT)
                began = time.perf_counter()
                cpu, sim_cpu, written = cpu_seconds(program.pid), cpu_seconds(server.pid), len(program.output)
                samples.append((0, rss_mb(program.pid)))
                print(f"board loaded {loaded_after:.0f} s after start; RSS at each simulated hour "
                      f"(one every {hour_seconds:.0f} s):", flush=True)
                print(f"  hour  0: {samples[0][1]:6.1f} MB", flush=True)
                for hour in range(1, hours + 1):
                    program.drain(began + hour * hour_seconds - time.perf_counter())
                    samples.append((hour, rss_mb(program.pid)))
                    print(f"  hour {hour:2d}: {samples[-1][1]:6.1f} MB ({samples[-1][1] - samples[-2][1]:+.2f})",
                          flush=True)
                elapsed = time.perf_counter() - began
                cpu_percent = (cpu_seconds(program.pid) - cpu) / elapsed * 100
                sim_percent = (cpu_seconds(server.pid) - sim_cpu) / elapsed * 100
                rate = (len(program.output) - written) / elapsed
                if trace:  # the report that covers the whole soak (its writing takes a while)
                    report = home / "state" / "labdeck" / "tracemalloc.txt"
                    ended = time.time()
                    limit = time.perf_counter() + float(trace.split(",")[0]) + 120
                    while time.perf_counter() < limit and not (report.exists() and report.stat().st_mtime > ended):
                        program.drain(1.0)
                program.send("\x11")  # ctrl+q
                program.wait_exit(10)
        except Exception as error:  # reported in the table like the other benches
            print(f"soak FAILED: {type(error).__name__}: {error}")
            record(label, target, "failed", False, how="pty", note=f"{type(error).__name__}: {error}"[:80])
            return 1
        if trace:
            report = home / "state" / "labdeck" / "tracemalloc.txt"
            print(f"\n--- {report.name} (the console's last tracemalloc report) ---")
            print(report.read_text(encoding="utf-8") if report.exists() else "(none written)")
    growth = slope([(hour, rss) for hour, rss in samples if hour >= 1])
    per_week = growth * 24 * 7
    print(f"growth after the first hour: {growth:+.3f} MB per simulated hour ({per_week:+.0f} MB a week at "
          f"that rate; hour 1 → {hours}: {samples[-1][1] - samples[1][1]:+.2f} MB)   "
          f"(target ≤ {TARGET_MB_PER_HOUR} MB/h: {'ok' if growth <= TARGET_MB_PER_HOUR else 'MISSED'})")
    print(f"console CPU {cpu_percent:.2f} % of one core; simulator CPU {sim_percent:.2f} %; terminal output "
          f"{rate:,.0f} B/s; {elapsed:.0f} s for {hours} simulated hours")
    record(label, target, f"{growth:+.3f} MB/h", growth <= TARGET_MB_PER_HOUR, how="pty",
           note=f"{hours} h: {samples[1][1]:.1f}→{samples[-1][1]:.1f} MB; CPU {cpu_percent:.1f} %, "
                f"sim {sim_percent:.0f} %; {rate:,.0f} B/s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
