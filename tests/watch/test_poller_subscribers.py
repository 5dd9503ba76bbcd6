"""What subscribers of the shared poller see, over real HTTP to the simulator: a hidden board is
paused (alert targets are not), alerts fire once through the poller, ``w`` persists across a
restart of the whole stack, the projects table's CI column follows the visible rows, and the
admin "running now" strip."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from labdeck.api.models import Job
from labdeck.base.statefile import StateStore
from labdeck.sim.server import SimServer
from labdeck.watch import (
    Alert,
    AlertEngine,
    AlertLog,
    BoardSnapshot,
    ProjectsSnapshot,
    RunningNowSnapshot,
    WatchedSet,
    WatchStore,
    WatchTarget,
)
from tests.support.sim_control import advance, project_id, push_pipeline
from tests.watch.helpers import api_client, fake_clock, fixed, make_poller, run_for, run_until

QUIET = "platform/infra/observability"
OTHER = "web/storefront"


async def test_a_hidden_board_is_paused_but_alert_targets_are_read(sim_factory: Callable[..., SimServer]) -> None:
    server = sim_factory()
    quiet, other = project_id(server, QUIET), project_id(server, OTHER)
    fake = fake_clock()
    board: list[BoardSnapshot] = []
    fired: list[Alert] = []
    async with api_client(server) as client:
        poller = make_poller(client, server, fake, sweep_period=60.0)
        alerts = AlertEngine(AlertLog(), on_alert=fired.append)
        poller.add_alerts(alerts)
        sub = poller.subscribe_board(board.append, watched=fixed(server, QUIET, OTHER))
        await run_until(poller, fake, lambda: bool(board) and board[-1].loading == 0)
        pushed = push_pipeline(server, quiet, [{"name": "unit-tests", "fail": True, "duration": 20}])
        alerts.watch(WatchTarget.for_project(quiet, QUIET))
        sub.set_visible(False)
        snapshots = len(board)
        other_read = poller.tracks[other].last_ok
        for _ in range(40):
            advance(server, 1)
            await run_for(poller, fake, 1)
        assert poller.tracks[other].last_ok == other_read  # nobody shows it: not read
        assert len(board) == snapshots  # no callbacks while hidden
        assert [(a.event, a.pipeline_id) for a in fired] == [("new_failure", pushed["id"])]
        sub.set_visible(True)
        await run_for(poller, fake, 0.1)
        assert len(board) == snapshots + 1  # the current board, at once
        assert any(row.pipeline_id == pushed["id"] for row in board[-1].rows)
        await run_for(poller, fake, 65)
        assert poller.tracks[other].last_ok != other_read  # read again once visible
        poller.close()


async def test_a_watched_job_alerts_once(sim_factory: Callable[..., SimServer]) -> None:
    server = sim_factory(dialect="gitlab")
    quiet = project_id(server, QUIET)
    fake = fake_clock()
    fired: list[Alert] = []
    async with api_client(server) as client:
        poller = make_poller(client, server, fake)
        alerts = AlertEngine(AlertLog(), on_alert=fired.append)
        poller.add_alerts(alerts)  # no board at all: alerts alone keep their targets read
        pushed = push_pipeline(server, quiet, [{"name": "lint", "tags": ["docker"], "duration": 5},
                                                 {"name": "unit-tests", "tags": ["docker"], "fail": True, "duration": 25}])
        lint, unit = (Job.model_validate(j) for j in pushed["jobs"])
        alerts.watch(WatchTarget.for_job(quiet, QUIET, unit))
        alerts.watch(WatchTarget.for_pipeline_id(quiet, QUIET, pushed["id"]))
        for _ in range(60):
            advance(server, 1)
            await run_for(poller, fake, 1)
        assert sorted((a.target.kind, a.event) for a in fired) == [("job", "failed"), ("pipeline", "failed")]
        assert alerts.failing() == 2
        assert lint.id != unit.id
        poller.close()


async def test_w_survives_a_restart_of_the_whole_stack(sim: SimServer, tmp_path: Path) -> None:
    path = tmp_path / "state.json"
    StateStore(path).update(last_profile="work")
    reports = project_id(sim, "data/reports")
    WatchStore(StateStore(path), sim.base_url).add(reports, "data/reports")
    # A new session: new store, new client, new poller.
    fake = fake_clock()
    board: list[BoardSnapshot] = []
    async with api_client(sim, "user") as client:
        poller = make_poller(client, sim, fake)
        watched = WatchedSet(client, WatchStore(StateStore(path), sim.base_url))
        poller.subscribe_board(board.append, watched=watched)
        await run_until(poller, fake, lambda: bool(board) and watched.resolved and board[-1].loading == 0)
        assert board[-1].projects[reports].loaded and board[-1].projects[reports].path == "data/reports"
        assert "added" in {s for p in board[-1].watched.projects if p.id == reports for s in p.sources}  # type: ignore[union-attr]
        poller.close()
    assert StateStore(path).load()["last_profile"] == "work"


async def test_projects_table_column_follows_the_visible_rows(sim: SimServer) -> None:
    fake = fake_clock()
    seen: list[ProjectsSnapshot] = []
    first = {project_id(sim, "platform/infra/k8s-manifests"): "platform/infra/k8s-manifests"}
    second = {project_id(sim, "platform/auth-service"): "platform/auth-service"}
    async with api_client(sim) as client:
        poller = make_poller(client, sim, fake)
        table = poller.subscribe_projects(seen.append, first)
        await run_until(poller, fake, lambda: bool(seen) and all(s.loaded for s in seen[-1].projects.values()))
        status = next(iter(seen[-1].projects.values()))
        assert status.newest is not None and status.newest.status == "failed"
        table.set_projects(second)
        await run_until(poller, fake, lambda: set(seen[-1].projects) == set(second)
                        and all(s.loaded for s in seen[-1].projects.values()))
        assert next(iter(seen[-1].projects.values())).newest.status == "pending"  # type: ignore[union-attr]
        poller.close()


async def test_running_now_for_admins_only(sim: SimServer) -> None:
    for role, expect_jobs in (("admin", True), ("user", False)):
        fake = fake_clock()
        strips: list[RunningNowSnapshot] = []
        async with api_client(sim, role) as client:
            poller = make_poller(client, sim, fake)
            poller.subscribe_running_now(strips.append)
            await run_until(poller, fake, lambda strips=strips: bool(strips))  # type: ignore[misc]
            strip = strips[-1]
            if expect_jobs:
                assert strip.error is None and strip.jobs and strip.runners_online > 0
                assert all(item.job.status == "running" and item.project_path for item in strip.jobs)
            else:
                assert strip.error is not None and strip.jobs == ()
            requests = poller.stats.by_kind["runners"]
            await run_for(poller, fake, 30)
            assert poller.stats.by_kind["runners"] == requests  # its own, slower cadence
            poller.close()


async def test_run_in_a_task_and_stop(sim: SimServer) -> None:
    """How the UI runs it (an async worker is a task on the app's loop): real clock and sleep."""
    import asyncio

    from labdeck.watch import BoardPoller, PollerSettings, ServerClock

    board: list[BoardSnapshot] = []
    async with api_client(sim) as client:
        poller = BoardPoller(client, PollerSettings(interval=1.0), server_clock=ServerClock(source=sim.state.now))
        poller.subscribe_board(board.append, watched=fixed(sim, QUIET, OTHER))
        task = asyncio.create_task(poller.run())
        for _ in range(100):
            if board and board[-1].loading == 0 and poller.stats.by_kind["activity"] >= 2:
                break
            await asyncio.sleep(0.05)
        assert board[-1].loading == 0 and poller.stats.by_kind["activity"] >= 2
        assert not poller.freshness().is_stale and poller.freshness().label.startswith("data ")
        hooks = len(client.http.event_hooks["response"])
        poller.stop()
        await asyncio.wait_for(task, 2)
        assert len(client.http.event_hooks["response"]) == hooks - 1  # its response hook is gone
        made = poller.requests_made
        await client.projects.get(project_id(sim, QUIET))
        assert poller.requests_made == made  # other screens' requests are not the poller's


async def test_projects_only_the_ci_column_shows_are_read_at_the_overview_pace(sim: SimServer) -> None:
    """A running project on the board is read at the live cadence; one only the projects table's
    CI column shows (no board, no alert) at most once per ``overview_interval``."""
    fake = fake_clock()
    live, overview = project_id(sim, QUIET), project_id(sim, OTHER)
    for pid in (live, overview):
        push_pipeline(sim, pid, [{"name": "long-build", "duration": 3600}])
    async with api_client(sim) as client:
        poller = make_poller(client, sim, fake, overview_interval=30.0)
        board: list[BoardSnapshot] = []
        poller.subscribe_board(board.append, watched=fixed(sim, QUIET))
        poller.subscribe_projects(lambda _snapshot: None, {overview: OTHER})
        await run_until(poller, fake, lambda: all((t := poller.tracks.get(p)) is not None and t.loaded for p in (live, overview)))
        reads = {live: 0, overview: 0}
        last = {pid: poller.tracks[pid].last_ok for pid in reads}
        for _ in range(90):
            advance(sim, 1)
            await run_for(poller, fake, 1)
            for pid in reads:
                if poller.tracks[pid].last_ok != last[pid]:
                    reads[pid] += 1
                    last[pid] = poller.tracks[pid].last_ok
        assert reads[overview] <= 3  # 90 s at one read per 30 s
        assert reads[live] >= 2 * reads[overview] + 4  # the board's project keeps its live cadence
        poller.close()
