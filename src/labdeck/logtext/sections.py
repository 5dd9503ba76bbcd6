"""GitLab collapsible-section markers in job traces, tracked line by line.

The runner writes ``section_start:<unix>:<name>[options]\\r\\e[0K`` and
``section_end:<unix>:<name>\\r\\e[0K`` (docs/wire-facts.md §3.3). The sanitizer has already removed the
``\\e[0K``, so on a sanitized line a marker is ``section_start:<unix>:<name>[options]\\r``.
:class:`SectionTracker` removes markers from the displayed text and turns them into
:class:`Section` objects whose boundaries are line numbers, with nesting.

Timestamps are bounded (at most 12 digits) and a section that ends "before" it started gets a
duration of 0, so a hostile ``section_end`` cannot break the view (gitlab-org/gitlab#364249).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import UTC, datetime

MARKER = re.compile(
    r"section_(start|end):(\d{1,12}):([a-zA-Z0-9_.-]{1,200})(?:\[([a-zA-Z0-9_=,.-]{0,200})\])?\r"
)
_SGR = re.compile(r"\x1b\[[0-9;]*m")
MAX_SECTIONS = 100_000
"""Sections kept per trace; markers beyond this are removed from the text but not tracked."""
MAX_DEPTH = 64


@dataclass
class Section:
    """One collapsible section of a trace.

    ``start_line`` is the line that carried the ``section_start`` marker (the header line, shown
    when the section is folded). ``end_line`` is the last line inside the section, inclusive, or
    None while the section is still open. Times are Unix seconds as written by the runner.
    """

    name: str
    start_line: int
    started_at: int
    end_line: int | None = None
    ended_at: int | None = None
    collapsed: bool = False
    hide_duration: bool = False
    depth: int = 0
    parent: int | None = None
    """Index in :attr:`SectionTracker.sections` of the enclosing section."""
    options: dict[str, str] = field(default_factory=dict)

    @property
    def is_open(self) -> bool:
        """True until the matching ``section_end`` arrives."""
        return self.end_line is None

    @property
    def duration(self) -> int | None:
        """Seconds between start and end markers (never negative); None while open."""
        if self.ended_at is None:
            return None
        return max(0, self.ended_at - self.started_at)

    @property
    def title(self) -> str:
        """Human name for display: ``step_script`` → ``Step script``."""
        return display_name(self.name)

    def contains(self, line: int) -> bool:
        """True if ``line`` is inside the section (header included)."""
        end = self.end_line
        return line >= self.start_line and (end is None or line <= end)

    def started(self) -> datetime | None:
        """The start time as an aware datetime (None if out of range)."""
        return _to_datetime(self.started_at)


def _to_datetime(value: int) -> datetime | None:
    try:
        return datetime.fromtimestamp(value, tz=UTC)
    except (OverflowError, OSError, ValueError):
        return None


def display_name(name: str) -> str:
    """``step_script`` → ``Step script``; ``upload_artifacts_on_success`` → ``Upload artifacts on success``."""
    words = re.sub(r"[_.\-]+", " ", name).strip()
    if not words:
        return name
    return words[0].upper() + words[1:]


def _parse_options(text: str | None) -> dict[str, str]:
    options: dict[str, str] = {}
    if not text:
        return options
    for item in text.split(","):
        key, _, value = item.partition("=")
        if key:
            options[key] = value
    return options


def strip_markers(text: str) -> str:
    """``text`` with every section marker removed (no tracking)."""
    if "section_" not in text:
        return text
    return MARKER.sub("", text)


class SectionTracker:
    """Turns section markers into :class:`Section` objects as lines arrive.

    Feed every line once, in order, with :meth:`feed`; it returns the line without its markers.
    A ``section_end`` closes the innermost open section of that name (and any sections opened
    inside it that were never closed); an end with no matching open section is ignored.
    """

    def __init__(self) -> None:
        self.sections: list[Section] = []
        self._open: list[int] = []

    @property
    def open_sections(self) -> list[Section]:
        """Currently open sections, outermost first."""
        return [self.sections[index] for index in self._open]

    def feed(self, line_number: int, text: str) -> str:
        """Record the markers found on line ``line_number``; return the text without them."""
        if "section_" not in text:
            return text
        pieces: list[str] = []
        position = 0
        for match in MARKER.finditer(text):
            before = text[position:match.start()]
            pieces.append(before)
            position = match.end()
            kind, stamp, name, options = match.groups()
            if kind == "start":
                self._start(line_number, int(stamp), name, _parse_options(options))
            else:
                visible_before = _SGR.sub("", "".join(pieces)).replace("\r", "").strip()
                last_line = line_number if visible_before else line_number - 1
                self._end(last_line, int(stamp), name)
        if position == 0:
            return text
        pieces.append(text[position:])
        return "".join(pieces)

    def _start(self, line: int, stamp: int, name: str, options: dict[str, str]) -> None:
        if len(self.sections) >= MAX_SECTIONS or len(self._open) >= MAX_DEPTH:
            return
        section = Section(
            name=name, start_line=line, started_at=stamp,
            collapsed=options.get("collapsed") == "true",
            hide_duration=options.get("hide_duration") == "true",
            depth=len(self._open), parent=self._open[-1] if self._open else None, options=options,
        )
        self.sections.append(section)
        self._open.append(len(self.sections) - 1)

    def _end(self, last_line: int, stamp: int, name: str) -> None:
        for depth in range(len(self._open) - 1, -1, -1):
            if self.sections[self._open[depth]].name == name:
                for index in self._open[depth:]:
                    section = self.sections[index]
                    section.end_line = max(section.start_line, last_line)
                    section.ended_at = stamp
                del self._open[depth:]
                return

    def section_at(self, line: int) -> Section | None:
        """The innermost section containing ``line``, if any."""
        found: Section | None = None
        for section in self.sections:
            if section.start_line > line:
                break
            if section.contains(line) and (found is None or section.depth >= found.depth):
                found = section
        return found
