"""The board's cells that must stay telling when the column is narrow (80 columns): what is cut
is the decoration, never the count or the pipeline number (``unit-0001 +39 more`` → ``unit-0001
+39`` → ``unit-0… +39``; ``broken since #127`` → ``broken #127`` → ``brok… #127``)."""

from __future__ import annotations

import re

from labdeck.ui.widgets.shortening import Shortens, cut_head, keep_end

_SINCE = re.compile(r"^(?P<verdict>\S+) since (?P<number>#\d+)(?P<rest>.*)$")


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
    # ``brok… #127`` before ``#127`` alone: the verdict's first letters still say which it is.
    return Shortens(label, lambda width: keep_end(short, short.split(" ", 1)[1], width))


def project_cell(path: str) -> str:
    """The ``Project`` cell: a narrow column cuts the groups, never the project's own name
    (``platform/infra/generated-01134`` → ``platfo…/generated-01134``): cut at its end, every
    project of a group read the same."""
    if "/" not in path:
        return path
    head, name = path.rsplit("/", 1)
    return Shortens(path, lambda width: cut_head(head, f"/{name}", width))


def cluster_cell(title: str) -> str:
    """A cluster's line keeps its project count and verdict (``image pull fr… · 4 projects ·
    infra``): the error's words are cut, not what the line concludes."""
    parts = title.rsplit(" · ", 2)
    if len(parts) < 3:
        return title
    head, tail = parts[0], f" · {parts[1]} · {parts[2]}"
    return Shortens(title, lambda width: cut_head(head, tail, width))
