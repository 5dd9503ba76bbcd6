"""An answer is checked before it is believed (issue 32.2), through the fault-switching proxy: a
sign-in page, another JSON shape with the server's own ETag, a body cut off. Each is a failed read
with its reason, none reaches the ETag cache, and the first reads after the fault give good data."""

from __future__ import annotations

import asyncio
import time

import httpx
import pytest

from labdeck.api import ApiClient, answers, errors
from labdeck.api.models import Job
from labdeck.api.parsers import list_parser
from labdeck.base.secret import Secret
from tests.support.fake_time import VirtualTime
from tests.support.fault_switch import FaultSwitch

JOBS = "projects/1/jobs"
PAGE = {"per_page": 40}


async def _board_read(client: ApiClient) -> list[Job]:
    """What the board's poller does with a project's jobs page (watch/reads.py)."""
    read = await client.fetch_conditional(JOBS, PAGE)
    return list(list_parser(Job).validate_json(read.content or b"[]"))


def test_the_reasons_are_said_for_a_user() -> None:
    html = b"<!DOCTYPE html>\n<html><head><title>Sign in \xc2\xb7 GitLab</title></head></html>"
    assert answers.problem(html, {"content-type": "text/html"}, "list") == answers.WEB_PAGE
    assert answers.problem(html, {}, None) == answers.WEB_PAGE  # no Content-Type: by its first bytes
    assert answers.problem(b'{"data": []}', {}, "list") == \
        "the server's answer was not what the API returns (expected a list)"
    assert answers.problem(b'[{"id": 1}, {"id"', {}, "list") == "the answer was cut off"
    assert answers.problem(b"[]", {}, "list") is None and answers.problem(b'{"id": 1}', {}, "object") is None


async def test_a_sign_in_page_is_a_failed_read_with_its_reason(fault_switch: FaultSwitch,
                                                               tokens: dict[str, str]) -> None:
    clock = VirtualTime()  # the wait after the fault is the client's: no need to sit through it
    async with ApiClient(fault_switch.url, Secret(tokens["admin"]), transport=clock.transport(),
                         retry=clock.policy()) as client, clock.running():
        await _board_read(client)  # a good copy in the cache, as the board has after a while
        fault_switch.set("sign_in")
        for read in (_board_read(client), client.projects.get(1), client.jobs.list(1).first_page()):
            with pytest.raises(errors.UnexpectedResponse) as caught:
                await read
            assert caught.value.user_message() == answers.WEB_PAGE
        # The status line is told: not "online" while every answer is a sign-in page.
        assert client.health.state == "error" and client.health.reason == answers.WEB_PAGE
        kept = client.cache.get(str(client.http.build_request("GET", JOBS, params=PAGE).url))
        assert kept is None or kept.content.startswith(b"[")  # the page never took the good copy's place
        fault_switch.set("pass")
        await clock.sleep(client.retry_in or 0)
        assert len(await _board_read(client)) > 0 and client.health.state == "ok"


async def test_a_sign_in_page_storm_is_held_back_like_a_502(fault_switch: FaultSwitch,
                                                            tokens: dict[str, str]) -> None:
    fault_switch.set("sign_in")
    arrived = time.monotonic()
    clock = VirtualTime()  # real requests, waits on virtual time: six seconds of storm in a blink
    async with ApiClient(fault_switch.url, Secret(tokens["admin"]), transport=clock.transport(),
                         retry=clock.policy()) as client, clock.running():
        async def reader() -> None:
            while clock.clock() < 6:
                with pytest.raises(errors.ApiError):
                    await client.projects.get(1)
                await clock.sleep(0.05)

        await asyncio.gather(*(reader() for _ in range(4)))
        assert client.retry_in is not None and client.health.retry_at is not None
    sent = fault_switch.api_requests(since=arrived)
    assert len(sent) <= 4 + 6, [round(t - arrived, 2) for t, *_ in sent]  # not 4 × 20 a second


