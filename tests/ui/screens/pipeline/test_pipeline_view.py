"""The pipeline view against private simulators over real HTTP: every job by stage (a grouped list
at 80x24, columns at 120x40) with status, runner and failure reason; the cursor; R, C and P with
their dry run, the requests they send (checked in the simulator), a partial failure, an answer
lost on the way back (unknown, never re-sent, the job re-read); marks; read-only mode; keys typed
right after R; conditional refreshes."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import httpx
import pytest
from rich.cells import cell_len
from textual.widgets import Button

from labdeck.sim.dataset.build import DEMO_TOKENS
from labdeck.sim.server import SimServer
from labdeck.ui.dialogs.bulk import BulkActionScreen
from labdeck.ui.screens.jobs.detail import JobDetailScreen
from labdeck.ui.screens.jobs.trace import TraceScreen
from labdeck.ui.screens.pipeline.columns import SEPARATOR
from labdeck.ui.screens.pipeline.screen import PipelineHeader
from tests.support.pilot import burst, wait_until
from tests.ui.conftest import SimConsole, gitlab_only
from tests.ui.helpers import toasts
from tests.ui.jobs_support import PROJECT_ID, advance, create_pipeline
from tests.ui.pipeline_support import (
    bulk_dialog,
    close_finished,
    confirm_and_finish,
    dialog_text,
    freeze_guard_clock,
    losing_proxy,
    open_pipeline,
    pipeline_in_every_state,
    tries,
)


@pytest.fixture
def no_bulk_guard(monkeypatch: pytest.MonkeyPatch) -> None:
    """Confirm the bulk dialog at once (the guard has its own tests)."""
    monkeypatch.setattr(BulkActionScreen, "GUARD_SECONDS", 0.0)


SimFactory = Callable[..., SimServer]
RAN = ("compile", "unit-tests", "lint", "e2e-browser")


def _plain_lines(screen: Any) -> list[str]:
    return [line.plain for line in screen.view.current.lines]


@gitlab_only
async def test_grouped_list_at_80x24_shows_every_job(console: SimConsole) -> None:
    server = console.server
    pipeline_id, ids = await pipeline_in_every_state(server)
    async with console.run(size=(80, 24)) as (app, pilot):
        screen = await open_pipeline(app, pilot, pipeline_id)
        view = screen.view
        assert view.current is not None and not view.current.columns
        lines = _plain_lines(screen)
        headings = [line for line in lines if line.startswith("▾ ")]
        assert [heading.split(" · ")[0] for heading in headings] == ["▾ build", "▾ test", "▾ deploy"]
        for name, job_id in ids.items():
            first, count = view.current.spans[job_id]
            line = lines[first]
            assert count == 1 and name in line and server.state.jobs[job_id].status in line, line
            # every job is on screen at 80x24, and no line is wider than the view
            assert first < view.scrollable_content_region.height
            assert cell_len(line) <= view.scrollable_content_region.width
        for name in RAN:
            assert re.search(r"shared-docker-0\d", lines[view.current.spans[ids[name]][0]]), name
        for name in ("unit-tests", "lint"):
            assert server.state.jobs[ids[name]].failure_reason == "script_failure"
            assert "script_failure" in lines[view.current.spans[ids[name]][0]]
        header = str(screen.query_one(PipelineHeader).render())
        assert f"pipeline #{pipeline_id}" in header and "main @ " in header and "by root" in header
        # the age counts on the server's clock (the simulated one), not this machine's
        assert re.search(r"created 2m0\ds ago", header), header


@gitlab_only
async def test_columns_at_120x40_and_the_cursor_moves_between_stages(console: SimConsole) -> None:
    server = console.server
    pipeline_id, ids = await pipeline_in_every_state(server)
    async with console.run(size=(120, 40)) as (app, pilot):
        screen = await open_pipeline(app, pilot, pipeline_id)
        view = screen.view
        assert view.current is not None and view.current.columns
        lines = _plain_lines(screen)
        heading = [part.strip() for part in lines[0].split(SEPARATOR.strip())]
        assert [part.split(" (")[0] for part in heading] == ["build", "test", "deploy"]
        column = {"compile": 0, "docs": 0, "unit-tests": 1, "lint": 1, "e2e-browser": 1,
                  "deploy-staging": 2, "deploy-production": 2}
        for name, job_id in ids.items():
            first, count = view.current.spans[job_id]
            cells = lines[first].split(SEPARATOR.strip())
            assert name in cells[column[name]] and server.state.jobs[job_id].status in cells[column[name]]
            block = [line.split(SEPARATOR.strip())[column[name]] for line in lines[first:first + count]]
            if name in RAN:
                assert any(re.search(r"shared-docker-0\d", cell) for cell in block), block
            if name in ("unit-tests", "lint"):
                assert any("script_failure" in cell for cell in block), block

        assert view.cursor_job is not None and view.cursor_job.name == "compile"
        for key, expected in (("l", "unit-tests"), ("j", "lint"), ("l", "deploy-production"), ("h", "lint"),
                              ("k", "unit-tests"), ("h", "compile"), ("G", "deploy-production"),
                              ("g", "compile")):
            await pilot.press(key)
            assert view.cursor_job is not None and view.cursor_job.name == expected, (key, expected)

        await pilot.press("l")
        target = screen.copy_target()
        assert target is not None and target.endswith(f"/platform/audit-log/-/jobs/{ids['unit-tests']}")
        await pilot.press("i")
        await wait_until(pilot, lambda: isinstance(app.screen, JobDetailScreen) and app.screen.load_count > 0,
                         what="the job detail")
        assert app.screen.job.id == ids["unit-tests"]
        await pilot.press("escape")
        await wait_until(pilot, lambda: app.screen is screen, what="the pipeline again")
        await pilot.press("enter")
        await wait_until(pilot, lambda: isinstance(app.screen, TraceScreen), what="the job log")
        assert app.screen.job.id == ids["unit-tests"]
        await pilot.press("escape")
        await wait_until(pilot, lambda: app.screen is screen, what="the pipeline again")


@pytest.mark.usefixtures("no_bulk_guard")
async def test_retry_failed_dry_run_then_each_request_once(console: SimConsole) -> None:
    server = console.server  # the spec dialect: one request per job (no pipelines API)
    pipeline_id, ids = await pipeline_in_every_state(server)
    async with console.run(size=(120, 40)) as (app, pilot):
        screen = await open_pipeline(app, pilot, pipeline_id)
        await pilot.press("R")
        dialog = await bulk_dialog(app, pilot)
        failed = [ids["unit-tests"], ids["lint"]]
        assert [request.target.job.id for request in dialog.plan.requests] == failed
        assert [request.describe() for request in dialog.plan.requests] == [
            f"POST /projects/{PROJECT_ID}/jobs/{job_id}/retry" for job_id in failed]
        left = {item.target.job.name: item.reason for item in dialog.plan.left_out}
        assert left["e2e-browser"] == "already running" and left["compile"].startswith("success, not failed")
        assert set(left) == {"compile", "docs", "e2e-browser", "deploy-staging", "deploy-production"}
        text = dialog_text(dialog)
        for job_id in failed:
            assert f"POST /projects/{PROJECT_ID}/jobs/{job_id}/retry" in text
        assert app.focused is dialog.query_one("#cancel", Button)
        assert all(len(tries(server, pipeline_id, name)) == 1 for name in ("unit-tests", "lint"))

        await confirm_and_finish(pilot, dialog)
        assert [result.outcome for result in dialog.results] == ["done", "done"]
        for result, name in zip(dialog.results, ("unit-tests", "lint"), strict=True):
            old, new = tries(server, pipeline_id, name)
            assert old.retried and result.job is not None and result.job.id == new.id
            assert f"retried as #{new.id}" in result.detail
        # the dialog only closes now: pressing its button again sends nothing
        assert str(dialog.query_one("#confirm", Button).label) == "Close"
        await close_finished(app, pilot, dialog)
        assert all(len(tries(server, pipeline_id, name)) == 2 for name in ("unit-tests", "lint"))
        assert any("2 done" in note for note in toasts(app))

        new_ids = {tries(server, pipeline_id, name)[-1].id for name in ("unit-tests", "lint")}
        await wait_until(pilot, lambda: new_ids <= {job.id for stage in screen.view.stages for job in stage.jobs},
                         what="the new tries on screen")
        await pilot.press("R")  # nothing failed any more: nothing to plan, no dialog
        await pilot.pause(0.2)
        assert app.screen is screen and any("No failed job" in note for note in toasts(app))


@pytest.mark.usefixtures("no_bulk_guard")
async def test_cancel_active_jobs(console: SimConsole) -> None:
    server = console.server
    pipeline_id, ids = await pipeline_in_every_state(server)
    async with console.run(size=(80, 24)) as (app, pilot):
        await open_pipeline(app, pilot, pipeline_id)
        await pilot.press("C")
        dialog = await bulk_dialog(app, pilot)
        active = [ids["deploy-production"], ids["deploy-staging"], ids["e2e-browser"]]  # later jobs first
        assert [request.target.job.id for request in dialog.plan.requests] == active
        assert [request.path for request in dialog.plan.requests] == [
            f"/projects/{PROJECT_ID}/jobs/{job_id}/cancel" for job_id in active]
        left = {item.target.job.name: item.reason for item in dialog.plan.left_out}
        assert left == {"compile": "already success", "docs": "manual: not started, nothing to cancel",
                        "unit-tests": "already failed", "lint": "already failed"}
        await confirm_and_finish(pilot, dialog)
        assert [result.outcome for result in dialog.results] == ["done"] * 3
        assert {server.state.jobs[job_id].status for job_id in active} == {"canceled"}
        assert server.state.jobs[ids["docs"]].status == "manual"


@pytest.mark.usefixtures("no_bulk_guard")
async def test_play_stage_with_one_job_started_meanwhile(console: SimConsole) -> None:
    server = console.server
    pipeline = await create_pipeline(server, [
        {"name": "build", "jobs": [{"name": "compile", "duration": 10}]},
        {"name": "deploy", "jobs": [{"name": "staging", "when": "manual"}, {"name": "production", "when": "manual"},
                                    {"name": "notes", "duration": 5}]},
    ])
    ids = {job["name"]: int(job["id"]) for job in pipeline["jobs"]}
    for _ in range(3):
        await advance(server, 20)
    async with console.run(size=(120, 40)) as (app, pilot):
        screen = await open_pipeline(app, pilot, int(pipeline["id"]))
        await pilot.press("P")  # the cursor is in the build stage: nothing manual there
        await pilot.pause(0.2)
        assert app.screen is screen and any("No manual job in stage build" in note for note in toasts(app))

        await pilot.press("l")
        await pilot.press("P")
        dialog = await bulk_dialog(app, pilot)
        assert [request.target.job.id for request in dialog.plan.requests] == [ids["staging"], ids["production"]]
        assert dialog.plan.title == f"Play 2 jobs of stage deploy of pipeline #{pipeline['id']}"
        # Someone else starts production while the dry run is on screen.
        async with httpx.AsyncClient(base_url=server.api_url, headers={"PRIVATE-TOKEN": DEMO_TOKENS["user"]}) as http:
            assert (await http.post(f"/projects/{PROJECT_ID}/jobs/{ids['production']}/play")).status_code == 200
        await confirm_and_finish(pilot, dialog)
        staging, production = dialog.results
        assert staging.outcome == "done" and staging.detail.startswith("started")
        assert production.outcome == "refused" and production.status == 400
        assert "Unplayable Job" in production.detail and "✗ refused: 400" in dialog_text(dialog)
        assert server.state.jobs[ids["staging"]].status in ("pending", "running")
        assert len(tries(server, int(pipeline["id"]), "production")) == 1  # not played a second time


@pytest.mark.usefixtures("no_bulk_guard")
async def test_marked_jobs_are_the_only_ones_acted_on(console: SimConsole) -> None:
    server = console.server
    pipeline_id, ids = await pipeline_in_every_state(server)
    async with console.run(size=(80, 24)) as (app, pilot):
        screen = await open_pipeline(app, pilot, pipeline_id)
        await pilot.press("space")  # compile (a success), then the cursor moves on to docs
        await pilot.press("j", "space")  # unit-tests
        assert screen.view.marked == {ids["compile"], ids["unit-tests"]}
        assert "2 marked" in str(screen.query_one(PipelineHeader).render())
        await pilot.press("R")
        dialog = await bulk_dialog(app, pilot)
        assert [request.target.job.id for request in dialog.plan.requests] == [ids["compile"], ids["unit-tests"]]
        assert dialog.plan.left_out == () and dialog.plan.scope == f"pipeline #{pipeline_id} (marked)"
        await pilot.press("escape")  # cancel: nothing is sent
        await wait_until(pilot, lambda: app.screen is screen, what="the dialog to close")
        assert len(tries(server, pipeline_id, "compile")) == 1 and len(tries(server, pipeline_id, "unit-tests")) == 1
        await pilot.press("escape")  # clears the marks before going back
        assert screen.view.marked == set() and app.screen is screen


@pytest.mark.usefixtures("no_bulk_guard")
async def test_a_lost_answer_is_unknown_never_resent_and_the_job_is_reread(console: SimConsole) -> None:
    server = console.server  # the spec dialect: one request per job (no pipelines API)
    pipeline_id, ids = await pipeline_in_every_state(server)
    lost = ("POST", f"/api/v4/projects/{PROJECT_ID}/jobs/{ids['unit-tests']}/retry")
    lint_retry = ("POST", f"/api/v4/projects/{PROJECT_ID}/jobs/{ids['lint']}/retry")
    async with losing_proxy(server, [lost]) as (proxy, via_proxy):
        async with console.run(via=via_proxy, size=(120, 40)) as (app, pilot):
            await open_pipeline(app, pilot, pipeline_id)
            await pilot.press("R")
            dialog = await bulk_dialog(app, pilot)
            await confirm_and_finish(pilot, dialog)
            unknown, not_reached = dialog.results
            newer = tries(server, pipeline_id, "unit-tests")[-1]
            assert unknown.outcome == "unknown" and "will not be sent again" in unknown.detail
            # re-read: the job, and the newer try that shows the retry did happen
            assert unknown.job is not None and unknown.job.id == ids["unit-tests"]
            assert f"Newer try #{newer.id}" in unknown.detail and newer.id != ids["unit-tests"]
            assert not_reached.outcome == "not reached" and not_reached.request.target.job.id == ids["lint"]
            assert "? unknown" in dialog_text(dialog) and "· not reached" in dialog_text(dialog)
            await close_finished(app, pilot, dialog)
            await pilot.pause(0.3)
            assert proxy.forwarded.count(lost) == 1 and proxy.forwarded.count(lint_retry) == 0
            assert len(tries(server, pipeline_id, "unit-tests")) == 2
            assert ("GET", f"/api/v4/projects/{PROJECT_ID}/jobs/{ids['unit-tests']}") in proxy.forwarded


@pytest.mark.usefixtures("no_bulk_guard")
@gitlab_only
async def test_a_lost_answer_to_the_pipeline_retry_is_unknown_and_never_resent(console: SimConsole) -> None:
    server = console.server
    pipeline_id, ids = await pipeline_in_every_state(server)
    lost = ("POST", f"/api/v4/projects/{PROJECT_ID}/pipelines/{pipeline_id}/retry")
    async with losing_proxy(server, [lost]) as (proxy, via_proxy):
        async with console.run(via=via_proxy, size=(120, 40)) as (app, pilot):
            await open_pipeline(app, pilot, pipeline_id)
            await pilot.press("R")
            dialog = await bulk_dialog(app, pilot)
            assert dialog.plan is not None
            assert [request.describe() for request in dialog.plan.requests] == [
                f"POST /projects/{PROJECT_ID}/pipelines/{pipeline_id}/retry"]
            assert [target.job.id for target in dialog.plan.jobs] == [ids["unit-tests"], ids["lint"]]
            await confirm_and_finish(pilot, dialog)
            (unknown,) = dialog.results
            assert unknown.outcome == "unknown" and "will not be sent again" in unknown.detail
            assert "Re-read: the pipeline is now" in unknown.detail
            await close_finished(app, pilot, dialog)
            await pilot.pause(0.3)
            assert proxy.forwarded.count(lost) == 1  # applied once, never replayed
            assert ("GET", f"/api/v4/projects/{PROJECT_ID}/pipelines/{pipeline_id}") in proxy.forwarded
            assert all(len(tries(server, pipeline_id, name)) == 2 for name in ("unit-tests", "lint"))


@pytest.mark.usefixtures("no_bulk_guard")
@gitlab_only
async def test_retry_with_a_canceled_job_is_one_request_per_job_and_says_why(console: SimConsole) -> None:
    server = console.server
    pipeline_id, ids = await pipeline_in_every_state(server)
    async with httpx.AsyncClient(base_url=server.api_url, headers={"PRIVATE-TOKEN": DEMO_TOKENS["user"]}) as http:
        assert (await http.post(f"/projects/{PROJECT_ID}/jobs/{ids['e2e-browser']}/cancel")).status_code == 201
    await advance(server, 30)  # canceling → canceled
    assert server.state.jobs[ids["e2e-browser"]].status == "canceled"
    async with console.run(size=(80, 24)) as (app, pilot):
        await open_pipeline(app, pilot, pipeline_id)
        await pilot.press("R")
        dialog = await bulk_dialog(app, pilot)
        assert dialog.plan is not None
        assert [request.describe() for request in dialog.plan.requests] == [
            f"POST /projects/{PROJECT_ID}/jobs/{job_id}/retry" for job_id in (ids["unit-tests"], ids["lint"])]
        assert ("One request per job: the pipeline's own retry would also act on 1 canceled job."
                in dialog_text(dialog))
        await pilot.press("escape")


async def test_read_only_hides_and_refuses_the_bulk_actions(console: SimConsole) -> None:
    server = console.server
    pipeline_id, _ = await pipeline_in_every_state(server)
    async with console.run(read_only=True, size=(120, 40)) as (app, pilot):
        screen = await open_pipeline(app, pilot, pipeline_id)
        for action in ("retry_failed", "cancel_active", "play_stage"):
            assert screen.check_action(action, ()) is False
        shown = {binding.binding.id for binding in screen.active_bindings.values() if binding.enabled}
        assert "pipeline.retry-failed" not in shown and "pipeline.log" in shown
        await pilot.press("R", "C", "P")
        await pilot.pause(0.2)
        assert app.screen is screen
        screen.action_retry_failed()  # reached another way (the palette): refused with a toast
        await pilot.pause(0.1)
        assert app.screen is screen and any("Read-only mode" in note for note in toasts(app))


@pytest.mark.usefixtures("no_bulk_guard")
async def test_keys_typed_right_after_R_reach_the_dialog_in_order(console: SimConsole) -> None:
    server = console.server
    pipeline_id, _ = await pipeline_in_every_state(server)
    async with console.run(size=(120, 40)) as (app, pilot):
        await open_pipeline(app, pilot, pipeline_id)
        burst(app, "R", "l", "enter")  # l: focus the confirm button; enter: press it
        dialog = await bulk_dialog(app, pilot)
        await wait_until(pilot, lambda: dialog.state == "finished", what="the bulk run")
        assert [result.outcome for result in dialog.results] == ["done", "done"]
        assert len(tries(server, pipeline_id, "unit-tests")) == 2


async def test_confirming_too_soon_is_refused_and_said(console: SimConsole,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    clock = freeze_guard_clock(monkeypatch)
    server = console.server
    pipeline_id, _ = await pipeline_in_every_state(server)
    async with console.run(size=(120, 40)) as (app, pilot):
        await open_pipeline(app, pilot, pipeline_id)
        burst(app, "R", "l", "enter")
        dialog = await bulk_dialog(app, pilot)
        await pilot.pause(0.3)
        assert dialog.state == "review" and "pressed too soon" in str(dialog.query_one("#why-not").render())
        assert len(tries(server, pipeline_id, "unit-tests")) == 1
        clock[0] += 1.0
        await pilot.pause(0.3)  # the button's own press animation
        await pilot.press("enter")
        await wait_until(pilot, lambda: dialog.state == "finished", what="the bulk run")
        assert len(tries(server, pipeline_id, "unit-tests")) == 2


async def test_refreshes_while_active_and_parses_nothing_unchanged(console: SimConsole) -> None:
    server = console.server
    pipeline_id, ids = await pipeline_in_every_state(server)
    async with console.run(size=(80, 24)) as (app, pilot):
        screen = await open_pipeline(app, pilot, pipeline_id)
        held = screen.jobs
        loads = screen.load_count
        screen.reload()
        await wait_until(pilot, lambda: screen.load_count > loads, what="a second load")
        assert screen.jobs is held  # the server said "unchanged": nothing parsed, nothing redrawn
        e2e = next(job for job in screen.jobs if job.id == ids["e2e-browser"])
        await advance(server, 30)  # e2e-browser runs on: the console's tick refreshes by itself
        await wait_until(pilot, lambda: screen.jobs is not held, what="a refresh with the new state")
        refreshed = next(job for job in screen.jobs if job.id == ids["e2e-browser"])
        assert (refreshed.duration or 0) > (e2e.duration or 0)
