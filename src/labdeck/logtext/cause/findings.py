"""One-line findings at the end of a command's output: ``path:line: message``.

Checkers without an error word print one line per finding (``git diff --check``'s
``ws/rates.conf:1: trailing whitespace.`` with the offending line under it, codespell's
``README.md:5: recieve ==> receive``). When the failing command ends with a run of them and no
shape named a cause, the first finding of the run is what to read, not the last line.
"""

from __future__ import annotations

import re
from collections.abc import Callable

FINDING = re.compile(r"(?:\./)?[\w@+-]*[./][\w./@+-]*:\d+(?::\d+)?: (?!warning\b|note\b|info\b)\S.*")
"""A finding: a path (with a dot or a slash), a line number (and column), then what is wrong."""
GAP = 2
"""Lines a finding may carry under it (git diff --check prints the offending line)."""


def run_start(first: int, read: Callable[[int], str], stop: int) -> tuple[int, str] | None:
    """The first finding of the run that reaches the line before ``first`` (reading back to ``stop``
    with ``read``), or None when no finding is within :data:`GAP` lines before it."""
    found: tuple[int, str] | None = None
    gap = 0
    index = first - 1
    while index >= stop and gap <= GAP:
        text = read(index)
        if FINDING.match(text):
            found = (index, text)
            gap = 0
        else:
            gap += 1
        index -= 1
    return found
