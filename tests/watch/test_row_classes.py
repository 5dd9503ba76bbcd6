"""A board with budget to spare reads its failed and pending rows again before their class's limit:
the header never flips to ``stale`` on a quiet server (it did about once a minute, ``oldest
36–57s``, while the board used 36 of its 60 requests a minute)."""

from __future__ import annotations

from collections.abc import Callable

from labdeck.sim.server import SimServer
from labdeck.watch import BoardSnapshot, WatchedProject, WatchedProjects
from tests.watch.helpers import api_client, fake_clock, make_poller, run_for, run_until

QUIET = (2, 4, 6, 8, 11, 13, 15, 16, 21, 24, 27, 28, 33, 12, 14, 17, 18, 19, 20)
"""Projects of the demo data set with no running job: failed pipelines, one job stuck pending (6),
successes. No busy project stretches the limits: failed rows must be at most 30 s old."""


async def test_no_row_turns_stale_while_the_budget_has_room(sim_factory: Callable[..., SimServer]) -> None:
    server = sim_factory()
    fake = fake_clock()
    board: list[BoardSnapshot] = []
    async with api_client(server, "user") as client:  # not an admin: no runners' job lists
        poller = make_poller(client, server, fake)
        poller.subscribe_board(board.append, watched=WatchedProjects(tuple(WatchedProject(pid, str(pid)) for pid in QUIET)))
        await run_until(poller, fake, lambda: bool(board) and board[-1].loading == 0, limit=120)
        await run_for(poller, fake, 150)  # past the start-up reads and the fresh-busy minutes
        statuses = {row.status for row in board[-1].rows}
        assert {"failed", "pending"} <= statuses
        start, sent = fake.now, poller.requests_made
        stale: list[tuple[float, int, str, float]] = []
        while fake.now - start < 240:
            await run_for(poller, fake, 5)
            ages = poller.row_ages()
            stale += [(fake.now - start, row.project_id, row.status, ages.age(row) or 0.0)
                      for row in board[-1].rows if ages.stale(row)]
        assert (poller.requests_made - sent) / 4 < 50  # budget to spare: nothing excuses a stale row
        assert stale == []
        assert ages.limit(next(row for row in board[-1].rows if row.status == "failed")) <= 30
        poller.close()