async def test_a_wrong_shape_with_the_servers_etag_does_not_poison_the_cache(fault_switch: FaultSwitch,
                                                                              tokens: dict[str, str]) -> None:
    async with ApiClient(fault_switch.url, Secret(tokens["admin"])) as client:
        good = await _board_read(client)
        url = str(client.http.build_request("GET", JOBS, params=PAGE).url)
        client.cache.discard(url)  # a round in which the fault comes first
        fault_switch.set("wrong_shape")
        for _ in range(3):
            with pytest.raises(errors.UnexpectedResponse) as caught:
                await _board_read(client)
            assert caught.value.user_message() == \
                "the server's answer was not what the API returns (expected a list)"
            assert client.cache.get(url) is None
            await asyncio.sleep(client.retry_in or 0)
        fault_switch.set("pass")
        after = await _board_read(client)  # the first read after the fault: good data
        assert [job.id for job in after] == [job.id for job in good]
        assert client.cache.get(url) is not None  # a good answer is cached again
        assert [job.id for job in await _board_read(client)] == [job.id for job in good]


async def test_a_cut_off_answer_is_said_and_not_kept(fault_switch: FaultSwitch, tokens: dict[str, str]) -> None:
    async with ApiClient(fault_switch.url, Secret(tokens["admin"])) as client:
        fault_switch.set("truncated")
        with pytest.raises(errors.UnexpectedResponse) as caught:
            await client.jobs.list(1, conditional=True).poll()
        assert caught.value.user_message() == answers.CUT_OFF
        with pytest.raises(errors.UnexpectedResponse) as single:
            await client.projects.poll(1)
        assert single.value.user_message() == answers.CUT_OFF
        assert len(client.cache) == 0
        fault_switch.set("pass")
        assert (await client.jobs.list(1, conditional=True).poll()).value


async def test_a_cached_copy_that_does_not_parse_is_read_again(fault_switch: FaultSwitch,
                                                               tokens: dict[str, str]) -> None:
    """A copy kept before (the server's ETag still matches) whose body no longer parses: dropped
    and read without ``If-None-Match``, not shown as an error until a restart."""
    async with ApiClient(fault_switch.url, Secret(tokens["admin"])) as client:
        paginator = client.jobs.list(1, per_page=40, conditional=True)
        first = await paginator.first_page()
        url = next(iter(client.cache._entries))
        entry = client.cache.get(url)
        assert entry is not None
        client.cache.store(url, httpx.Response(200, content=b'[{"no": "job"}]', headers={"etag": entry.etag}))
        began = time.monotonic()
        again = await client.jobs.list(1, per_page=40, conditional=True).first_page()
        assert [job.id for job in again] == [job.id for job in first]
        sent = fault_switch.api_requests(since=began)
        assert [status for *_, status in sent] == [304, 200]  # the 304, then the read afresh
        single = await client.projects.poll(1)
        url = str(client.http.build_request("GET", "projects/1").url)
        etag = client.cache.get(url)
        assert etag is not None and single.value is not None
        client.cache.store(url, httpx.Response(200, content=b'{"id": "x"}', headers={"etag": etag.etag}))
        assert (await client.projects.poll(1)).value == single.value


async def test_a_list_of_something_else_is_refused_before_it_is_cached(fault_switch: FaultSwitch,
                                                                       tokens: dict[str, str]) -> None:
    """The right shape at the top (a list) with items that are not jobs: read with its model, it is
    a failed read said as such and never stored, so no later 304 can hand it back as data."""
    async with ApiClient(fault_switch.url, Secret(tokens["admin"])) as client:
        url = str(client.http.build_request("GET", JOBS, params=PAGE).url)
        fault_switch.set("wrong_items")
        with pytest.raises(errors.WrongAnswer) as caught:
            await client.fetch_conditional(JOBS, PAGE, model=list[Job])
        assert "not what the API returns" in caught.value.user_message()
        assert client.cache.get(url) is None and client.health.state == "error"
        fault_switch.set("pass")
        began = time.monotonic()
        read = await client.fetch_conditional(JOBS, PAGE, model=list[Job])
        assert read.value and all(isinstance(job, Job) for job in read.value)
        assert [status for *_, status in fault_switch.api_requests(since=began)] == [200]  # asked afresh
        again = await client.fetch_conditional(JOBS, PAGE, model=list[Job])
        assert again.not_modified and again.content == read.content  # a 304 stands for a believed body


