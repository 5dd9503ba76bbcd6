"""A healthy board on a normal server never says ``stale``: what else spends the board's budget
(triage's pages and logs) waits for the tokens the board's own reads leave.

Seen in tmux against ``labdeck serve --speed 30`` (seven starred projects, no fault): rows marked
``~`` and ``oldest 32s`` on the status line. The failed rows' projects were read every 25 s, as
planned, until a triage round (16 pages and logs in 5 s) took its tokens after the fact: the
bucket went below zero and the next failed-row reads waited 10 s (35 s old, over their 30 s).
Leaving half the burst to the board was not enough either: ten failing rows fall due together."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Callable

from labdeck.api import ApiClient
from labdeck.base.secret import Secret
from labdeck.sim.dataset.build import DEMO_TOKENS
from labdeck.sim.server import SimServer
from labdeck.triage.collect import Triager
from labdeck.watch import (
    BoardPoller,
    BoardSnapshot,
    PollerSettings,
    ServerClock,
    WatchedProject,
    WatchedProjects,
)
from labdeck.watch.ages import LIVE_LIMIT
from labdeck.watch.tracking import HOT
from tests.support.fake_time import VirtualTime
from tests.watch.helpers import api_client, fake_clock, make_poller, push_pipeline, run_for

FAILING = (15, 16, 27, 33)
"""Demo projects whose newest pipeline is broken (their rows allow 30 s)."""
QUIET = (*FAILING, 2, 4, 6, 8, 11, 13, 21, 24, 28, 12, 14, 17, 18, 19, 20)


def poller_on(client: ApiClient, server: SimServer, time: VirtualTime) -> BoardPoller:
    """The console's poller on virtual time (its live loop, its detached reads): the board's
    steps and triage's reads interleave as in the console."""
    client.gate.clock = time.clock
    return BoardPoller(client, PollerSettings(), clock=time.clock, sleep=time.sleep, wall=time.wall,
                       server_clock=ServerClock(source=server.state.now), rng=random.Random(3))


async def test_triage_rounds_do_not_make_the_failed_rows_stale(sim_factory: Callable[..., SimServer]) -> None:
    server = sim_factory()
    time = VirtualTime(now=1000.0)
    board: list[BoardSnapshot] = []
    stale: list[tuple[int, int, str, float]] = []
    rounds: list[float] = []
    # Not an admin: no runners' job lists.
    client = ApiClient(server.base_url, Secret(DEMO_TOKENS["user"]), transport=time.transport(), retry=time.policy())
    async with client, time.running():
        poller = poller_on(client, server, time)
        poller.subscribe_board(board.append,
                               watched=WatchedProjects(tuple(WatchedProject(pid, str(pid)) for pid in QUIET)))
        running = asyncio.create_task(poller.run())
        await time.sleep(150)  # past the start-up reads
        assert board and board[-1].loading == 0
        start = time.now

        async def look() -> None:
            while True:
                ages = poller.row_ages()
                stale.extend((int(time.now - start), row.project_id, row.status, ages.age(row) or 0.0)
                             for row in board[-1].rows if ages.stale(row))
                await time.sleep(0.5)

        async def triage() -> None:
            # A new failure every 20 s of the console's clock: a round over the failing projects
            # (their pages, and the logs the cache does not hold: a new triager holds none).
            while time.now - start < 200:
                began = time.now
                with poller.tap.attributed("triage", pay=True):
                    await Triager(client).round([(pid, str(pid)) for pid in FAILING])
                rounds.append(time.now - began)
                await time.sleep(20)

        looking = asyncio.create_task(look())
        await triage()
        await time.sleep(max(0.0, start + 240 - time.now))
        looking.cancel()
        poller.stop()
        await running
    # Triage did read, on what the board left: its rounds are slower, and still end.
    assert poller.stats.by_kind["triage"] >= 40
    assert len(rounds) >= 4 and max(rounds) <= 90, rounds
    assert stale == []


