"""Where ``F`` opens the merged view from, and whose jobs it reads: the marked rows of the jobs
screen, the marked jobs of a pipeline, a board row's running jobs, and jobs of another instance
(read from that instance)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from labdeck.base.secret import Secret
from labdeck.base.session import Session
from labdeck.base.statefile import StateStore
from labdeck.ui.app import LabdeckApp
from labdeck.ui.screens.follow.screen import FollowScreen
from labdeck.ui.screens.jobs.trace import TraceScreen
from labdeck.ui.ui_state import UiState
from tests.support.pilot import settle, wait_until
from tests.ui.board_support import FAST, open_board, starred_project
from tests.ui.board_support import rows as board_rows
from tests.ui.conftest import SimConsole
from tests.ui.follow_support import deploy_stage, job_id, rows
from tests.ui.jobs_support import (
    PROJECT_ID,
    PROJECT_PATH,
    advance,
    append_trace,
    control,
    create_pipeline,
    listed_ids,
    open_jobs,
)
from tests.ui.pipeline_support import open_pipeline

pytestmark = pytest.mark.usefixtures("fast_following")  # reads every few tens of milliseconds


async def test_F_on_the_jobs_screen_follows_the_marked_rows(console: SimConsole) -> None:
    server = console.server
    pipeline = await deploy_stage(server)
    async with console.run(size=(80, 24)) as (app, pilot):
        screen = await open_jobs(app, pilot, pipeline_id=pipeline["id"])
        await pilot.press("F")
        assert app.screen is screen  # nothing marked: says how, opens nothing
        await wait_until(pilot, lambda: len(listed_ids(screen)) == 3, what="the three jobs")
        await pilot.press("space", "j", "space")
        marked = {job.id for job in screen.marked_jobs()}
        assert len(marked) == 2
        await pilot.press("F")
        await wait_until(pilot, lambda: isinstance(app.screen, FollowScreen), what="the merged view")
        follow = app.screen
        assert isinstance(follow, FollowScreen)
        assert {job.id for job in follow.jobs} == marked


async def test_jobs_of_another_instance_are_read_from_that_instance(
        console: SimConsole, sim_factory: Any, tokens: dict[str, str], state_path: Path) -> None:
    """A board row or a pipeline of staging opens the view on staging: the screen gets its
    instance when it is pushed, after it was made (its reads must use that instance's client)."""
    prod, staging = console.server, sim_factory(dialect="gitlab")
    pipeline = await deploy_stage(staging)
    session = Session(base_url=prod.base_url, token=Secret(tokens["admin"]), profile="production", short_name="prod")
    second = Session(base_url=staging.base_url, token=Secret(tokens["admin"]), profile="staging")
    app = LabdeckApp(session, ui_state=UiState(StateStore(state_path)), more_sessions=[second])
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        staging_instance = app.instances[1]
        job = await staging_instance.client.jobs.get(PROJECT_ID, job_id(pipeline, "eu"))
        follow = FollowScreen(PROJECT_ID, PROJECT_PATH, [job], title="deploy")
        follow.instance = staging_instance  # as the push does (see labdeck.ui.instances.inherit_instance)
        await app.push_screen(follow)
        await append_trace(staging, job.id, b"hello from staging\n")
        await wait_until(pilot, lambda: "deploy-eu │ hello from staging" in rows(follow.view), limit=10,
                         what="the staging job's line")
        assert not follow.follower.states[0].trouble
        # It fails while its own log is shown on top: staging's alerts ring, not prod's.
        rung: dict[str, list[str]] = {"prod": [], "staging": []}
        for instance in app.instances:
            watching = instance.watching
            assert watching is not None
            watching.ring = (  # type: ignore[method-assign]
                lambda target, status, name=instance.short, **_: rung[name].append(status))
        await app.push_screen(TraceScreen(PROJECT_ID, PROJECT_PATH, job))
        await advance(staging, 700)
        await wait_until(pilot, lambda: rung["staging"] or rung["prod"], limit=10, what="the alert")
        assert rung == {"prod": [], "staging": ["failed"]}


async def test_F_on_a_pipeline_follows_its_marked_jobs(console: SimConsole) -> None:
    pipeline = await deploy_stage(console.server)
    async with console.run(size=(80, 24)) as (app, pilot):
        screen = await open_pipeline(app, pilot, pipeline["id"])
        await pilot.press("space", "j", "space")  # space marks and moves on: the first and the third
        marked = set(screen.view.marked)
        assert len(marked) == 2
        await pilot.press("F")
        await wait_until(pilot, lambda: isinstance(app.screen, FollowScreen), what="the merged view")
        follow = app.screen
        assert isinstance(follow, FollowScreen) and {job.id for job in follow.jobs} == marked


async def test_F_on_a_board_row_follows_the_pipelines_running_jobs(console: SimConsole) -> None:
    server = console.server
    project = starred_project(server)
    for runner_id in list(server.state.runners):
        await control(server, "PUT", f"/runners/{runner_id}", json={"concurrent": 20})
    pipeline = await create_pipeline(server, [
        {"name": "deploy", "jobs": [{"name": f"deploy-{region}", "generate_trace": False, "duration": None}
                                    for region in ("eu", "us")]},
        {"name": "verify", "jobs": [{"name": "smoke", "generate_trace": False}]}], project_id=project)
    await advance(server, 5)
    running = {job["id"] for job in pipeline["jobs"] if job["name"].startswith("deploy-")}
    async with console.run(board=FAST, size=(120, 40)) as (app, pilot):
        board = await open_board(app, pilot)
        await wait_until(pilot, lambda: any(row.pipeline_id == pipeline["id"] and
                                            {job.id for job in row.jobs if job.status == "running"} == running
                                            for row in board_rows(board)), limit=20, what="the row's running jobs")
        board.table.move_cursor_to_key((project, pipeline["id"]))
        await pilot.press("F")
        await wait_until(pilot, lambda: isinstance(app.screen, FollowScreen), what="the merged view")
        follow = app.screen
        assert isinstance(follow, FollowScreen) and {job.id for job in follow.jobs} == running
        await append_trace(server, min(running), b"rolling out\n", project_id=project)
        await wait_until(pilot, lambda: any(line.endswith("│ rolling out") for line in rows(follow.view)),
                         what="its first line")
