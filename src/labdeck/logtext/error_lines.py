"""Find the lines of a job log that say what actually went wrong.

The runner always ends a failed job with ``ERROR: Job failed: exit code 1``; that line says *that*
the job failed, not *why*. :class:`ErrorFinder` recognises the common failure shapes in the
sanitized lines of a trace and :class:`ErrorIndex` answers "first error", "next error after line
N" and "previous error before line N" for the incident bundle's summary. The log viewer's ``e``/``E``,
triage and ``labdeck explain`` read the ranked answer of :mod:`labdeck.logtext.cause` instead (the
failing command first, a shape table per tool, the passing log as baseline).

Recognised shapes (``kind`` values):

- ``compiler``: ``file:line[:col]: [fatal] error: …`` (gcc, clang, javac), tsc's
  ``file(line,col): error TS…`` and ``file:line:col - error TS…``;
- ``rust``: ``error[E0308]: …``;
- ``error``: a line that starts with ``error:`` / ``Error:`` / ``ERROR:`` / ``FATAL:`` (cargo,
  node, pip, postgres…), optionally after a tool name (``clang: error: …``), Maven's ``[ERROR]``
  and webpack's ``ERROR in …``;
- ``pytest``: a run of ``E   …`` assertion lines (one match per run), ``FAILED tests/…`` and
  ``ERROR tests/…`` summary lines (one match each);
- ``traceback``: ``Traceback (most recent call last):`` with its body; the exception line that
  ends it (``KeyError: 'x'``) is the match's ``detail``;
- ``npm``: a run of ``npm ERR!`` / ``npm error`` lines;
- ``go``: ``--- FAIL: TestX`` (subtests too) and ``panic: …``;
- ``git``: ``fatal: …``;
- ``make``: ``make[1]: *** … Error 2`` and ``make: *** … Stop.``;
- ``runner``: the runner's own ``ERROR: Job failed …`` trailer. It is a *last resort*: an index
  lists it only when nothing else matched.

Command echo lines (``$ cmd``, which the runner prints for every script line) never match, so a
script that greps for ``error:`` is not reported.

Cost: each line is tested against one precompiled prefilter (a few keywords, searched in C);
SGR sequences are removed and the precise patterns run only for the rare lines that pass it. A
million-line log takes well under a second; nothing is kept per line except the matches.
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Literal

ErrorKind = Literal["compiler", "rust", "error", "pytest", "traceback", "npm", "go", "git", "make", "runner"]

MAX_TEXT = 300
"""Characters of a matched line kept in :attr:`ErrorMatch.text`."""

# Every shape below contains one of these; a line without any is skipped at once.
_PREFILTER = re.compile(r"rror|ERR|E {2}|FAIL|Traceback|fatal|FATAL|\*\*\*|panic")
_SGR = re.compile(r"\x1b\[[0-9;]*m")
_SECTION_MARKER = re.compile(r"section_(?:start|end):\d{1,12}:[a-zA-Z0-9_.-]{1,200}(?:\[[a-zA-Z0-9_=,.-]{0,200}\])?\r")

_RUNNER_TRAILER = re.compile(r"ERROR: (?:Job failed\b|No files to upload|Uploading artifacts)")
_PATTERNS: tuple[tuple[ErrorKind, re.Pattern[str]], ...] = (
    ("compiler", re.compile(r"\S+?(?::\d+(?::\d+)?:?|\(\d+,\d+\):)\s+(?:-\s+)?(?:fatal\s+)?error\b")),
    ("rust", re.compile(r"error\[E\d{3,5}\]")),
    ("pytest", re.compile(r"E {2,}\S")),
    ("pytest", re.compile(r"(?:FAILED|ERROR) \S+(?:::|\.py\b)")),
    ("traceback", re.compile(r"\s*Traceback \(most recent call last\):")),
    ("npm", re.compile(r"npm (?:ERR!|error )")),
    ("go", re.compile(r"\s*--- FAIL: |panic: ")),
    ("git", re.compile(r"fatal: ")),
    ("make", re.compile(r"g?make(?:\[\d+\])?: \*\*\* ")),
    ("error", re.compile(r"(?:[\w.+/-]{1,80}: )?(?:fatal )?(?:error|Error|ERROR|FATAL)(?::|$)|\[ERROR\]|ERROR in ")),
)
# Kinds whose consecutive lines form one block (one match): the first line is the match.
_GROUPED: frozenset[str] = frozenset({"npm"})
_PYTEST_E = _PATTERNS[2][1]
_PYTEST_E_MORE = re.compile(r"E(?: |$)")


@dataclass(frozen=True, slots=True)
class ErrorMatch:
    """One error found in a log.

    ``index`` is the 0-based line index (as in :class:`labdeck.logtext.lines.LineIndex`); ``end`` the
    last line of the block it heads (equal to ``index`` for a single line). ``text`` is the visible
    text of the line (no SGR), cut to :data:`MAX_TEXT` characters. ``detail`` is an extra line
    that completes it (the exception line of a Python traceback) at ``detail_index``.
    """

    index: int
    kind: ErrorKind
    text: str
    end: int
    detail: str | None = None
    detail_index: int | None = None

    @property
    def line_number(self) -> int:
        """The 1-based line number to show to a user."""
        return self.index + 1

    @property
    def is_trailer(self) -> bool:
        """True for the runner's ``ERROR: Job failed`` line (shown only when nothing else matched)."""
        return self.kind == "runner"

    def describe(self) -> str:
        """``line 12: text`` (plus ``→ line 19: detail`` for a traceback), for summaries."""
        head = f"line {self.line_number}: {self.text}"
        if self.detail is not None and self.detail_index is not None:
            head += f" → line {self.detail_index + 1}: {self.detail}"
        return head


