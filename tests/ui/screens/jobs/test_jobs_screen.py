"""The jobs section against a private simulator: it refreshes by itself as simulated time passes,
highlights rows that changed, filters by several statuses, by stage and name, groups by pipeline
and stage, and pauses while hidden."""

from __future__ import annotations

from typing import Any

import pytest
from textual.screen import Screen
from textual.widgets import Input, SelectionList

from labdeck.ui.screens.jobs.header import TraceHeader
from labdeck.ui.screens.jobs.status_filter import StatusFilterDialog
from labdeck.ui.screens.jobs.table import JobTable
from labdeck.ui.screens.jobs.trace import TraceScreen
from tests.support.pilot import wait_until
from tests.ui.conftest import SimConsole
from tests.ui.jobs_support import advance, create_pipeline, listed_ids, open_jobs, row_status

TWO_STAGES = [
    {"name": "build", "jobs": [{"name": "compile", "duration": 30}]},
    {"name": "test", "jobs": [{"name": "unit", "duration": 30}, {"name": "lint", "duration": 30}]},
]


async def test_list_updates_by_itself_and_highlights_changes(
        console: SimConsole) -> None:
    server = console.server
    pipeline = await create_pipeline(server, TWO_STAGES)
    compile_id, unit_id, lint_id = (job["id"] for job in pipeline["jobs"])
    async with console.run(size=(120, 40)) as (app, pilot):
        screen = await open_jobs(app, pilot, pipeline_id=pipeline["id"])
        assert sorted(listed_ids(screen)) == [compile_id, unit_id, lint_id]
        assert row_status(screen, compile_id) in ("pending", "running")
        assert row_status(screen, unit_id) == "created"
        assert screen.changed_job_ids() == set()

        # No key pressed: only simulated time moves.
        await advance(server, 45)
        await wait_until(pilot, lambda: row_status(screen, compile_id) == "success", what="compile success")
        assert compile_id in screen.changed_job_ids()
        await wait_until(pilot, lambda: row_status(screen, unit_id) in ("pending", "running"),
                         what="the test stage to start")
        assert unit_id in screen.changed_job_ids()

        await advance(server, 120)
        await wait_until(pilot, lambda: row_status(screen, lint_id) == "success", what="lint success")
        await wait_until(pilot, lambda: "every" in screen.context_text, what="the refresh state")


async def test_refresh_goes_on_under_a_dialog_and_pauses_while_hidden(console: SimConsole) -> None:
    """Issue 32: a dialog leaves the list in view, so it keeps reading (a job that ends under it
    shows); a full screen over it hides it, and it reads nothing until shown again."""
    server = console.server
    pipeline = await create_pipeline(server, TWO_STAGES)
    compile_id = pipeline["jobs"][0]["id"]
    async with console.run(size=(120, 40)) as (app, pilot):
        screen = await open_jobs(app, pilot, pipeline_id=pipeline["id"])
        await wait_until(pilot, lambda: screen.refresh_count >= 3, what="a few refreshes")
        await app.push_screen(StatusFilterDialog(frozenset()))
        covered_at = screen.refresh_count
        await advance(server, 45)
        await wait_until(pilot, lambda: row_status(screen, compile_id) == "success", what="compile ends under the dialog")
        assert screen.refresh_count > covered_at and isinstance(app.screen, StatusFilterDialog)
        await app.push_screen(Screen())  # a full screen over the dialog: the list is out of view
        await pilot.pause(0.3)
        paused_at = screen.refresh_count
        await pilot.pause(0.6)
        assert screen.refresh_count == paused_at  # nothing while hidden
        app.pop_screen()
        await wait_until(pilot, lambda: screen.refresh_count > paused_at, what="reads again under the dialog")
        app.pop_screen()
        resumed_at = screen.refresh_count
        await wait_until(pilot, lambda: screen.refresh_count > resumed_at, what="reads on top")


async def test_filters_statuses_stage_and_name(console: SimConsole) -> None:
    async with console.run(size=(140, 40)) as (app, pilot):
        screen = await open_jobs(app, pilot)
        all_statuses = {row_status(screen, job_id) for job_id in listed_ids(screen)}
        assert {"success", "manual"} <= all_statuses and len(all_statuses) >= 3

        # Several statuses at once, through the dialog (sent to the server as scope[]).
        await pilot.press("s")
        await wait_until(pilot, lambda: isinstance(app.screen, StatusFilterDialog), what="the status dialog")
        dialog = app.screen
        assert isinstance(dialog, StatusFilterDialog)
        choices = dialog.query_one(SelectionList)
        choices.select("manual")
        choices.select("created")
        await pilot.click("#apply")
        await wait_until(pilot, lambda: screen.job_filter.statuses == {"manual", "created"}, what="the filter")
        await wait_until(pilot, lambda: {row_status(screen, i) for i in listed_ids(screen)} == {"manual", "created"},
                         what="only manual and created jobs")

        # Stage and name, client side.
        screen.set_status_filter(frozenset())
        await wait_until(pilot, lambda: len({row_status(screen, i) for i in listed_ids(screen)}) >= 3,
                         what="all statuses again")
        await pilot.press("slash")
        screen.query_one("#filter", Input).value = "stage:deploy"  # as if typed (one redraw, not 12)
        await pilot.press("enter")
        rows = [screen.jobs_by_id()[job_id] for job_id in listed_ids(screen)]
        assert rows and all(job.stage == "deploy" for job in rows)
        assert "/stage:deploy" in str(screen.query_one("#title-filter").render())
        await pilot.press("slash")
        screen.query_one("#filter", Input).value = "stage:deploy production"
        await pilot.press("enter")
        rows = [screen.jobs_by_id()[job_id] for job_id in listed_ids(screen)]
        assert rows and all(job.stage == "deploy" and "production" in job.name for job in rows)
        await pilot.press("escape")
        assert len(listed_ids(screen)) == len(screen.jobs)


