"""One line per measured figure, collected by ``bench/run_all.py`` into a single table.

A benchmark script calls :func:`record` for each figure that has a target (or that stands beside
one as a floor or a peer). When ``LABDECK_BENCH_RESULTS`` names a file (``run_all.py`` sets it),
the figure is appended to it as one JSON object per line; run standalone, the call does nothing
beyond what the script prints itself.

``how`` says how the figure was obtained, so nobody mistakes a headless figure for a felt one:

- ``pty``: the real ``labdeck`` executable under a pseudo-terminal (what a person sees);
- ``headless``: the app driven by Textual's Pilot in the benchmark's own process;
- ``library``: labdeck's modules called directly, no UI;
- ``http``: the simulator or the API client over loopback HTTP.
"""

from __future__ import annotations

import json
import os
import statistics
from collections.abc import Sequence

RESULTS_ENV = "LABDECK_BENCH_RESULTS"


def record(measure: str, target: str, result: str, met: bool | None, *, how: str, note: str = "") -> None:
    """Add one row to the summary table (``met=None``: a floor or a peer, no target)."""
    path = os.environ.get(RESULTS_ENV)
    if not path:
        return
    row = {"measure": measure, "target": target, "result": result, "met": met, "how": how, "note": note}
    with open(path, "a", encoding="utf-8") as handle:
        handle.write(json.dumps(row, ensure_ascii=False) + "\n")


def spread(values: Sequence[float], unit: str = "s", digits: int = 2) -> str:
    """``"0.71 s (0.69–0.80, n=5)"``: the median first, then min–max and the count."""
    if not values:
        return "—"
    return (f"{statistics.median(values):.{digits}f} {unit} "
            f"({min(values):.{digits}f}–{max(values):.{digits}f}, n={len(values)})")
