"""The benchmark helpers that read a real terminal: escape stripping, the pty runner, CPU time,
row markers and the summary table (fast; no benchmark is run here)."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[2] / "bench"
sys.path.insert(0, str(BENCH))

from _console_env import row_markers  # noqa: E402
from _pty import PtyProgram, cpu_seconds, strip_escapes  # noqa: E402
from _report import RESULTS_ENV, record, spread  # noqa: E402
from run_all import _table  # noqa: E402


def test_escape_sequences_are_removed_and_text_kept() -> None:
    raw = (b"\x1b[?1049h\x1b[1;3H\x1b[38;2;1;2;3;48;5;17mplatform/api\x1b[0m\xe2\x80\xa6"
           b"\x1b]22;default\x07\x1b]8;;http://x\x1b\\link\x1b[>25u\x1b(B!")
    assert strip_escapes(raw) == "platform/api…link!"


@pytest.mark.pty
def test_a_program_under_the_pty_sees_a_terminal_of_the_asked_size() -> None:
    code = "import os, sys; print('size', os.get_terminal_size(1), sys.stdout.isatty()); input()"
    with PtyProgram([sys.executable, "-c", code], columns=80, rows=24) as program:
        seconds = program.wait_for(lambda out: b"True" in out, timeout=20)
        assert 0 < seconds < 20
        assert "columns=80, lines=24" in strip_escapes(bytes(program.output))
        program.send("\r")
        assert program.wait_exit(10)
    assert program.exit_status == 0 and program.ended >= program.started


def test_cpu_seconds_reads_proc_stat() -> None:
    before = cpu_seconds(os.getpid())
    sum(i * i for i in range(2_000_000))
    assert cpu_seconds(os.getpid()) > before


def test_row_markers_tell_cut_paths_apart() -> None:
    assert row_markers(["platform/infra/k8s-manifests", "platform/infra/terraform"]) == [
        "platform/infra/k", "platform/infra/t"]
    with pytest.raises(ValueError):
        row_markers(["group/a-very-long-name-1", "group/a-very-long-name-2"])


def test_records_become_one_table(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    results = tmp_path / "results.jsonl"
    monkeypatch.setenv(RESULTS_ENV, str(results))
    record("idle CPU, projects", "≤ 0.5 %", "0.31 %", True, how="pty", note="60 s")
    record("floor: import textual.app", "—", "0.17 s", None, how="pty")
    rows = [json.loads(line) for line in results.read_text(encoding="utf-8").splitlines()]
    table = _table(rows)
    assert "idle CPU, projects" in table and "met" in table and "—" in table
    assert table.splitlines()[0].split()[:5] == ["measure", "target", "result", "met", "how"]
    assert spread([0.7, 0.6, 0.8]) == "0.70 s (0.60–0.80, n=3)"


def test_the_idle_bench_has_the_count_only_benches_beside_it_unless_serial() -> None:
    from run_all import _scripts

    here = Path(__file__).resolve().parents[2] / "bench"
    grouped = {main.stem: [[other.stem for other in lane] for lane in lanes]
               for main, lanes in _scripts(here, serial=False)}
    assert grouped["bench_idle_cpu"] == [["bench_board", "bench_trace_follow", "bench_api_list"], ["bench_soak"]]
    assert "bench_board" not in grouped and "bench_api_list" not in grouped and "bench_soak" not in grouped
    alone = _scripts(here, serial=True)
    assert all(not beside for _, beside in alone)
    assert {main.stem for main, _ in alone} >= {"bench_idle_cpu", "bench_board", "bench_trace_follow"}


def test_the_soak_reads_growth_as_a_slope_and_waits_for_the_header_without_loading() -> None:
    from bench_soak import _loaded, memory_mb, slope

    assert slope([(1, 80.0), (2, 80.1), (3, 80.2), (4, 80.3)]) == pytest.approx(0.1)
    assert slope([(1, 80.0), (2, 81.5), (3, 80.0)]) == pytest.approx(0.0)  # one allocator step is not a trend
    assert slope([(1, 80.0)]) == 0.0
    header = b"\x1b[1;1Hnothing failing \xc2\xb7 0 running \xc2\xb7 300 projects watched"
    assert not _loaded(b"projects")
    assert not _loaded(header + " · loading 12".encode())
    assert _loaded(header + " · loading 12".encode() + b"\x1b[1;1H" + header + b" \xc2\xb7 f=failed")
    figures = memory_mb(os.getpid())
    assert figures["VmRSS"] > 0 and figures["RssAnon"] + figures["RssFile"] <= figures["VmRSS"] + 1


def test_the_soak_takes_each_hours_floor_so_a_reading_just_before_a_collection_is_no_step() -> None:
    from bench_soak import Sample, hourly, slope

    # A flat console: 1 MB of garbage piles up over each 30 s and a collection (with the trim)
    # gives it back 9 s before each hour mark; the marks drift from just after to just before it.
    def rss(second: float, offset: float) -> float:
        return 90.0 + ((second - offset) % 30.0) / 30.0

    for offset in (21.0, 29.5, 0.5):
        readings = [Sample(float(second), rss(second, offset), 70.0, 20.0) for second in range(0, 30 * 6 + 1)]
        hours = [hourly(readings[:hour * 30 + 1], hour, 32.0) for hour in range(1, 7)]
        assert all(row.floor == pytest.approx(90.0, abs=0.05) for row in hours)
        assert slope([(row.hour, row.floor) for row in hours]) == pytest.approx(0.0, abs=0.01)
        assert all(row.peak - row.floor > 0.9 for row in hours)
    marks = [hourly([Sample(0.0, 91.0, 0, 0), Sample(1.0, 90.0, 0, 0), Sample(2.0, 90.2, 0, 0)], 1, 32.0)]
    assert marks[0].since_drop == pytest.approx(1.0) and marks[0].at_mark == 90.2
    steady = hourly([Sample(float(second), 90.0 + second / 100, 0, 0) for second in range(31)], 1, 32.0)
    assert steady.since_drop is None and steady.floor == 90.0
