"""``B`` wherever a job or a pipeline is on screen, and ``:audit`` from the command line: the
marked jobs of the jobs table, the job of the log viewer, the pipeline of a board row and of the
pipeline view each end up in one archive with exactly their evidence."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from textual.widgets import Input

from labdeck.ui.app import LabdeckApp
from labdeck.ui.dialogs.bundle import BundleDoneDialog
from labdeck.ui.dialogs.download import PathDialog
from labdeck.ui.screens.audit.list import AuditScreen
from labdeck.ui.screens.jobs.table import JobTable
from labdeck.ui.screens.jobs.trace import TraceScreen
from labdeck.ui.screens.pipeline.screen import PipelineScreen
from tests.support.bundles import members
from tests.support.pilot import wait_until
from tests.ui.board_support import FAST, open_board
from tests.ui.conftest import SimConsole
from tests.ui.helpers import run_command
from tests.ui.jobs_support import advance, create_pipeline, open_jobs

THREE_FAILING = [{"name": "test", "jobs": [
    {"name": "one", "duration": 10, "fail": True}, {"name": "two", "duration": 10, "fail": True},
    {"name": "three", "duration": 10, "fail": True}]}]


async def bundle_files(app: LabdeckApp, pilot: Any, dest: Path) -> dict[str, bytes]:
    """After ``B``: answer the path dialog and read the archive written."""
    await wait_until(pilot, lambda: isinstance(app.screen, PathDialog), what="the path dialog")
    # Not waiting for every worker: the log viewer's follower never ends by itself.
    app.screen.query_one("#dest", Input).value = str(dest)
    await pilot.press("enter")
    await wait_until(pilot, lambda: isinstance(app.screen, BundleDoneDialog), what="the bundle")
    done = app.screen
    assert isinstance(done, BundleDoneDialog), type(done)
    return members(done.bundle.path)


def job_files(files: dict[str, bytes]) -> set[int]:
    return {int(name.removeprefix("jobs/").removesuffix(".json")) for name in files
            if name.startswith("jobs/") and name.endswith(".json")}


async def test_b_bundles_the_marked_jobs_of_the_jobs_table(console: SimConsole, tmp_path: Path) -> None:
    server = console.server
    pipeline = await create_pipeline(server, THREE_FAILING)
    ids = [job["id"] for job in pipeline["jobs"]]
    await advance(server, 30)
    async with console.run(size=(120, 40)) as (app, pilot):
        screen = await open_jobs(app, pilot, pipeline_id=pipeline["id"])
        table = screen.query_one(JobTable)
        for job_id in (ids[0], ids[2]):
            await wait_until(pilot, lambda job_id=job_id: table.select_job(job_id), what="the row")
            await pilot.press("space")
        await pilot.press("B")
        files = await bundle_files(app, pilot, tmp_path)
        assert job_files(files) == {ids[0], ids[2]}
        assert "## Job" in files["summary.md"].decode()


async def test_b_in_the_log_viewer_bundles_that_job(console: SimConsole, tmp_path: Path) -> None:
    server = console.server
    pipeline = await create_pipeline(server, THREE_FAILING)
    job = pipeline["jobs"][1]
    await advance(server, 30)
    async with console.run(size=(120, 40)) as (app, pilot):
        screen = await open_jobs(app, pilot, pipeline_id=pipeline["id"])
        await wait_until(pilot, lambda: screen.query_one(JobTable).select_job(job["id"]), what="the row")
        await pilot.press("enter")
        await wait_until(pilot, lambda: isinstance(app.screen, TraceScreen), what="the log viewer")
        await pilot.press("B")
        files = await bundle_files(app, pilot, tmp_path)
        assert job_files(files) == {job["id"]}
        assert f"jobs/{job['id']}.log.txt" in files


async def test_b_on_a_board_row_and_in_the_pipeline_view_bundles_the_pipeline(
        console: SimConsole, tmp_path: Path) -> None:
    server = console.server
    async with console.run(board=FAST, size=(120, 40)) as (app, pilot):
        board = await open_board(app, pilot)
        row = board.selected()
        assert row is not None
        expected = {job.id for job in server.state.jobs.values() if job.pipeline_id == row.pipeline_id}
        await pilot.press("B")
        files = await bundle_files(app, pilot, tmp_path / "board")
        assert f"pipeline-{row.pipeline_id}.json" in files
        listed = {item["id"] for item in json.loads(files[f"pipeline-{row.pipeline_id}.json"])}
        assert listed == expected
        await pilot.press("escape")  # close the done dialog without copying
        await pilot.press("enter")
        await wait_until(pilot, lambda: isinstance(app.screen, PipelineScreen), what="the pipeline view")
        await pilot.press("B")
        files = await bundle_files(app, pilot, tmp_path / "pipeline")
        assert f"pipeline-{row.pipeline_id}.json" in files


async def test_audit_command_opens_the_local_log(console: SimConsole) -> None:
    async with console.run(size=(120, 40)) as (app, pilot):
        await run_command(app, pilot, "audit since=1d")
        assert isinstance(app.screen, AuditScreen)
