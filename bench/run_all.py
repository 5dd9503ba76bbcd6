"""Run every benchmark script in bench/ (files named bench_*.py), then print one table of every
figure that has a target: measure, target, result, met or missed, and how it was measured.

``how``: ``pty`` = the real ``labdeck`` executable in a pseudo-terminal (what a person sees);
``headless`` = Textual's Pilot driving the app, no terminal; ``library`` = labdeck's modules
called directly; ``http`` = simulator/client over loopback HTTP.

Environment:
- ``LABDECK_BENCH_IDLE_SECONDS`` — the idle-CPU window (default 60 s);
- ``LABDECK_BENCH_SOAK_HOURS`` — simulated hours of the soak (default 48, at ``--speed 120``:
  24 minutes, the first 24 hours being its warm-up; ``LABDECK_BENCH_SOAK_SPEED`` changes the
  speed, see bench/bench_soak.py);
- ``LABDECK_BENCH_SERIAL=1`` — every script alone (see :data:`ALONGSIDE`);
- ``LABDECK_BENCH_SRC`` — run everything against another ``src`` folder (e.g. an older checkout,
  to measure "before" with today's benchmarks); it needs a ``themes`` folder beside it.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

FIRST = ("bench_pty_startup", "bench_idle_cpu", "bench_pty_trace", "bench_trace_view", "bench_console",
         "bench_trace_index",
         "bench_trace_follow", "bench_api_list", "bench_download", "bench_sim", "bench_sim_traces",
         "bench_faults", "bench_triage", "bench_follow_many", "bench_explain", "bench_instances")
"""The issue's figures first; any other bench_*.py runs after these, in name order."""

ALONGSIDE = {"bench_idle_cpu": (("bench_board", "bench_trace_follow", "bench_api_list"), ("bench_soak",))}
"""Scripts run beside another, in lanes (the scripts of a lane one after the other, the lanes at
the same time): the idle-CPU bench spends a minute and a half with consoles doing nothing and
measures each one's own CPU time (not wall time); meanwhile the board bench measures request
counts and how soon failures are seen on a simulator that answers in 100 ms, the follow bench
counts the bytes a follower downloads, and the listing bench compares two clients against the
same simulator (its target case waits on 100 ms answers). In a lane of its own, the soak measures
a console's memory (and its own CPU time) over 24 minutes. The idle consoles use about
2 % of one core together, the soak's console and simulator about as much; run alone, one after the
other, these took six minutes with a soak of two and a half (now 24: the group lasts as long as the
soak). ``LABDECK_BENCH_SERIAL=1`` runs every script alone (to compare)."""


def _scripts(here: Path, serial: bool) -> list[tuple[Path, list[list[Path]]]]:
    """The scripts in order, each with the lanes to run beside it (none when ``serial``)."""
    found = {path.stem: path for path in here.glob("bench_*.py")}
    ordered = [found.pop(name) for name in FIRST if name in found]
    ordered += [found[name] for name in sorted(found)]
    by_name = {script.stem: script for script in ordered}
    beside = {} if serial else {
        name: [lane for lane in ([by_name[other] for other in others if other in by_name] for others in lanes) if lane]
        for name, lanes in ALONGSIDE.items() if name in by_name}
    taken = {script.stem for lanes in beside.values() for lane in lanes for script in lane}
    return [(script, beside.get(script.stem, [])) for script in ordered if script.stem not in taken]


def _run_group(main: Path, lanes: list[list[Path]], env: dict[str, str], tmp: Path) -> list[str]:
    """Run ``main``, and each lane's scripts one after the other, all lanes at the same time; print
    each one's output once all have ended (in order, not interleaved). Returns the names of those
    that exited non-zero."""
    started = time.perf_counter()
    beside = [script for lane in lanes for script in lane]
    if not beside:  # alone: its output as it comes
        print(f"\n=== {main.name} ===", flush=True)
        result = subprocess.run([sys.executable, str(main)], check=False, env=env)
        print(f"({main.name}: {time.perf_counter() - started:.0f} s)", flush=True)
        return [main.name] if result.returncode != 0 else []
    outcomes: dict[str, tuple[int, float]] = {}

    def run(script: Path) -> None:
        with (tmp / f"{script.stem}.log").open("w", encoding="utf-8") as log:
            code = subprocess.run([sys.executable, str(script)], stdout=log, stderr=subprocess.STDOUT,
                                  env=env, check=False).returncode
        outcomes[script.name] = (code, time.perf_counter() - started)

    threads = [threading.Thread(target=lambda lane=lane: [run(script) for script in lane]) for lane in lanes]
    for thread in threads:
        thread.start()
    run(main)
    for thread in threads:
        thread.join()
    failures = []
    for index, script in enumerate([main, *beside]):
        title = (f"{main.name}, with {' and '.join(' then '.join(s.name for s in lane) for lane in lanes)} "
                 "beside it" if index == 0 else f"{script.name}, beside {main.name}")
        print(f"\n=== {title} ===", flush=True)
        print((tmp / f"{script.stem}.log").read_text(encoding="utf-8"), end="", flush=True)
        code, ended = outcomes[script.name]
        print(f"({script.name}: ended {ended:.0f} s after the group's start)", flush=True)
        if code != 0:
            failures.append(script.name)
    return failures


def _table(rows: list[dict[str, object]]) -> str:
    headers = ("measure", "target", "result", "met", "how", "note")
    cells = [[str(row["measure"]), str(row["target"]), str(row["result"]),
              {True: "met", False: "MISSED", None: "—"}[row["met"]],  # type: ignore[index]
              str(row["how"]), str(row.get("note") or "")] for row in rows]
    widths = [max(len(headers[i]), *(len(line[i]) for line in cells)) for i in range(5)]
    lines = ["  ".join(h.ljust(w) for h, w in zip(headers[:5], widths, strict=True)) + "  note",
             "  ".join("-" * w for w in widths) + "  ----"]
    lines += ["  ".join(c.ljust(w) for c, w in zip(line[:5], widths, strict=True)) + "  " + line[5]
              for line in cells]
    return "\n".join(lines)


def main() -> int:
    here = Path(__file__).resolve().parent
    began = time.perf_counter()
    failures = []
    with tempfile.TemporaryDirectory(prefix="labdeck-bench-") as tmp:
        results = Path(tmp) / "results.jsonl"
        env = {**os.environ, "LABDECK_BENCH_RESULTS": str(results)}
        source = os.environ.get("LABDECK_BENCH_SRC")
        if source:
            env["PYTHONPATH"] = source
        serial = os.environ.get("LABDECK_BENCH_SERIAL") == "1"
        for main_script, beside in _scripts(here, serial):
            failures += _run_group(main_script, beside, env, Path(tmp))
        rows = [json.loads(line) for line in results.read_text(encoding="utf-8").splitlines()] \
            if results.exists() else []
    print(f"\n=== summary ({time.perf_counter() - began:.0f} s in all"
          f"{'; source ' + source if source else ''}) ===")
    print(_table(rows))
    missed = sum(1 for row in rows if row["met"] is False)
    print(f"\n{len(rows)} figures, {missed} missed"
          + (f"; scripts that exited non-zero: {', '.join(failures)}" if failures else ""))
    return 1 if failures else 0


if __name__ == "__main__":
    raise SystemExit(main())
