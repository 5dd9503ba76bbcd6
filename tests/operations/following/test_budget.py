"""The shared read budget: a rate for all jobs together, turns in order, one read per job at a time."""

from __future__ import annotations

import asyncio

import pytest

from labdeck.operations.following.budget import ReadBudget
from tests.support.fake_time import FakeTime


async def test_twelve_jobs_share_two_requests_a_second() -> None:
    time = FakeTime()
    budget = ReadBudget(2.0, clock=time.clock, sleep=time.sleep)

    async def job(key: int) -> None:
        for _ in range(5):
            async with budget.turn(key):
                await asyncio.sleep(0)

    await asyncio.gather(*(job(key) for key in range(12)))
    times = [moment for moment, _ in budget.grants]
    assert len(times) == 60
    # Any window of one second holds at most two turns (their starts are half a second apart).
    assert all(later - earlier >= 0.5 - 1e-9 for earlier, later in zip(times, times[1:], strict=False))
    assert times[-1] == pytest.approx(29.5)


async def test_every_job_gets_its_turn_before_any_gets_a_second() -> None:
    time = FakeTime()
    budget = ReadBudget(2.0, clock=time.clock, sleep=time.sleep)

    async def job(key: int) -> None:
        for _ in range(3):
            async with budget.turn(key):
                await asyncio.sleep(0)

    await asyncio.gather(*(job(key) for key in range(4)))
    keys = [key for _, key in budget.grants]
    assert keys == [0, 1, 2, 3] * 3


async def test_a_quiet_job_asks_less_often_and_costs_less() -> None:
    budget = ReadBudget(200.0)
    stop = asyncio.Event()

    async def busy() -> None:
        while not stop.is_set():
            async with budget.turn("busy"):
                await asyncio.sleep(0)

    async def quiet() -> None:
        for _ in range(3):
            async with budget.turn("quiet"):
                await asyncio.sleep(0)
            await asyncio.sleep(0.05)
        stop.set()

    await asyncio.gather(busy(), quiet())
    keys = [key for _, key in budget.grants]
    assert keys.count("quiet") == 3
    assert keys.count("busy") > 3 * keys.count("quiet")


async def test_never_two_reads_of_one_job_in_flight() -> None:
    budget = ReadBudget(100.0)
    async with budget.turn("deploy-eu"):
        with pytest.raises(RuntimeError, match="already in flight"):
            await budget.acquire("deploy-eu")
    async with budget.turn("deploy-eu"):
        assert budget.in_flight == {"deploy-eu"}
    assert not budget.in_flight
