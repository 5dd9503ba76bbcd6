"""LineIndex on a 1,000,000-line job log: build time, memory, reading a screen, searching.

Peer: keeping every line in a Python ``list[str]`` (what Textual's ``Log``/``RichLog`` do with
``max_lines`` unset). Run standalone: ``.venv/bin/python bench/bench_trace_index.py [lines]``.
Targets: finding a word on the last line well under 2 s; memory a fraction of the in-memory list.
"""

from __future__ import annotations

import gc
import sys
import time
import tracemalloc

from labdeck.sim.ci_traces import BulkTrace
from labdeck.tail.lines import LineIndex

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


def peak_memory(action: object) -> tuple[int, object]:
    gc.collect()
    tracemalloc.start()
    result = action()  # type: ignore[operator]
    _, peak = tracemalloc.get_traced_memory()
    current, _ = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return peak, result


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

    ours, kept = peak_memory(lambda: build(log))
    kept.close()  # type: ignore[attr-defined]
    ours_noraw, kept = peak_memory(lambda: build(log, keep_raw=False))
    kept.close()  # type: ignore[attr-defined]
    peer, _ = peak_memory(lambda: log.decode("utf-8", "replace").split("\n"))
    print(f"memory (tracemalloc peak while building): LineIndex {ours / 1e6:.1f} MB "
          f"(without raw view {ours_noraw / 1e6:.1f} MB); peer list[str] {peer / 1e6:.1f} MB "
          f"→ ratio {ours / peer:.2f}x ({ours_noraw / peer:.2f}x)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
