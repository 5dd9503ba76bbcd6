"""The on-call board (section 0) against the simulator: what is broken or running across the
watched projects, new failures showing up by themselves, `w` and `W`, filters and freshness."""

from __future__ import annotations

from labdeck.base.config import AlertSettings
from labdeck.ui.screens.board.alerts import AlertLogScreen
from labdeck.ui.screens.board.board import BoardScreen
from labdeck.ui.screens.projects.list import ProjectsScreen
from labdeck.ui.widgets.status_line import StatusLine
from tests.support.pilot import settle, wait_until
from tests.support.sim_control import advance, push_pipeline
from tests.ui.board_support import FAST, open_board, rows
from tests.ui.conftest import SimConsole
from tests.ui.helpers import run_command, toasts


async def test_the_board_shows_what_is_broken_first(console: SimConsole) -> None:
    server = console.server
    async with console.run(board=FAST, size=(120, 40)) as (app, pilot):
        screen = await open_board(app, pilot)
        shown = rows(screen)
        root = next(user for user in server.state.users.values() if user.username == "root")
        starred = {p.id for p in server.state.projects.values() if root.id in p.starred_by}
        assert {row.project_id for row in shown} <= starred
        # Superseded pipelines (an older run of a ref) come last by design, whatever their status.
        statuses = [row.status for row in shown if row.latest_for_ref]
        order = ["failed", "running", "pending", "manual"]
        ranked = [order.index(status) for status in statuses if status in order]
        assert ranked == sorted(ranked), statuses  # what needs attention first
        assert statuses and statuses[0] == "failed"
        failed = shown[0]
        assert failed.failed_jobs and all(name in screen.table.visible_rows()[0].cells[5] for name in failed.failed_jobs)
        assert "failed" in screen.context_text


async def test_a_new_failure_shows_up_by_itself_and_alerts(console: SimConsole) -> None:
    server = console.server
    alerts = AlertSettings(toast=True, bell=False, desktop=False, title=False)
    async with console.run(board=FAST, alerts=alerts, size=(120, 40), notifications=True) as (app, pilot):
        screen = await open_board(app, pilot)
        project_id = rows(screen)[0].project_id
        created = push_pipeline(server, project_id, [{"name": "smoke-test", "duration": 30, "fail": True}])
        pipeline_id = int(created["id"])
        await wait_until(pilot, lambda: any(row.pipeline_id == pipeline_id for row in rows(screen)))
        screen.table.move_cursor_to_key((project_id, pipeline_id))
        await pilot.press("W")  # alert when this pipeline fails
        advance(server, 120)
        await wait_until(pilot, lambda: any(row.pipeline_id == pipeline_id and row.status == "failed"
                                            for row in rows(screen)))
        top = rows(screen)[0]
        assert (top.pipeline_id, top.status, top.failed_jobs) == (pipeline_id, "failed", ("smoke-test",))
        await wait_until(pilot, lambda: any("smoke-test" in text or str(pipeline_id) in text for text in toasts(app)))
        await pilot.press("exclamation_mark")
        await settle(app, pilot)
        log = app.screen
        assert isinstance(log, AlertLogScreen)
        assert any(str(pipeline_id) in str(row.cells[2]) and row.cells[1] == "failed" for row in log.table.rows())


async def test_w_puts_a_project_on_the_board_and_it_stays_after_a_restart(
        console: SimConsole) -> None:
    server = console.server
    root = next(user for user in server.state.users.values() if user.username == "root")
    other = next(p for p in server.state.projects.values()
                 if root.id not in p.starred_by and server.state.project_full_path(p) == "data/reports")
    async with console.run(board=FAST, size=(120, 40)) as (app, pilot):
        await settle(app, pilot)
        projects = app.screen
        assert isinstance(projects, ProjectsScreen)
        assert projects.table.move_cursor_to_key(other.id)
        await pilot.press("w")
        screen = await open_board(app, pilot)
        await wait_until(pilot, lambda: screen.snapshot.watched is not None and other.id in screen.snapshot.watched.ids)
    again = console.app(board=FAST)
    async with again.run_test(size=(120, 40)) as pilot:
        screen = await open_board(again, pilot)
        await wait_until(pilot, lambda: screen.snapshot.watched is not None and other.id in screen.snapshot.watched.ids)
        if any(row.project_id == other.id for row in rows(screen)):
            screen.table.move_cursor_to_key(next((row.project_id, row.pipeline_id) for row in rows(screen)
                                                 if row.project_id == other.id))
            await pilot.press("w")
            await wait_until(pilot, lambda: screen.snapshot.watched is not None
                             and other.id not in screen.snapshot.watched.ids)


