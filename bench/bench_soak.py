"""The board left open for two simulated days: does the console's memory stay flat once warm?

The real ``labdeck`` executable in an 80x24 pty, on the board (``0``) watching every project of a
separately started ``labdeck serve --projects 300 --speed N`` (real clock: N simulated seconds per
second, so its CI keeps moving: new pipelines, jobs starting, failing, finishing). Once the board
has read every project (its header no longer says "loading"), the console's RSS
(``/proc/<pid>/status`` VmRSS, with its RssAnon part) is read every second (:data:`SAMPLE_EVERY`)
for ``LABDECK_BENCH_SOAK_HOURS`` simulated hours (default 48, at ``--speed 120``: 24 minutes).

The target (issue 29) is the growth **after warm-up**: the console warms up for about a simulated
day, while triage's 24-hour window fills with the world's failures (each project's first failures,
their logs' facts, the rows' jobs), so its memory rises through the first day for reasons that end.
The figure is the least-squares slope over hours ``W``..N, ``W`` being
``LABDECK_BENCH_SOAK_WARMUP`` (default 24 simulated hours; at most half the run, so a short run
still has a second half to measure, and the report says which hours it left out), of each hour's
**floor**: the lowest RSS of the readings of the last 32 s (one simulated hour at ``--speed 120``
and two readings more, so that it always holds one whole period of the console's full
collection, :data:`labdeck.ui.collector.COLLECT_EVERY`; at ``--speed 360`` it spans three hours).

Why the floor, not one reading at each hour mark (the measure until now, still printed beside it,
"at mark"): the console frees its garbage, and hands the freed pages back to the system, only at
its collection every 30 real seconds, so between two of them RSS climbs a sawtooth (by 0.8 MB on
average, measured second by second over hours 24-48, and by 2-2.3 MB when a triage round's burst
falls in it) and drops back. One reading per 30 s is taken at a fixed phase of that sawtooth (the
collection's timer and the hour marks keep the same period: in one run every collection fell 9 s
before a mark) and reads, besides what the console keeps, whatever garbage piled up since the last
collection: the phase alone moved the old figure by 0.051-0.068 MB/h in the same run (the reading
taken 0-29 s before each mark), and a burst in the last hours of a run (read at +2.2 MB, gone 30 s
later) weighs on a slope through its leverage. What a user's machine keeps for the console is the
floor, the memory still held after the collection has freed the garbage and the trim has given
its pages back; the garbage on top of it is bounded (one collection period's worth) and does not
grow. Two runs of main (48 h at ``--speed 120``): floor +0.053 and +0.053 MB/h, at mark +0.060
and +0.063 (0.050-0.068 in one run and 0.050-0.066 in the other as the reading's phase moves), the
floor's RssAnon +0.053 both times: the floor's growth is the process's own memory, not the
sampling. Also printed: each hour's peak and mean, the seconds from the hour's collection (its largest
fall of RSS) to the mark, the slope of the floor's RssAnon (the process's own memory, without
pages of code mapped from files), the slope from hour 1 (warm-up included), the console's CPU (%
of one core) and the simulator's, bytes written to the terminal per second.
Target: at most 0.05 MB per simulated hour after warm-up, i.e. at most 8.4 MB over a week.

Environment: ``LABDECK_BENCH_SOAK_HOURS`` (simulated hours after loading, default 48),
``LABDECK_BENCH_SOAK_SPEED`` (the simulator's ``--speed``, default 120, the issue's; 360 runs
three times faster), ``LABDECK_BENCH_SOAK_WARMUP`` (simulated hours left out, default 24),
``LABDECK_BENCH_SOAK_TRACE=<seconds>[,<warm-up>[,<frames>]]`` (runs the
console with ``LABDECK_DEBUG_TRACEMALLOC`` and prints its last report: what grew, by traceback),
``LABDECK_BENCH_SOAK_WATCH_ALL=0`` (the board as a new user finds it: the starred projects, not all 300),
``LABDECK_BENCH_SOAK_SAMPLES=<file>`` (every reading written there as CSV: seconds, hour, VmRSS,
RssAnon, RssFile in MB).
Run standalone: ``LABDECK_BENCH_SOAK_HOURS=4 .venv/bin/python bench/bench_soak.py``.
"""

