"""Retry rules with an injected sleep and clock: what is retried, how long each wait is."""

from __future__ import annotations

import asyncio
import random
from datetime import UTC, datetime
from email.utils import format_datetime

import httpx
import pytest

from labdeck.api import RetryPolicy, errors
from labdeck.api.retry import HURRY_GAP, RateLimit, ServerGate, parse_retry_after, server_wait
from tests.support.fake_time import FakeTime
from tests.support.mock_api import mock_client, policy


def test_full_jitter_backoff_stays_within_the_exponential_cap() -> None:
    retry = RetryPolicy(rng=random.Random(1), base=0.5, cap=8.0)
    for attempt in range(10):
        bound = min(8.0, 0.5 * 2**attempt)
        waits = [retry.backoff(attempt) for _ in range(200)]
        assert all(0 <= w <= bound for w in waits)
        assert max(waits) > bound * 0.8  # jitter spreads over the whole range


def test_retry_after_accepts_seconds_and_http_dates() -> None:
    now = 1_700_000_000.0
    assert parse_retry_after("7", now) == 7
    date = format_datetime(datetime.fromtimestamp(now + 30, UTC), usegmt=True)
    assert parse_retry_after(date, now) == pytest.approx(30, abs=1)
    assert parse_retry_after("soon", now) is None
    assert parse_retry_after("-5", now) == 0
    assert server_wait(httpx.Headers({"RateLimit-Reset": str(int(now) + 20)}), now, 429) == 20


@pytest.mark.parametrize("status", [502, 503, 504])
def test_ratelimit_reset_is_not_a_wait_for_a_gateway_error(status: int) -> None:
    # GitLab sends RateLimit-Reset on every answer: it dates the rate-limit window, not an outage.
    now = 1_700_000_000.0
    assert server_wait(httpx.Headers({"RateLimit-Reset": str(int(now) + 20)}), now, status) is None
    assert server_wait(httpx.Headers({"RateLimit-Reset": str(int(now) + 20), "Retry-After": "3"}),
                       now, status) == 3


def test_rate_limit_headers_are_parsed() -> None:
    limit = RateLimit.from_headers(httpx.Headers({"RateLimit-Limit": "600", "RateLimit-Observed": "590",
                                                  "RateLimit-Reset": "1700000060"}))
    assert limit is not None and limit.limit == 600 and limit.remaining == 10
    assert limit.reset_at == datetime.fromtimestamp(1_700_000_060, UTC)
    assert RateLimit.from_headers(httpx.Headers({})) is None


@pytest.mark.parametrize("status", [429, 502, 503, 504])
async def test_get_retries_retryable_statuses_and_waits_at_least_retry_after(status: int) -> None:
    fake = FakeTime()
    calls = 0

    def handler(request: httpx.Request) -> httpx.Response:
        nonlocal calls
        calls += 1
        if calls < 3:
            return httpx.Response(status, headers={"Retry-After": "4"}, text="Retry later")
        return httpx.Response(200, json={"id": 1, "status": "success"}, headers={"RateLimit-Remaining": "5"})

    async with mock_client(handler, fake=fake) as client:
        job = await client.jobs.get(1, 1)
    assert job.status == "success" and calls == 3
    assert fake.sleeps == [4, 4]
    assert client.rate_limit is not None and client.rate_limit.remaining == 5
    assert client.health.state == "ok"


async def test_http_date_retry_after_is_honoured() -> None:
    fake = FakeTime()
    when = format_datetime(datetime.fromtimestamp(fake.wall() + 9, UTC), usegmt=True)
    responses = [httpx.Response(503, headers={"Retry-After": when}), httpx.Response(200, json={"id": 2})]
    async with mock_client(lambda r: responses.pop(0), fake=fake) as client:
        await client.projects.get(2)
    assert len(fake.sleeps) == 1 and fake.sleeps[0] >= 8


async def test_ratelimit_reset_is_used_when_retry_after_is_missing() -> None:
    fake = FakeTime()
    reset = str(int(fake.wall() + 6))
    responses = [httpx.Response(429, headers={"RateLimit-Reset": reset}), httpx.Response(200, json={"id": 2})]
    async with mock_client(lambda r: responses.pop(0), fake=fake) as client:
        await client.projects.get(2)
    assert fake.sleeps == [pytest.approx(6, abs=1)]


