"""``LABDECK_DEBUG_TRACEMALLOC``: its setting, and a report that says what grew and who holds it."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from labdeck.base import memtrace
from tests.support.process import REPO


def test_the_setting_reads_interval_warm_up_and_frames() -> None:
    assert memtrace.parse_setting("30") == (30.0, 30.0, memtrace.FRAMES)
    assert memtrace.parse_setting("30,120,1") == (30.0, 120.0, 1)
    assert memtrace.parse_setting("30,5,0") == (30.0, 5.0, 0)  # no tracing: counts only
    assert memtrace.parse_setting("soon") == (60.0, 60.0, memtrace.FRAMES)


def test_nothing_starts_without_the_variable(tmp_path: Path) -> None:
    assert memtrace.start_from_env({}, tmp_path) is None
    assert not (tmp_path / "tracemalloc.txt").exists()


# Run in a process of its own: the report walks every object of the process (gc.get_objects,
# gc.get_referrers), which in a test worker holding a whole suite's objects took 17 s to 2 min.
_SCENARIO = """
import sys, time, tracemalloc
from pathlib import Path
from labdeck.base import memtrace

class Held:  # a type of this scenario only, so its growth is told apart
    pass

folder = Path(sys.argv[1])
keeper = []
reporter = memtrace.start_from_env({memtrace.ENV: "1,1,0"}, folder)
assert reporter is not None and not tracemalloc.is_tracing()
time.sleep(1.2)  # the baseline is taken after the warm-up
keeper.extend(Held() for _ in range(500))
report = folder / "tracemalloc.txt"
limit = time.monotonic() + 20
while not (report.exists() and "Held" in report.read_text(encoding="utf-8")) and time.monotonic() < limit:
    time.sleep(0.1)
reporter.stop()
"""


def test_the_report_names_the_type_that_grew_and_what_holds_it(tmp_path: Path) -> None:
    subprocess.run([sys.executable, "-c", _SCENARIO, str(tmp_path)], check=True, timeout=60,
                   env={**os.environ, "PYTHONPATH": f"{REPO / 'src'}{os.pathsep}{REPO}"})
    text = (tmp_path / "tracemalloc.txt").read_text(encoding="utf-8")
    assert "Held: 500 (+500)" in text
    assert "list[500]" in text.split("who holds them", 1)[1]  # the list that keeps them
    assert "RSS" in text and "malloc in use" in text


_ARENAS = """
from labdeck.base import memtrace
before_arenas, before_blocks = memtrace.obmalloc_kib()
held = [object() for _ in range(200_000)]  # ~3 MiB of 16-byte objects
arenas, blocks = memtrace.obmalloc_kib()
print(before_arenas, before_blocks, arenas, blocks)
"""


def test_small_object_arenas_are_told_apart_from_the_blocks_in_them() -> None:
    # Python's own allocator maps arenas apart from malloc's heap: RSS that grows while the blocks
    # in use stay flat is fragmentation there, not a leak (what the soak's report must tell).
    # In a process of its own: a test worker's arenas, shredded by earlier tests, had room enough
    # for the new objects without a new arena.
    done = subprocess.run([sys.executable, "-c", _ARENAS], check=True, timeout=60, capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": f"{REPO / 'src'}{os.pathsep}{REPO}"})
    before_arenas, before_blocks, arenas, blocks = (int(figure) for figure in done.stdout.split())
    assert arenas >= blocks > 0
    assert blocks - before_blocks >= 2_000
    assert arenas > before_arenas
