"""The shared poller against the simulator over real HTTP: it finds new failures (both dialects),
reads finished projects no more, stays within its budget while nothing changes, parses nothing on
304, honours 429 ``Retry-After``, and pauses what is not visible except alert targets."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta

import pytest

from labdeck.sim.server import SimServer
from labdeck.watch import BoardSnapshot, WatchedProject, WatchedProjects
from labdeck.watch.pipelines import FAILED
from tests.support.fake_time import FakeTime
from tests.support.sim_control import advance, project_id, push_pipeline, set_faults
from tests.watch.helpers import api_client, fake_clock, fixed, make_poller, run_for, run_until

QUIET = "platform/infra/observability"  # last active more than a day ago, nothing unfinished but manual jobs


def failed_row(board: list[BoardSnapshot], pipeline_id: int) -> bool:
    return bool(board) and any(row.pipeline_id == pipeline_id and row.status == FAILED and "unit-tests" in row.failed_jobs
                               for row in board[-1].rows)


async def in_lockstep(poller: object, fake: FakeTime, server: SimServer, seconds: int,
                      done: Callable[[], bool]) -> int | None:
    """Move the simulator's clock and the poller's together, a second at a time; the second at
    which ``done()`` first held (None if it never did)."""
    for second in range(seconds):
        if done():
            return second
        advance(server, 1)
        await run_for(poller, fake, 1)  # type: ignore[arg-type]
    return None


@pytest.mark.parametrize("dialect", ["spec", "gitlab"])
async def test_a_new_failure_reaches_the_board_within_two_intervals(sim_factory: Callable[..., SimServer],
                                                                     dialect: str) -> None:
    server = sim_factory(dialect=dialect)
    fake = fake_clock()
    board: list[BoardSnapshot] = []
    async with api_client(server) as client:
        poller = make_poller(client, server, fake)
        poller.subscribe_board(board.append, watched=fixed(server, QUIET, "platform/search", "web/storefront"))
        await run_until(poller, fake, lambda: bool(board) and board[-1].loading == 0)
        await run_for(poller, fake, 10)
        quiet = project_id(server, QUIET)
        assert board[-1].projects[quiet].lane == "cold"
        pushed = push_pipeline(server, quiet, [{"name": "unit-tests", "tags": ["docker"], "fail": True, "duration": 30}])
        pid = pushed["id"]
        # The activity check notices the push: the project is read and stays hot while its job waits and runs.
        assert await in_lockstep(poller, fake, server, 8, lambda: board[-1].projects[quiet].lane == "hot") is not None
        job_id = pushed["jobs"][0]["id"]

        def job_failed() -> bool:
            return server.state.jobs[job_id].status == "failed"

        assert await in_lockstep(poller, fake, server, 60, job_failed) is not None
        late = await in_lockstep(poller, fake, server, 30, lambda: failed_row(board, pid))
        assert late is not None and late <= 2 * poller.settings.interval
        assert board[-1].rows[0].pipeline_id == pid  # the newest failure is on top
        assert board[-1].broken >= 1
        poller.close()


async def test_the_sweep_finds_a_push_hidden_by_gitlabs_activity_hour(sim_factory: Callable[..., SimServer]) -> None:
    server = sim_factory(dialect="gitlab")
    quiet = project_id(server, QUIET)
    push_pipeline(server, quiet, [{"name": "plan", "duration": 20}])
    advance(server, 300)  # finished; the project's activity was reset 5 minutes ago
    fake = fake_clock()
    board: list[BoardSnapshot] = []
    async with api_client(server) as client:
        poller = make_poller(client, server, fake, sweep_period=120.0)
        poller.subscribe_board(board.append, watched=fixed(server, QUIET))
        await run_until(poller, fake, lambda: bool(board) and board[-1].loading == 0)
        await run_for(poller, fake, 6)
        activity_before = poller.activity.known.get(quiet)
        pushed = push_pipeline(server, quiet, [{"name": "unit-tests", "fail": True, "duration": 10}])
        found = await in_lockstep(poller, fake, server, 200, lambda: failed_row(board, pushed["id"]))
        assert found is not None and found <= 120 + 10
        assert poller.activity.known.get(quiet) == activity_before  # the activity check never saw it
        poller.close()


async def test_finished_projects_are_not_read_again(sim_factory: Callable[..., SimServer]) -> None:
    server = sim_factory()
    quiet = project_id(server, QUIET)
    fake = fake_clock()
    board: list[BoardSnapshot] = []
    async with api_client(server) as client:
        poller = make_poller(client, server, fake, sweep_period=3600.0)
        poller.subscribe_board(board.append, watched=fixed(server, QUIET))
        await run_until(poller, fake, lambda: bool(board) and board[-1].loading == 0)
        push_pipeline(server, quiet, [{"name": "unit-tests", "duration": 20}])
        await in_lockstep(poller, fake, server, 40, lambda: False)
        assert board[-1].projects[quiet].newest is not None and board[-1].projects[quiet].newest.status == "success"
        await in_lockstep(poller, fake, server, 25, lambda: False)  # past warm_for
        assert board[-1].projects[quiet].lane == "cold"
        reads = poller.stats.by_kind["jobs"]
        await in_lockstep(poller, fake, server, 300, lambda: False)
        assert poller.stats.by_kind["jobs"] == reads  # five minutes: not one more read of its jobs
        assert poller.stats.by_kind["activity"] >= 50  # while the cheap check went on
        assert not poller.freshness().is_stale
        poller.close()


async def test_idle_watching_of_300_projects_stays_within_the_budget(sim_factory: Callable[..., SimServer]) -> None:
    server = sim_factory(projects=300)
    ids = sorted(server.state.projects)
    fake = fake_clock()
    board: list[BoardSnapshot] = []
    async with api_client(server) as client:
        poller = make_poller(client, server, fake)
        poller.subscribe_board(board.append, watched=WatchedProjects(tuple(WatchedProject(pid, str(pid)) for pid in ids)))
        took = await run_until(poller, fake, lambda: bool(board) and board[-1].loading == 0)
        assert took < 30  # 300 first reads on the start-up allowance, not five minutes of budget
        await run_for(poller, fake, 30)
        start, parsed = poller.stats.requests, poller.stats.parsed
        await run_for(poller, fake, 300)  # five minutes; the simulator's clock stands still: nothing changes
        made = poller.stats.requests - start
        assert made <= 5 * 60 + poller.settings.burst
        assert poller.stats.parsed == parsed  # every answer was a 304 (or an ETag already parsed)
        assert poller.stats.by_kind["activity"] >= 55
        lanes = [status.lane for status in board[-1].projects.values()]
        assert lanes.count("cold") >= 270
        poller.close()


@pytest.mark.parametrize("dialect", ["spec", "gitlab"])
async def test_a_304_parses_nothing(sim_factory: Callable[..., SimServer], dialect: str) -> None:
    server = sim_factory(dialect=dialect)
    fake = fake_clock()
    board: list[BoardSnapshot] = []
    async with api_client(server) as client:
        poller = make_poller(client, server, fake, sweep_period=30.0)
        poller.batches.available = False  # the REST reads (GraphQL answers are POSTs: never a 304)
        poller.subscribe_board(board.append, watched=fixed(server, QUIET, "platform/search", "web/storefront"))
        await run_until(poller, fake, lambda: bool(board) and board[-1].loading == 0)
        # The first activity check learns the list; where the server lists pipelines, the first round
        # after it learns each project's listing (one full answer each).
        await run_for(poller, fake, 20)
        parsed, requests, not_modified, snapshots = (poller.stats.parsed, poller.stats.requests,
                                                     poller.stats.not_modified, len(board))
        await run_for(poller, fake, 120)
        assert poller.stats.requests - requests >= 20
        assert poller.stats.not_modified - not_modified == poller.stats.requests - requests
        assert poller.stats.parsed == parsed and len(board) == snapshots
        poller.close()


async def test_a_429_pauses_every_read_for_retry_after(sim_factory: Callable[..., SimServer]) -> None:
    server = sim_factory()
    fake = fake_clock()
    board: list[BoardSnapshot] = []
    async with api_client(server, retries=False) as client:
        poller = make_poller(client, server, fake)
        poller.subscribe_board(board.append, watched=fixed(server, QUIET, "platform/search"))
        await run_until(poller, fake, lambda: bool(board) and board[-1].loading == 0)
        set_faults(server, {"rate_limit": 1.0, "retry_after": 30})
        await run_until(poller, fake, lambda: poller.stats.throttled > 0, limit=10)
        sent, throttled = poller.stats.requests, poller.stats.throttled  # (requests already in flight got 429 too)
        assert 29 <= poller.budget.paused() <= 30
        assert "paused" in poller.freshness().label
        await run_for(poller, fake, 29)
        assert poller.stats.requests == sent  # not one request while the server asked to wait
        set_faults(server, {})
        await run_for(poller, fake, 12)
        assert poller.stats.requests > sent and poller.stats.throttled == throttled
        assert not poller.freshness().is_stale
        poller.close()


async def test_errors_make_the_data_stale_then_it_recovers(sim_factory: Callable[..., SimServer]) -> None:
    server = sim_factory()
    fake = fake_clock()
    board: list[BoardSnapshot] = []
    async with api_client(server, retries=False) as client:
        poller = make_poller(client, server, fake)
        poller.subscribe_board(board.append, watched=fixed(server, QUIET))
        await run_until(poller, fake, lambda: bool(board) and board[-1].loading == 0)
        await run_for(poller, fake, 6)
        assert poller.freshness().label.startswith("data ") and not poller.freshness().is_stale
        set_faults(server, {"error_rate": 1.0, "error_statuses": [503]})
        await run_for(poller, fake, 30)
        fresh = poller.freshness()
        assert fresh.is_stale and fresh.error and fresh.label.endswith("· error")
        set_faults(server, {})
        await run_for(poller, fake, 70)
        assert not poller.freshness().is_stale and poller.freshness().error is None
        poller.close()


@pytest.mark.parametrize("dialect", ["spec", "gitlab"])
async def test_the_activity_check_reads_further_pages_only_when_everything_moved(
        sim_factory: Callable[..., SimServer], dialect: str) -> None:
    from labdeck.watch.activity import ActivityCheck

    server = sim_factory(dialect=dialect, projects=80)
    quiet = sorted(pid for pid, p in server.state.projects.items()
                   if not p.archived and p.last_activity_at < server.state.now() - timedelta(hours=2))[:25]
    async with api_client(server) as client:
        check = ActivityCheck(client, per_page=20, max_pages=3)
        since = dialect == "gitlab"
        first = await check.run(None, since=since)
        assert first.first and first.moved == set() and first.pages == 1
        unchanged = await check.run(None, since=since)
        assert unchanged.moved == set() and unchanged.parsed <= 1
        quiet_again = await check.run(None, since=since)
        assert quiet_again.parsed == 0 and quiet_again.pages == 1  # a 304: nothing parsed
        for pid in quiet:
            push_pipeline(server, pid, [{"name": "unit-tests", "duration": 30}])
        moved = await check.run(None, since=since)
        assert moved.moved == set(quiet) and moved.pages == 2 and not moved.overflow
        advance(server, 3700)  # past GitLab's one-hour activity gap (the demo's own pushes happen meanwhile)
        watermark = check.watermark
        assert watermark is not None
        for pid in quiet[:5]:
            push_pipeline(server, pid, [{"name": "unit-tests", "duration": 30}])
        later = await check.run(None, since=since)
        assert set(quiet[:5]) <= later.moved
        assert all(server.state.projects[pid].last_activity_at > watermark for pid in later.moved)
