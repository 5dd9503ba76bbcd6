"""Async pagination over GitLab list endpoints.

- Follows ``Link: <…>; rel="next"``, falling back to ``X-Next-Page``; never trusts ``X-Total``
  (it disappears past 10,000 rows and on some endpoints, wire-facts §1.3).
- When page 1 announces ``X-Total-Pages``, pages 2…N are fetched concurrently (bounded by
  ``concurrency``) and yielded strictly in order; if the last page still names a next page (the
  collection grew) iteration continues by links.
- ``conditional=True`` sends the cached ETag of each page URL; a 304 reuses the cached page and
  ``changed`` tells whether any page differed.
"""

from __future__ import annotations

import asyncio
import contextlib
import re
from collections import deque
from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Generic, TypeVar

import httpx
import pydantic

from labdeck.api.errors import UnexpectedResponse

if TYPE_CHECKING:
    from labdeck.api.core import HttpEngine

T = TypeVar("T")
_LINK = re.compile(r"<([^>]*)>\s*;\s*rel=\"?([^\";,]+)\"?")
MAX_PAGES = 100_000


def next_link(headers: httpx.Headers) -> str | None:
    """The ``rel="next"`` URL of a ``Link`` header, if any."""
    for url, rel in _LINK.findall(headers.get("link", "")):
        if "next" in rel.split():
            return url
    return None


def _int_header(headers: httpx.Headers, name: str) -> int | None:
    raw = (headers.get(name) or "").strip()
    return int(raw) if raw.isdigit() else None


@dataclass(frozen=True)
class RawPage:
    """One fetched page before parsing."""

    content: bytes
    headers: httpx.Headers
    changed: bool


class Paginator(Generic[T]):
    """``async for item in p``; ``async for page in p.pages()``; ``await p.all()``.

    ``total`` (from ``X-Total``) and ``total_pages`` are informative only and may stay None.
    """

    def __init__(self, engine: HttpEngine, path: str, model: type[T], params: Mapping[str, Any] | None = None,
                 *, per_page: int = 100, concurrency: int = 8, conditional: bool = False,
                 limit: int | None = None) -> None:
        self._engine = engine
        self._path = path
        self._model = model
        base = dict(params or {})
        base["per_page"] = max(1, min(int(per_page), 100))
        self._params = base
        self.concurrency = max(1, concurrency)
        self.conditional = conditional
        self.limit = limit
        self.total: int | None = None
        self.total_pages: int | None = None
        self.changed: bool | None = None

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

    def _parse(self, raw: RawPage) -> list[T]:
        try:
            return list(_list_adapter(self._model).validate_json(raw.content or b"[]"))
        except pydantic.ValidationError as exc:
            raise UnexpectedResponse(f"list did not match {self._model.__name__}: {exc.error_count()} problem(s)",
                                     method="GET", url=self._path) from None

    async def _fetch(self, url: str, params: Mapping[str, Any] | None) -> RawPage:
        engine = self._engine
        if not self.conditional:
            response = await engine.request("GET", url, params=params)
            return RawPage(response.content, response.headers, True)
        full = str(engine.http.build_request("GET", url, params=params).url)
        cached = engine.cache.get(full)
        headers = {"If-None-Match": cached.etag} if cached else None
        response = await engine.request("GET", full, headers=headers)
        if response.status_code == 304 and cached is not None:
            return RawPage(cached.content, cached.headers, False)
        engine.cache.store(full, response)
        return RawPage(response.content, response.headers, True)

    def _rebase(self, link: str) -> str:
        """Keep pagination on our origin: servers behind a proxy often advertise an internal host
        or scheme in ``Link``; its path and query are reused on the configured origin."""
        url = httpx.URL(link)
        base = self._engine.http.base_url
        if (url.scheme, url.host, url.port) == (base.scheme, base.host, base.port):
            return link
        return str(base.copy_with(raw_path=url.raw_path))

    def _note(self, raw: RawPage) -> None:
        self.changed = bool(self.changed) or raw.changed

    async def pages(self) -> AsyncIterator[list[T]]:
        """Yield each page's items in order."""
        self.changed = False
        first = await self._fetch(self._path, self._params)
        self._note(first)
        self.total = _int_header(first.headers, "x-total")
        self.total_pages = _int_header(first.headers, "x-total-pages")
        items = self._parse(first)
        yield items
        if not items:
            return
        last = first
        next_page = _int_header(first.headers, "x-next-page")
        if self.total_pages and next_page == 2 and self.total_pages >= 2 and self.concurrency > 1:
            finished = False
            async for raw in self._concurrent(2, self.total_pages):
                self._note(raw)
                last = raw
                page_items = self._parse(raw)
                yield page_items
                if not page_items:
                    finished = True
                    break
            if finished:
                return
        async for page_items in self._sequential(last):
            yield page_items

    async def _concurrent(self, start: int, stop: int) -> AsyncIterator[RawPage]:
        pending: deque[asyncio.Task[RawPage]] = deque()
        number = start

        def spawn() -> None:
            nonlocal number
            params = {**self._params, "page": number}
            pending.append(asyncio.ensure_future(self._fetch(self._path, params)))
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

    async def _sequential(self, last: RawPage) -> AsyncIterator[list[T]]:
        seen: set[str] = set()
        for _ in range(MAX_PAGES):
            link = next_link(last.headers)
            page = _int_header(last.headers, "x-next-page")
            if link:
                link = self._rebase(link)
                if link in seen:
                    return
                seen.add(link)
                raw = await self._fetch(link, None)
            elif page:
                raw = await self._fetch(self._path, {**self._params, "page": page})
            else:
                return
            self._note(raw)
            items = self._parse(raw)
            yield items
            if not items:
                return
            last = raw


_ADAPTERS: dict[Any, Any] = {}


def _list_adapter(model: Any) -> Any:
    adapter = _ADAPTERS.get(model)
    if adapter is None:
        adapter = _ADAPTERS[model] = pydantic.TypeAdapter(list[model])
    return adapter