async def test_status_filter_and_freshness(console: SimConsole) -> None:
    server = console.server
    async with console.run(board=FAST, size=(80, 24)) as (app, pilot):
        screen = await open_board(app, pilot)
        await pilot.press("f")  # failed only
        assert screen.status_filter == "failed"
        assert rows(screen) and all(row.status == "failed" for row in rows(screen))
        await pilot.press("f")
        assert all(row.status == "running" for row in rows(screen))
        status = screen.query_one(StatusLine)
        # The oldest shown row's age, not the last round's.
        await wait_until(pilot, lambda: "oldest" in str(status.query_one("#status-age").render()))
        server.stop()  # the server goes away: the data ages and turns amber past twice the interval
        await wait_until(pilot, lambda: status.query_one("#status-age").has_class("-stale"), limit=30)


async def test_start_board_opens_the_board_first(console: SimConsole) -> None:
    async with console.run(board=FAST, start="board", size=(120, 40)) as (app, pilot):
        await settle(app, pilot)
        assert isinstance(app.screen, BoardScreen)


async def test_enter_opens_the_pipeline_and_marked_pipelines_get_a_dry_run(
        console: SimConsole) -> None:
    from labdeck.ui.dialogs.bulk import BulkActionScreen
    from labdeck.ui.screens.pipeline.screen import PipelineScreen

    async with console.run(board=FAST, size=(120, 40)) as (app, pilot):
        screen = await open_board(app, pilot)
        failed = [row for row in rows(screen) if row.status == "failed"]
        assert len(failed) >= 2
        await pilot.press("enter")
        await settle(app, pilot)
        pipeline = app.screen
        assert isinstance(pipeline, PipelineScreen) and pipeline.pipeline_id == failed[0].pipeline_id
        await pilot.press("escape")
        await settle(app, pilot)
        assert app.screen is screen
        await pilot.press("space", "space")  # the two failed pipelines at the top
        assert len(screen.marked) == 2
        await pilot.press("R")
        await settle(app, pilot)
        dialog = app.screen
        assert isinstance(dialog, BulkActionScreen)
        planned = {request.target.job.id for request in dialog.plan.requests}
        expected = {job.id for row in failed[:2] for job in row.jobs if job.status == "failed"}
        assert planned and planned <= expected
        assert all(request.path.endswith("/retry") for request in dialog.plan.requests)


async def test_board_group_command_adds_and_removes_a_group(console: SimConsole) -> None:
    """`:board group:<path>` puts every project of the group on the board (in the state file);
    `:board -group:<path>` takes them off again; a wrong word gets the usage."""
    from tests.support.sim_control import project_id

    server = console.server
    root = next(user for user in server.state.users.values() if user.username == "root")
    starred = {p.id for p in server.state.projects.values() if root.id in p.starred_by}
    in_group = {project_id(server, "tools/ci-templates"), project_id(server, "tools/benchmarks")}
    assert not in_group & starred  # the group brings projects the starred set does not have
    async with console.run(board=FAST, size=(120, 40)) as (app, pilot):
        screen = await open_board(app, pilot)
        await run_command(app, pilot, "board group:tools")
        # The group's projects are read first (a worker): on a loaded machine the toast comes later.
        await wait_until(pilot, lambda: any("Watching every project of tools." in message for message in toasts(app)),
                         what="the group's toast")
        await wait_until(pilot, lambda: screen.snapshot.watched is not None and in_group <= screen.snapshot.watched.ids)
        assert "tools" in app.watching.store.groups
        await run_command(app, pilot, "board -group:tools")
        assert "tools" not in app.watching.store.groups
        await run_command(app, pilot, "board nonsense")
        await wait_until(pilot, lambda: any("usage: :board" in message for message in toasts(app)), what="the usage")


