"""The board's cells that must stay telling when the column is narrow (80 columns): what is cut
is the decoration, never the count or the pipeline number (``unit-0001 +39 more`` → ``unit-0001
+39`` → ``unit-0… +39``; ``broken since #127`` → ``broken #127`` → ``#127``)."""

from __future__ import annotations

import re

from rich.cells import cell_len, set_cell_size

from labdeck.ui.widgets.resource_table import Shortens

_SINCE = re.compile(r"^(?P<verdict>\S+) since (?P<number>#\d+)(?P<rest>.*)$")


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


def failed_cell(label: str) -> str:
    """The ``Failed jobs`` cell: ``unit-0001 +39 more`` keeps its ``+39`` however narrow."""
    if " +" not in label:
        return label
    short = label.removesuffix(" more")
    end = short.rsplit(" ", 1)[1]
    return Shortens(label, lambda width: keep_end(short, end, width))


def why_cell(label: str) -> str:
    """The ``Why`` cell: ``broken since #127`` keeps its ``#127`` however narrow."""
    match = _SINCE.match(label)
    if match is None:
        return label
    short = f"{match['verdict']} {match['number']}{match['rest']}"
    end = f"{match['number']}{match['rest']}"

    def shorten(width: int) -> str:
        if cell_len(short) <= width:
            return short
        return end if cell_len(end) <= width else keep_end(end, end.split(" ", 1)[0], width)

    return Shortens(label, shorten)


def cluster_cell(title: str) -> str:
    """A cluster's line keeps its project count and verdict (``image pull fr… · 4 projects ·
    infra``): the error's words are cut, not what the line concludes."""
    parts = title.rsplit(" · ", 2)
    if len(parts) < 3:
        return title
    head, tail = parts[0], f" · {parts[1]} · {parts[2]}"
    return Shortens(title, lambda width: cut_head(head, tail, width))
