"""``labdeck explain`` over the corpus of real CI logs and over a 1,000,000-line log, beside the
floor: the time Python takes to read the same files and split them into lines.

Targets (issue 28): at most 5× the floor, over the corpus and over the big log; peak RSS of the
``labdeck explain`` process on the big log at most 150 MB. The timings are library-level (the
command's own function, :func:`labdeck.commands.explain.run_explain`, in this process: a process
start would dwarf the corpus's few milliseconds), median of 5; the memory is the real command
run as a process (its own ``VmHWM``). Each line gives the wall-clock ratio (the target's) and,
beside it, the same ratio in this process's CPU time. Run standalone:
``.venv/bin/python bench/bench_explain.py [lines] [--breakdown]``; ``--breakdown`` adds where the
corpus's CPU time goes, step by step (the prefilter's byte pass, the rest of the scan, ranking,
reading and JSON), each from runs of that step alone.
"""

from __future__ import annotations

import io
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from labdeck.commands.explain import run_explain
from labdeck.logtext.cause import prefilter, read_cause
from labdeck.logtext.cause.scan import Scanner

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _report import record

ROOT = Path(__file__).resolve().parent.parent
CORPUS = Path(os.environ.get("LABDECK_BENCH_CORPUS", ROOT / "tests" / "logtext" / "corpus"))
"""The corpus (``LABDECK_BENCH_CORPUS`` points at another copy)."""
RUNS = 5
RATIO_TARGET = 5.0
RSS_TARGET_MB = 150.0
ESC = "\x1b"


def make_big_log(path: Path, lines: int) -> None:
    """A long CI log in GitLab framing: compiler and test chatter with colours, warnings, test names
    with "error" in them, and one line in eleven that the prefilter picks (JUnit class summaries with
    ``Failures: 0``); a compiler error at the end."""
    rng = random.Random(28)
    head = [f"{ESC}[0KRunning with gitlab-runner 17.2.0 (6428c288){ESC}[0;m",
            f"section_start:1700000000:step_script\r{ESC}[0K{ESC}[0K{ESC}[36;1mExecuting \"step_script\" stage{ESC}[0;m",
            f"{ESC}[32;1m$ make -j4 check{ESC}[0;m"]
    shapes = [
        "gcc -O2 -Wall -c src/module_{n}.c -o build/module_{n}.o",
        "[{n:>6}/{m}] Building CXX object src/CMakeFiles/core.dir/unit_{n}.cpp.o",
        "tests/test_module_{n}.py::test_case_{n} PASSED                                   [ {p:>2}%]",
        "tests/test_errors_{n}.py::test_error_handling_{n} PASSED                         [ {p:>2}%]",
        f"{ESC}[32m✓{ESC}[39m renders component {{n}} ({{p}} ms)",
        "[INFO] Downloaded from central: https://repo.maven.apache.org/maven2/org/x/lib/{n}/lib-{n}.jar (12 kB at 80 kB/s)",
        "2026-11-27T21:{p:02d}:39.123Z INFO  [worker-{n}] processed batch {n} in {p}ms",
        "src/module_{n}.c:{p}:5: warning: unused variable 'tmp' [-Wunused-variable]",
        "npm WARN deprecated package-{n}@1.0.{p}: this package is no longer supported",
        "ok {n} - handles input {n}",
        # Picked by the prefilter, then rejected or ranked low by the precise patterns: a tenth of the lines.
        "[INFO] Tests run: {p}, Failures: 0, Errors: 0, Skipped: 0, Time elapsed: 0.{p} s - in com.example.Unit{n}Test",
    ]
    with path.open("w", encoding="utf-8") as out:
        out.write("\n".join(head) + "\n")
        for number in range(lines - 8):
            out.write(shapes[number % len(shapes)].format(n=number, m=lines, p=rng.randrange(100)) + "\n")
        out.write("src/sync.c:3:10: error: expected ';' before '}' token\n"
                  "make: *** [Makefile:12: build/sync.o] Error 1\n"
                  f"section_end:1700000600:step_script\r{ESC}[0K\n"
                  f"{ESC}[31;1mERROR: Job failed: exit code 2{ESC}[0;m\n")


def floor(paths: list[Path]) -> tuple[float, float]:
    """Read each file and split it into lines, as plain Python does it: (wall, CPU) seconds."""
    started, cpu = time.perf_counter(), time.process_time()
    for path in paths:
        path.read_bytes().decode("utf-8", "replace").split("\n")
    return time.perf_counter() - started, time.process_time() - cpu


def explain(paths: list[Path]) -> tuple[float, float]:
    """``labdeck explain --json`` over ``paths`` in this process: (wall, CPU) seconds."""
    started, cpu = time.perf_counter(), time.process_time()
    out = io.StringIO()
    status = run_explain([str(path) for path in paths], as_json_lines=True, passing=None, out=out, err=sys.stderr)
    assert status == 0 and out.getvalue().count("\n") == len(paths)
    return time.perf_counter() - started, time.process_time() - cpu


def timed(paths: list[Path], runs: int = RUNS) -> tuple[float, float, float, float]:
    """Median floor and median explain time over ``runs`` alternating runs, wall then CPU (this
    process's own time: on a machine shared with other work, the wall ratio of a floor of a few
    milliseconds swings with the load; the CPU ratio much less)."""
    floors, ours = [], []
    for _ in range(runs):
        floors.append(floor(paths))
        ours.append(explain(paths))
    return (statistics.median(f[0] for f in floors), statistics.median(o[0] for o in ours),
            statistics.median(f[1] for f in floors), statistics.median(o[1] for o in ours))


