"""Start-up as a person feels it: the real ``labdeck`` executable in an 80x24 pseudo-terminal, timed
from exec until the first five project rows are on the terminal (measured from what the program
writes to the terminal, escape sequences removed). Real pty, not headless.

Cases, taken in turn within each round (so a slow moment of the machine hits every case alike):

- ``labdeck`` against a separately started ``labdeck serve --clock manual`` (URL and token from
  ``LABDECK_URL``/``LABDECK_TOKEN``; the start-up token check runs as it does for a user);
- ``labdeck --demo`` (the simulator in the console's process);
- the floors: ``python -c "import textual"`` and ``python -c "import textual.app"``, exec to exit.

…each with bytecode caching (a private ``PYTHONPYCACHEPREFIX``, warmed by an uncounted first
round) and without (``PYTHONDONTWRITEBYTECODE=1`` and labdeck's source copied to a folder with no
``__pycache__``: labdeck's own modules are compiled at every start, the installed libraries keep
the bytecode pip compiled, which is what a host that sets the variable gets). A third variant,
fewer rounds, has no bytecode anywhere (``PYTHONDONTWRITEBYTECODE=1`` and an empty
``PYTHONPYCACHEPREFIX``: the standard library, Textual and labdeck all compiled at every start, as
with an install made with ``--no-compile`` on such a host).

Targets: ≤ 0.8 s against a running server, ≤ 1.0 s with ``--demo`` (with bytecode caching).
Run standalone: ``.venv/bin/python bench/bench_pty_startup.py [--runs 5]``.
"""

from __future__ import annotations

import argparse
import os
import signal
import statistics
import sys
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _console_env import LABDECK, PYTHON, Server, console_env, row_markers, source_copy, temp_dir
from _pty import PtyProgram, strip_escapes
from _report import record, spread

ROWS_WANTED = 5
TARGETS = {"server": 0.8, "demo": 1.0}


def rows_visible(markers: list[str], wanted: int) -> Callable[[bytes], bool]:
    """A predicate on the terminal output: ``wanted`` distinct project rows have been drawn."""
    seen: set[str] = set()
    checked = [0]

    def predicate(output: bytes) -> bool:
        if len(output) != checked[0]:
            checked[0] = len(output)
            text = strip_escapes(output)
            seen.update(marker for marker in markers if marker in text)
        return len(seen) >= wanted

    return predicate


def time_console(argv: list[str], env: dict[str, str], markers: list[str]) -> float:
    """Seconds from exec to ``ROWS_WANTED`` project rows on the terminal. The console is then
    killed: how it quits is not measured here, and a clean exit would add ~0.4 s to each of the
    ~50 starts (the demo's simulator process ends with it: its stdin closes)."""
    with PtyProgram(argv, env=env, columns=80, rows=24) as program:
        seconds = program.wait_for(rows_visible(markers, ROWS_WANTED), timeout=60)
        os.kill(program.pid, signal.SIGKILL)
        program.wait_exit(10)
    return seconds


def time_exit(argv: list[str], env: dict[str, str]) -> float:
    """Seconds from exec to exit (the floors)."""
    with PtyProgram(argv, env=env, columns=80, rows=24) as program:
        if not program.wait_exit(60):
            raise TimeoutError(f"{argv} did not exit")
        if program.exit_status != 0:
            raise RuntimeError(f"{argv} failed: {strip_escapes(bytes(program.output))[-400:]!r}")
        return program.ended - program.started


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5, help="counted rounds (default 5)")
    args = parser.parse_args()

    with temp_dir("labdeck-bench-pty-") as tmp, Server("--clock", "manual") as server:
        base = Path(tmp)
        markers = row_markers(server.project_paths())
        copy = source_copy(base / "nobytecode")
        (base / "empty-pycache").mkdir()
        variants = {
            "bytecode cached": {"PYTHONPYCACHEPREFIX": str(base / "pycache")},
            "PYTHONDONTWRITEBYTECODE=1": {"PYTHONDONTWRITEBYTECODE": "1", "PYTHONPATH": str(copy)},
            "no bytecode at all": {"PYTHONDONTWRITEBYTECODE": "1", "PYTHONPATH": str(copy),
                                   "PYTHONPYCACHEPREFIX": str(base / "empty-pycache")},
        }
        # The figures with targets get every round; the comparisons three, or two for the slowest
        # (their spread is small; README's troubleshooting quotes them).
        rounds = {"bytecode cached": args.runs, "PYTHONDONTWRITEBYTECODE=1": min(args.runs, 3),
                  "no bytecode at all": min(args.runs, 2)}
        cases: dict[str, list[str]] = {
            "server": [LABDECK],
            "demo": [LABDECK, "--demo"],
            "import textual": [PYTHON, "-c", "import textual"],
            "import textual.app": [PYTHON, "-c", "import textual.app"],
        }
        times: dict[tuple[str, str], list[float]] = {(v, c): [] for v in variants for c in cases}
        for round_number in range(args.runs + 1):  # round 0 warms the caches and is not counted
            for variant, extra in variants.items():
                # Nothing to warm where no bytecode is written: those variants start at round 1.
                if round_number > rounds[variant] or (round_number == 0 and variant != "bytecode cached"):
                    continue
                for case, argv in cases.items():
                    home = base / f"home-{round_number}-{len(times)}-{case.replace(' ', '_')}"
                    url = server.url if case == "server" else None
                    env = console_env(home, url=url, extra=extra)
                    seconds = (time_console(argv, env, markers) if case in TARGETS
                               else time_exit(argv, env))
                    if round_number:
                        times[(variant, case)].append(seconds)

    print(f"exec → {ROWS_WANTED} project rows on an 80x24 pty (real terminal, real executable), "
          f"median (min–max, runs):")
    for variant in variants:
        floor = statistics.median(times[(variant, "import textual.app")])
        print(f"  {variant}:")
        for case in cases:
            values = times[(variant, case)]
            median = statistics.median(values)
            line = f"    {case:<20} {spread(values)}"
            if case in TARGETS:
                line += f"   = {median / floor:.1f}x the textual.app floor"
                if variant == "bytecode cached":
                    line += f"   (target ≤ {TARGETS[case]} s: {'ok' if median <= TARGETS[case] else 'MISSED'})"
            print(line)
        for case in cases:
            values = times[(variant, case)]
            median = statistics.median(values)
            label = {"server": "exec → 5 rows, against labdeck serve", "demo": "exec → 5 rows, --demo",
                     "import textual": "floor: python -c 'import textual'",
                     "import textual.app": "floor: python -c 'import textual.app'"}[case]
            target = (f"≤ {TARGETS[case]} s" if case in TARGETS and variant == "bytecode cached" else "—")
            met = (median <= TARGETS[case]) if case in TARGETS and variant == "bytecode cached" else None
            ratio = f"; {median / floor:.1f}x floor" if case in TARGETS else ""
            record(f"{label} [{variant}]", target, f"{median:.2f} s{ratio}", met, how="pty",
                   note=f"80x24, median of {len(values)}, {min(values):.2f}–{max(values):.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
