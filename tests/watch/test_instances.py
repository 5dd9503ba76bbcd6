"""Watching for a board over several instances (issue 30): each server gets at most its budget's
requests in any of its minutes, counted when they reach it (requests are not all equally long on
their way); a board is complete as soon as its projects are read, whatever triage spent of the
budget."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Callable
from pathlib import Path

import httpx

from labdeck.api import ApiClient
from labdeck.base.secret import Secret
from labdeck.base.statefile import StateStore
from labdeck.sim.dataset.build import DEMO_TOKENS
from labdeck.sim.server import SimServer
from labdeck.watch import BoardSnapshot, WatchedProject, WatchedProjects, WatchedSet, WatchStore
from tests.support.fake_time import FakeTime
from tests.watch.helpers import api_client, fake_clock, make_poller, run_for, run_until


class OnTheWay(httpx.AsyncBaseTransport):
    """Between the poller and the server: each request takes a while to get there (a wait for a
    pooled connection behind a busy one, the network; not the same for each), then the server's
    answer takes 0.1 s. ``arrived`` lists when (the poller's clock) the server got each request:
    where the server counts it."""

    def __init__(self, fake: FakeTime, seed: int) -> None:
        self.fake = fake
        self.inner = httpx.AsyncHTTPTransport()
        self.delays = random.Random(seed)
        self.arrived: list[float] = []

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        self.fake.now += self.delays.choice((0.0, 0.0, 0.0, 0.02, 0.1, 0.4, 0.9))
        self.arrived.append(self.fake.now)
        response = await self.inner.handle_async_request(request)
        self.fake.now += 0.1
        return response

    async def aclose(self) -> None:
        await self.inner.aclose()


def busiest_minute(moments: list[float]) -> int:
    """The most moments within any 60 s (both ends in)."""
    inside = sorted(moments)
    best = low = 0
    for high, moment in enumerate(inside):
        while inside[low] < moment - 60.0:
            low += 1
        best = max(best, high - low + 1)
    return best


async def watch_idle(server: SimServer, seed: int) -> tuple[list[float], int]:
    """Watch every project of ``server`` on a poller of its own; after the first round and 30 s,
    five minutes of nothing changing. Returns when the server got each request of those five
    minutes, and the budget per minute."""
    fake = fake_clock()
    way = OnTheWay(fake, seed)
    ids = sorted(server.state.projects)
    board: list[BoardSnapshot] = []
    async with ApiClient(server.base_url, Secret(DEMO_TOKENS["admin"]), transport=way) as client:
        poller = make_poller(client, server, fake)
        poller.budget.on_the_way = fake.clock  # the time on the way is the fake clock's here
        poller.subscribe_board(board.append, watched=WatchedProjects(tuple(WatchedProject(pid, str(pid)) for pid in ids)))
        # Each request moves the clock on its way: the first round takes minutes of it.
        await run_until(poller, fake, lambda: bool(board) and board[-1].loading == 0, limit=900)
        await run_for(poller, fake, 30)
        start = fake.now
        await run_for(poller, fake, 300)
        poller.close()
    return [moment for moment in way.arrived if moment >= start], int(poller.settings.requests_per_minute)


async def test_each_of_two_instances_stays_within_its_budget_as_its_server_counts(
        sim_factory: Callable[..., SimServer]) -> None:
    """Counted when they left, 61-64 requests reached a server in one of its minutes (a burst
    held up on its way, then one sent 60 s after it going straight through)."""
    prod = sim_factory(projects=300)
    staging = sim_factory(projects=300, seed=43, dialect="gitlab")
    (prod_arrived, budget), (staging_arrived, _) = await asyncio.gather(watch_idle(prod, 1), watch_idle(staging, 2))
    for arrived in (prod_arrived, staging_arrived):
        assert len(arrived) >= 4 * budget  # the poller does use its budget while idle
        assert busiest_minute(arrived) <= budget


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
