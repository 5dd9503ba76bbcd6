"""A growing job trace as numbered display lines, for logs of a million lines and more.

:class:`LineIndex` takes the trace as it arrives (raw bytes or already-decoded text, *not yet
sanitized*) and keeps, per line:

- the **display** text: sanitized (only canonical SGR ``ESC[…m`` remains, see
  :mod:`labdeck.logtext.sanitize`), section markers removed, ``\\r`` resolved, tabs expanded, and
  prefixed with the colours still in effect from earlier lines (a terminal keeps SGR state across
  newlines; see :mod:`labdeck.logtext.sgr_state`). Render it on its own with
  ``rich.text.Text.from_ansi(line)``; it never contains ``\\r``, ``\\n`` or ``\\t``;
- optionally the **raw** text, returned by :meth:`LineIndex.raw_line` already passed through
  :func:`~labdeck.logtext.sanitize.escape_raw` (visible ``␛[31m`` forms; render as plain text).

Carriage returns: a line is split on ``\\r`` and the **last segment with visible text** is shown
(SGR-only and empty segments do not count, so ``"50%\\r100%\\r"`` shows ``100%``). This is what a
progress bar that redraws the whole line looks like on a terminal; text hidden that way is still
visible in the raw view (the kubectl ``\\r`` trick, kubernetes/kubernetes#112553).

Lines longer than ``max_line_chars`` are cut (at a safe point, never inside an SGR sequence) with a
``… [N more characters]`` note, so one hostile line cannot exhaust memory.
"""

from __future__ import annotations

import codecs
import re
import threading
from bisect import bisect_right
from collections.abc import Iterator
from dataclasses import dataclass
from itertools import accumulate, count
from operator import add

from labdeck.logtext.line_text import (
    KEEPS_COLOUR,
    NEEDS_RENDER,
    RESET,
    expand_tabs,
    lines_with,
    resolve_carriage_returns,
    safe_cut,
)
from labdeck.logtext.sanitize import TraceSanitizer, escape_raw
from labdeck.logtext.search import LineMatcher, visible
from labdeck.logtext.sections import Section, SectionTracker, strip_markers
from labdeck.logtext.sgr_state import SgrState
from labdeck.logtext.store import LineStore

ERROR_PATTERN = r"ERROR:|error:|FAILED|Traceback|exit code"
"""What :meth:`LineIndex.first_error_line` looks for."""
_ERROR_MATCHER = LineMatcher.regex(re.compile(ERROR_PATTERN))
_COLLAPSE_AT = 16 * 1024
_SEARCH_BLOCK = 2 * 1024 * 1024


@dataclass
class _Partial:
    """The unfinished last line."""

    text: str = ""
    raw: str = ""
    dropped: int = 0
    raw_dropped: int = 0

    def __bool__(self) -> bool:
        return bool(self.text or self.raw or self.dropped or self.raw_dropped)