def _cpu(steps: list[Callable[[], object]], runs: int = RUNS) -> list[float]:
    """The least CPU seconds of each step over ``runs`` rounds, the steps taken in turn in each round
    (on a shared machine a burst of load then falls on every step alike, and the least time of a
    step is the one least disturbed)."""
    least = [float("inf")] * len(steps)
    for _ in range(runs):
        for index, step in enumerate(steps):
            cpu = time.process_time()
            step()
            least[index] = min(least[index], time.process_time() - cpu)
    return least


def _scan(data: bytes) -> None:
    # What read_cause() does with one block holding a whole log, without ranking its blocks.
    scanner = Scanner()
    whole = data[:-1] if data.endswith(b"\n") else data
    scanner.feed(whole.split(b"\n"), whole)
    scanner.finish()


def breakdown(paths: list[Path]) -> None:
    """Where the corpus's CPU time goes, each step timed alone over the logs read beforehand: the
    prefilter's byte pass, the rest of the scan (the picked lines read), ranking and the answer,
    and what ``labdeck explain`` adds (reading the files, writing JSON). The differences between
    runs of a noisy machine can still make a small step read a little off."""
    datas = [path.read_bytes() for path in paths]
    wholes = [data[:-1] if data.endswith(b"\n") else data for data in datas]
    picked = prefilter.picked
    floor_cpu, pass_cpu, scan_cpu, cause_cpu, explain_cpu = _cpu([
        lambda: floor(paths), lambda: [picked(whole) for whole in wholes], lambda: [_scan(data) for data in datas],
        lambda: [read_cause(data) for data in datas], lambda: explain(paths)], runs=2 * RUNS)
    print(f"corpus breakdown (CPU, least of {2 * RUNS} rounds, steps in turn): prefilter {pass_cpu * 1000:.1f} ms, rest of the scan "
          f"{(scan_cpu - pass_cpu) * 1000:.1f} ms, ranking and answer {(cause_cpu - scan_cpu) * 1000:.1f} ms, reading "
          f"and JSON {(explain_cpu - cause_cpu) * 1000:.1f} ms (explain {explain_cpu * 1000:.1f} ms; floor "
          f"{floor_cpu * 1000:.1f} ms)")


_CHILD = """
import sys
from labdeck.commands.cli import main
status = main(["explain", "--json", sys.argv[1]])
with open("/proc/self/status", encoding="ascii") as lines:
    peak = next(int(line.split()[1]) for line in lines if line.startswith("VmHWM:"))
print(peak, file=sys.stderr)
"""


def peak_rss_mb(path: Path) -> float:
    """Peak RSS (MB) of ``labdeck explain --json`` on ``path`` in its own process: the child's own
    high-water mark (``VmHWM``, which starts afresh at exec; the ``ru_maxrss`` a parent sees also
    counts the pages the child shared with it before exec)."""
    done = subprocess.run([sys.executable, "-c", _CHILD, str(path)], check=True, stdout=subprocess.DEVNULL,
                          stderr=subprocess.PIPE, text=True, env={**os.environ, "PYTHONPATH": str(ROOT / "src")})
    return int(done.stderr.strip().splitlines()[-1]) / 1024


def report(name: str, paths: list[Path], note: str, runs: int = RUNS) -> None:
    base, ours, base_cpu, ours_cpu = timed(paths, runs)
    ratio = ours / base if base else float("inf")
    cpu_ratio = ours_cpu / base_cpu if base_cpu else float("inf")
    size = sum(path.stat().st_size for path in paths) / 1e6
    print(f"{name}: {len(paths)} file(s), {size:.1f} MB: floor (read + split) {base * 1000:.1f} ms, "
          f"explain {ours * 1000:.1f} ms → {ratio:.1f}× (target ≤ {RATIO_TARGET:.0f}×: "
          f"{'ok' if ratio <= RATIO_TARGET else 'MISSED'}); CPU time: floor {base_cpu * 1000:.1f} ms, "
          f"explain {ours_cpu * 1000:.1f} ms → {cpu_ratio:.1f}×")
    record(f"labdeck explain, {name}: time vs read+split floor", f"≤ {RATIO_TARGET:.0f}×",
           f"{ratio:.1f}× ({ours * 1000:.0f} ms vs {base * 1000:.0f} ms; CPU {cpu_ratio:.1f}×)",
           ratio <= RATIO_TARGET, how="library", note=note)


def main() -> int:
    arguments = [argument for argument in sys.argv[1:] if argument != "--breakdown"]
    lines = int(arguments[0]) if arguments else 1_000_000
    corpus = sorted(path for path in CORPUS.rglob("*.log") if not path.name.endswith(".pass.log")) \
        if CORPUS.is_dir() else []
    if corpus:
        report("corpus", corpus, "median of 5, in-process run_explain")
        if "--breakdown" in sys.argv[1:]:
            breakdown(corpus)
    else:
        print(f"no corpus at {CORPUS}: corpus figure skipped")
    with tempfile.TemporaryDirectory(prefix="bench-explain-") as folder:
        big = Path(folder) / "big.log"
        make_big_log(big, lines)
        report(f"{lines:,}-line log", [big], "median of 3, in-process run_explain", runs=3)
        rss = peak_rss_mb(big)
        print(f"peak RSS of `labdeck explain --json` on the {lines:,}-line log: {rss:.0f} MB "
              f"(target ≤ {RSS_TARGET_MB:.0f} MB: {'ok' if rss <= RSS_TARGET_MB else 'MISSED'})")
        record(f"labdeck explain, {lines:,}-line log: peak RSS", f"≤ {RSS_TARGET_MB:.0f} MB", f"{rss:.0f} MB",
               rss <= RSS_TARGET_MB, how="library", note="the command in its own process, VmHWM")
    return 0


if __name__ == "__main__":
    sys.exit(main())
