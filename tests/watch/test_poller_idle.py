"""What the shared poller costs while nothing changes, counted on its own clock (no timing): it
wakes up only when a read is due and affordable, not over and over while its budget is spent, and
the projects table's CI column alone costs one round of reads per overview interval."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

import httpx

from labdeck.sim.server import SimServer
from labdeck.watch import BoardPoller, BoardSnapshot, ProjectsSnapshot, WatchedProject, WatchedProjects
from tests.support.fake_time import FakeTime
from tests.support.sim_control import project_id, push_pipeline, set_faults
from tests.watch.helpers import api_client, fake_clock, make_poller, run_until

BUSY = ("platform/infra/observability", "web/storefront", "platform/search", "data/reports")


async def count_steps(poller: BoardPoller, fake: FakeTime, seconds: float) -> int:
    """Step the poller for ``seconds`` of its clock as the app's worker does (a sleep of what it
    asks after each step); returns how many steps it took."""
    end, steps = fake.now + seconds, 0
    while fake.now < end:
        delay = await poller.step()
        steps += 1
        fake.now = min(end, fake.now + delay)
        assert steps < 100_000
    return steps


async def test_a_spent_budget_puts_the_poller_to_sleep_until_it_refills(sim_factory: Callable[..., SimServer]) -> None:
    """Four projects with running jobs at the live cadence want 48 reads a minute, the activity
    check 12 more; a budget of 20 a minute can afford a third of that. The poller waits for each
    token (a wake-up per read, give or take), instead of planning every 50 ms in vain."""
    server = sim_factory()
    ids = [project_id(server, path) for path in BUSY]
    for pid in ids:
        push_pipeline(server, pid, [{"name": "long-build", "duration": 3600}])
    fake = fake_clock()
    board: list[BoardSnapshot] = []
    async with api_client(server) as client:
        poller = make_poller(client, server, fake, requests_per_minute=20.0)
        poller.subscribe_board(board.append, watched=WatchedProjects(tuple(WatchedProject(pid, str(pid)) for pid in ids)))
        await run_until(poller, fake, lambda: bool(board) and board[-1].loading == 0)
        assert {board[-1].projects[pid].lane for pid in ids} == {"hot"}
        await count_steps(poller, fake, 60)  # the burst is spent
        requests = poller.stats.requests
        steps = await count_steps(poller, fake, 120)
        made = poller.stats.requests - requests
        assert 30 <= made <= 2 * 20 + 2  # the budget is used, and kept to
        assert steps <= 2 * made + 10  # one step reads, the next one sleeps until a token is there
        poller.close()


async def test_the_ci_column_alone_is_read_in_one_round_per_overview_interval(
        sim_factory: Callable[..., SimServer]) -> None:
    """The projects table on top, no board, no alert: the activity check and the reads of the
    rows' projects go out together once per ``overview_interval`` (one wake-up each round, not
    one per read and a check every 5 s), and a push reaches the column in the next round."""
    server = sim_factory()
    fake = fake_clock()
    ids = [project_id(server, path) for path in BUSY]
    for pid in ids[:2]:
        push_pipeline(server, pid, [{"name": "long-build", "duration": 3600}])
    seen: list[ProjectsSnapshot] = []
    async with api_client(server) as client:
        async def answered(_response: httpx.Response) -> None:
            fake.now += 0.2  # each answer takes a moment of the poller's clock, as a real one does

        client.http.event_hooks["response"].append(answered)
        poller = make_poller(client, server, fake, overview_interval=30.0)
        poller.subscribe_projects(seen.append, dict.fromkeys(ids, ""))
        await run_until(poller, fake, lambda: bool(seen) and all(s.loaded for s in seen[-1].projects.values()))
        hot = [pid for pid in ids if poller.tracks[pid].lane == "hot"]
        quiet = next(pid for pid in ids if poller.tracks[pid].lane == "cold")
        assert len(hot) >= 2
        await count_steps(poller, fake, 60)
        checks, reads = poller.stats.by_kind["activity"], poller.stats.by_kind["jobs"]
        last = {pid: poller.tracks[pid].last_ok for pid in hot}
        steps = 0
        for _ in range(4):
            steps += await count_steps(poller, fake, 30)
            # The round's reads answer over real loopback: the last one may still be on its way.
            for _ in range(500):
                if not any(poller.tracks[pid].in_flight for pid in hot):
                    break
                await asyncio.sleep(0.01)
            assert all(poller.tracks[pid].last_ok != last[pid] for pid in hot)  # read every round
            last = {pid: poller.tracks[pid].last_ok for pid in hot}
        assert poller.stats.by_kind["activity"] - checks <= 4 + 1
        assert poller.stats.by_kind["jobs"] - reads <= 4 * len(hot) + 1
        assert steps <= 4 * 3  # a round: one step reads, the next sleeps until the next round
        pushed = push_pipeline(server, quiet, [{"name": "unit-tests", "duration": 600}])
        waited = await run_until(poller, fake, lambda: (newest := seen[-1].projects[quiet].newest) is not None
                                 and newest.pipeline_id == pushed["id"])
        assert waited <= 30
        poller.close()


async def test_a_project_of_the_ci_column_put_on_the_board_goes_live_and_errors_still_back_off(
        sim_factory: Callable[..., SimServer]) -> None:
    """Once the board shows a project the CI column was reading at its overview pace, it is read
    at the live cadence at once (the board's data age stays fresh); when the server then fails,
    its reads back off instead of going out at every step."""
    server = sim_factory()
    fake = fake_clock()
    pid = project_id(server, BUSY[0])
    push_pipeline(server, pid, [{"name": "long-build", "duration": 3600}])
    async with api_client(server, retries=False) as client:
        poller = make_poller(client, server, fake, overview_interval=30.0)
        poller.subscribe_projects(lambda _snapshot: None, {pid: BUSY[0]})
        await run_until(poller, fake, lambda: (track := poller.tracks.get(pid)) is not None and track.loaded)
        await count_steps(poller, fake, 40)
        assert poller.tracks[pid].lane == "hot"
        read_at = poller.tracks[pid].last_ok
        board: list[BoardSnapshot] = []
        poller.subscribe_board(board.append, watched=WatchedProjects((WatchedProject(pid, BUSY[0]),)))
        waited = await run_until(poller, fake, lambda: poller.tracks[pid].last_ok != read_at)
        assert waited <= poller.settings.interval
        await count_steps(poller, fake, 10)
        assert not poller.freshness().is_stale
        set_faults(server, {"error_rate": 1.0, "error_statuses": [503]})
        requests = poller.stats.requests
        await count_steps(poller, fake, 60)
        assert poller.stats.requests - requests <= 20  # 5 s, 10 s, 20 s … apart, not every step
        poller.close()


def test_a_project_read_late_in_its_round_is_due_in_the_next_round_not_the_one_after() -> None:
    """Reads of the CI column answer one after another (0.2 s each on a slow server): the third of
    a round read at 1051.0000000000002 was put off to 1110, skipping the 1080 round."""
    from labdeck.watch import PollerSettings
    from labdeck.watch.tracking import overview_round

    settings = PollerSettings(overview_interval=30.0)
    for late in (0.0, 0.6, 1.0000000000002, 3.0, 6.0):
        assert overview_round(1050.0 + late + 30.0, settings) == 1080.0
    assert overview_round(1080.0 + 15.0, settings) == 1110.0  # mid-round: the next one