@pytest.mark.parametrize("status", [502, 503, 504])
async def test_a_gateway_error_with_ratelimit_reset_retries_after_the_backoff(status: int) -> None:
    fake = FakeTime()
    reset = str(int(fake.wall() + 20))
    responses = [httpx.Response(status, headers={"RateLimit-Reset": reset, "RateLimit-Limit": "600"}),
                 httpx.Response(200, json={"id": 2})]
    async with mock_client(lambda r: responses.pop(0), fake=fake) as client:
        project = await client.projects.get(2)
    assert project.id == 2
    assert len(fake.sleeps) == 1 and 0 <= fake.sleeps[0] <= 0.5  # the first backoff, not 20 s


async def test_too_long_retry_after_is_not_waited_but_reported() -> None:
    fake = FakeTime()
    calls = 0

    def handler(request: httpx.Request) -> httpx.Response:
        nonlocal calls
        calls += 1
        return httpx.Response(429, headers={"Retry-After": "3600"})

    async with mock_client(handler, fake=fake) as client:
        with pytest.raises(errors.RateLimited) as caught:
            await client.projects.get(2)
    assert calls == 1 and fake.sleeps == [] and caught.value.retry_after == 3600


async def test_malformed_retry_after_falls_back_to_backoff() -> None:
    fake = FakeTime()
    responses = [httpx.Response(503, headers={"Retry-After": "tomorrow-ish"}), httpx.Response(200, json={"id": 2})]
    async with mock_client(lambda r: responses.pop(0), fake=fake) as client:
        await client.projects.get(2)
    assert len(fake.sleeps) == 1 and 0 <= fake.sleeps[0] <= 0.5


async def test_get_gives_up_after_max_attempts_and_reports_server_error() -> None:
    fake = FakeTime()
    calls = 0

    def handler(request: httpx.Request) -> httpx.Response:
        nonlocal calls
        calls += 1
        return httpx.Response(503, json={"message": "503 Service Unavailable"})

    async with mock_client(handler, fake=fake) as client:
        with pytest.raises(errors.ServerError) as caught:
            await client.projects.get(1)
    assert calls == 4 and len(fake.sleeps) == 3
    assert caught.value.status == 503
    assert client.health.state == "error"


async def test_budget_stops_retrying() -> None:
    fake = FakeTime()
    calls = 0

    def handler(request: httpx.Request) -> httpx.Response:
        nonlocal calls
        calls += 1
        return httpx.Response(503, headers={"Retry-After": "20"})

    async with mock_client(handler, fake=fake, retry=policy(fake, budget=30.0)) as client:
        with pytest.raises(errors.ServerError):
            await client.projects.get(1)
    assert calls == 2 and fake.sleeps == [20] and fake.now <= 30


async def test_a_read_is_not_sent_with_only_a_sliver_of_its_budget_left() -> None:
    """A wait that leaves the call less than ``ANSWER_ROOM`` of its budget ends the call with the
    server's own failure (the 503), not with a request sent to time out as ``no answer within
    30 s`` (seen in a test of a wrong-answer storm on a loaded machine: the gate's wait took all
    but a few milliseconds of the budget)."""
    fake = FakeTime()
    calls = 0

    def handler(request: httpx.Request) -> httpx.Response:
        nonlocal calls
        calls += 1
        return httpx.Response(503, headers={"Retry-After": "28"})

    async with mock_client(handler, fake=fake, retry=policy(fake, budget=30.0)) as client:
        with pytest.raises(errors.ServerError) as caught:
            await client.projects.get(1)
    assert calls == 1 and fake.sleeps == [] and caught.value.status == 503


async def test_500_is_not_retried() -> None:
    calls = 0

    def handler(request: httpx.Request) -> httpx.Response:
        nonlocal calls
        calls += 1
        return httpx.Response(500, json={"message": "500 Internal Server Error"})

    async with mock_client(handler) as client:
        with pytest.raises(errors.ServerError):
            await client.projects.get(1)
    assert calls == 1


