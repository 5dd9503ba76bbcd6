"""Run every benchmark script in bench/ (files named bench_*.py), then print one table of every
figure that has a target: measure, target, result, met or missed, and how it was measured.

``how``: ``pty`` = the real ``labdeck`` executable in a pseudo-terminal (what a person sees);
``headless`` = Textual's Pilot driving the app, no terminal; ``library`` = labdeck's modules
called directly; ``http`` = simulator/client over loopback HTTP.

Environment:
- ``LABDECK_BENCH_IDLE_SECONDS`` — the idle-CPU window (default 60 s);
- ``LABDECK_BENCH_SRC`` — run everything against another ``src`` folder (e.g. an older checkout,
  to measure "before" with today's benchmarks); it needs a ``themes`` folder beside it.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

FIRST = ("bench_pty_startup", "bench_idle_cpu", "bench_pty_trace", "bench_trace_view", "bench_console",
         "bench_trace_index",
         "bench_trace_follow", "bench_api_list", "bench_download", "bench_sim", "bench_sim_traces")
"""The issue's figures first; any other bench_*.py runs after these, in name order."""


def _scripts(here: Path) -> list[Path]:
    found = {path.stem: path for path in here.glob("bench_*.py")}
    ordered = [found.pop(name) for name in FIRST if name in found]
    return ordered + [found[name] for name in sorted(found)]


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
        for script in _scripts(here):
            print(f"\n=== {script.name} ===", flush=True)
            started = time.perf_counter()
            result = subprocess.run([sys.executable, str(script)], check=False, env=env)
            print(f"({script.name}: {time.perf_counter() - started:.0f} s)", flush=True)
            if result.returncode != 0:
                failures.append(script.name)
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
