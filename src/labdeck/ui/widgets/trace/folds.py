"""Which trace lines are hidden by folded sections, and the mapping between display rows and
line numbers. Folded ranges are kept sorted and merged, so each lookup is a bisection: a million
lines with any number of folds cost nothing to scroll through."""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Iterable, Sequence

from labdeck.logtext.sections import Section


class FoldMap:
    """Hidden line ranges of the collapsed sections (the header line of a section stays shown)."""

    def __init__(self) -> None:
        self._starts: list[int] = []
        self._ends: list[int] = []
        self._display_starts: list[int] = []
        self._hidden_before: list[int] = []
        self.hidden_total = 0
        """Lines hidden in all."""
        self.version = 0
        """Bumped on every rebuild (part of rendering cache keys)."""

    def rebuild(self, sections: Sequence[Section], collapsed: Iterable[int], line_count: int) -> None:
        """Recompute from the collapsed section indexes (an open section hides up to the end)."""
        last = line_count - 1
        ranges: list[tuple[int, int]] = []
        for index in collapsed:
            section = sections[index]
            end = section.end_line if section.end_line is not None else last
            if end > section.start_line:
                ranges.append((section.start_line + 1, end))
        ranges.sort()
        merged: list[tuple[int, int]] = []
        for start, end in ranges:
            if merged and start <= merged[-1][1] + 1:
                merged[-1] = (merged[-1][0], max(merged[-1][1], end))
            else:
                merged.append((start, end))
        self._starts = [start for start, _ in merged]
        self._ends = [end for _, end in merged]
        self._hidden_before = []
        self._display_starts = []
        total = 0
        for start, end in merged:
            self._hidden_before.append(total)
            self._display_starts.append(start - total)
            total += end - start + 1
        self.hidden_total = total
        self.version += 1

    def _width(self, index: int) -> int:
        return self._ends[index] - self._starts[index] + 1

    def display_to_line(self, row: int) -> int:
        """Line number shown at display row ``row``."""
        index = bisect_right(self._display_starts, row) - 1
        if index < 0:
            return row
        return row + self._hidden_before[index] + self._width(index)

    def line_to_display(self, line: int) -> int:
        """Display row of ``line`` (a hidden line maps to its section's header)."""
        index = bisect_right(self._starts, line) - 1
        if index < 0:
            return line
        if line <= self._ends[index]:
            return self._starts[index] - 1 - self._hidden_before[index]
        return line - self._hidden_before[index] - self._width(index)

    def is_hidden(self, line: int) -> bool:
        """True when ``line`` is inside a folded section."""
        index = bisect_right(self._starts, line) - 1
        return index >= 0 and line <= self._ends[index]


class SectionLookup:
    """Which section a line belongs to, by bisection over the sections' start lines (kept until
    sections are added or the list is replaced)."""

    def __init__(self) -> None:
        self._starts: list[int] = []
        self._of: object = None

    def _starts_of(self, sections: Sequence[Section]) -> list[int]:
        if self._of is not sections or len(self._starts) != len(sections):
            self._starts = [section.start_line for section in sections]
            self._of = sections
        return self._starts

    def section_for(self, sections: Sequence[Section], line: int) -> int | None:
        """Index of the innermost section whose header is ``line`` or which contains it."""
        index = bisect_right(self._starts_of(sections), line) - 1
        # Walking back from the last section that starts at or before the line: the first one
        # that contains it is the innermost (a nested section starts after its parent). A
        # top-level section that ended before the line means no earlier one contains it.
        while index >= 0:
            section = sections[index]
            if section.contains(line):
                return index
            if section.depth == 0:
                return None
            index -= 1
        return None

    def header_of(self, sections: Sequence[Section], line: int) -> int | None:
        """Index of the section whose header is ``line``, if any."""
        starts = self._starts_of(sections)
        index = bisect_left(starts, line)
        return index if index < len(starts) and starts[index] == line else None