@pytest.mark.parametrize(("exc", "failing"), [(httpx.ConnectError("refused"), 1), (httpx.ReadTimeout("slow"), 1),
                                              # Sent again at once first: a kept connection the
                                              # server had just closed fails like this.
                                              (httpx.RemoteProtocolError("dropped"), 2), (httpx.ReadError("reset"), 2)])
async def test_get_retries_transport_failures(exc: Exception, failing: int) -> None:
    fake = FakeTime()
    calls = 0
    states: list[str] = []

    def handler(request: httpx.Request) -> httpx.Response:
        nonlocal calls
        calls += 1
        if calls <= failing:
            raise exc
        states.append(client.health.state)
        return httpx.Response(200, json={"id": 1})

    client = mock_client(handler, fake=fake)
    await client.projects.get(1)
    await client.aclose()
    assert calls == failing + 1 and len(fake.sleeps) == 1
    assert states == ["reconnecting"] and client.health.state == "ok" and client.health.last_ok_at is not None


async def test_a_dropped_connection_is_sent_again_only_within_the_policys_attempts() -> None:
    # The at-once resend is an attempt: a policy of one sends once, one of two sends twice and
    # then waits for nothing more (not a third time through the gate).
    for attempts, sent in ((1, 1), (2, 2)):
        fake = FakeTime()
        calls = 0

        def handler(request: httpx.Request) -> httpx.Response:
            nonlocal calls
            calls += 1
            raise httpx.ReadError("reset")

        async with mock_client(handler, fake=fake, retry=policy(fake, max_attempts=attempts)) as client:
            with pytest.raises(errors.TransportError):
                await client.projects.get(1)
        assert calls == sent, attempts


async def test_get_transport_failure_becomes_transport_error() -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectError("[Errno 111] Connection refused")

    async with mock_client(handler) as client:
        with pytest.raises(errors.TransportError) as caught:
            await client.projects.get(1)
    assert client.health.state == "error" and client.health.last_error
    assert "Cannot reach the server" in caught.value.user_message()


async def test_post_is_retried_only_when_it_never_left() -> None:
    fake = FakeTime()
    calls = 0

    def handler(request: httpx.Request) -> httpx.Response:
        nonlocal calls
        calls += 1
        if calls == 1:
            raise httpx.ConnectError("refused")
        return httpx.Response(201, json={"id": 77, "status": "pending"})

    async with mock_client(handler, fake=fake) as client:
        job = await client.jobs.retry(1, 5)
    assert job.id == 77 and calls == 2


@pytest.mark.parametrize("exc", [httpx.ReadTimeout("slow"), httpx.RemoteProtocolError("dropped"),
                                 httpx.ReadError("reset"), httpx.WriteError("broken")])
@pytest.mark.parametrize("method", ["POST", "PUT", "DELETE"])
async def test_ambiguous_failures_of_writes_are_outcome_unknown(exc: Exception, method: str) -> None:
    calls = 0

    def handler(request: httpx.Request) -> httpx.Response:
        nonlocal calls
        if request.url.path.endswith("/version"):  # dialect discovery before the runner update
            return httpx.Response(200, json={"version": "10.8.7"})
        calls += 1
        raise exc

    async with mock_client(handler) as client:
        with pytest.raises(errors.OutcomeUnknown) as caught:
            if method == "POST":
                await client.jobs.cancel(1, 2)
            elif method == "PUT":
                await client.runners.update(4, active=False)
            else:
                await client.runners.delete(4)
    assert calls == 1
    assert caught.value.method == method
    assert "refresh" in caught.value.user_message()