async def test_ages_move_on_when_nothing_changes_on_the_server(console: SimConsole) -> None:
    """A quiet server sends no new data: the board's ages still follow the clock (they used to
    stay at the time of the last snapshot for as long as nothing changed)."""
    from datetime import timedelta

    server = console.server
    async with console.run(board=FAST, size=(120, 40)) as (app, pilot):
        screen = await open_board(app, pilot)

        def ages() -> list[str]:
            return [str(row.cells[screen.table.columns.index(next(c for c in screen.table.columns if c.key == "age"))])
                    for row in screen.table.visible_rows()]

        before = ages()
        later = server.state.clock.now() + timedelta(hours=30)
        app.clock = lambda: later  # the console's clock moves on; the server's does not
        await wait_until(pilot, lambda: ages() != before, limit=8.0)
        assert all(age.endswith("d") for age in ages()), ages()


async def test_board_help_says_the_bound_from_the_projects_and_the_budget(console: SimConsole) -> None:
    from labdeck.base.config import BoardSettings
    from labdeck.ui.dialogs.message import MessageScreen
    from labdeck.watch.ages import short

    slow = BoardSettings(interval=0.3, requests_per_minute=12, max_in_flight=8)
    async with console.run(board=slow, size=(120, 40)) as (app, pilot):
        # The bound comes from the watched set and the budget, not from rows: at 12 requests a
        # minute the first round would take half a minute, so the help is asked before it ends.
        await settle(app, pilot)
        await pilot.press("0")
        board = app.screen
        assert isinstance(board, BoardScreen)
        await wait_until(pilot, lambda: len(app.watching.watched.current().projects) > 1, what="watched set")
        count = len(app.watching.watched.current().projects)
        await pilot.press("1")
        await wait_until(pilot, lambda: app.screen is not board, what="the projects section")
        for line in ("board help", "help board"):
            # Not run_command: its settle would wait for the projects section's reads at 12 a minute.
            await pilot.press("colon")
            await wait_until(pilot, lambda: bool(app.screen.query("#command")), what="the : line")
            app.screen.query_one("#command").value = line  # type: ignore[attr-defined]
            await pilot.press("enter")
            await wait_until(pilot, lambda: isinstance(app.screen, MessageScreen), what=f":{line}")
            message = app.screen._message  # type: ignore[attr-defined]
            poller = app.watching.poller
            assert f"{count} watched projects" in message
            assert f"read again within {short(poller.read_bound(count))} at 12 requests a minute" in message
            await pilot.press("escape")
            await wait_until(pilot, lambda: not isinstance(app.screen, MessageScreen), what="closed")
        assert not isinstance(app.screen, BoardScreen)  # help, not the board


async def test_the_cursor_opens_on_the_most_urgent_row_and_a_moved_cursor_keeps_its_pipeline(
        console: SimConsole) -> None:
    """Rows arrive page by page: the cursor, never moved, is on the top row when the round is
    complete (not on whichever row came first); moved down, it stays on its pipeline when a new
    failure comes in above it, so a key pressed next acts on what the person was looking at."""
    server = console.server
    async with console.run(board=FAST, size=(120, 40)) as (app, pilot):
        screen = await open_board(app, pilot)
        assert screen.table.cursor_row == 0 and screen.table.cursor_data == rows(screen)[0]
        await pilot.press("down")
        chosen = screen.table.cursor_key
        project_id = rows(screen)[-1].project_id
        created = push_pipeline(server, project_id, [{"name": "smoke-test", "duration": 5, "fail": True}])
        advance(server, 30)
        await wait_until(pilot, lambda: any(row.pipeline_id == int(created["id"]) and row.status == "failed"
                                            for row in rows(screen)))
        assert screen.table.cursor_key == chosen


async def test_a_token_that_may_not_read_the_runners_is_told_once(console: SimConsole) -> None:
    """Not an administrator: the board says once that runner lists are not readable with this
    token (it used to read ``/runners/all`` every minute, a 403 each time, and say nothing)."""
    async with console.run("user", board=FAST, size=(120, 40), notifications=True) as (app, pilot):
        await open_board(app, pilot)
        said = "Runner lists are not readable with this token"
        await wait_until(pilot, lambda: any(said in text for text in toasts(app)))
        await settle(app, pilot)
        assert sum(said in text for text in toasts(app)) == 1
        assert app.watching.poller.stats.by_kind["runners"] == 1
