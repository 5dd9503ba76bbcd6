"""The per-minute budget is a cap, not an average: in no minute (any 60 s of the poller's clock)
does the board send more than ``requests_per_minute`` steady requests, triage's reads included
(they wait their turn in the same window)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

import httpx

from labdeck.sim.server import SimServer
from labdeck.triage.collect import Triager
from labdeck.watch import BoardSnapshot, WatchedProject, WatchedProjects
from tests.watch.helpers import api_client, busiest_minute, fake_clock, make_poller, run_for, run_until


async def test_no_minute_goes_over_the_budget_with_triage_on(sim_factory: Callable[..., SimServer]) -> None:
    server = sim_factory(projects=120)
    ids = sorted(server.state.projects)
    fake = fake_clock()
    board: list[BoardSnapshot] = []
    sent: list[float] = []
    recording = False

    async def note(request: httpx.Request) -> None:
        if recording:
            sent.append(fake.now)

    async with api_client(server) as client:
        poller = make_poller(client, server, fake)
        poller.subscribe_board(board.append, watched=WatchedProjects(tuple(WatchedProject(pid, str(pid)) for pid in ids)))
        await run_until(poller, fake, lambda: bool(board) and board[-1].loading == 0)
        client.http.event_hooks["request"].append(note)
        recording = True
        triager = Triager(client)
        projects = [(pid, str(pid)) for pid in ids[:80]]

        async def triage() -> None:
            for _ in range(2):
                with poller.tap.attributed("triage", pay=True):
                    await triager.round(projects)

        await asyncio.gather(run_for(poller, fake, 240), triage())
        assert poller.stats.by_kind["triage"] >= 160  # triage did read, through the board's budget
        assert len(sent) >= 200
        assert busiest_minute(sent) <= 60
        poller.close()
