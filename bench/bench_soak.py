"""The board left open for two simulated days: does the console's memory stay flat once warm?

The real ``labdeck`` executable in an 80x24 pty, on the board (``0``) watching every project of a
separately started ``labdeck serve --projects 300 --speed N`` (real clock: N simulated seconds per
second, so its CI keeps moving: new pipelines, jobs starting, failing, finishing). Once the board
has read every project (its header no longer says "loading"), the console's RSS
(``/proc/<pid>/status`` VmRSS) is taken at every simulated hour for
``LABDECK_BENCH_SOAK_HOURS`` hours (default 48, at ``--speed 120``: 24 minutes).

The target (issue 29) is the growth **after warm-up**: the console warms up for about a simulated
day, while triage's 24-hour window fills with the world's failures (each project's first failures,
their logs' facts, the rows' jobs), so its memory rises through the first day for reasons that end.
The figure is the least-squares slope of RSS over hours ``W``..N, ``W`` being
``LABDECK_BENCH_SOAK_WARMUP`` (default 24 simulated hours; at most half the run, so a short run
still has a second half to measure, and the report says which hours it left out). A slope, so one
allocator step does not decide it. Also printed: the slope from hour 1 (warm-up included), the
console's CPU (% of one core) and the simulator's, bytes written to the terminal per second.
Target: at most 0.05 MB per simulated hour after warm-up, i.e. at most 8.4 MB over a week.

Environment: ``LABDECK_BENCH_SOAK_HOURS`` (simulated hours after loading, default 48),
``LABDECK_BENCH_SOAK_SPEED`` (the simulator's ``--speed``, default 120, the issue's; 360 runs
three times faster), ``LABDECK_BENCH_SOAK_WARMUP`` (simulated hours left out, default 24),
``LABDECK_BENCH_SOAK_TRACE=<seconds>[,<warm-up>[,<frames>]]`` (runs the
console with ``LABDECK_DEBUG_TRACEMALLOC`` and prints its last report: what grew, by traceback),
``LABDECK_BENCH_SOAK_WATCH_ALL=0`` (the board as a new user finds it: the starred projects, not all 300).
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

from _console_env import LABDECK, Server, console_env, temp_dir, watching_all
from _pty import PtyProgram, cpu_seconds, strip_escapes
from _report import record

PROJECTS = 300
TARGET_MB_PER_HOUR = 0.05
"""Issue 29: RSS growth per simulated hour after warm-up (``--speed 120``, 300 projects)."""
WARM_UP_HOURS = 24
"""Simulated hours left out of the figure: triage's 24-hour window filling (see the docstring)."""
LOAD_TIMEOUT = 180.0
"""Seconds allowed for the board's first reads of every project (a busy 2-core machine)."""
_HEADER = re.compile(r"projects watched( · loading \d+)?")


def memory_mb(pid: int) -> dict[str, float]:
    """``VmRSS``, ``RssAnon`` and ``RssFile`` of process ``pid`` in MB (10^6 bytes): the resident set,
    and its part that is the process's own memory (heap, stacks) and its part mapped from files
    (code of Python and its libraries, paged in the first time it runs; it grows as new code
    paths run, and is shared and dropped under memory pressure)."""
    found: dict[str, float] = {}
    with open(f"/proc/{pid}/status", encoding="ascii") as status:
        for line in status:
            name, _, value = line.partition(":")
            if name in ("VmRSS", "RssAnon", "RssFile"):
                found[name] = int(value.split()[0]) * 1024 / 1e6
    return found


def slope(points: list[tuple[float, float]]) -> float:
    """Least-squares slope of ``(x, y)`` points (0 with fewer than two)."""
    if len(points) < 2:
        return 0.0
    mean_x = sum(x for x, _ in points) / len(points)
    mean_y = sum(y for _, y in points) / len(points)
    spread = sum((x - mean_x) ** 2 for x, _ in points)
    return sum((x - mean_x) * (y - mean_y) for x, y in points) / spread if spread else 0.0


