"""Async pagination over GitLab list endpoints.

- Follows ``Link: <…>; rel="next"``, falling back to ``X-Next-Page``; never trusts ``X-Total``
  (it disappears past 10,000 rows and on some endpoints, docs/wire-facts.md §1.3): such listings are
  walked page by page, as long as the server names a next page.
- When page 1 announces ``X-Total-Pages``, pages 2…N are fetched concurrently (bounded by
  ``concurrency``) and yielded strictly in order; if the last page still names a next page (the
  collection grew) iteration continues by links.
- ``keyset=True`` asks for keyset pagination (``pagination=keyset&order_by=id&sort=…``, docs/wire-facts.md
  §1.4) and then follows only ``Link rel="next"``. A server that ignores it (offset headers come
  back) is paginated by offset; one that refuses it (405/400) is asked again without it.
- ``conditional=True`` sends the client's cached ETag of each page URL (the body comes from the
  cache on a 304). After a complete pass :attr:`Paginator.version` identifies the listing; a
  consumer that keeps it and passes it back as ``since`` learns "unchanged" through ``changed``
  (or :meth:`Paginator.poll`, which then parses nothing). A consumer without ``since`` always gets
  ``changed`` True: what the *client* cached is not what *this caller* has.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import re
from collections import deque
from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Generic, Literal, TypeVar

import httpx
import pydantic

from labdeck.api import answers, errors
from labdeck.api.parsers import list_parser
from labdeck.api.results import ActionResult

if TYPE_CHECKING:
    from labdeck.api.core import HttpEngine

T = TypeVar("T")
_LINK = re.compile(r"<([^>]*)>\s*;\s*rel=\"?([^\";,]+)\"?")
_EMPTY_LIST = re.compile(rb"\s*(\[\s*\])?\s*")
MAX_PAGES = 100_000
_KEYSET_REFUSED = (400, 405)
"""Statuses a server answers when keyset pagination is not available for a request."""


def next_link(headers: httpx.Headers) -> str | None:
    """The ``rel="next"`` URL of a ``Link`` header, if any."""
    for url, rel in _LINK.findall(headers.get("link", "")):
        if "next" in rel.split():
            return url
    return None


def _int_header(headers: httpx.Headers, name: str) -> int | None:
    raw = (headers.get(name) or "").strip()
    return int(raw) if raw.isdigit() else None


def _offset_headers(headers: httpx.Headers) -> bool:
    """True when a response carries offset-pagination headers (a server that ignored keyset)."""
    return any(name in headers for name in ("x-page", "x-total-pages", "x-next-page"))


@dataclass(frozen=True)
class RawPage:
    """One fetched page before parsing."""

    content: bytes
    headers: httpx.Headers
    changed: bool
    """False when the server answered 304 (the body is the client's cached copy)."""
    etag: str | None = None
    url: str | None = None
    """The page's full URL (conditional reads): a cached copy that does not parse is read again."""
    items: list[Any] | None = None
    """The items, parsed when the page was read (a 200: checked before it was believed)."""

    @property
    def empty(self) -> bool:
        """True for an empty JSON array (or an empty body), without parsing the page."""
        return _EMPTY_LIST.fullmatch(self.content) is not None


def _version_of(etags: list[str | None]) -> str | None:
    if not etags or any(etag is None for etag in etags):
        return None
    digest = hashlib.sha256("\n".join(etag or "" for etag in etags).encode()).hexdigest()[:32]
    return f"{len(etags)}:{digest}"


class Paginator(Generic[T]):
    """``async for item in p``; ``async for page in p.pages()``; ``await p.all()``; ``await p.poll()``.

    ``total`` (from ``X-Total``) and ``total_pages`` are informative only and may stay None.
    ``mode`` says how the last pass paginated: ``offset`` or ``keyset``.
    """

    def __init__(self, engine: HttpEngine, path: str, model: type[T], params: Mapping[str, Any] | None = None,
                 *, per_page: int = 100, concurrency: int = 8, conditional: bool = False,
                 limit: int | None = None, since: str | None = None, keyset: bool = False,
                 sort: Literal["asc", "desc"] = "asc") -> None:
        self._engine = engine
        self._path = path
        self._model = model
        base = dict(params or {})
        base["per_page"] = max(1, min(int(per_page), 100))
        self._params = base
        self.concurrency = max(1, concurrency)
        self.conditional = conditional or since is not None
        self.limit = limit
        self.since = since
        """The :attr:`version` the consumer already holds (None: it holds nothing)."""
        self.keyset = keyset
        self.sort = sort
        self.mode: Literal["offset", "keyset"] = "offset"
        self.total: int | None = None
        self.total_pages: int | None = None
        self.changed: bool | None = None
        """After a pass: False only when the listing is exactly the one identified by ``since``."""
        self.version: str | None = None
        """Identifies the listing after a complete conditional pass (None when any page had no ETag,
        or the pass stopped early); pass it back as ``since``."""

    def __aiter__(self) -> AsyncIterator[T]:
        return self._items()

    async def _items(self) -> AsyncIterator[T]:
        count = 0
        async for page in self.pages():
            for item in page:
                if self.limit is not None and count >= self.limit:
                    return
                count += 1
                yield item

    async def all(self) -> list[T]:
        """Every item (up to ``limit``)."""
        return [item async for item in self]

    async def first_page(self) -> list[T]:
        """Only the first page."""
        async for page in self.pages():
            return page
        return []

    async def pages(self) -> AsyncIterator[list[T]]:
        """Yield each page's items in order."""
        async for raw in self._raw_pages():
            yield await self._believe(raw)

    async def poll(self) -> ActionResult[list[T]]:
        """Fetch every page (conditionally); parse only if the listing differs from ``since``.

        Unchanged (same :attr:`version` as ``since``, or as this paginator's previous pass):
        ``ActionResult(None, changed=False, status=304, etag=version)`` and nothing is parsed.
        Otherwise the items (up to ``limit``) with ``changed`` True and ``etag`` the new version.
        """
        self.conditional = True
        raws = [raw async for raw in self._raw_pages()]
        if self.changed is False:
            return ActionResult(None, changed=False, status=304, etag=self.version)
        items: list[T] = []
        for raw in raws:
            items.extend(await self._believe(raw))
        if self.limit is not None:
            items = items[: self.limit]
        return ActionResult(items, changed=True, status=200, etag=self.version)

    def _parse(self, raw: RawPage) -> list[T]:
        if raw.empty:
            return []
        try:
            return list(list_parser(self._model).validate_json(raw.content))
        except pydantic.ValidationError:
            reason = answers.diagnose(raw.content, raw.headers, list[self._model])  # type: ignore[name-defined]
            raise errors.WrongAnswer(reason, method="GET", url=raw.url or self._path) from None

    async def _believe(self, raw: RawPage) -> list[T]:
        """The page's items; a page answered from the cache (304) that does not parse is dropped
        from the cache and read again without ``If-None-Match`` (issue 32: a poisoned copy must
        not outlive the fault that put it there)."""
        if raw.items is not None:
            return list(raw.items)
        try:
            return self._parse(raw)
        except errors.WrongAnswer:
            if raw.changed or raw.url is None:
                if raw.url is not None:
                    self._engine.cache.discard(raw.url)
                raise
        # Read with the model: items that are not the model's are refused before they are cached.
        read = await self._engine.reread(raw.url, expect="list", model=list[self._model])  # type: ignore[name-defined]
        return list(read.value or [])

    async def _fetch(self, url: str, params: Mapping[str, Any] | None) -> RawPage:
        # Each page is parsed as it comes (a 200): items that are not the model's are a failed read
        # for the client's gate like a 502 (issue 32.3), not a surprise after the pass.
        engine = self._engine
        if not self.conditional:
            checked = answers.Checked(list[self._model], "list", allow_empty=True)  # type: ignore[name-defined]
            response = await engine.request("GET", url, params=params, believe=checked)
            return RawPage(response.content, response.headers, True, response.headers.get("etag"),
                           items=checked.value)
        read = await engine.fetch_conditional(url, params, expect="list",
                                              model=list[self._model])  # type: ignore[name-defined]
        return RawPage(read.content, read.headers, not read.not_modified, read.etag, read.url,
                       items=None if read.not_modified else read.value)

    def _rebase(self, link: str) -> str:
        """Keep pagination on our origin: servers behind a proxy often advertise an internal host
        or scheme in ``Link``; its path and query are reused on the configured origin."""
        url = httpx.URL(link)
        base = self._engine.http.base_url
        if (url.scheme, url.host, url.port) == (base.scheme, base.host, base.port):
            return link
        return str(base.copy_with(raw_path=url.raw_path))

    async def _first(self) -> tuple[RawPage, dict[str, Any]]:
        """Page 1 and the parameters the rest of the pass uses (keyset, or offset as a fallback)."""
        if not self.keyset:
            self.mode = "offset"
            return await self._fetch(self._path, self._params), self._params
        params = {**self._params, "pagination": "keyset", "order_by": "id", "sort": self.sort}
        try:
            first = await self._fetch(self._path, params)
        except errors.HttpError as exc:
            if exc.status not in _KEYSET_REFUSED:
                raise
            # Keyset is not offered for this request on this server (GitLab answers 405): offset it is.
            self.mode = "offset"
            params = {**self._params, "order_by": "id", "sort": self.sort}
            return await self._fetch(self._path, params), params
        self.mode = "offset" if _offset_headers(first.headers) else "keyset"
        return first, params

    async def _raw_pages(self) -> AsyncIterator[RawPage]:
        since = self.version if self.version is not None else self.since
        self.version = None
        # A consumer holding nothing is told "changed" from the first page on.
        self.changed = True if since is None else None
        etags: list[str | None] = []
        async for raw in self._walk():
            etags.append(raw.etag)
            yield raw
        self.version = _version_of(etags) if self.conditional else None
        self.changed = since is None or self.version is None or self.version != since

    async def _walk(self) -> AsyncIterator[RawPage]:
        first, params = await self._first()
        self.total = _int_header(first.headers, "x-total")
        self.total_pages = _int_header(first.headers, "x-total-pages")
        yield first
        if first.empty:
            return
        last = first
        next_page = _int_header(first.headers, "x-next-page")
        if (self.mode == "offset" and self.total_pages and next_page == 2 and self.total_pages >= 2
                and self.concurrency > 1):
            async for raw in self._concurrent(params, 2, self.total_pages):
                last = raw
                yield raw
                if raw.empty:
                    return
        async for raw in self._sequential(last, params):
            yield raw

    async def _concurrent(self, params: dict[str, Any], start: int, stop: int) -> AsyncIterator[RawPage]:
        pending: deque[asyncio.Task[RawPage]] = deque()
        number = start

        def spawn() -> None:
            nonlocal number
            pending.append(asyncio.ensure_future(self._fetch(self._path, {**params, "page": number})))
            number += 1

        try:
            while number <= stop and len(pending) < self.concurrency:
                spawn()
            while pending:
                raw = await pending.popleft()
                if number <= stop:
                    spawn()
                yield raw
        finally:
            for task in pending:
                task.cancel()
            for task in pending:
                with contextlib.suppress(BaseException):
                    await task

    async def _sequential(self, last: RawPage, params: dict[str, Any]) -> AsyncIterator[RawPage]:
        seen: set[str] = set()
        for _ in range(MAX_PAGES):
            link = next_link(last.headers)
            # Keyset pages are reachable only through their link (id_after=… or cursor=…).
            page = _int_header(last.headers, "x-next-page") if self.mode == "offset" else None
            if link:
                link = self._rebase(link)
                if link in seen:
                    return
                seen.add(link)
                raw = await self._fetch(link, None)
            elif page:
                raw = await self._fetch(self._path, {**params, "page": page})
            else:
                return
            yield raw
            if raw.empty:
                return
            last = raw



