"""Pagination over MockTransport: links, X-Next-Page fallback, no X-Total, concurrent pages in order."""

from __future__ import annotations

import asyncio

import httpx
import pytest

from labdeck.api import errors
from tests.support.mock_api import mock_client, page_response


def _items(page: int, per_page: int, total: int) -> list[dict[str, object]]:
    start = (page - 1) * per_page
    return [{"id": i, "name": f"p{i}"} for i in range(start + 1, min(start + per_page, total) + 1)]


def _server(total: int, *, links: bool = True, counts: bool = True, delay: float = 0.0):  # type: ignore[no-untyped-def]
    state = {"active": 0, "peak": 0, "pages": []}

    async def handler(request: httpx.Request) -> httpx.Response:
        per_page = int(request.url.params.get("per_page", "20"))
        page = int(request.url.params.get("page", "1"))
        state["pages"].append(page)  # type: ignore[attr-defined]
        state["active"] += 1  # type: ignore[operator]
        state["peak"] = max(state["peak"], state["active"])  # type: ignore[type-var, call-overload]
        try:
            # Later pages answer faster, so completion order differs from page order.
            await asyncio.sleep(delay / page if delay else 0)
        finally:
            state["active"] -= 1  # type: ignore[operator]
        return page_response(request, _items(page, per_page, total), per_page=per_page, page=page,
                             total=total, links=links, counts=counts)

    return handler, state


async def test_concurrent_pages_are_yielded_in_order_with_bounded_concurrency() -> None:
    handler, state = _server(2_350, delay=0.01)
    async with mock_client(handler) as client:  # type: ignore[arg-type]
        paginator = client.projects.list()
        pages = [page async for page in paginator.pages()]
    ids = [p.id for page in pages for p in page]
    assert ids == list(range(1, 2_351))
    assert len(pages) == 24
    assert paginator.total == 2_350 and paginator.total_pages == 24
    assert 1 < state["peak"] <= 8
    assert sorted(state["pages"]) == list(range(1, 25))  # type: ignore[call-overload]


async def test_follows_link_without_counts() -> None:
    handler, state = _server(250, counts=False)
    async with mock_client(handler) as client:  # type: ignore[arg-type]
        paginator = client.jobs.list(3)
        jobs = await paginator.all()
    assert [j.id for j in jobs] == list(range(1, 251))
    assert paginator.total is None and state["pages"] == [1, 2, 3]


async def test_falls_back_to_x_next_page_without_link() -> None:
    handler, state = _server(150, links=False, counts=False)
    async with mock_client(handler) as client:  # type: ignore[arg-type]
        projects = await client.projects.list(per_page=50).all()
    assert len(projects) == 150 and state["pages"] == [1, 2, 3]


async def test_wrong_x_total_is_not_trusted() -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        page = int(request.url.params.get("page", "1"))
        response = page_response(request, _items(page, 100, 300), per_page=100, page=page, total=300, counts=False)
        response.headers["X-Total"] = "100"  # a lying count must not cut the listing short
        return response

    async with mock_client(handler) as client:
        assert len(await client.projects.list().all()) == 300


async def test_collection_growing_past_announced_pages_is_followed() -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        page = int(request.url.params.get("page", "1"))
        total = 200 if page == 1 else 300  # grew after the first page was served
        return page_response(request, _items(page, 100, total), per_page=100, page=page, total=total)

    async with mock_client(handler) as client:
        assert len(await client.projects.list().all()) == 300


async def test_limit_and_early_exit_cancel_outstanding_pages() -> None:
    handler, _ = _server(5_000, delay=0.01)
    async with mock_client(handler) as client:  # type: ignore[arg-type]
        paginator = client.projects.list()
        paginator.limit = 150
        assert len(await paginator.all()) == 150
        first = await client.projects.list(per_page=10).first_page()
    assert len(first) == 10


async def test_error_on_a_later_page_propagates() -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        page = int(request.url.params.get("page", "1"))
        if page == 3:
            return httpx.Response(403, json={"message": "403 Forbidden"})
        return page_response(request, _items(page, 100, 500), per_page=100, page=page, total=500)

    async with mock_client(handler) as client:
        with pytest.raises(errors.Forbidden):
            await client.projects.list().all()


async def test_empty_collection() -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        return page_response(request, [], per_page=100, page=1, total=0)

    async with mock_client(handler) as client:
        assert await client.runners.list().all() == []


async def test_conditional_listing_reuses_cached_pages_on_304_for_a_fresh_consumer() -> None:
    sent_if_none_match: list[str | None] = []

    def handler(request: httpx.Request) -> httpx.Response:
        page = int(request.url.params.get("page", "1"))
        etag = f'W/"page{page}"'
        sent_if_none_match.append(request.headers.get("if-none-match"))
        if request.headers.get("if-none-match") == etag:
            return httpx.Response(304, headers={"ETag": etag})
        response = page_response(request, _items(page, 100, 200), per_page=100, page=page, total=200)
        response.headers["ETag"] = etag
        return response

    async with mock_client(handler) as client:
        first = client.runners.list(conditional=True)
        assert len(await first.all()) == 200 and first.changed is True
        second = client.runners.list(conditional=True)
        again = await second.all()
        third = client.runners.list(since=second.version)
        unchanged = await third.poll()
    # The second consumer never saw the list: the client's 304s are answered from its cache.
    assert [r.id for r in again] == list(range(1, 201)) and second.changed is True
    assert unchanged.changed is False and unchanged.value is None and unchanged.etag == first.version
    assert sent_if_none_match == [None, None, 'W/"page1"', 'W/"page2"', 'W/"page1"', 'W/"page2"']


async def test_poll_gives_a_fresh_caller_the_value_and_a_holder_unchanged() -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        if request.headers.get("if-none-match") == 'W/"v1"':
            return httpx.Response(304)
        return httpx.Response(200, json={"id": 8, "status": "running"}, headers={"ETag": 'W/"v1"'})

    async with mock_client(handler) as client:
        first = await client.jobs.poll(1, 8)
        fresh = await client.jobs.poll(1, 8)
        held = await client.jobs.poll(1, 8, since=first.etag)
        cached = await client.get_cached("projects/1/jobs/8", type(first.value))
    assert first.changed and first.value is not None and first.value.status == "running"
    assert fresh.changed and fresh.status == 304 and fresh.value == first.value
    assert not held.changed and held.status == 304 and held.value is None and held.etag == 'W/"v1"'
    assert cached == first.value


async def test_a_304_without_a_cached_copy_is_asked_again_unconditionally() -> None:
    calls: list[str | None] = []

    def handler(request: httpx.Request) -> httpx.Response:
        calls.append(request.headers.get("if-none-match"))
        if len(calls) == 1:
            return httpx.Response(304)  # e.g. a caching proxy answering for someone else
        return httpx.Response(200, json=[{"id": 1}], headers={"ETag": 'W/"a"'})

    async with mock_client(handler) as client:
        runners = await client.runners.list(conditional=True).all()
    assert [r.id for r in runners] == [1] and calls == [None, None]
