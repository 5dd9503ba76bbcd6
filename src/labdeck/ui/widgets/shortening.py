"""Plain cells that shorten themselves where it matters least (``unit-0001 +39 more`` →
``unit-0… +39``) instead of being cut at their end, and the cutting helpers they use."""

from __future__ import annotations

from collections.abc import Callable

from rich.cells import cell_len, set_cell_size


class Shortens(str):
    """A plain cell that knows how to say itself in fewer cells than it has (``unit-0001 +39
    more`` → ``unit-0001 +39`` → ``unit-0… +39``) instead of being cut at its end, where the
    part that matters often is. ``shorten(width)`` returns a text of at most ``width`` cells."""

    shorten: Callable[[int], str]

    def __new__(cls, text: str, shorten: Callable[[int], str]) -> Shortens:
        cell = super().__new__(cls, text)
        cell.shorten = shorten
        return cell


def cut_head(head: str, tail: str, width: int) -> str:
    """``head + tail`` in ``width`` cells, cut in ``head`` (with an ellipsis) so that ``tail``
    stays whole; ``tail`` alone, cut last, when there is no room for more."""
    if cell_len(head) + cell_len(tail) <= width:
        return head + tail
    room = width - cell_len(tail)
    if room >= 2 and head:
        return f"{set_cell_size(head, room - 1)}…{tail}"
    tail = tail.lstrip(" ·")
    return tail if cell_len(tail) <= width else set_cell_size(tail, max(0, width - 1)) + "…"


def keep_end(text: str, end: str, width: int) -> str:
    """``text`` in ``width`` cells, cut in its head so that ``end`` (its last word) stays whole:
    ``unit-0… +39``."""
    if cell_len(text) <= width:
        return text
    return cut_head(text[: len(text) - len(end)].rstrip(), f" {end}", width)