async def test_typed_filter_matches_status_ref_user_runner_and_id(
        console: SimConsole) -> None:
    async with console.run(size=(120, 40)) as (app, pilot):
        screen = await open_jobs(app, pilot)

        async def typed(text: str) -> list[Any]:
            await pilot.press("slash")
            screen.query_one("#filter", Input).value = text
            await pilot.press("enter")
            return [screen.jobs_by_id()[job_id] for job_id in listed_ids(screen)]

        failed = [job for job in screen.jobs if job.status == "failed"]
        assert failed and len(failed) < len(screen.jobs)
        assert {job.id for job in await typed("failed")} == {job.id for job in failed}
        assert "/failed" in str(screen.query_one("#title-filter").render())
        ref = screen.jobs[-1].ref
        assert {job.id for job in await typed(f"ref:{ref}")} == {job.id for job in screen.jobs if ref in job.ref}
        with_runner = next(job for job in screen.jobs if job.runner is not None and job.runner.description)
        runner_jobs = await typed(f"runner:{with_runner.runner.description}")
        assert with_runner.id in {job.id for job in runner_jobs}
        assert all(job.runner is not None for job in runner_jobs)
        user = screen.jobs[0].user.username
        assert all(job.user.username == user for job in await typed(f"user:{user}"))
        assert [job.id for job in await typed(str(failed[0].id))] == [failed[0].id]
        assert {job.id for job in await typed("failed test")} == {j.id for j in failed if "test" in j.stage
                                                                   or "test" in j.name or "test" in j.ref}
        assert await typed("no-such-thing-anywhere") == []


@pytest.mark.parametrize(("width", "hidden"), [(120, {"user"}), (80, {"pipeline", "user", "runner", "artifacts"})])
async def test_the_table_fits_the_terminal(console: SimConsole,
                                           width: int, hidden: set[str]) -> None:
    async with console.run(size=(width, 30)) as (app, pilot):
        screen = await open_jobs(app, pilot)
        table = screen.query_one(JobTable)
        await pilot.pause()
        keys = [str(key.value) for key in table.columns]
        assert keys[:3] == ["id", "status", "duration"]  # the duration next to the status
        assert {"name", "ref", "created"} <= set(keys) and not hidden & set(keys)
        assert table.virtual_size.width <= table.scrollable_content_region.width  # nothing cut off
        job = screen.jobs[0]
        assert str(table.get_cell(str(job.id), "created")).endswith("ago")
        screen.group_mode = "stage"
        screen.action_cycle_group()  # back to a flat list, then grouped: still fits
        screen.action_cycle_group()
        await pilot.pause()
        assert table.virtual_size.width <= table.scrollable_content_region.width


async def test_group_by_pipeline_then_stage(console: SimConsole) -> None:
    async with console.run(size=(140, 40)) as (app, pilot):
        screen = await open_jobs(app, pilot)
        table = screen.query_one(JobTable)
        assert not any(key.value.startswith("group:") for key in table.rows)
        await pilot.press("v")
        groups = [table.groups[key.value] for key in table.rows if key.value.startswith("group:")]
        pipelines = {job.pipeline.id for job in screen.jobs}
        assert sorted(group.pipeline_id for group in groups) == sorted(pipelines)
        assert all(str(table.get_row(f"group:{index}")[0]) == f"▾ #{group.pipeline_id}"
                   for index, group in enumerate(groups))
        # Rows under a group header belong to that pipeline.
        current = None
        for key in table.rows:
            if key.value.startswith("group:"):
                current = table.groups[key.value].pipeline_id
            else:
                assert screen.jobs_by_id()[int(key.value)].pipeline.id == current
        await pilot.press("v")
        by_stage = [table.groups[key.value] for key in table.rows if key.value.startswith("group:")]
        assert len(by_stage) > len(groups) and all(group.stage for group in by_stage)
        current_group = None
        for key in table.rows:
            if key.value.startswith("group:"):
                current_group = table.groups[key.value]
            else:
                job = screen.jobs_by_id()[int(key.value)]
                assert current_group is not None
                assert (job.pipeline.id, job.stage) == (current_group.pipeline_id, current_group.stage)
        await pilot.press("v")
        assert not any(key.value.startswith("group:") for key in table.rows)


async def test_enter_opens_the_log_and_server_strings_are_not_markup(
        console: SimConsole) -> None:
    server = console.server
    hostile = "[bold red]x[/] [@click=app.quit]quit[/]"
    pipeline = await create_pipeline(server, [{"name": "build", "jobs": [{"name": hostile, "duration": 30}]}])
    job_id = pipeline["jobs"][0]["id"]
    async with console.run(size=(120, 40)) as (app, pilot):
        screen = await open_jobs(app, pilot, pipeline_id=pipeline["id"])
        assert str(screen.query_one(JobTable).get_cell(str(job_id), "name")) == hostile  # shown as typed
        await pilot.press("enter")
        await wait_until(pilot, lambda: isinstance(app.screen, TraceScreen), what="the log")
        assert app.screen.job.id == job_id  # type: ignore[attr-defined]
        assert hostile in str(app.screen.query_one(TraceHeader).render())
        await pilot.press("escape")
        await wait_until(pilot, lambda: app.screen is screen, what="the jobs list")
        assert app.is_running  # the [@click=app.quit] in the name did nothing
