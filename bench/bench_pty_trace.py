"""The 1,000,000-line job log as a person sees it: the real ``labdeck`` executable in an 80x24 pty
(real terminal, not headless) against a simulator in another process that holds the log
(generated and read once before timing, as a real server has it stored).

Keys are typed through the pty: ``:jobs <project>`` opens the jobs of the benchmark project (its
newest job, the million-line one, is highlighted), then ``enter`` opens the log. Timed from that
``enter``: the first log lines on the terminal, and the log's last line (``Job succeeded``) on the
terminal — the viewer follows the end, so that is the whole log read and indexed. Then the
console's peak resident memory (``VmHWM`` in ``/proc/<pid>/status``).
Targets (same as the headless ``bench_trace_view.py``): first screen ≤ 1.0 s, peak RSS ≤ 150 MB.
Run standalone: ``.venv/bin/python bench/bench_pty_trace.py``.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _console_env import LABDECK, console_env, temp_dir
from _pty import PtyProgram, strip_escapes
from _report import record
from bench_trace_view import SimInProcess


def _status_mb(pid: int, field: str) -> float:
    with open(f"/proc/{pid}/status", encoding="ascii") as status:
        for line in status:
            if line.startswith(field + ":"):
                return int(line.split()[1]) / 1024
    return float("nan")


def _seen(needle: str, since: int) -> Callable[[bytes], bool]:
    def predicate(output: bytes) -> bool:
        return needle in strip_escapes(output[since:])

    return predicate


def main() -> int:
    with temp_dir("labdeck-bench-trace-") as tmp, SimInProcess(trace_range=False) as info:
        env = console_env(Path(tmp) / "home", url=info["base_url"],
                          extra={"PYTHONPYCACHEPREFIX": str(Path(tmp) / "pycache")})
        with PtyProgram([LABDECK], env=env, columns=80, rows=24) as program:
            program.wait_for(_seen("rows", 0), timeout=60)  # the projects table is up
            program.send(":")
            program.drain(0.3)
            mark = len(program.output)
            program.send(f"jobs {info['project_id']}\r")
            program.wait_for(_seen("million", mark), timeout=30)
            program.drain(1.0)  # the jobs screen settles (its first refresh, the cursor)
            rss_before = _status_mb(program.pid, "VmRSS")
            mark = len(program.output)
            program.send("\r")
            pressed = time.perf_counter() - program.started
            first = program.wait_for(_seen("::test_", mark), timeout=60) - pressed
            whole = program.wait_for(_seen("Job succeeded", mark), timeout=300) - pressed
            program.drain(1.0)
            peak = _status_mb(program.pid, "VmHWM")
            after = _status_mb(program.pid, "VmRSS")
            program.send("\x11")
            program.wait_exit(10)
    print("1,000,000-line log in a real pty (80x24, real executable), timed from the enter that opens it:")
    print(f"  first log lines on the terminal: {first:.2f} s   (target ≤ 1.0 s: {'ok' if first <= 1.0 else 'MISSED'})")
    print(f"  last line on the terminal (whole log read and indexed): {whole:.2f} s")
    print(f"  console RSS: {rss_before:.0f} MB before, {after:.0f} MB after, peak {peak:.0f} MB   "
          f"(target ≤ 150 MB: {'ok' if peak <= 150 else 'MISSED'})")
    record("1,000,000-line log: first screen", "≤ 1.0 s", f"{first:.2f} s", first <= 1.0, how="pty",
           note=f"80x24; last line on screen after {whole:.1f} s")
    record("1,000,000-line log: console peak RSS", "≤ 150 MB", f"{peak:.0f} MB", peak <= 150, how="pty",
           note=f"{rss_before:.0f} MB before opening the log")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