@pytest.mark.parametrize("status", [500, 502, 503, 504])
@pytest.mark.parametrize("method", ["POST", "PUT", "DELETE"])
async def test_writes_answered_with_a_5xx_are_outcome_unknown_and_not_retried(status: int, method: str) -> None:
    calls = 0

    def handler(request: httpx.Request) -> httpx.Response:
        nonlocal calls
        if request.url.path.endswith("/version"):  # dialect discovery before the runner update
            return httpx.Response(200, json={"version": "10.8.7"})
        calls += 1
        return httpx.Response(status, json={"message": "502 Bad Gateway"}, headers={"Retry-After": "1"})

    fake = FakeTime()
    async with mock_client(handler, fake=fake) as client:
        with pytest.raises(errors.OutcomeUnknown) as caught:
            if method == "POST":
                await client.jobs.play(1, 2)
            elif method == "PUT":
                await client.runners.update(4, active=False)
            else:
                await client.runners.delete(4)
    assert calls == 1 and fake.sleeps == []
    error = caught.value
    # Both kinds at once: callers catching ServerError still do, and re-read paths run.
    assert isinstance(error, errors.ServerError) and error.status == status and error.method == method
    message = error.user_message()
    assert "outcome is unknown" in message and "refresh" in message and str(status) in message


@pytest.mark.parametrize("status", [500, 502, 503, 504])
async def test_reads_answered_with_a_5xx_are_plain_server_errors(status: int) -> None:
    fake = FakeTime()
    async with mock_client(lambda r: httpx.Response(status), fake=fake,
                           retry=policy(fake, max_attempts=1)) as client:
        with pytest.raises(errors.ServerError) as caught:
            await client.projects.get(1)
    assert not isinstance(caught.value, errors.OutcomeUnknown)


async def test_a_rejected_write_is_not_outcome_unknown() -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(501, json={"message": "501 Not Implemented"})

    async with mock_client(handler) as client:
        with pytest.raises(errors.ServerError) as caught:
            await client.jobs.play(1, 2)
    assert not isinstance(caught.value, errors.OutcomeUnknown)


async def test_a_read_that_slept_through_a_failed_probe_waits_again_instead_of_probing_too() -> None:
    """One probe at a time: a read whose wait ends just after the probe failed must not go as a
    second probe right behind it (the server asked for a longer wait meanwhile)."""
    fake = FakeTime()
    sent: list[str] = []

    def handler(request: httpx.Request) -> httpx.Response:
        sent.append(request.url.path)
        return httpx.Response(502, text="Bad Gateway")

    sleepers: list[tuple[float, asyncio.Event]] = []

    async def sleep(seconds: float) -> None:  # the test decides when each wait is over
        over = asyncio.Event()
        sleepers.append((fake.now + seconds, over))
        await over.wait()

    def wake(index: int) -> None:
        until, over = sleepers[index]
        fake.now = max(fake.now, until)
        over.set()

    async def sleeping(count: int) -> None:
        for _ in range(200):
            if len(sleepers) >= count:
                return
            await asyncio.sleep(0)
        raise AssertionError(f"{len(sleepers)} reads waiting, expected {count}")

    retry = RetryPolicy(sleep=sleep, clock=fake.clock, wall=fake.wall, rng=random.Random(7), max_attempts=10,
                        budget=1000)
    async with mock_client(handler, fake=fake, retry=retry) as client:
        first = asyncio.create_task(client.projects.get(1))  # fails: the gate holds reads back
        await sleeping(1)
        second = asyncio.create_task(client.projects.get(2))  # waits for the same moment
        await sleeping(2)
        wake(0)  # the first goes as the probe, fails again: the gate asks for a longer wait
        await sleeping(3)
        assert len(sent) == 2
        wake(1)  # the second's wait is over, but it was computed before the probe failed
        await sleeping(4)
        assert len(sent) == 2, sent
        for task in (first, second):
            task.cancel()
        await asyncio.gather(first, second, return_exceptions=True)


def _gate_in_a_long_storm(fake: FakeTime) -> ServerGate:
    """A gate after six failed probes in a row: its next wait is 16 s or more."""
    gate = ServerGate(clock=fake.clock, rng=random.Random(3))
    for _ in range(6):
        fake.now = max(fake.now, gate.open_until)
        gate.claim()
        gate.failed(502, "502 Bad Gateway (nginx)")
    assert gate.wait() >= 16
    return gate


