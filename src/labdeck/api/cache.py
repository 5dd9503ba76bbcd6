"""Per-URL ETag cache for polled GETs (conditional requests, wire-facts §8).

GitLab's ETags are weak hashes of the whole body, so they are stored per full URL including
the query string. A 304 still counts against the rate limit; the saving is transfer and parsing.
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass

import httpx


@dataclass(frozen=True)
class CachedResponse:
    """What a 304 stands for: the last body and headers seen with that ETag."""

    etag: str
    content: bytes
    headers: httpx.Headers


class EtagCache:
    """A bounded LRU of :class:`CachedResponse` keyed by absolute URL."""

    def __init__(self, max_entries: int = 1024, max_body: int = 4 * 1024 * 1024) -> None:
        self._entries: OrderedDict[str, CachedResponse] = OrderedDict()
        self.max_entries = max_entries
        self.max_body = max_body

    def __len__(self) -> int:
        return len(self._entries)

    def get(self, url: str) -> CachedResponse | None:
        """The cached entry for ``url`` (and mark it recently used)."""
        entry = self._entries.get(url)
        if entry is not None:
            self._entries.move_to_end(url)
        return entry

    def store(self, url: str, response: httpx.Response) -> None:
        """Remember a 200 response that carried an ETag (large bodies are not kept)."""
        etag = response.headers.get("etag")
        if not etag or len(response.content) > self.max_body:
            self._entries.pop(url, None)
            return
        self._entries[url] = CachedResponse(etag, response.content, response.headers)
        self._entries.move_to_end(url)
        while len(self._entries) > self.max_entries:
            self._entries.popitem(last=False)

    def clear(self) -> None:
        self._entries.clear()