from __future__ import annotations

import contextlib
import os
import re
import sys
import time
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _console_env import LABDECK, Server, console_env, temp_dir, watching_all
from _pty import PtyProgram, cpu_seconds, strip_escapes
from _report import record

from labdeck.ui.collector import COLLECT_EVERY

PROJECTS = 300
TARGET_MB_PER_HOUR = 0.05
"""Issue 29: RSS growth per simulated hour after warm-up (``--speed 120``, 300 projects)."""
WARM_UP_HOURS = 24
"""Simulated hours left out of the figure: triage's 24-hour window filling (see the docstring)."""
LOAD_TIMEOUT = 180.0
"""Seconds allowed for the board's first reads of every project (a busy 2-core machine)."""
_HEADER = re.compile(r"projects watched( · loading \d+)?")


SAMPLE_EVERY = 1.0
"""Real seconds between two readings of the console's RSS (about: the hour's length divided evenly)."""
DROP_MB = 0.05
"""The largest fall of RSS between two readings of an hour, at least this large, is taken for the
collection's trim (its phase is printed: whether the hour mark reads just before one)."""


@dataclass(frozen=True)
class Sample:
    """One reading of the console's memory, ``seconds`` after the board loaded (MB)."""

    seconds: float
    rss: float
    anon: float
    file: float


@dataclass(frozen=True)
class Hour:
    """What one simulated hour's readings say (MB): the reading at the hour mark (the measure up
    to now), and the lowest and highest of the last ``window`` seconds of readings."""

    hour: int
    at_mark: float
    floor: float
    floor_anon: float
    peak: float
    mean: float
    since_drop: float | None
    """Seconds from the window's largest fall of RSS (the collection) to the hour mark (None: no fall)."""

    def line(self, before: Hour | None) -> str:
        """The hour's row of the printed table, with the changes since ``before``."""
        def change(now: float, then: float | None) -> str:
            return f"({now - then:+.2f})" if then is not None else ""
        phase = f"{self.since_drop:4.1f} s" if self.since_drop is not None else "   — "
        return (f"hour {self.hour:2d}: at mark {self.at_mark:6.1f} {change(self.at_mark, before.at_mark if before else None):8} "
                f"floor {self.floor:6.1f} {change(self.floor, before.floor if before else None):8} peak {self.peak:6.1f} "
                f"mean {self.mean:6.1f}  since drop {phase}  floor anon {self.floor_anon:6.1f}")


