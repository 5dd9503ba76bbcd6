"""Per-URL ETag cache for conditional GETs (docs/wire-facts.md §8).

GitLab's ETags are weak hashes of the whole body, so they are stored per full URL including
the query string, **together with the body they stand for**: the cache is shared by every caller
of one client, so ``If-None-Match`` is sent for a URL that *some* caller fetched before, and a 304
must then be answered from the stored body — the caller that triggered it may never have seen the
data (see :meth:`labdeck.api.core.HttpEngine.fetch_conditional`). A 304 still counts against the
rate limit; the saving is transfer and parsing.

Memory is bounded twice: by entry count and by the total size of stored bodies (least recently
used entries go first); a body larger than ``max_body`` is not kept at all.
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

    def __init__(self, max_entries: int = 1024, max_body: int = 4 * 1024 * 1024,
                 max_bytes: int = 32 * 1024 * 1024) -> None:
        self._entries: OrderedDict[str, CachedResponse] = OrderedDict()
        self.max_entries = max_entries
        self.max_body = max_body
        self.max_bytes = max_bytes
        self._bytes = 0

    def __len__(self) -> int:
        return len(self._entries)

    @property
    def size(self) -> int:
        """Total bytes of the stored bodies."""
        return self._bytes

    def get(self, url: str) -> CachedResponse | None:
        """The cached entry for ``url`` (and mark it recently used)."""
        entry = self._entries.get(url)
        if entry is not None:
            self._entries.move_to_end(url)
        return entry

    def _drop(self, url: str) -> None:
        entry = self._entries.pop(url, None)
        if entry is not None:
            self._bytes -= len(entry.content)

    def store(self, url: str, response: httpx.Response) -> None:
        """Remember a 200 response that carried an ETag with its body (large bodies are not kept).

        Anything else (no ETag, another status, a body over ``max_body``) forgets ``url``, so a
        later request for it goes without ``If-None-Match``.
        """
        etag = response.headers.get("etag")
        self._drop(url)
        if response.status_code != 200 or not etag or len(response.content) > self.max_body:
            return
        self._entries[url] = CachedResponse(etag, response.content, response.headers)
        self._bytes += len(response.content)
        while self._entries and (len(self._entries) > self.max_entries or self._bytes > self.max_bytes):
            oldest = next(iter(self._entries))
            self._drop(oldest)

    def discard(self, url: str) -> None:
        """Forget ``url``."""
        self._drop(url)

    def urls(self) -> list[str]:
        """The URLs cached now, least recently used first."""
        return list(self._entries)

    def discard_path(self, url: str) -> int:
        """Forget every cached page of the listing at ``url`` (an absolute URL without a query:
        entries for it with any query string go). Returns how many went."""
        gone = [key for key in self._entries if key == url or key.startswith(url + "?")]
        for key in gone:
            self._drop(key)
        return len(gone)

    def clear(self) -> None:
        self._entries.clear()
        self._bytes = 0