class ErrorIndex:
    """The errors of a log, first to last, with navigation by line.

    ``matches`` is :attr:`primary` when anything but the runner trailer matched, else
    :attr:`trailer`. Navigation uses ``matches``.
    """

    def __init__(self, primary: list[ErrorMatch], trailer: list[ErrorMatch]) -> None:
        self.primary = primary
        self.trailer = trailer
        self.matches = primary if primary else trailer
        self._starts = [match.index for match in self.matches]

    def __len__(self) -> int:
        return len(self.matches)

    def __iter__(self) -> Iterator[ErrorMatch]:
        return iter(self.matches)

    def __bool__(self) -> bool:
        return bool(self.matches)

    @property
    def first(self) -> ErrorMatch | None:
        """The first error (the runner trailer only when nothing else matched)."""
        return self.matches[0] if self.matches else None

    def next_after(self, line: int) -> ErrorMatch | None:
        """The first error that starts after ``line`` (0-based); None past the last one.

        Use ``next_after(-1)`` for the first error, ``next_after(cursor)`` for the ``e`` key.
        """
        position = bisect_right(self._starts, line)
        return self.matches[position] if position < len(self.matches) else None

    def previous_before(self, line: int) -> ErrorMatch | None:
        """The last error that starts before ``line`` (0-based); None before the first one."""
        position = bisect_left(self._starts, line)
        return self.matches[position - 1] if position > 0 else None

    def at(self, line: int) -> ErrorMatch | None:
        """The error whose block (``index`` .. ``end``) contains ``line``, if any."""
        position = bisect_right(self._starts, line) - 1
        if position >= 0 and self.matches[position].end >= line:
            return self.matches[position]
        return None

    def head(self, count: int) -> list[ErrorMatch]:
        """The first ``count`` errors."""
        return self.matches[:count]


def _visible(line: str) -> str:
    if "\r" in line:
        line = _SECTION_MARKER.sub("", line)
        if "\r" in line:
            # What a terminal shows after a carriage return: the last segment with text.
            segments = [seg for seg in line.split("\r") if _SGR.sub("", seg).strip()]
            line = segments[-1] if segments else ""
    return _SGR.sub("", line) if "\x1b" in line else line


def _cut(text: str) -> str:
    text = text.rstrip()
    return text if len(text) <= MAX_TEXT else text[: MAX_TEXT - 1] + "…"


