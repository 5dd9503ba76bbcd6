"""One pass over a log: framing marks, error blocks and platform lines, in bounded memory.

:class:`Scanner` takes the log's lines in chunks (:meth:`Scanner.feed`). Each chunk is joined and
one combined prefilter (:data:`PREFILTER`) runs over it in C; only the lines it picks are cleaned
and matched against the precise patterns (the markers of :mod:`.segment`, the shapes of
:mod:`.shapes`, the platform words of :mod:`.platform`). A block may reach :data:`AHEAD` lines
forward and a segment's tail is read up to :data:`BEHIND` lines back, so only that many lines are
kept between chunks: a log of any size is read in the same memory.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Callable
from dataclasses import dataclass, field
from difflib import SequenceMatcher
from typing import Literal

from labdeck.logtext.cause import findings, platform, prefilter, segment, shapes, subcommand
from labdeck.logtext.cause.detail import detail_of
from labdeck.logtext.cause.grow import block_tier, grow
from labdeck.logtext.cause.matcher import shape_of
from labdeck.logtext.cause.model import MAX_BLOCK_TEXT, MAX_LINE, MAX_PLATFORM_TEXT, MAX_TRACEBACK_LINES
from labdeck.logtext.cause.normalize import comparable
from labdeck.logtext.cause.segment import PREFIX_FIRST

AHEAD = MAX_TRACEBACK_LINES + 8
BEHIND = 64
CHUNK = 16384
TAIL_LINES = 3
MAX_CANDIDATES = 2000
"""Blocks kept per log (a log with more error lines than this keeps its first ones)."""

_MEANINGLESS = re.compile(r"[\s\W_]*$|\s*(?:##\[endgroup\]|##\[group\].*|section_end.*|\[Pipeline\] .*|"
                          r"Cleaning up .*|Script done\..*|Done\..*|real\s.*|user\s.*|sys\s.*|g?make(?:\[\d+\])?: \*\*\* .*|"
                          r"npm (?:ERR!|error) .*|error Command failed.*|.*ELIFECYCLE.*|.*Process completed with exit code.*|"
                          r"\[Checks API\].*|Recording test results|Took \d.*|Output: .*)$")

_clean = segment.clean
_mark = segment.mark

_AFTER_SCRIPT = re.compile(r"Running after_script|Running after script|section_start:\d+:after_script")
"""The trailer mark that starts the job's ``after_script``: what it prints ran after the job had
failed, so its words are not the failure's (the runner's own lines after it still are)."""

Where = Literal["prelude", "command", "trailer"]


@dataclass(slots=True)
class Segment:
    """A part of the log: the runner's ``prelude``, one ``command``'s output, or the ``trailer``.
    ``start`` is its first (0-based) line; ``tail`` its last meaningful lines, once it is closed
    (read when first asked for: :meth:`Scanner.tail`)."""

    index: int
    start: int
    where: Where
    command: str
    end: int = -1
    tail: list[tuple[int, str]] = field(default_factory=list)
    tail_read: bool = False
    failed_at: int = -1
    """The line of the mark that says this command failed, while the tail before it is unread."""


@dataclass(slots=True)
class Candidate:
    """An error block found by the scan (0-based lines)."""

    line: int
    end: int
    kind: str
    tier: int
    text: str
    head: str
    segment: int


@dataclass(slots=True)
class Platform:
    """A platform line found by the scan."""

    label: str
    line: int
    text: str
    weak: bool
    segment: int


class Scanner:
    """Streaming reader: :meth:`feed` the lines in order (any chunking), then :meth:`finish`."""

    def __init__(self, passing: frozenset[str] | None = None) -> None:
        self.passing = passing
        self.segments: list[Segment] = [Segment(0, 0, "prelude", "")]
        self.candidates: list[Candidate] = []
        self.platforms: list[Platform] = []
        self.failure_line: int | None = None
        self.failure_segment: int | None = None
        self.trailer_segment: int | None = None
        self.succeeded = False
        """True when the log ends with its CI system's word that the job passed."""
        self.new_lines: set[int] | None = set() if passing is not None else None
        self.line_count = 0
        self._buffer: list[str] | list[bytes] = []
        self._base = 0
        self._scanned = 0
        self._picked: list[int] = []
        self._worded: set[int] | None = set()
        self._untailed: list[Segment] = []
        self._covered = -1
        self._covered_kind = ""
        self._may_be_platform = True
        self._gated = False
        self._after_script = False
        self._said_error = False
        self._saw_command = False
        self._details: set[int] = set()
        """The lines where a progress mark's detail starts (its block already)."""
        self._subs = subcommand.SubCommands()

    def feed(self, lines: list[str] | list[bytes], joined: bytes | None = None) -> None:
        """Read more lines (without their ``\\n``): text, or UTF-8 bytes (decoded only where read).
        ``joined``, when the caller has it, is the same lines as UTF-8 bytes joined by ``\\n`` (a
        block read from a file: not joined again for the prefilter)."""
        if not lines:
            return
        if joined is None:
            first = lines[0]
            joined = (b"\n".join(lines) if isinstance(first, bytes)  # type: ignore[arg-type, unused-ignore]
                      else "\n".join(lines).encode("utf-8", "replace"))  # type: ignore[arg-type, unused-ignore]
        start = self._base + len(self._buffer)
        picked = prefilter.picked(joined)
        self._picked.extend([start + offset for offset in picked] if start else picked)
        if self._worded is not None and picked:
            # Which of the picked lines (the only ones read) hold a platform word, found in one C
            # pass over those lines alone: the platform's own patterns run only on those (few).
            if isinstance(lines[0], bytes):
                chosen = b"\n".join([lines[offset] for offset in picked])
            else:
                chosen = b"\n".join([lines[offset].encode("utf-8", "replace")
                                     for offset in picked])
            worded = prefilter.lines_with(chosen, platform._GATE)
            if worded is None:
                self._worded = None
            else:
                self._worded.update(start + picked[index] for index in worded)
        self._buffer.extend(lines)  # type: ignore[arg-type]
        if len(self._buffer) >= CHUNK + AHEAD + BEHIND:
            self._process(final=False)

    def finish(self) -> None:
        """Read what is left and close the last segment."""
        self._process(final=True)
        self.line_count = self._base + len(self._buffer)
        self._close(self.line_count)

    def tail(self, current: Segment) -> list[tuple[int, str]]:
        """The last meaningful lines of a closed segment (read when first asked for, while its
        lines are still kept; before they are dropped otherwise)."""
        if not current.tail_read:
            self._settle(current)
        return current.tail

    def _raw(self, offset: int) -> str:
        # A hostile or minified line of megabytes is read by its first characters only: the
        # precise patterns then cost the same on any line.
        line = self._buffer[offset][:MAX_LINE]
        return line if isinstance(line, str) else line.decode("utf-8", "replace")

    # The scan proper.

    def _process(self, *, final: bool) -> None:
        buffer = self._buffer
        limit = self._base + len(buffer) - (0 if final else AHEAD)
        low = self._scanned - self._base
        high = limit - self._base
        if high > low:
            if self.new_lines is not None:
                self._diff(low, high)
            picked = self._picked
            # The picked lines are in order: those before ``limit`` are read now.
            count = bisect_left(picked, limit)
            base = self._base
            visit = self._visit
            for at in picked[:count]:
                visit(at - base)
            del picked[:count]
            self._scanned = limit
        if not final:
            drop = max(0, high - BEHIND)
            # The segments closed in the lines about to be dropped read their tails now.
            for closed in self._untailed:
                if not closed.tail_read:
                    self._settle(closed)
            self._untailed.clear()
            del buffer[:drop]
            self._base += drop
            if self._worded:
                self._worded = {line for line in self._worded if line >= self._scanned}

    def _diff(self, low: int, high: int) -> None:
        passing = self.passing
        new = self.new_lines
        assert passing is not None and new is not None
        base = self._base
        for offset in range(low, high):
            text = segment.clean(self._raw(offset))
            if text and comparable(text) not in passing:
                new.add(base + offset)

    def _visit(self, offset: int) -> None:
        raw = self._buffer[offset][:MAX_LINE]  # as _raw() reads it
        if not isinstance(raw, str):
            raw = raw.decode("utf-8", "replace")
        line = self._base + offset
        # Most lines carry no escape, no carriage return and no CI prefix (which starts with a
        # digit, ``[`` or ``#``): for those :func:`segment.clean` is only the strip.
        plain = "\x1b" not in raw and "\r" not in raw
        text = raw.rstrip() if plain and raw[:1] not in PREFIX_FIRST else _clean(raw)
        if text.startswith("##[error]"):
            self._said_error = True
        elif text == "Cleaning up orphan processes":
            # GitHub Actions' last line: with no ``##[error]`` before it, every step passed.
            self.succeeded = not self._said_error and self.failure_line is None
            return
        worded = self._worded
        # An escape sequence inside a word hides it from the byte pass (``ti\x1b[0mmed out``). Most
        # coloured lines carry their escapes around the text (``\x1b[32;1m$ make\x1b[0;m``): text
        # that is still one piece of the raw line was seen whole by the byte pass.
        may = self._may_be_platform = worded is None or line in worded or ("\x1b" in raw and text not in raw)
        if may:
            # The byte pass's word is the platform gate's own answer for a whole ASCII line read as
            # it is (no escape, no CI prefix, not cut): the gate need not look again. (Only read
            # when the line may be the platform's.)
            self._gated = (worded is not None and plain and raw.isascii() and len(raw) < MAX_LINE
                           and text == raw.rstrip())
        marked = _mark(raw, text)
        if marked is not None and text.startswith("+") and self._in_diff(offset, text):
            marked = None
        current = self.segments[-1]
        if marked is not None:
            kind, command = marked
            # Only the last word counts: a success mark followed by more commands or a failure is not the job's.
            self.succeeded = kind == "success"
            if kind == "success":
                return
            if kind == "command" and current.where != "trailer":
                self._saw_command = True
                self._open(line, "command", command)
            elif kind == "failure" and self.failure_line is None and current.where != "trailer":
                self.failure_line = line
                self.failure_segment = current.index
                # The tail before the mark is read when asked for (ranking asks only when the
                # command printed no cause), or before its lines are dropped.
                current.failed_at = line
                current.tail_read = False
                self._untailed.append(current)
            elif kind == "trailer" and current.where != "trailer":
                self._open(line, "trailer", "")
                self.trailer_segment = self.segments[-1].index
            if kind == "trailer":
                # Every form of the mark holds "after" (most trailer lines do not).
                self._after_script = "after" in raw and _AFTER_SCRIPT.search(raw) is not None
            if (kind == "trailer" or not self._after_script) and self._may_be_platform:
                self._platform(text, line, "trailer" if kind != "command" else "command")
            return
        if not text:
            return
        if "commands[" in text or "nox > " in text or ": OK " in text:  # subcommand.WORDS, inlined (every line)
            self._subcommand(text, line)
        if self._after_script:
            # after_script's own output: read for blocks (ranked last), never for the platform.
            self._may_be_platform = False
        if line <= self._covered:
            if self._may_be_platform:
                self._platform(text, line, None, self._covered_kind)
            return
        block_kind: str | None = None
        shape = shape_of(text)
        if shape is not None and not shapes.NOISE.match(text):
            self._block(shape, offset, line, text)
            block_kind = shape.kind
        if self._may_be_platform:
            self._platform(text, line, None, block_kind)

    def _subcommand(self, text: str, line: int) -> None:
        span = self._subs.see(text, line)
        if span is None:
            return
        index = self.segments[-1].index
        for candidate in reversed(self.candidates):
            if candidate.segment != index:
                break
            if span[0] <= candidate.line <= span[1]:
                candidate.tier = 4  # a sub-command that succeeded: read last, as a warning is

    def _in_diff(self, offset: int, text: str) -> bool:
        """Whether a ``+ …`` line is a diff's (an assertion's expected/actual lines) rather than a
        shell's trace of a command: a diff's legend (``+ actual - expected``), a line right after
        difflib's ``? …`` hint, or one right after a ``- …`` line it resembles (a changed line; a
        bullet before a traced command does not resemble it)."""
        if _DIFF_LEGEND.match(text):
            return True
        if text.startswith("+++ "):
            # A unified diff's new file (``+++ main.go`` under ``--- main.go.orig``), not a heading.
            return offset > 0 and segment.clean(self._raw(offset - 1)).startswith("--- ")
        last = self.candidates[-1] if self.candidates else None
        if (last is not None and last.kind == "diff" and last.segment == self.segments[-1].index
                and _in_hunk(offset, lambda at: segment.clean(self._raw(at)))):
            return True  # a hunk's added line, after a diff the scan found (cheap: most ``+ `` lines are not)
        for back in (offset - 1, offset - 2):
            if back < 0:
                return False
            before = segment.clean(self._raw(back))
            if before:
                if before.startswith("? "):
                    return True
                return before.startswith("- ") and SequenceMatcher(None, before[2:], text[2:]).ratio() >= 0.6
        return False

    def _platform(self, text: str, line: int, where: str | None, in_block: str | None = None) -> None:
        if not self._may_be_platform:
            return
        current = self.segments[-1]
        place = where or current.where
        label = platform.platform_label(text, "mark" if place == "trailer" and where else current.where,
                                        current.command, in_block, gated=self._gated)
        if label is None or len(self.platforms) >= MAX_CANDIDATES:
            return
        if self.passing is not None and comparable(text) in self.passing:
            return
        if len(text) > MAX_PLATFORM_TEXT:
            text = text[:MAX_PLATFORM_TEXT - 1] + "…"
        self.platforms.append(Platform(label[0], line, text, label[1], current.index))

    def _block(self, shape: shapes.Shape, offset: int, line: int, text: str) -> None:
        if line in self._details:
            return  # already the block of the mark before it
        cleaned: list[str] = []
        end_offset, head = grow(shape, self._buffer, offset, text, cleaned)
        # grow() cleaned the lines it looked at, in order from the next one: the block's are among them.
        texts = [text, *cleaned[:end_offset - offset]]
        found = detail_of(text, self._raw, _clean, offset, min(len(self._buffer), offset + AHEAD)) \
            if end_offset == offset else None
        if found is not None:
            # A one-line progress mark: the block is the test's detail, printed later (the lines
            # between are still read: other tests' marks).
            self._details.add(self._base + found[0])
            self._covered = line
            self._covered_kind = shape.kind
            texts = [_clean(self._raw(at)) for at in range(found[0], found[1] + 1)]
            body = "\n".join(texts)[:MAX_BLOCK_TEXT]
            if len(self.candidates) < MAX_CANDIDATES:
                self.candidates.append(Candidate(self._base + found[0], self._base + found[1], shape.kind,
                                                 block_tier(shape, [text]), body, head, self.segments[-1].index))
            return
        body = "\n".join(texts)
        if len(body) > MAX_BLOCK_TEXT:
            body = body[: MAX_BLOCK_TEXT - 1] + "…"
        end = self._base + end_offset
        self._covered = end
        self._covered_kind = shape.kind
        tier = block_tier(shape, texts)
        if len(self.candidates) < MAX_CANDIDATES:
            self.candidates.append(Candidate(line, end, shape.kind, tier, body, head, self.segments[-1].index))

    # Segments.

    def _open(self, line: int, where: Where, command: str) -> None:
        self._close(line)
        self._subs.reset()
        self.segments.append(Segment(len(self.segments), line, where, command))

    def _close(self, line: int) -> None:
        current = self.segments[-1]
        if current.end < 0:
            current.end = line - 1
            if not current.tail:
                # Read lazily (:meth:`tail`): most segments' tails are never asked for.
                current.tail_read = False
                self._untailed.append(current)

    def _settle(self, current: Segment) -> None:
        """Read the tail of ``current`` that is owed: the lines before its failure mark, and when
        none of those is meaningful and the segment is closed, the lines before its end (what
        reading the first at the mark and the second at the close gave)."""
        if current.failed_at >= 0:
            line = current.failed_at
            current.failed_at = -1
            self._read_tail(current, line)
            if current.tail or current.end < 0:
                return  # an unclosed segment with no such line is queued again when it closes
        self._read_tail(current, current.end + 1)

    def _read_tail(self, current: Segment, line: int) -> None:
        """The last meaningful lines of ``current`` before ``line``."""
        current.tail_read = True
        tail: list[tuple[int, str]] = []
        index = line - 1 - self._base
        skip = 1 if current.where == "command" else 0
        stop = max(current.start + skip - self._base, 0, index - BEHIND)
        while index >= stop and len(tail) < TAIL_LINES:
            text = segment.clean(self._raw(index))
            if not _MEANINGLESS.match(text) and segment.mark(self._raw(index), text) is None:
                tail.append((self._base + index, text))
            index -= 1
        tail.reverse()
        if tail and any(findings.FINDING.match(text) for _, text in tail):
            # A run of one-line findings may start before the last lines: its first is read first.
            base = self._base
            first = findings.run_start(tail[0][0] - base, lambda at: segment.clean(self._raw(at)), stop)
            if first is not None:
                tail.insert(0, (base + first[0], first[1]))
        current.tail = tail


def _in_hunk(offset: int, read: Callable[[int], str]) -> bool:
    """Whether the line at ``offset`` is inside a diff's hunk: the lines before it, back to a
    ``@@ -a,b +c,d @@`` header, are all the hunk's (``+``, ``-``, `` `` or empty) and are fewer
    than the header's ``d`` new-side lines (a command traced right after a hunk is not in it)."""
    new_side = 0
    for back in range(offset - 1, max(offset - _HUNK_LINES, 0) - 1, -1):
        line = read(back)
        header = _HUNK.match(line)
        if header is not None:
            return new_side < int(header.group(1) or 1)
        if line and line[0] not in "+- ":
            return False
        if not line or line[0] != "-":
            new_side += 1
    return False


_HUNK = re.compile(r"@@ -\d+(?:,\d+)? \+\d+(?:,(\d+))? @@")


_HUNK_LINES = 60
"""Lines of a hunk looked back through (a bounded look: the lines kept behind the scan)."""
_DIFF_LEGEND = re.compile(r"\+ \w+ - \w+$")
