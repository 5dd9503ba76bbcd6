"""Finding lines whose visible text matches: literal or regular-expression, any case.

Blocks of display lines (each ending in ``\\n``) are scanned in one pass: SGR sequences are
removed first (so a colour change inside a word does not hide it), then the pattern is looked
for in the whole block, and a hit is mapped to its line by counting newlines. A literal search
uses ``str.find`` (on lower-cased text when ignoring case), much faster than a regex.
"""

from __future__ import annotations

import re

SGR = re.compile(r"\x1b\[[0-9;]*m")


def visible(text: str) -> str:
    """Display text without its SGR sequences (what the user reads)."""
    return SGR.sub("", text) if "\x1b" in text else text


class LineMatcher:
    """What to look for. Build with :meth:`literal` or :meth:`regex`."""

    def __init__(self, *, needle: str | None = None, pattern: re.Pattern[str] | None = None,
                 case: bool = True) -> None:
        self._needle = needle
        self._pattern = pattern
        self._case = case

    @classmethod
    def literal(cls, text: str, *, case: bool = False) -> LineMatcher:
        """Match ``text`` as typed (``case=False``: ignoring case)."""
        return cls(needle=text if case else text.lower(), case=case)

    @classmethod
    def regex(cls, pattern: str | re.Pattern[str], *, case: bool = False) -> LineMatcher:
        """Match a regular expression (``^``/``$`` anchor at line boundaries); may raise re.error."""
        if isinstance(pattern, re.Pattern):
            return cls(pattern=pattern)
        flags = re.MULTILINE if case else re.MULTILINE | re.IGNORECASE
        return cls(pattern=re.compile(pattern, flags))

    def _prepare(self, text: str) -> str:
        text = visible(text)
        if self._needle is not None and not self._case:
            text = text.lower()
        return text

    def _search(self, hay: str, start: int, end: int) -> int:
        if self._needle is not None:
            return hay.find(self._needle, start, end)
        assert self._pattern is not None
        match = self._pattern.search(hay, start, end)
        return -1 if match is None else match.start()

    def matches(self, line: str) -> bool:
        """True if the visible text of one display line matches."""
        hay = self._prepare(line)
        return self._search(hay, 0, len(hay)) != -1

    def scan(self, block: str, *, backwards: bool = False) -> int | None:
        """The first (or last) line of ``block`` that matches, as an offset from its first line."""
        hay = self._prepare(block)
        size = len(hay)
        found: int | None = None
        position = 0
        line = 0
        counted_to = 0
        while position <= size:
            hit = self._search(hay, position, size)
            if hit == -1:
                break
            line_start = hay.rfind("\n", 0, hit) + 1
            line_end = hay.find("\n", hit)
            if line_end == -1:
                line_end = size
            line += hay.count("\n", counted_to, line_start)
            counted_to = line_start
            # A pattern such as \s can match across a newline: only a match inside one line counts.
            if self._search(hay, line_start, line_end) != -1:
                if not backwards:
                    return line
                found = line
            position = line_end + 1
        return found