@pytest.mark.parametrize("kind", ["wrong_items", "wrong_shape"])
async def test_a_wrong_shape_storm_is_held_back_like_a_502(kind: str, fault_switch: FaultSwitch,
                                                           tokens: dict[str, str]) -> None:
    """A 200 of the wrong shape is a failed read for the client's gate too (issue 32.3): whatever
    reads it (the board's conditional pages, the jobs screen's listing, one project), a minute of
    it costs at most 30 requests, one at a time and ever further apart (not 30 in 30 s)."""
    clock = VirtualTime()  # real requests, waits on virtual time: a minute of storm in seconds
    async with ApiClient(fault_switch.url, Secret(tokens["admin"]), transport=clock.transport(),
                         retry=clock.policy()) as client, clock.running():
        await _board_read(client)  # a good copy in the cache: the board's 304s before the storm
        fault_switch.set(kind)
        began, arrived = clock.clock(), time.monotonic()
        said: list[str] = []

        async def board() -> None:
            await client.fetch_conditional(JOBS, PAGE, model=list[Job])

        async def jobs_screen() -> None:
            await client.jobs.list(1, per_page=20, conditional=True).poll()

        async def details() -> None:
            await client.jobs.list(2, per_page=20).first_page()

        async def reader(read: object) -> None:
            while clock.clock() - began < 60:
                try:
                    await read()  # type: ignore[operator]
                except errors.ApiError as error:
                    said.append(error.user_message())
                await clock.sleep(0.05)

        await asyncio.gather(*(reader(read) for read in (board, jobs_screen, details) * 2))
        sent = [t for t, *_ in fault_switch.api_requests(since=arrived)]
        gaps = [round(b - a, 2) for a, b in zip(sent, sent[1:], strict=False)]
        assert len(sent) <= 30, gaps
        assert said and all("not what the API returns" in text for text in said), set(said)
        assert client.retry_in is not None and client.health.retry_at is not None  # "next try in …"
        assert client.health.state == "error" and "not what the API returns" in (client.health.reason or "")
        fault_switch.set("pass")
        await clock.sleep(client.retry_in or 0)
        began = time.monotonic()
        # The board's page is in the cache, yet the probe asks for the body: a 304 proves nothing.
        assert len(await _board_read(client)) > 0 and client.retry_in is None and client.health.state == "ok"
        assert [status for *_, status in fault_switch.api_requests(since=began)] == [200]


async def test_a_poisoned_copy_read_again_in_a_storm_holds_the_client_back(fault_switch: FaultSwitch,
                                                                           tokens: dict[str, str]) -> None:
    """A cached copy that does not parse is read again; when that answer is refused too, it is a
    failed read for the client's gate like any other (the next reads wait, the screen says when)."""
    async with ApiClient(fault_switch.url, Secret(tokens["admin"])) as client:
        await client.jobs.list(1, per_page=40, conditional=True).first_page()
        url = next(iter(client.cache._entries))
        entry = client.cache.get(url)
        assert entry is not None
        client.cache.store(url, httpx.Response(200, content=b'[{"no": "job"}]', headers={"etag": entry.etag}))
        fault_switch.set("wrong_items")  # the server's 304 passes; the answer read afresh is wrapped
        with pytest.raises(errors.WrongAnswer):
            await client.jobs.list(1, per_page=40, conditional=True).first_page()
        assert client.cache.get(url) is None
        assert client.retry_in is not None and client.health.retry_at is not None
