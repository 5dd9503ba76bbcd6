"""Reads the poller did not plan (triage's pages and logs) take what the board's own reads leave to
spare; where nothing is ever spare (a board whose reads take the whole budget), they still go on,
one at least every ``SPARE_PATIENCE``, and the minute's cap holds for both together."""

from __future__ import annotations

import asyncio

from labdeck.watch.budget import SPARE_PATIENCE, RequestBudget
from tests.support.fake_time import VirtualTime
from tests.watch.helpers import busiest_minute


def budget_on(time: VirtualTime) -> RequestBudget:
    """The default budget (60 a minute, a burst of 10) on virtual time."""
    return RequestBudget(60, burst=10, clock=time.clock, on_the_way=time.clock)


async def triage_reads(budget: RequestBudget, time: VirtualTime, count: int, sent: list[float]) -> None:
    """``count`` reads the poller did not plan, one after the other, each noted in ``sent`` as it leaves."""
    for _ in range(count):
        await budget.spare_turn(time.sleep)
        cell = await budget.turn(time.sleep)
        sent.append(time.now)
        budget.answered(cell)


async def test_triage_goes_on_while_the_board_takes_every_token() -> None:
    time = VirtualTime(now=1000.0)
    budget, sleep = budget_on(time), time.sleep
    board_sent: list[float] = []
    triage_sent: list[float] = []

    async def board() -> None:
        # 800 projects: a read is always due, and each token is taken as soon as it comes.
        while True:
            if budget.try_take():
                cell = await budget.turn(sleep)
                board_sent.append(time.now)
                budget.answered(cell)
                continue
            await sleep(max(0.05, min(budget.wait_time(), 1.0)))

    start = time.now
    async with time.running():
        board_task = asyncio.ensure_future(board())
        await sleep(30)  # the board has drained the burst
        triage_task = asyncio.ensure_future(triage_reads(budget, time, 20, triage_sent))
        began = time.now
        await sleep(20 * (SPARE_PATIENCE + 2) + 60)
        board_task.cancel()
        triage_task.cancel()
        await asyncio.gather(board_task, triage_task, return_exceptions=True)

    assert len(triage_sent) == 20  # triage finished, not starved
    gaps = [later - earlier for earlier, later in zip([began, *triage_sent], triage_sent, strict=False)]
    # One claimed read every SPARE_PATIENCE; longer only while the window is full (the board's
    # first burst frees its ten places together, a minute later).
    assert max(gaps) <= SPARE_PATIENCE + 10
    assert sum(gaps) / len(gaps) <= SPARE_PATIENCE + 1.5
    assert busiest_minute(board_sent + triage_sent) <= 60  # the cap holds for both
    # The board keeps most of the budget: triage's claims are one read per SPARE_PATIENCE.
    minutes = (time.now - start) / 60
    assert len(board_sent) >= (60 - 60 / SPARE_PATIENCE) * minutes - 15


async def test_triage_takes_spare_tokens_at_once_on_a_quiet_board() -> None:
    time = VirtualTime(now=1000.0)
    budget = budget_on(time)
    sent: list[float] = []

    start = time.now
    async with time.running():
        await asyncio.wait_for(triage_reads(budget, time, 5, sent), 10)  # real seconds: it waits for nothing
    # Five above half the burst's ten: no wait at all (the board's reads keep the other five).
    assert sent == [start] * 5
    assert budget.try_take(reserve=4.0)  # the board's reserve is still there
