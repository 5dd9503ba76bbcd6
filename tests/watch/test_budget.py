"""The request budget: the steady rate, the startup allowance, 429 pauses and slowing down on a low
``RateLimit-Remaining``; and the server clock learnt from ``Date`` headers."""

from __future__ import annotations

from datetime import UTC, datetime
from email.utils import formatdate

import httpx

from labdeck.watch.budget import RequestBudget
from labdeck.watch.clock import ServerClock
from tests.support.fake_time import FakeTime
from tests.watch.helpers import fake_clock

WALL = 1_800_000_000.0


def budget(fake: FakeTime, **kwargs: float) -> RequestBudget:
    return RequestBudget(60, burst=5, startup_per_minute=600, startup_burst=10, clock=fake.clock,
                         wall=lambda: WALL + fake.now, **kwargs)


def take_all(b: RequestBudget, seconds: float, fake: FakeTime, *, startup: bool = False) -> int:
    taken = 0
    end = fake.now + seconds
    while fake.now < end:
        while b.try_take(startup=startup):
            taken += 1
        fake.now += 0.1
    return taken


def test_steady_rate_is_the_budget_after_the_burst() -> None:
    fake = fake_clock()
    b = budget(fake)
    assert take_all(b, 60, fake) <= 60 + 5
    assert take_all(b, 60, fake) in range(59, 62)


def test_startup_allowance_is_separate_and_faster() -> None:
    fake = fake_clock()
    b = budget(fake)
    assert take_all(b, 10, fake, startup=True) >= 100
    assert b.try_take() is True  # the steady bucket was not drained by the start-up reads


def test_429_pauses_for_retry_after_and_halves_the_rate() -> None:
    fake = fake_clock()
    b = budget(fake)
    b.observe(429, httpx.Headers({"Retry-After": "30"}))
    assert b.paused() == 30 and b.try_take() is False and b.try_take(startup=True) is False
    assert b.wait_time() == 30
    fake.now += 29.9
    assert b.try_take() is False
    fake.now += 0.2
    assert b.try_take() is True
    assert take_all(b, 60, fake) <= 5 + 32  # half the rate for the minute after


def test_429_with_an_http_date_or_reset_header() -> None:
    fake = fake_clock()
    b = budget(fake)
    b.observe(429, httpx.Headers({"Retry-After": formatdate(WALL + fake.now + 12, usegmt=True)}))
    assert 11 <= b.paused() <= 12
    fake.now += 20
    b.observe(429, httpx.Headers({"RateLimit-Reset": str(int(WALL + fake.now + 40))}))
    assert 39 <= b.paused() <= 40


def test_429_without_any_hint_waits_exponentially() -> None:
    fake = fake_clock()
    b = budget(fake)
    waits = []
    for _ in range(3):
        b.observe(429, httpx.Headers())
        waits.append(b.paused())
        fake.now += waits[-1]
    assert waits == [2.0, 4.0, 8.0]
    b.succeeded()
    b.observe(429, httpx.Headers())
    assert b.paused() == 2.0


def test_low_remaining_slows_down_until_the_reset() -> None:
    fake = fake_clock()
    b = budget(fake)
    take_all(b, 5, fake)
    b.observe(200, httpx.Headers({"RateLimit-Limit": "600", "RateLimit-Remaining": "20",
                                  "RateLimit-Reset": str(int(WALL + fake.now + 60))}))
    assert b.factor == 0.25
    assert take_all(b, 60, fake) <= 16
    assert b.factor == 1.0


def test_charge_for_extra_pages_delays_what_follows() -> None:
    fake = fake_clock()
    b = budget(fake)
    take_all(b, 0.1, fake)
    b.charge(3)
    assert b.wait_time() >= 3.0


def test_a_read_that_sent_nothing_gives_its_token_back_and_no_more() -> None:
    fake = fake_clock()
    b = budget(fake)
    take_all(b, 0.1, fake)  # the bucket is dry
    assert b.wait_time() > 0
    b.charge(-1)  # a read took a token and sent no request
    assert b.try_take() and not b.try_take()
    for _ in range(10):
        b.charge(-1)
    assert take_all(b, 0.05, fake) == 5  # never more than the burst


def test_server_clock_from_date_headers() -> None:
    local = [WALL]
    clock = ServerClock(wall=lambda: local[0])
    assert not clock.synchronised
    server = WALL + 3600  # the server is an hour ahead of this laptop
    for step in range(5):
        local[0] = WALL + step * 0.3
        clock.observe(formatdate(server + step * 0.3, usegmt=True))
    assert clock.synchronised
    assert abs(clock.now().timestamp() - (server + local[0] - WALL)) <= 1.0
    clock.observe("not a date")
    assert abs(clock.now().timestamp() - (server + local[0] - WALL)) <= 1.0


def test_server_clock_with_an_explicit_source() -> None:
    moment = datetime(2026, 11, 2, 9, 0, tzinfo=UTC)
    clock = ServerClock(source=lambda: moment)
    clock.observe(formatdate(WALL, usegmt=True))
    assert clock.now() == moment
