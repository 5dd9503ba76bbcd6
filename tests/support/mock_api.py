"""A client over httpx.MockTransport with a fake clock (:class:`tests.support.fake_time.FakeTime`)
and GitLab-shaped pages, for tests that answer the HTTP themselves."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import httpx

from labdeck.api import ApiClient, RetryPolicy
from labdeck.base.secret import Secret
from tests.support.fake_time import FakeTime

TOKEN = "glpat-TESTTOKEN0123456789abcdef"
BASE = "http://gitlab.test"


def policy(fake: FakeTime, **overrides: Any) -> RetryPolicy:
    return RetryPolicy(sleep=fake.sleep, clock=fake.clock, wall=fake.wall, rng=random.Random(7), **overrides)


def mock_client(handler: Callable[[httpx.Request], httpx.Response], *, fake: FakeTime | None = None,
                token: str | None = TOKEN, **kwargs: Any) -> ApiClient:
    fake = fake or FakeTime()
    retry = kwargs.pop("retry", None) or policy(fake)
    return ApiClient(BASE, Secret(token) if token else None, transport=httpx.MockTransport(handler),
                     retry=retry, **kwargs)


def page_response(request: httpx.Request, items: list[Any], *, per_page: int, page: int, total: int | None,
                  links: bool = True, counts: bool = True) -> httpx.Response:
    """A GitLab-shaped page with the headers of docs/wire-facts.md §1.2."""
    import math

    pages = max(math.ceil((total or 0) / per_page), 1) if total is not None else None
    has_next = (page < pages) if pages is not None else len(items) == per_page
    headers = {"X-Page": str(page), "X-Per-Page": str(per_page),
               "X-Next-Page": str(page + 1) if has_next else "", "X-Prev-Page": str(page - 1) if page > 1 else ""}
    if counts and total is not None and pages is not None:
        headers["X-Total"] = str(total)
        headers["X-Total-Pages"] = str(pages)
    if links and has_next:
        url = request.url.copy_set_param("page", str(page + 1))
        headers["Link"] = f'<{url}>; rel="next", <{request.url.copy_set_param("page", "1")}>; rel="first"'
    return httpx.Response(200, json=items, headers=headers)