class LineIndex:
    """Numbered lines of a trace, built incrementally, stored on disk, searchable.

    ``append`` may be called with any chunking (bytes are decoded as UTF-8 incrementally with
    replacement characters). The trailing line without ``\\n`` yet counts in ``len()`` and is
    updated as more arrives. Section markers become :attr:`sections` with line numbers.

    Thread-safe: ``line``/``search`` may run in a worker thread while ``append`` runs elsewhere.
    """

    def __init__(self, *, keep_raw: bool = True, tab_size: int = 8, max_line_chars: int = 200_000,
                 spool_size: int = 8 * 1024 * 1024, cache_size: int = 2048) -> None:
        self.keep_raw = keep_raw
        self.tab_size = tab_size
        self.max_line_chars = max_line_chars
        self._display = LineStore(spool_size, cache_size)
        self._raw = LineStore(spool_size, cache_size // 4 or 1) if keep_raw else None
        self._lock = threading.RLock()
        self._start()

    def _start(self) -> None:
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self._sanitizer = TraceSanitizer()
        self.tracker = SectionTracker()
        self._style = SgrState()
        self._partial = _Partial()
        self._partial_display: str | None = None
        self.chars_received = 0
        self.widest = 0
        """Length of the longest complete display line, SGR included: an upper bound on its width
        in cells for narrow characters (use it for the horizontal scroll extent)."""

    # -- building -------------------------------------------------------------------------------

    def append(self, data: str | bytes) -> int:
        """Add the next piece of the trace; return the index of the first line that changed.

        Lines from that index to ``len(self) - 1`` must be redrawn (the previous partial line
        may have grown; new lines follow it).
        """
        text = self._decoder.decode(data) if isinstance(data, bytes) else data
        with self._lock:
            first_changed = len(self._display)
            if not text:
                return first_changed
            self.chars_received += len(text)
            clean = self._sanitizer.feed(text)
            clean_parts = clean.split("\n")
            raw_parts = text.split("\n") if self.keep_raw else None
            self._extend_partial(clean_parts[0], raw_parts[0] if raw_parts else "")
            if len(clean_parts) > 1:
                self._finish_line()
                self._add_lines(clean_parts[1:-1], raw_parts[1:-1] if raw_parts else None, clean, text)
                self._extend_partial(clean_parts[-1], raw_parts[-1] if raw_parts else "")
            self._partial_display = None
            return first_changed

    def _add_lines(self, clean_lines: list[str], raw_lines: list[str] | None, clean: str, raw: str) -> None:
        """Store lines that arrived whole in one chunk (the bulk of any log); ``clean`` and ``raw``
        are the whole chunk, sanitized and as received."""
        if not clean_lines:
            return
        limit = self.max_line_chars
        # Most chunks need nothing but storing: these checks run once per chunk, in C.
        special = len(clean) > limit or "\r" in clean or "\t" in clean or "section_" in clean
        if special or self._style or "\x1b" in clean:
            self._shown_lines(clean_lines, clean, special)
        self.widest = max(self.widest, max(map(len, clean_lines)))
        self._display.extend(clean_lines)
        if self._raw is not None and raw_lines is not None:
            if len(raw) > limit:
                raw_lines = [line if len(line) <= limit else
                             line[:limit] + f" … [{len(line) - limit} more characters]" for line in raw_lines]
            self._raw.extend(raw_lines)

    def _shown_lines(self, lines: list[str], clean: str, special: bool) -> None:
        """Turn sanitized ``lines`` (the complete lines of the chunk ``clean``) into display lines,
        in place: markers, \\r and tabs resolved, colours carried over. Only the lines that need
        it are visited (found by one scan of the chunk): a line that ends with a reset, after lines
        that left no colour on, is its own style (most coloured lines)."""
        start = clean.find("\n") + 1
        ends = list(map(add, accumulate(map(len, lines)), count(start)))
        marked: set[int] = set()
        if special:
            marked.update(lines_with(NEEDS_RENDER, clean, start, ends))
            if len(clean) > self.max_line_chars:
                marked.update(index for index, line in enumerate(lines) if len(line) > self.max_line_chars)
        coloured = lines_with(KEEPS_COLOUR, clean, start, ends) if "\x1b" in clean else []
        todo = sorted(marked.union(coloured))
        styled = bool(self._style)
        base = len(self._display)
        index = 0 if styled else (todo[0] if todo else len(lines))
        while index < len(lines):
            line = lines[index]
            if index in marked:
                line = self._render(self.tracker.feed(base + index, line), 0)
            if styled or ("\x1b" in line and not line.endswith(RESET)):
                line = self._carry_style(line)
                styled = bool(self._style)
            lines[index] = line
            if styled:
                index += 1  # colours still on: every line until they are reset takes them
            else:
                following = bisect_right(todo, index)
                index = todo[following] if following < len(todo) else len(lines)

    def finish(self) -> int:
        """End of the trace: flush the decoder and make the partial line a complete one."""
        with self._lock:
            first_changed = len(self._display)
            tail = self._decoder.decode(b"", final=True)
            if tail:
                self.append(tail)
            self._sanitizer.flush()
            if self._partial:
                self._finish_line()
            self._partial_display = None
            return first_changed

    def reset(self) -> None:
        """Forget everything (the trace was erased or truncated on the server)."""
        with self._lock:
            self._display.clear()
            if self._raw is not None:
                self._raw.clear()
            self._start()

    def close(self) -> None:
        """Release the temporary files."""
        self._display.close()
        if self._raw is not None:
            self._raw.close()

    def __enter__(self) -> LineIndex:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _extend_partial(self, clean: str, raw: str) -> None:
        partial = self._partial
        limit = self.max_line_chars
        if clean:
            if partial.dropped:
                partial.dropped += len(visible(clean))
            else:
                partial.text += clean
                if len(partial.text) > _COLLAPSE_AT and "\r" in partial.text:
                    self._collapse_partial()
                if len(partial.text) > limit:
                    kept = safe_cut(partial.text, limit)
                    partial.dropped += len(visible(partial.text[len(kept):])) or 1
                    partial.text = kept
        if raw:
            if partial.raw_dropped:
                partial.raw_dropped += len(raw)
            else:
                partial.raw += raw
                if len(partial.raw) > limit:
                    partial.raw_dropped = len(partial.raw) - limit
                    partial.raw = partial.raw[:limit]

    def _collapse_partial(self) -> None:
        """Fold the overwritten progress updates of the partial line (bounds its memory)."""
        partial = self._partial
        last_cr = partial.text.rfind("\r")
        head = self.tracker.feed(len(self._display), partial.text[:last_cr + 1])
        partial.text = resolve_carriage_returns(head) + "\r" + partial.text[last_cr + 1:]

    def _render(self, text: str, dropped: int) -> str:
        text = expand_tabs(resolve_carriage_returns(text), self.tab_size)
        if len(text) > self.max_line_chars:
            kept = safe_cut(text, self.max_line_chars)
            dropped += len(visible(text[len(kept):]))
            text = kept
        if dropped:
            text += f"\x1b[0m … [{dropped} more characters]"
        return text

    def _carry_style(self, line: str) -> str:
        """Start ``line`` with the colours left by the lines before it, then note its own."""
        prefix = self._style.prefix()
        self._style.feed(line)
        return prefix + line

    def _finish_line(self) -> None:
        partial = self._partial
        line_number = len(self._display)
        text = self.tracker.feed(line_number, partial.text)
        line = self._carry_style(self._render(text, partial.dropped))
        self.widest = max(self.widest, len(line))
        self._display.append(line)
        if self._raw is not None:
            raw = partial.raw
            if partial.raw_dropped:
                raw += f" … [{partial.raw_dropped} more characters]"
            self._raw.append(raw)
        self._partial = _Partial()

    # -- reading --------------------------------------------------------------------------------

    def __len__(self) -> int:
        return len(self._display) + (1 if self._partial else 0)

    @property
    def complete_lines(self) -> int:
        """Lines ended by a newline (the partial line, if any, is index ``complete_lines``)."""
        return len(self._display)

    @property
    def sections(self) -> list[Section]:
        """Sections seen so far, in order of their start line."""
        return self.tracker.sections

    def line(self, index: int) -> str:
        """Display text of line ``index`` (negative indexes count from the end)."""
        with self._lock:
            index = self._normalise(index)
            if index < len(self._display):
                return self._display.get(index)
            if self._partial_display is None:
                partial = self._partial
                self._partial_display = self._style.prefix() + self._render(strip_markers(partial.text),
                                                                            partial.dropped)
            return self._partial_display

    def plain_line(self, index: int) -> str:
        """Line ``index`` without SGR sequences (for copying and search)."""
        return visible(self.line(index))

    def raw_line(self, index: int) -> str:
        """Line ``index`` as received, made visible with :func:`escape_raw` (render as plain text).

        Without ``keep_raw`` this is the display line escaped.
        """
        with self._lock:
            index = self._normalise(index)
            if self._raw is None:
                return escape_raw(self.line(index))
            if index < len(self._raw):
                return escape_raw(self._raw.get(index))
            raw = self._partial.raw
            if self._partial.raw_dropped:
                raw += f" … [{self._partial.raw_dropped} more characters]"
            return escape_raw(raw)

    def lines(self, start: int, stop: int) -> list[str]:
        """Display lines ``start .. stop-1`` (clipped to the available range)."""
        with self._lock:
            stop = min(stop, len(self))
            return [self.line(index) for index in range(max(0, start), stop)]

    def _normalise(self, index: int) -> int:
        size = len(self)
        if index < 0:
            index += size
        if not 0 <= index < size:
            raise IndexError(index)
        return index

    # -- searching ------------------------------------------------------------------------------

    def search(self, pattern: str, start: int = 0, *, backwards: bool = False, regex: bool = False,
               case: bool = False) -> int | None:
        """Index of the first line at or after ``start`` (at or before, with ``backwards``) whose
        visible text matches ``pattern``; None if no line does.

        ``regex=False`` matches the text literally; ``case=False`` ignores case. An invalid regular
        expression raises :class:`re.error`. Lines are scanned in blocks of a few MiB straight from
        the store, so a miss over a million lines costs one sequential read.
        """
        if not pattern:
            return None
        matcher = LineMatcher.regex(pattern, case=case) if regex else LineMatcher.literal(pattern, case=case)
        return self.find(matcher, start, backwards=backwards)

    def first_error_line(self, start: int = 0) -> int | None:
        """The first line at or after ``start`` that looks like an error (see :data:`ERROR_PATTERN`)."""
        return self.find(_ERROR_MATCHER, start)

    def iter_matches(self, matcher: LineMatcher, start: int = 0) -> Iterator[int]:
        """Every line index from ``start`` on that ``matcher`` accepts."""
        index = start
        while True:
            found = self.find(matcher, index)
            if found is None:
                return
            yield found
            index = found + 1

    def find(self, matcher: LineMatcher, start: int = 0, *, backwards: bool = False) -> int | None:
        """Like :meth:`search` with a prepared :class:`~labdeck.logtext.search.LineMatcher`."""
        size = len(self)
        if size == 0:
            return None
        complete = len(self._display)
        if backwards:
            start = min(start, size - 1)
            if start < 0:
                return None
            if start >= complete:
                if matcher.matches(self.line(start)):
                    return start
                start = complete - 1
            last = start + 1
            while last > 0:
                first = self._display.line_before_bytes(last, _SEARCH_BLOCK)
                found = matcher.scan(self._display.block(first, last), backwards=True)
                if found is not None:
                    return first + found
                last = first
            return None
        first = max(0, start)
        while first < complete:
            last = self._display.line_after_bytes(first, _SEARCH_BLOCK)
            found = matcher.scan(self._display.block(first, last))
            if found is not None:
                return first + found
            first = last
        if first < size and matcher.matches(self.line(first)):
            return first
        return None
