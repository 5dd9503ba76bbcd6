"""Text of display lines: carriage returns, tabs, cutting without splitting an SGR sequence, and
finding, in a chunk of many lines, the few that need any of it (one scan of the chunk in C
instead of a look at every line in Python: a million-line log arrives in a few seconds)."""

from __future__ import annotations

import re
from bisect import bisect_left

from labdeck.logtext.search import visible

RESET = "\x1b[0m"
"""The reset most coloured lines end with."""
NEEDS_RENDER = re.compile("[\r\t]|section_")
"""Something on a line that only rendering (:func:`resolve_carriage_returns`, :func:`expand_tabs`)
and the section tracker resolve."""
KEEPS_COLOUR = re.compile("\x1b(?!\\[0m(?:\n|\\Z))[^\x1b\n]*+(?=\n|\\Z)")
"""The last escape of a line, unless it is the reset that ends the line: the line may leave
colours on for the next ones (:class:`~labdeck.logtext.sgr_state.SgrState` tells)."""


def lines_with(pattern: re.Pattern[str], text: str, start: int, ends: list[int]) -> list[int]:
    """Indexes of the lines of ``text`` (from ``start``, ending at the offsets ``ends``) in which
    ``pattern`` finds something, in order."""
    found: list[int] = []
    for match in pattern.finditer(text, start, ends[-1]):
        index = bisect_left(ends, match.start())
        if not found or found[-1] != index:
            found.append(index)
    return found


def resolve_carriage_returns(text: str) -> str:
    """The last ``\\r``-separated segment that has visible text (``""`` if none has)."""
    if "\r" not in text:
        return text
    segments = text.split("\r")
    for segment in reversed(segments):
        if visible(segment):
            return segment
    return ""


def expand_tabs(text: str, tab_size: int = 8) -> str:
    """Replace tabs with spaces up to the next tab stop, not counting SGR sequences as columns."""
    if "\t" not in text:
        return text
    out: list[str] = []
    column = 0
    for piece in re.split(r"(\x1b\[[0-9;]*m|\t)", text):
        if not piece:
            continue
        if piece == "\t":
            spaces = tab_size - column % tab_size
            out.append(" " * spaces)
            column += spaces
        elif piece.startswith("\x1b"):
            out.append(piece)
        else:
            out.append(piece)
            column += len(piece)
    return "".join(out)


def safe_cut(text: str, limit: int) -> str:
    """``text[:limit]`` without leaving a partial SGR sequence at the end (for sanitized text,
    whose only escapes are complete ``ESC[…m``: a cut one is dropped whole, never left as a raw
    ESC and its parameters)."""
    cut = text[:limit]
    escape = cut.rfind("\x1b")
    if escape != -1 and "m" not in cut[escape:]:
        cut = cut[:escape]
    return cut