def warm_up_hours(hours: int, wanted: int) -> int:
    """The simulated hours left out before the slope: ``wanted``, but at most half the run (a
    short run still measures its second half) and at least the first hour (the board's first
    reads settling)."""
    return max(1, min(wanted, hours // 2))


def _loaded(output: bytes) -> bool:
    """The board's header last drawn without "loading N" (every watched project read once)."""
    found = _HEADER.findall(strip_escapes(output[-20000:]))
    return bool(found) and found[-1] == ""


def main() -> int:
    hours = int(float(os.environ.get("LABDECK_BENCH_SOAK_HOURS", "48")))
    speed = float(os.environ.get("LABDECK_BENCH_SOAK_SPEED", "120"))
    warm_up = warm_up_hours(hours, int(float(os.environ.get("LABDECK_BENCH_SOAK_WARMUP", str(WARM_UP_HOURS)))))
    trace = os.environ.get("LABDECK_BENCH_SOAK_TRACE", "")
    watch_all = os.environ.get("LABDECK_BENCH_SOAK_WATCH_ALL", "1") != "0"
    hour_seconds = 3600 / speed
    slow = 4.0 if trace else 1.0  # tracing every allocation makes start-up several times slower
    label = (f"soak: board, {PROJECTS} watched projects, --speed {speed:g}: RSS growth per simulated hour "
             f"after {warm_up} h of warm-up")
    target = f"≤ {TARGET_MB_PER_HOUR} MB/h"
    with temp_dir("labdeck-bench-soak-") as tmp, \
            Server("--projects", str(PROJECTS), "--speed", f"{speed:g}") as server:
        home = Path(tmp) / "home"
        extra = {"PYTHONPYCACHEPREFIX": str(Path(tmp) / "pycache")}
        if trace:
            extra["LABDECK_DEBUG_TRACEMALLOC"] = trace
        env = (watching_all(server, home, extra, at_least=PROJECTS) if watch_all
               else console_env(home, url=server.url, extra=extra))
        first = server.project_paths()[0][:16]
        samples: list[tuple[int, float]] = []
        anon: list[tuple[int, float]] = []
        try:
            with PtyProgram([LABDECK], env=env, columns=80, rows=24) as program:
                program.wait_for(lambda out: first in strip_escapes(out), 60 * slow)
                program.send("0")
                program.wait_for(lambda out: "watched" in strip_escapes(out), 90 * slow)  # a loaded machine takes longer to draw the board
                # The header may be drawn before the first round has started (nothing said to be
                # loading yet): wait for "loading N" to show, then to go.
                with contextlib.suppress(TimeoutError):
                    program.wait_for(lambda out: not _loaded(out), 20 * slow)
                loaded_after = program.wait_for(_loaded, LOAD_TIMEOUT * slow)
                began = time.perf_counter()
                cpu, sim_cpu, written = cpu_seconds(program.pid), cpu_seconds(server.pid), len(program.output)
                print(f"board loaded {loaded_after:.0f} s after start; RSS at each simulated hour "
                      f"(one every {hour_seconds:.0f} s), and its parts: the process's own memory (anon) "
                      "and pages of code mapped from files (file):", flush=True)
                for hour in range(hours + 1):
                    program.drain(began + hour * hour_seconds - time.perf_counter())
                    memory = memory_mb(program.pid)
                    samples.append((hour, memory["VmRSS"]))
                    anon.append((hour, memory.get("RssAnon", 0.0)))
                    change = f"({samples[-1][1] - samples[-2][1]:+.2f})" if hour else ""
                    print(f"  hour {hour:2d}: {memory['VmRSS']:6.1f} MB {change:9} anon {memory.get('RssAnon', 0):6.1f}"
                          f" file {memory.get('RssFile', 0):5.1f}", flush=True)
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
    growth = slope([(hour, rss) for hour, rss in samples if hour >= warm_up])
    anon_growth = slope([(hour, mb) for hour, mb in anon if hour >= warm_up])
    from_first = slope([(hour, rss) for hour, rss in samples if hour >= 1])
    per_week = growth * 24 * 7
    met = growth <= TARGET_MB_PER_HOUR
    print(f"warm-up left out: simulated hours 0 → {warm_up} (triage's 24-hour window filling; "
          f"LABDECK_BENCH_SOAK_WARMUP)")
    print(f"growth after warm-up (hours {warm_up} → {hours}): {growth:+.3f} MB per simulated hour "
          f"({per_week:+.1f} MB a week at that rate; hour {warm_up} → {hours}: "
          f"{samples[-1][1] - samples[warm_up][1]:+.2f} MB)   (target ≤ {TARGET_MB_PER_HOUR} MB/h: "
          f"{'ok' if met else 'MISSED'}); of which anon {anon_growth:+.3f} MB/h")
    print(f"growth from hour 1, warm-up included (hours 1 → {hours}): {from_first:+.3f} MB per simulated hour")
    print(f"console CPU {cpu_percent:.2f} % of one core; simulator CPU {sim_percent:.2f} %; terminal output "
          f"{rate:,.0f} B/s; {elapsed:.0f} s for {hours} simulated hours")
    record(label, target, f"{growth:+.3f} MB/h", met, how="pty",
           note=f"hours {warm_up}-{hours}: {samples[warm_up][1]:.1f}→{samples[-1][1]:.1f} MB (anon {anon_growth:+.2f} MB/h); CPU {cpu_percent:.1f} %, "
                f"sim {sim_percent:.0f} %; {rate:,.0f} B/s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
