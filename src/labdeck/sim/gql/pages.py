"""Connections' pages: ``first``/``after``/``last``/``before`` over an ordered sequence, at most 100
items (``GitlabSchema.default_max_page_size``), with keyset-style cursors (base64 of
``{"id":"123"}``, as GitLab's keyset cursors look) and ``pageInfo``."""

from __future__ import annotations

import base64
import itertools
import json
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from graphql import GraphQLError

MAX_PAGE_SIZE = 100  # GitlabSchema.default_max_page_size


def _cursor(number: int) -> str:
    return base64.b64encode(json.dumps({"id": str(number)}, separators=(",", ":")).encode()).decode()


def _cursor_id(cursor: str | None) -> int | None:
    if cursor is None:
        return None
    try:
        return int(json.loads(base64.b64decode(cursor.encode(), validate=True))["id"])
    except (ValueError, KeyError, TypeError):
        raise GraphQLError("Please provide a valid cursor") from None


@dataclass
class Page:
    """One page of a connection: its items, whether more follow or precede, and the total (read
    only when ``count`` is asked for)."""

    items: list[Any]
    has_next: bool
    has_previous: bool
    key: Callable[[Any], int]
    total: Callable[[], int]
    extra: dict[str, Any] = field(default_factory=dict)

    def page_info(self) -> dict[str, Any]:
        return {"hasNextPage": self.has_next, "hasPreviousPage": self.has_previous,
                "startCursor": _cursor(self.key(self.items[0])) if self.items else None,
                "endCursor": _cursor(self.key(self.items[-1])) if self.items else None}

    def edges(self) -> list[dict[str, Any]]:
        return [{"cursor": _cursor(self.key(item)), "node": item} for item in self.items]


def paged(ordered: Iterable[Any], key: Callable[[Any], int], args: dict[str, Any],
          total: Callable[[], int], *, descending: bool | None = None) -> Page:
    """Slice ``ordered`` for ``first``/``after``/``last``/``before`` (at most 100 items); reads only
    as far into ``ordered`` as the page needs when going forward. When ``ordered`` is sorted by
    ``key`` (``descending`` True or False), a cursor works like GitLab's keyset cursor: the page
    starts past its id even when that item is gone; otherwise past the item itself."""
    first, last = args.get("first"), args.get("last")
    if (first is not None and first < 0) or (last is not None and last < 0):
        raise GraphQLError("Argument 'first' on Field must be a non-negative integer" if first is not None and first < 0
                           else "Argument 'last' on Field must be a non-negative integer")
    after, before = _cursor_id(args.get("after")), _cursor_id(args.get("before"))
    iterator: Iterator[Any] = iter(ordered)
    has_previous = False
    if after is not None:
        for item in iterator:
            number = key(item)
            if descending is None:
                if number == after:
                    has_previous = True
                    break
            elif number < after if descending else number > after:
                iterator = itertools.chain([item], iterator)
                break
            else:
                has_previous = True
    if before is not None or last is not None:
        rest = []
        for item in iterator:
            number = key(item)
            if before is not None and (number == before if descending is None
                                       else number <= before if descending else number >= before):
                break
            rest.append(item)
        size = min(last if last is not None else MAX_PAGE_SIZE, MAX_PAGE_SIZE)
        if first is not None:
            rest = rest[:min(first, MAX_PAGE_SIZE)]
        items = rest[-size:] if size else []
        return Page(items, before is not None, has_previous or len(rest) > len(items), key, total)
    size = min(first if first is not None else MAX_PAGE_SIZE, MAX_PAGE_SIZE)
    items = []
    has_next = False
    for item in iterator:
        if len(items) == size:
            has_next = True
            break
        items.append(item)
    return Page(items, has_next, has_previous, key, total)
