"""Two instances watched at once (issue 30), each by its own poller: each server sees at most its
budget's requests in any minute, counted where the server counts them (when the request gets
there, which is not when it left: answers take their time, and not all the same time); and a
board is complete as soon as its projects are read, whatever triage spent of the budget."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Callable
from pathlib import Path

import httpx

from labdeck.base.statefile import StateStore
from labdeck.sim.server import SimServer
from labdeck.watch import BoardSnapshot, WatchedProject, WatchedProjects, WatchedSet, WatchStore
from tests.support.fake_time import FakeTime
from tests.watch.helpers import api_client, fake_clock, make_poller, run_for, run_until


def busiest_minute(moments: list[float]) -> int:
    """The most requests within any 60 s."""
    inside = sorted(moments)
    best = low = 0
    for high, moment in enumerate(inside):
        while inside[low] < moment - 60.0:
            low += 1
        best = max(best, high - low + 1)
    return best


async def watch_idle(server: SimServer, seed: int) -> tuple[list[float], int]:
    """Watch every project of ``server`` (300) on a poller of its own; after the first round and
    30 s, five minutes of nothing changing. Returns when (poller clock) each request of those
    five minutes was answered, and the budget per minute."""
    fake: FakeTime = fake_clock()
    delays = random.Random(seed)
    answered: list[float] = []
    ids = sorted(server.state.projects)
    board: list[BoardSnapshot] = []
    async with api_client(server) as client:
        async def answer(_response: httpx.Response) -> None:
            # An answer takes a moment of the poller's clock, some longer than others (a busy
            # server, a connection to open); the server has counted the request by then.
            fake.now += delays.choice((0.0, 0.02, 0.1, 0.5))
            answered.append(fake.now)

        client.http.event_hooks["response"].append(answer)
        poller = make_poller(client, server, fake)
        poller.subscribe_board(board.append, watched=WatchedProjects(tuple(WatchedProject(pid, str(pid)) for pid in ids)))
        await run_until(poller, fake, lambda: bool(board) and board[-1].loading == 0)
        await run_for(poller, fake, 30)
        start = fake.now
        await run_for(poller, fake, 300)
        poller.close()
    return [moment for moment in answered if moment >= start], int(poller.settings.requests_per_minute)


async def test_each_of_two_instances_stays_within_its_own_budget_as_its_server_counts(
        sim_factory: Callable[..., SimServer]) -> None:
    prod = sim_factory(projects=300)
    staging = sim_factory(projects=300, seed=43, dialect="gitlab")
    (prod_answers, budget), (staging_answers, _) = await asyncio.gather(watch_idle(prod, 1), watch_idle(staging, 2))
    for answers in (prod_answers, staging_answers):
        assert len(answers) >= 4 * budget  # the poller does use its budget while idle
        assert busiest_minute(answers) <= budget


async def test_the_watched_listing_is_not_kept_waiting_by_first_reads_nor_by_triage(
        sim_factory: Callable[..., SimServer], tmp_path: Path) -> None:
    """300 projects added with ``w`` and the starred ones: the board says ``loading…`` until the
    listing of the watched set is in. It went after the 300 first reads, and then waited for the
    steady tokens the board's triage had spent meanwhile (15 s for one instance, over a minute
    for each of two)."""
    server = sim_factory(projects=300)
    store = WatchStore(StateStore(tmp_path / "state.json"), server.base_url)
    for pid in sorted(server.state.projects):
        store.add(pid, str(pid))
    fake = fake_clock()
    board: list[BoardSnapshot] = []
    async with api_client(server) as client:
        watched = WatchedSet(client, store)
        poller = make_poller(client, server, fake)
        poller.subscribe_board(board.append, watched=watched)
        poller.budget.charge(30)  # triage's first round paid its 40 reads from the steady budget
        took = await run_until(poller, fake, lambda: watched.resolved and bool(board) and board[-1].loading == 0)
        assert took < 15  # the first reads' own pace (30 a second), not 30 s of steady tokens
        poller.close()
