"""LineIndex on a 1,000,000-line job log: build time, memory, reading a screen, searching.

Peer: keeping every line in a Python ``list[str]`` (what Textual's ``Log``/``RichLog`` do with
``max_lines`` unset). Run standalone: ``.venv/bin/python bench/bench_trace_index.py [lines]``.
Targets: finding a word on the last line well under 2 s; memory a fraction of the in-memory list.
Library-level (no UI). Memory is the growth of the resident set's high-water mark while building,
each measured in a fresh child process (``/proc/self/clear_refs`` resets the mark after the log
is made), which also counts allocator slack and the spooled file's buffer.
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

from labdeck.logtext.lines import LineIndex
from labdeck.sim.ci.traces import BulkTrace

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _report import record

CHUNK = 64 * 1024
SCREEN = 50


def make_log(lines: int) -> bytes:
    return BulkTrace(started_unix=1_700_000_000, lines=lines).read(0.0)


def build(log: bytes, **options: int) -> LineIndex:
    index = LineIndex(**options)  # type: ignore[arg-type]
    view = memoryview(log)
    for start in range(0, len(log), CHUNK):
        index.append(bytes(view[start:start + CHUNK]))
    index.finish()
    return index


def _status_kb(field: str) -> int:
    with open("/proc/self/status", encoding="ascii") as status:
        for line in status:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    raise RuntimeError(f"no {field} in /proc/self/status")


def measure_child(kind: str, lines: int) -> None:
    """In a child process: make the log, reset the high-water mark, build, print the growth (MB)."""
    log = make_log(lines)
    with open("/proc/self/clear_refs", "w", encoding="ascii") as clear:
        clear.write("5")  # reset VmHWM to the current RSS
    before = _status_kb("VmHWM")
    if kind == "peer":
        kept: object = log.decode("utf-8", "replace").split("\n")
    else:
        kept = build(log, keep_raw=kind == "ours")
    print((_status_kb("VmHWM") - before) / 1024, flush=True)
    del kept


def peak_growth(kind: str, lines: int) -> float:
    """MB the high-water mark grew while building (``kind``: ours, noraw, peer), in a new process."""
    answer = subprocess.run([sys.executable, __file__, "--memory", kind, str(lines)], capture_output=True,
                            text=True, check=True)
    return float(answer.stdout.strip())


def main() -> int:
    lines = int(sys.argv[1]) if len(sys.argv) > 1 else 1_000_000
    log = make_log(lines)
    print(f"log: {lines:,} lines, {len(log) / 1e6:.1f} MB")

    started = time.perf_counter()
    index = build(log)
    build_seconds = time.perf_counter() - started
    print(f"build (64 KiB appends, sanitize + sections + store): {build_seconds:.2f} s "
          f"({len(log) / 1e6 / build_seconds:.1f} MB/s), {len(index):,} lines, {len(index.sections)} sections")

    started = time.perf_counter()
    screen = index.lines(len(index) - SCREEN - 1000, len(index) - 1000)
    screen_ms = (time.perf_counter() - started) * 1000
    started = time.perf_counter()
    index.lines(len(index) - SCREEN - 1000, len(index) - 1000)
    cached_ms = (time.perf_counter() - started) * 1000
    assert len(screen) == SCREEN
    print(f"a screen of {SCREEN} lines near the end: {screen_ms:.2f} ms cold, {cached_ms:.3f} ms cached")

    started = time.perf_counter()
    found = index.search("succeeded")
    search_seconds = time.perf_counter() - started
    assert found is not None and found >= len(index) - 2 and "succeeded" in index.plain_line(found), found
    print(f"search for a word on the last line (from line 0): {search_seconds:.3f} s "
          f"(target < 2 s: {'ok' if search_seconds < 2 else 'MISSED'})")
    started = time.perf_counter()
    index.search("SUCCEEDED", case=True)
    miss_seconds = time.perf_counter() - started
    print(f"search that matches nothing (whole log): {miss_seconds:.3f} s")
    started = time.perf_counter()
    backwards = index.search("Running with", len(index) - 1, backwards=True)
    back_seconds = time.perf_counter() - started
    assert backwards == 0
    print(f"backward search to the first line: {back_seconds:.3f} s")
    started = time.perf_counter()
    index.first_error_line()
    print(f"first_error_line (none in this log): {time.perf_counter() - started:.3f} s")
    index.close()

    ours = peak_growth("ours", lines)
    ours_noraw = peak_growth("noraw", lines)
    peer = peak_growth("peer", lines)
    print(f"memory (peak RSS growth while building, fresh process each): LineIndex {ours:.1f} MB "
          f"(without raw view {ours_noraw:.1f} MB); peer list[str] {peer:.1f} MB "
          f"→ ratio {ours / peer:.2f}x ({ours_noraw / peer:.2f}x)")
    record(f"LineIndex, {lines:,} lines: search to the last line", "< 2 s", f"{search_seconds:.2f} s",
           search_seconds < 2, how="library", note=f"build {build_seconds:.1f} s")
    record(f"LineIndex, {lines:,} lines: peak memory vs list[str] peer", "fraction of peer",
           f"{ours:.0f} MB vs {peer:.0f} MB ({ours / peer:.2f}x)", ours < peer, how="library")
    return 0


if __name__ == "__main__":
    if sys.argv[1:2] == ["--memory"]:
        measure_child(sys.argv[2], int(sys.argv[3]))
        raise SystemExit(0)
    raise SystemExit(main())