def hourly(samples: list[Sample], hour: int, window: float) -> Hour:
    """The hour ending at the last of ``samples``: its reading, and the floor, peak and mean of
    the readings of the last ``window`` seconds (the last one included)."""
    mark = samples[-1]
    recent = [sample for sample in samples if sample.seconds >= mark.seconds - window - 1e-9]
    lowest = min(recent, key=lambda sample: sample.rss)
    falls = [(before.rss - after.rss, after.seconds) for before, after in zip(recent, recent[1:], strict=False)]
    fall, fallen_at = max(falls, default=(0.0, 0.0))
    since = mark.seconds - fallen_at if fall >= DROP_MB else None
    return Hour(hour, mark.rss, lowest.rss, lowest.anon, max(sample.rss for sample in recent),
                sum(sample.rss for sample in recent) / len(recent), since)


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
        per_hour = max(1, round(hour_seconds / SAMPLE_EVERY))
        step = hour_seconds / per_hour  # the hour marks fall on readings
        window = max(hour_seconds, COLLECT_EVERY + 2 * step)  # at least one whole collection period
        dense: list[Sample] = []
        hourly_rows: list[Hour] = []
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
                print(f"board loaded {loaded_after:.0f} s after start; RSS every {step:.2f} s, and at each "
                      f"simulated hour (one every {hour_seconds:.0f} s): the sample at the hour mark (the old "
                      f"measure), the floor and peak of the last {window:.0f} s (the console's collection "
                      f"comes every {COLLECT_EVERY:g} s), the seconds since the last drop (collection) and the floor's "
                      "anon part (the process's own memory):", flush=True)
                for index in range(hours * per_hour + 1):
                    program.drain(began + index * step - time.perf_counter())
                    memory = memory_mb(program.pid)
                    dense.append(Sample(index * step, memory["VmRSS"], memory.get("RssAnon", 0.0),
                                        memory.get("RssFile", 0.0)))
                    if index % per_hour == 0:
                        hour = index // per_hour
                        hourly_rows.append(hourly(dense, hour, window))
                        print(f"  {hourly_rows[-1].line(hourly_rows[-2] if hour else None)}", flush=True)
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
    if samples_path := os.environ.get("LABDECK_BENCH_SOAK_SAMPLES"):
        Path(samples_path).write_text("seconds,hour,rss_mb,anon_mb,file_mb\n" + "".join(
            f"{sample.seconds:.2f},{sample.seconds / hour_seconds:.3f},{sample.rss:.3f},{sample.anon:.3f},"
            f"{sample.file:.3f}\n" for sample in dense), encoding="ascii")
    measured = [row for row in hourly_rows if row.hour >= warm_up]
    growth = slope([(row.hour, row.floor) for row in measured])
    at_mark = slope([(row.hour, row.at_mark) for row in measured])
    anon_growth = slope([(row.hour, row.floor_anon) for row in measured])
    mean_growth = slope([(row.hour, row.mean) for row in measured])
    from_first = slope([(row.hour, row.floor) for row in hourly_rows if row.hour >= 1])
    per_week = growth * 24 * 7
    met = growth <= TARGET_MB_PER_HOUR
    phases = sorted(row.since_drop for row in measured if row.since_drop is not None)
    sawtooth = sorted(row.peak - row.floor for row in measured)
    print(f"warm-up left out: simulated hours 0 → {warm_up} (triage's 24-hour window filling; "
          f"LABDECK_BENCH_SOAK_WARMUP)")
    if phases and sawtooth:
        print(f"sawtooth after warm-up: peak − floor of each hour {sawtooth[len(sawtooth) // 2]:.2f} MB median "
              f"({sawtooth[0]:.2f}–{sawtooth[-1]:.2f}); the hour mark came {phases[len(phases) // 2]:.1f} s after "
              f"a collection median ({phases[0]:.1f}–{phases[-1]:.1f} s)")
    print(f"growth after warm-up (hours {warm_up} → {hours}), floor of each hour: {growth:+.3f} MB per simulated "
          f"hour ({per_week:+.1f} MB a week at that rate; hour {warm_up} → {hours}: "
          f"{measured[-1].floor - measured[0].floor:+.2f} MB)   (target ≤ {TARGET_MB_PER_HOUR} MB/h: "
          f"{'ok' if met else 'MISSED'}); of which anon {anon_growth:+.3f} MB/h")
    print(f"  beside it: the reading at each hour mark (the measure before the floor) {at_mark:+.3f} MB/h; "
          f"each hour's mean {mean_growth:+.3f} MB/h")
    print(f"growth from hour 1, warm-up included (hours 1 → {hours}), floor: {from_first:+.3f} MB per simulated hour")
    print(f"console CPU {cpu_percent:.2f} % of one core; simulator CPU {sim_percent:.2f} %; terminal output "
          f"{rate:,.0f} B/s; {elapsed:.0f} s for {hours} simulated hours")
    record(label, target, f"{growth:+.3f} MB/h", met, how="pty",
           note=f"floor, hours {warm_up}-{hours}: {measured[0].floor:.1f}→{measured[-1].floor:.1f} MB (at mark "
                f"{at_mark:+.3f}, anon {anon_growth:+.3f} MB/h); CPU {cpu_percent:.1f} %, sim {sim_percent:.0f} %; "
                f"{rate:,.0f} B/s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
