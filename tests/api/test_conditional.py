"""Conditional GETs over real HTTP against the simulator (which sends weak ETags and empty 304s).

The client's ETag cache is shared by every caller, so the server may answer 304 to a caller that
never saw the data ("reopening a quiet project's jobs shows no jobs"): every consumer must still get
the full data, and only a consumer that says what it holds may be told "unchanged".
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import httpx
import pydantic
import pytest

from labdeck.api import ApiClient
from labdeck.api.cache import EtagCache
from tests.api.conftest import client_for

PROJECT = "platform/api-gateway"


def _record_statuses(client: ApiClient) -> list[int]:
    statuses: list[int] = []

    async def hook(response: httpx.Response) -> None:
        statuses.append(response.status_code)

    client.http.event_hooks["response"].append(hook)
    return statuses


@pytest.fixture
def parse_count(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Counts JSON validations done through pydantic (to prove "no parse")."""
    calls = [0]
    real = pydantic.TypeAdapter.validate_json

    def counting(self: Any, *args: Any, **kwargs: Any) -> Any:
        calls[0] += 1
        return real(self, *args, **kwargs)

    monkeypatch.setattr(pydantic.TypeAdapter, "validate_json", counting)
    return calls


async def test_two_fresh_consumers_of_a_job_list_both_get_every_job(admin: ApiClient) -> None:
    statuses = _record_statuses(admin)
    first_screen = admin.jobs.list(PROJECT, conditional=True, per_page=5)
    first = await first_screen.all()
    fetched = len(statuses)
    reopened = admin.jobs.list(PROJECT, conditional=True, per_page=5)
    second = await reopened.all()
    assert len(first) > 5  # several pages
    assert [job.id for job in second] == [job.id for job in first]
    assert statuses[fetched:] and set(statuses[fetched:]) == {304}  # the server said "not modified"…
    assert reopened.changed is True  # …but this consumer had nothing: it is told the data is new


async def test_the_ui_pattern_never_sees_an_empty_list_after_a_304(admin: ApiClient) -> None:
    # What the jobs screen does on every refresh: a new paginator, `conditional=True`.
    for _ in range(3):
        paginator = admin.jobs.list(PROJECT, conditional=True)
        jobs = await paginator.all()
        assert jobs and paginator.changed is not False


async def test_a_poller_holding_the_list_is_told_unchanged_without_parsing(
        admin: ApiClient, parse_count: list[int]) -> None:
    listing = admin.jobs.list(PROJECT, per_page=10, conditional=True)
    jobs = await listing.all()
    assert jobs and listing.version is not None
    statuses = _record_statuses(admin)
    parse_count[0] = 0
    result = await admin.jobs.list(PROJECT, per_page=10, since=listing.version).poll()
    assert result.changed is False and result.value is None and result.etag == listing.version
    assert parse_count[0] == 0 and statuses and set(statuses) == {304}
    # The same paginator polled again knows what it returned the first time.
    again = await listing.poll()
    assert again.changed is False and again.value is None


async def test_a_holder_is_told_about_a_change(sim_factory: Callable[..., Any], tokens: dict[str, str]) -> None:
    server = sim_factory()
    async with client_for(server, tokens["admin"]) as client:
        poller = client.jobs.list(PROJECT, scope=["running", "pending"], conditional=True)
        before = await poller.all()
        assert before, "the data set has active jobs"
        await client.jobs.cancel(PROJECT, before[0].id)
        result = await poller.poll()
    assert result.changed is True and result.value is not None
    assert before[0].id not in {job.id for job in result.value}


async def test_single_resource_poll_fresh_caller_and_holder(admin: ApiClient, parse_count: list[int]) -> None:
    job = (await admin.jobs.list(PROJECT).first_page())[0]
    first = await admin.jobs.poll(PROJECT, job.id)
    fresh = await admin.jobs.poll(PROJECT, job.id)  # another caller, no copy: the value, from the cache
    parse_count[0] = 0
    held = await admin.jobs.poll(PROJECT, job.id, since=first.etag)
    assert first.value is not None and fresh.value == first.value and fresh.changed and fresh.status == 304
    assert held.changed is False and held.value is None and held.status == 304 and parse_count[0] == 0
    project = await admin.projects.poll(PROJECT)
    assert project.value is not None and (await admin.projects.poll(PROJECT)).value == project.value


async def test_bodies_are_bounded_and_evicted_entries_are_refetched_in_full(admin: ApiClient) -> None:
    sizes: list[int] = []

    async def size_hook(response: httpx.Response) -> None:
        sizes.append(int(response.headers.get("content-length", "0")))

    admin.http.event_hooks["response"].append(size_hook)
    first = await admin.jobs.list(PROJECT, conditional=True, per_page=5).all()
    pages = -(-len(first) // 5)
    biggest = max(sizes)
    admin.cache = EtagCache(max_entries=1024, max_bytes=2 * biggest)  # room for two pages at most
    await admin.jobs.list(PROJECT, conditional=True, per_page=5).all()
    assert pages > 2 and 0 < admin.cache.size <= 2 * biggest and len(admin.cache) <= 2
    statuses = _record_statuses(admin)
    again = await admin.jobs.list(PROJECT, conditional=True, per_page=5).all()
    assert [j.id for j in again] == [j.id for j in first]
    assert statuses.count(200) >= pages - 2  # evicted pages were asked for without a condition


def test_lru_drops_the_least_recently_used_body() -> None:
    cache = EtagCache(max_entries=2)

    def response(tag: str) -> httpx.Response:
        return httpx.Response(200, content=b"[" + tag.encode() + b"]", headers={"ETag": tag})

    cache.store("u1", response("1"))
    cache.store("u2", response("2"))
    assert cache.get("u1") is not None  # u1 is now the most recent
    cache.store("u3", response("3"))
    assert cache.get("u2") is None and cache.get("u1") is not None and cache.get("u3") is not None
    cache.store("u1", httpx.Response(200, content=b"[]"))  # no ETag any more: forgotten
    assert cache.get("u1") is None and cache.size == len(b"[3]")
