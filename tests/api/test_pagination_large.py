"""Pagination on big instances (docs/wire-facts.md §1.3–1.4).

- More than 10,000 rows: GitLab drops ``X-Total``, ``X-Total-Pages`` and ``rel="last"``; the
  listing must still be complete, following ``Link rel="next"`` / ``X-Next-Page`` page by page.
- Keyset pagination for projects (``pagination=keyset&order_by=id&sort=…``): only ``Link
  rel="next"`` (``id_after=…``) leads on. The simulator paginates by offset only, so the keyset
  wire shape (from GitLab's REST pagination docs) is served by MockTransport here, and the
  fallback is also checked against the simulator over real HTTP.
"""

from __future__ import annotations

import asyncio
from typing import Any

import httpx

from labdeck.api import ApiClient
from tests.support.mock_api import BASE, mock_client, page_response

BIG = 10_250


def _items(start: int, count: int, total: int) -> list[dict[str, Any]]:
    return [{"id": i, "name": f"p{i}", "path_with_namespace": f"g/p{i}"} for i in range(start, min(start + count, total + 1))]


async def test_more_than_ten_thousand_rows_without_counts_are_all_listed_in_order() -> None:
    seen: list[int] = []
    active = {"now": 0, "peak": 0}

    async def handler(request: httpx.Request) -> httpx.Response:
        page = int(request.url.params.get("page", "1"))
        seen.append(page)
        active["now"] += 1
        active["peak"] = max(active["peak"], active["now"])
        await asyncio.sleep(0)
        active["now"] -= 1
        # counts=False: no X-Total, no X-Total-Pages, no rel="last" (more than 10,000 rows).
        return page_response(request, _items((page - 1) * 100 + 1, 100, BIG), per_page=100, page=page,
                             total=None, counts=False)

    async with mock_client(handler) as client:  # type: ignore[arg-type]
        paginator = client.projects.list()
        ids = [p.id async for p in paginator]
    assert ids == list(range(1, BIG + 1))
    assert paginator.total is None and paginator.total_pages is None
    assert seen == list(range(1, 104)) and active["peak"] == 1


async def test_more_than_ten_thousand_rows_with_x_next_page_only() -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        page = int(request.url.params.get("page", "1"))
        return page_response(request, _items((page - 1) * 100 + 1, 100, BIG), per_page=100, page=page,
                             total=None, counts=False, links=False)

    async with mock_client(handler) as client:
        jobs = await client.jobs.list(7).all()
    assert len(jobs) == BIG and jobs[-1].id == BIG


def _keyset_server(total: int, requests: list[httpx.URL]) -> Any:
    """GitLab's keyset shape (doc/api/rest: "Keyset-based pagination"): the only header is
    ``Link: <…?id_after=42&order_by=id&pagination=keyset&per_page=50&sort=asc>; rel="next"``,
    absent on the last page."""

    def handler(request: httpx.Request) -> httpx.Response:
        requests.append(request.url)
        params = request.url.params
        assert params["pagination"] == "keyset" and params["order_by"] == "id" and "page" not in params
        per_page = int(params.get("per_page", "20"))
        ids = list(range(1, total + 1))
        if params["sort"] == "desc":
            ids.reverse()
            after = int(params.get("id_before", str(total + 1)))
            chosen = [i for i in ids if i < after][:per_page]
        else:
            after = int(params.get("id_after", "0"))
            chosen = [i for i in ids if i > after][:per_page]
        headers = {}
        if chosen and chosen[-1] != ids[-1]:
            key = "id_before" if params["sort"] == "desc" else "id_after"
            link = (f"https://gitlab.internal.example/api/v4/projects?{key}={chosen[-1]}&order_by=id"
                    f"&pagination=keyset&per_page={per_page}&sort={params['sort']}")
            headers["Link"] = f'<{link}>; rel="next"'
        return httpx.Response(200, json=[{"id": i, "name": f"p{i}"} for i in chosen], headers=headers)

    return handler


async def test_keyset_pagination_follows_next_links_only() -> None:
    requests: list[httpx.URL] = []
    async with mock_client(_keyset_server(230, requests)) as client:
        paginator = client.projects.list(keyset=True, per_page=50)
        ids = [p.id async for p in paginator]
    assert ids == list(range(1, 231)) and paginator.mode == "keyset"
    assert [r.params.get("id_after") for r in requests] == [None, "50", "100", "150", "200"]
    # Links advertising an internal host are reused on the configured origin (the token stays home).
    assert all(str(r).startswith(BASE) for r in requests)


async def test_keyset_descending() -> None:
    requests: list[httpx.URL] = []
    async with mock_client(_keyset_server(120, requests)) as client:
        ids = [p.id async for p in client.projects.list(keyset=True, sort="desc", per_page=100)]
    assert ids == list(range(120, 0, -1)) and requests[0].params["sort"] == "desc"


async def test_keyset_ignored_by_the_server_falls_back_to_offset() -> None:
    sent: list[httpx.QueryParams] = []

    def handler(request: httpx.Request) -> httpx.Response:
        sent.append(request.url.params)
        page = int(request.url.params.get("page", "1"))
        return page_response(request, _items((page - 1) * 100 + 1, 100, 250), per_page=100, page=page, total=250)

    async with mock_client(handler) as client:
        paginator = client.projects.list(keyset=True)
        ids = [p.id async for p in paginator]
    assert ids == list(range(1, 251)) and paginator.mode == "offset"
    assert sorted(int(p.get("page", "1")) for p in sent) == [1, 2, 3]


async def test_keyset_refused_by_the_server_is_asked_again_without_it() -> None:
    sent: list[httpx.QueryParams] = []

    def handler(request: httpx.Request) -> httpx.Response:
        sent.append(request.url.params)
        if request.url.params.get("pagination") == "keyset":
            return httpx.Response(405, json={"message": "405 Method Not Allowed"})
        page = int(request.url.params.get("page", "1"))
        return page_response(request, _items((page - 1) * 100 + 1, 100, 150), per_page=100, page=page, total=150)

    async with mock_client(handler) as client:
        projects = await client.projects.list(keyset=True).all()
    assert len(projects) == 150 and sent[0]["pagination"] == "keyset"
    assert all("pagination" not in p for p in sent[1:]) and sent[1]["order_by"] == "id"


async def test_keyset_against_the_simulator_lists_the_same_projects(admin: ApiClient) -> None:
    offset = [p.id for p in await admin.projects.list(order_by="id", sort="asc", per_page=7).all()]
    keyset = admin.projects.list(keyset=True, per_page=7)
    assert [p.id async for p in keyset] == offset and len(offset) > 7