def test_ctrl_r_while_a_probe_is_out_is_remembered_and_the_next_try_follows_the_gap() -> None:
    """Issue 30: ``ctrl+r`` pressed while a probe was out did nothing, and when that probe failed
    the next try came at the end of a back-off of up to a minute. The press is remembered: the
    next probe follows :data:`HURRY_GAP` after the failure, still one at a time."""
    fake = FakeTime()
    gate = _gate_in_a_long_storm(fake)
    fake.now = gate.open_until
    assert gate.claim()  # the probe leaves (a slow server: it takes 5 s to fail)
    assert gate.hurry() == 0.0  # trying now: the probe out is the try
    assert not gate.claim()  # never a second probe beside it
    fake.now += 5
    assert gate.failed(502, "502 Bad Gateway (nginx)") == pytest.approx(HURRY_GAP)
    fake.now += HURRY_GAP
    assert gate.claim()
    # One press, one early try: the next failure waits the back-off again.
    fake.now += 0.1
    assert gate.failed(502, "502 Bad Gateway (nginx)") >= 16


def test_a_press_remembered_during_a_probe_never_cuts_a_wait_the_server_asks_for() -> None:
    fake = FakeTime()
    gate = _gate_in_a_long_storm(fake)
    fake.now = gate.open_until
    gate.claim()
    gate.hurry()
    assert gate.failed(503, "503 Service Unavailable", asked=20.0) == pytest.approx(20.0)
    assert gate.hurry() == pytest.approx(20.0)


def test_a_press_during_the_probe_after_a_servers_wait_is_remembered_too() -> None:
    """The server asked for 5 s (a 503 with ``Retry-After``); that wait is over and its probe is
    out when ``ctrl+r`` comes: if the probe fails without asking again, the next try follows the gap."""
    fake = FakeTime()
    gate = _gate_in_a_long_storm(fake)
    gate.failed(503, "503 Service Unavailable", asked=5.0)
    fake.now = gate.open_until
    assert gate.claim()
    gate.hurry()
    fake.now += 1
    assert gate.failed(502, "502 Bad Gateway (nginx)") == pytest.approx(HURRY_GAP)


def test_a_press_remembered_during_a_probe_that_is_abandoned_is_answered_by_the_next_probe() -> None:
    """The probe was cancelled (its screen closed): the wait is over, so the next read goes at once
    and is the try asked for; if it fails, the back-off applies again (one press, one early try)."""
    fake = FakeTime()
    gate = _gate_in_a_long_storm(fake)
    fake.now = gate.open_until
    gate.claim()
    gate.hurry()
    gate.abandoned()
    assert gate.wait() == 0.0 and gate.claim()
    fake.now += 0.1
    assert gate.failed(502, "502 Bad Gateway (nginx)") >= 16


async def test_ctrl_r_while_the_probe_is_out_says_trying_now_and_the_next_try_follows_it_closely() -> None:
    """Through the client: a slow probe is out when ``ctrl+r`` is pressed. The screens say it is
    trying now (``retrying now``, not a countdown), and when the probe fails the next try comes
    :data:`HURRY_GAP` later, not after the back-off (16 s or more by then)."""
    fake = FakeTime()
    sent: list[float] = []
    out, release = asyncio.Event(), asyncio.Event()

    async def handler(request: httpx.Request) -> httpx.Response:
        sent.append(fake.now)
        if len(sent) == 7:  # six failures in a row before it: a long back-off
            out.set()
            await release.wait()
        return httpx.Response(502, text="<html>Bad Gateway</html>", headers={"Server": "nginx"})

    retry = RetryPolicy(sleep=fake.sleep, clock=fake.clock, wall=fake.wall, rng=random.Random(7),
                        max_attempts=20, budget=10_000)
    async with mock_client(handler, fake=fake, retry=retry) as client:
        read = asyncio.create_task(client.projects.get(1))
        await asyncio.wait_for(out.wait(), 10)
        assert client.gate.probing and client.gate.failures == 6
        assert client.try_now()
        health = client.health
        assert health.state == "reconnecting" and health.retry_at is not None
        assert health.retry_at <= datetime.now(UTC)  # "retrying now"
        release.set()
        for _ in range(500):
            if len(sent) >= 8:
                break
            await asyncio.sleep(0)
        read.cancel()
        await asyncio.gather(read, return_exceptions=True)
    assert len(sent) >= 8
    assert sent[7] - sent[6] == pytest.approx(HURRY_GAP), [round(b - a, 2) for a, b in zip(sent, sent[1:], strict=False)]