async def test_rows_read_at_the_overview_pace_keep_their_class_once_the_board_shows_them(
        sim_factory: Callable[..., SimServer]) -> None:
    """The projects table's CI column reads its projects at the overview pace (a failed project's
    next read far away); once the board shows them, each row is read again within its class's
    limit (failed ≤ 30 s), not when the overview schedule comes round (``~`` rows, ``oldest 4m``)."""
    server = sim_factory()
    fake = fake_clock()
    board: list[BoardSnapshot] = []
    async with api_client(server, "user") as client:
        poller = make_poller(client, server, fake)
        poller.subscribe_projects(lambda snapshot: None, {pid: str(pid) for pid in QUIET})
        await run_for(poller, fake, 200)  # read, and read again at the overview pace
        assert all(track.overview for track in poller.tracks.values() if track.error is None)
        broken = [pid for pid in QUIET if poller.tracks[pid].failing and poller.tracks[pid].lane != HOT]
        assert broken
        poller.subscribe_board(board.append,
                               watched=WatchedProjects(tuple(WatchedProject(pid, str(pid)) for pid in QUIET)))
        start = fake.now
        await run_for(poller, fake, 30)  # a failed row's limit: each is read again by then
        assert all((poller.tracks[pid].last_ok or 0.0) > start for pid in broken)
        stale: list[tuple[int, int, str, float]] = []
        while fake.now - start < 150:
            await run_for(poller, fake, 1)
            ages = poller.row_ages()
            stale += [(int(fake.now - start), row.project_id, row.status, ages.age(row) or 0.0)
                      for row in board[-1].rows if ages.stale(row)]
        assert {row.status for row in board[-1].rows} >= {"failed"}
        assert stale == []
        poller.close()


async def test_an_administrator_s_small_board_reads_its_failed_rows_within_30_s(
        sim_factory: Callable[..., SimServer]) -> None:
    """An administrator's board follows the runners' job lists too, and these let busy and failing
    projects be read once a minute where the budget needs it. A board of 19 projects (three busy) does not: its
    failed rows were read every minute all the same (``oldest 48s`` in tmux, the budget mostly
    unused). Each failed row is read every 25 s (30 s, the limit the board promises, give or take the
    seconds a read waits for its turn in the budget)."""
    server = sim_factory(dialect="spec")
    for pid in (2, 4, 6):  # busy for hours (a job that waits for a runner that never comes)
        push_pipeline(server, pid, [{"name": "soak", "duration": 86_400, "tags": ["nowhere"]}])
    fake = fake_clock()
    board: list[BoardSnapshot] = []
    async with api_client(server, "admin") as client:
        poller = make_poller(client, server, fake, stuck_after=3600.0)
        poller.subscribe_board(board.append,
                               watched=WatchedProjects(tuple(WatchedProject(pid, str(pid)) for pid in QUIET)))
        await run_for(poller, fake, 150)
        assert board and board[-1].loading == 0 and poller.stats.by_kind["runners"] > 0
        start, oldest, over = fake.now, 0.0, []
        while fake.now - start < 240:
            await run_for(poller, fake, 1)
            ages = poller.row_ages()
            oldest = max([oldest, *(ages.age(row) or 0.0 for row in board[-1].rows if row.status == "failed")])
            over += [(round(fake.now - start), row.project_id, round(ages.age(row) or 0.0)) for row in board[-1].rows if row.status == "failed" and (ages.age(row) or 0.0) > LIVE_LIMIT]
        assert any(row.status == "failed" for row in board[-1].rows)
        # A failed row older than 30 s is marked so (the busy rows may be a minute old).
        ages = poller.row_ages()
        assert ages.limit(next(row for row in board[-1].rows if row.status == "failed")) == LIVE_LIMIT
        # 30 s, and at most one interval more when several fall due together (34 s here; before 60-64 s).
        assert oldest <= LIVE_LIMIT + PollerSettings().interval, (oldest, over)
        poller.close()