class ErrorFinder:
    """Streaming matcher: :meth:`feed` every line once, in order; read :attr:`index` any time.

    Lines are sanitized display lines (``\\n`` already split off; SGR may remain; ``\\r`` and
    section markers are tolerated). Safe to keep feeding as a live log grows.
    """

    def __init__(self) -> None:
        self._primary: list[ErrorMatch] = []
        self._trailer: list[ErrorMatch] = []
        self._next = 0
        # The block being extended: its kind ("npm", "pytest-E" or "traceback") and match.
        self._open: str | None = None
        self._traceback_indent = 0
        self._index_cache: ErrorIndex | None = None

    @property
    def lines_seen(self) -> int:
        """How many lines were fed (the next line's index)."""
        return self._next

    @property
    def index(self) -> ErrorIndex:
        """The errors found so far."""
        if self._index_cache is None:
            self._index_cache = ErrorIndex(list(self._primary), list(self._trailer))
        return self._index_cache

    def feed_lines(self, lines: Iterable[str]) -> ErrorFinder:
        """Feed several lines; returns self."""
        # The hot loop of a million-line log: only the prefilter runs for most lines.
        search = _PREFILTER.search
        start = self._next
        seen = 0
        for offset, line in enumerate(lines):
            seen = offset + 1
            if self._open is None and not search(line):
                continue
            self._next = start + offset
            self.feed(line)
        self._next = start + seen
        return self

    def feed(self, line: str) -> ErrorMatch | None:
        """Feed the next line; returns a new match that starts on it, if any."""
        index = self._next
        self._next += 1
        if self._open is not None and self._extend(line, index):
            return None
        if not _PREFILTER.search(line):
            return None
        text = _visible(line)
        if text.startswith("$ "):
            return None
        if _RUNNER_TRAILER.match(text):
            self._add(ErrorMatch(index, "runner", _cut(text), index), trailer=True)
            return None
        for kind, pattern in _PATTERNS:
            if pattern.match(text):
                return self._start(kind, pattern, text, index)
        return None

    def _start(self, kind: ErrorKind, pattern: re.Pattern[str], text: str, index: int) -> ErrorMatch:
        match = ErrorMatch(index, kind, _cut(text), index)
        self._add(match)
        if kind == "traceback":
            self._open = "traceback"
            self._traceback_indent = len(text) - len(text.lstrip())
        elif pattern is _PYTEST_E:
            self._open = "pytest-E"
        elif kind in _GROUPED:
            self._open = kind
        else:
            self._open = None
        return match

    def _extend(self, line: str, index: int) -> bool:
        """Grow the open block with ``line``; False (and the block closed) when it does not belong."""
        open_kind = self._open
        last = self._primary[-1]
        text = _visible(line) if ("\x1b" in line or "\r" in line) else line
        if open_kind == "traceback":
            stripped = text.lstrip()
            indent = len(text) - len(stripped)
            if not stripped or indent > self._traceback_indent:
                self._replace(last, end=index)
                return True
            self._open = None
            # The first line back at the traceback's indentation names the exception.
            if not stripped.startswith("Traceback ") and not stripped.startswith("During handling"):
                self._replace(last, end=index, detail=_cut(stripped), detail_index=index)
                return True
            return False
        belongs = (_PYTEST_E_MORE.match(text) is not None if open_kind == "pytest-E"
                   else text.startswith(("npm ERR!", "npm error ")))
        if belongs:
            self._replace(last, end=index)
            return True
        self._open = None
        return False

    def _add(self, match: ErrorMatch, *, trailer: bool = False) -> None:
        (self._trailer if trailer else self._primary).append(match)
        self._index_cache = None

    def _replace(self, match: ErrorMatch, *, end: int, detail: str | None = None,
                 detail_index: int | None = None) -> None:
        self._primary[-1] = ErrorMatch(match.index, match.kind, match.text, end,
                                       detail if detail is not None else match.detail,
                                       detail_index if detail_index is not None else match.detail_index)
        self._index_cache = None


def find_errors(lines: Iterable[str]) -> ErrorIndex:
    """The errors of a whole log given as lines (sanitized; SGR allowed), first to last."""
    return ErrorFinder().feed_lines(lines).index


def find_errors_in_text(text: str) -> ErrorIndex:
    """The errors of a sanitized log text (lines split on ``\\n``, numbered from 0)."""
    return find_errors(text.split("\n"))
