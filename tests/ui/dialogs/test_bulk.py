"""Bulk actions: the pure planner (which jobs, which exact requests, what is left out and why), the
run against the simulator over real HTTP (a partial failure across projects, one audit operation,
an ambiguous 5xx that is never re-sent, stopping), and the dialog on its own as the board and the
jobs table use it (the guard, a finished dialog that only closes, stop, read-only mode)."""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from textual.widgets import Button

from labdeck.api import ApiClient
from labdeck.api.models import Job
from labdeck.audit.log import AuditLog
from labdeck.base import paths
from labdeck.base.secret import Secret
from labdeck.operations.bulk_plan import (
    BulkOutcome,
    JobTarget,
    job_targets,
    pipeline_endpoint_differs,
    pipeline_targets,
    plan_cancel,
    plan_play,
    plan_retry,
    run_plan,
    through_pipeline,
)
from labdeck.sim.server import SimServer
from labdeck.ui.dialogs.bulk import BulkActionScreen
from labdeck.watch.pipelines import derive_pipelines
from tests.support.pilot import settle, wait_until
from tests.ui.conftest import SimConsole
from tests.ui.jobs_support import PROJECT_ID, PROJECT_PATH, advance, control, create_pipeline
from tests.ui.pipeline_support import (
    bulk_dialog,
    close_finished,
    confirm_and_finish,
    dialog_text,
    freeze_guard_clock,
    pipeline_in_every_state,
    tries,
)

SimFactory = Callable[..., SimServer]
NOW = datetime(2026, 11, 2, 9, 0, tzinfo=UTC)
OTHER_PROJECT = (26, "tools/labdeck-cli")
"""Public, and alice is not a member: she may read its jobs but not act on them."""


def _job(job_id: int, name: str, status: str, *, stage: str = "test", pipeline: int = 12) -> Job:
    return Job.model_validate({"id": job_id, "name": name, "status": status, "stage": stage,
                               "pipeline": {"id": pipeline, "project_id": 7, "ref": "main", "status": "running"},
                               "created_at": "2026-11-02T08:50:00Z"})


JOBS = [_job(1, "compile", "success", stage="build"), _job(2, "unit", "failed"), _job(3, "lint", "canceled"),
        _job(4, "e2e", "running"), _job(5, "smoke", "pending"), _job(6, "deploy", "manual", stage="deploy"),
        _job(7, "notes", "created", stage="deploy"), _job(8, "canary", "scheduled", stage="deploy"),
        _job(9, "lint", "failed")]
"""Job 9 is a newer try of ``lint`` (3)."""


def _ids(plan: Any) -> list[int]:
    return [request.target.job.id for request in plan.requests]


def _reasons(plan: Any) -> dict[int, str]:
    return {item.target.job.id: item.reason for item in plan.left_out}


# --- the planner ---------------------------------------------------------------------------------


def test_retry_plans_the_failed_jobs_and_says_why_it_leaves_the_others_out() -> None:
    plan = plan_retry(job_targets(7, "platform/audit-log", JOBS), action="pipeline.retry-failed",
                      scope="pipeline #12", pipeline_id=12)
    assert _ids(plan) == [2, 9]
    assert [request.describe() for request in plan.requests] == ["POST /projects/7/jobs/2/retry",
                                                                 "POST /projects/7/jobs/9/retry"]
    assert _reasons(plan) == {
        1: "success, not failed (mark it to retry it anyway)", 3: "older try: #9 is newer", 4: "already running",
        5: "pending: has not finished", 6: "manual: has not run yet (play it instead)",
        7: "created: has not finished", 8: "scheduled: has not finished"}
    assert plan.title == "Retry 2 jobs of pipeline #12" and plan.action == "pipeline.retry-failed"
    assert plan.project_paths == ("platform/audit-log",)


def test_a_whole_pipeline_goes_through_its_endpoint_only_when_that_acts_on_exactly_the_planned_jobs() -> None:
    jobs = [_job(1, "unit", "failed"), _job(2, "lint", "canceled"), _job(3, "e2e", "success")]
    plan = plan_retry(job_targets(7, "platform/audit-log", jobs), action="pipeline.retry-failed",
                      scope="pipeline #12", pipeline_id=12)
    # A pipeline's retry also retries its canceled jobs: not what "retry failed" planned.
    assert pipeline_endpoint_differs(plan, jobs) == "the pipeline's own retry would also act on 1 canceled job"
    failed_only = [job for job in jobs if job.status != "canceled"]
    plan = plan_retry(job_targets(7, "platform/audit-log", failed_only), action="pipeline.retry-failed",
                      scope="pipeline #12", pipeline_id=12)
    assert pipeline_endpoint_differs(plan, failed_only) == ""
    through = through_pipeline(plan, 7, "platform/audit-log", 12)
    assert [request.describe() for request in through.requests] == ["POST /projects/7/pipelines/12/retry"]
    assert [target.job.id for target in through.jobs] == [1] and through.title == "Retry 1 job of pipeline #12"
    cancel = plan_cancel(job_targets(7, "platform/audit-log", JOBS), action="pipeline.cancel-active",
                         scope="pipeline #12", pipeline_id=12)
    assert pipeline_endpoint_differs(cancel, JOBS) == ""  # the same statuses either way


def test_marked_jobs_are_retried_whatever_finished_state_they_are_in() -> None:
    marked = [JOBS[0], JOBS[1], JOBS[3], JOBS[8], JOBS[8]]  # a job marked twice is sent once
    plan = plan_retry(job_targets(7, "platform/audit-log", marked), marked=True)
    assert _ids(plan) == [1, 2, 9] and _reasons(plan) == {4: "already running"}
    assert plan.action == "jobs.bulk-retry" and plan.title == "Retry 3 jobs"


def test_cancel_plans_what_runs_or_waits_later_jobs_first() -> None:
    plan = plan_cancel(job_targets(7, "platform/audit-log", JOBS))
    assert _ids(plan) == [8, 7, 5, 4]
    assert [request.path for request in plan.requests][0] == "/projects/7/jobs/8/cancel"
    assert _reasons(plan) == {1: "already success", 2: "already failed", 3: "older try: #9 is newer",
                              6: "manual: not started, nothing to cancel", 9: "already failed"}


def test_play_plans_the_manual_jobs_only() -> None:
    plan = plan_play(job_targets(7, "platform/audit-log", JOBS))
    assert _ids(plan) == [6] and plan.requests[0].describe() == "POST /projects/7/jobs/6/play"
    assert _reasons(plan)[8] == "scheduled: starts by itself" and _reasons(plan)[4] == "not manual (running)"


def test_board_rows_of_several_projects_make_one_plan() -> None:
    rows = (derive_pipelines(7, "platform/audit-log", JOBS, now=NOW)
            + derive_pipelines(26, "tools/labdeck-cli", [_job(50, "unit", "failed", pipeline=40)], now=NOW))
    plan = plan_retry(pipeline_targets(rows), action="board.retry-failed", scope="2 pipelines")
    assert [request.describe() for request in plan.requests] == [
        "POST /projects/7/jobs/2/retry", "POST /projects/7/jobs/9/retry", "POST /projects/26/jobs/50/retry"]
    assert plan.project_paths == ("platform/audit-log", "tools/labdeck-cli")


# --- the run, over HTTP -----------------------------------------------------------------------------


async def _failed_pipeline(server: SimServer, project_id: int, names: tuple[str, ...]) -> dict[str, int]:
    pipeline = await create_pipeline(server, [{"name": "test", "jobs": [
        {"name": name, "duration": 5, "fail": True} for name in names]}], project_id=project_id)
    await advance(server, 30)
    return {job["name"]: int(job["id"]) for job in pipeline["jobs"]}


def _audit_records() -> list[dict[str, Any]]:
    return [json.loads(line) for line in paths.audit_file().read_text().splitlines()]


async def test_partial_failure_across_projects_one_audit_operation(sim_factory: SimFactory,
                                                                   tokens: dict[str, str]) -> None:
    server = sim_factory()
    mine = await _failed_pipeline(server, PROJECT_ID, ("unit", "lint"))
    theirs = await _failed_pipeline(server, OTHER_PROJECT[0], ("unit",))
    targets: list[JobTarget] = []
    async with ApiClient(server.base_url, Secret(tokens["user"]), audit=AuditLog(server.base_url)) as alice:  # a developer of project 7 only
        for project_id, path in ((PROJECT_ID, PROJECT_PATH), OTHER_PROJECT):
            jobs = await alice.jobs.list(project_id).all()
            targets += job_targets(project_id, path, [job for job in jobs if job.id in {*mine.values(), *theirs.values()}])
        plan = plan_retry(targets, action="board.retry-failed", scope="2 pipelines")
        assert sorted(_ids(plan)) == sorted([*mine.values(), *theirs.values()])
        seen: list[str] = []
        results = await run_plan(alice, plan, on_sending=lambda request: seen.append(request.path))
    outcomes = {result.request.target.job.id: result for result in results}
    assert seen == [request.path for request in plan.requests]  # one at a time, each once
    assert all(outcomes[job_id].outcome == "done" for job_id in mine.values())
    refused = outcomes[theirs["unit"]]
    assert refused.outcome == "refused" and refused.status == 403 and "403" in refused.detail
    assert all(server.state.jobs[job_id].retried for job_id in mine.values())
    assert not server.state.jobs[theirs["unit"]].retried
    assert BulkOutcome(plan, tuple(results)).summary() == "2 done, 1 refused"
    sent = [record for record in _audit_records() if record["phase"] == "sent"]
    assert len(sent) == 3 and len({record["operation"] for record in sent}) == 1
    assert {record["action"] for record in sent} == {"board.retry-failed"}
    assert {record["confirmation"] for record in sent} == {"dialog"}
    assert {record["target"]["project"] for record in sent} == {PROJECT_PATH, OTHER_PROJECT[1]}


async def test_a_pipeline_request_is_sent_once_and_audited_as_the_pipeline(sim_factory: SimFactory,
                                                                          tokens: dict[str, str]) -> None:
    server = sim_factory(dialect="gitlab")
    ids = await _failed_pipeline(server, PROJECT_ID, ("unit", "lint"))
    await advance(server, 600)  # the gitlab dialect's runners are busier
    pipeline_id = server.state.jobs[ids["unit"]].pipeline_id
    async with ApiClient(server.base_url, Secret(tokens["user"]), audit=AuditLog(server.base_url)) as alice:
        jobs = await alice.jobs.list(PROJECT_ID, pipeline_id=pipeline_id).all()
        assert {job.status for job in jobs} == {"failed"}
        plan = plan_retry(job_targets(PROJECT_ID, PROJECT_PATH, jobs), action="pipeline.retry-failed",
                          scope=f"pipeline #{pipeline_id}", pipeline_id=pipeline_id)
        plan = through_pipeline(plan, PROJECT_ID, PROJECT_PATH, pipeline_id)
        seen: list[str] = []
        results = await run_plan(alice, plan, on_sending=lambda request: seen.append(request.describe()))
    assert seen == [f"POST /projects/{PROJECT_ID}/pipelines/{pipeline_id}/retry"]
    (result,) = results
    assert result.outcome == "done" and result.detail.startswith("pipeline retried (2 jobs); it is now ")
    assert all(server.state.jobs[job_id].retried for job_id in ids.values())
    sent = [record for record in _audit_records() if record["phase"] == "sent"]
    assert len(sent) == 1 and sent[0]["action"] == "pipeline.retry-failed"
    assert sent[0]["target"]["project"] == PROJECT_PATH and sent[0]["target"]["pipeline"] == pipeline_id


async def test_an_ambiguous_5xx_is_unknown_the_job_reread_and_the_run_stops(sim_factory: SimFactory,
                                                                         tokens: dict[str, str]) -> None:
    server = sim_factory()
    ids = await _failed_pipeline(server, PROJECT_ID, ("unit", "lint"))
    async with ApiClient(server.base_url, Secret(tokens["admin"])) as client:
        jobs = [job for job in await client.jobs.list(PROJECT_ID).all() if job.id in ids.values()]
        plan = plan_retry(job_targets(PROJECT_ID, PROJECT_PATH, jobs))
        first = plan.requests[0].target.job
        await control(server, "PUT", "/faults", json={"error_rate": 1.0, "error_statuses": [502], "methods": ["POST"],
                                                      "path_prefix": f"/projects/{PROJECT_ID}/jobs/{first.id}/retry"})
        results = await run_plan(client, plan)
    unknown, rest = results
    assert unknown.outcome == "unknown" and "will not be sent again" in unknown.detail
    assert "Re-read: it is now failed" in unknown.detail and "probably not applied" in unknown.detail
    assert rest.outcome == "not reached" and "lost" in rest.detail
    assert len(tries(server, server.state.jobs[first.id].pipeline_id, first.name or "")) == 1
    assert not any(server.state.jobs[job_id].retried for job_id in ids.values())


async def test_a_change_that_cannot_be_recorded_is_not_sent_nor_called_done(sim_factory: SimFactory,
                                                                            tokens: dict[str, str],
                                                                            tmp_path: Path) -> None:
    """Issue 24: no change leaves without its audit record; a bulk run says so and stops."""
    server = sim_factory()
    ids = await _failed_pipeline(server, PROJECT_ID, ("unit", "lint"))
    blocker = tmp_path / "not-a-directory"
    blocker.write_text("")
    log = AuditLog(server.base_url, path=blocker / "audit.jsonl")
    async with ApiClient(server.base_url, Secret(tokens["admin"]), audit=log) as client:
        jobs = [job for job in await client.jobs.list(PROJECT_ID).all() if job.id in ids.values()]
        results = await run_plan(client, plan_retry(job_targets(PROJECT_ID, PROJECT_PATH, jobs)))
    assert [result.outcome for result in results] == ["not reached", "not reached"]
    assert "audit log" in results[0].detail and "Not sent" in results[0].detail
    assert not any(server.state.jobs[job_id].retried for job_id in ids.values())


async def test_stop_leaves_the_rest_unsent(sim_factory: SimFactory, tokens: dict[str, str]) -> None:
    server = sim_factory()
    ids = await _failed_pipeline(server, PROJECT_ID, ("a", "b", "c"))
    async with ApiClient(server.base_url, Secret(tokens["admin"])) as client:
        jobs = [job for job in await client.jobs.list(PROJECT_ID).all() if job.id in ids.values()]
        plan = plan_retry(job_targets(PROJECT_ID, PROJECT_PATH, jobs))
        done: list[Any] = []
        results = await run_plan(client, plan, on_result=done.append, stop=lambda: bool(done))
    assert [result.outcome for result in results] == ["done", "not reached", "not reached"]
    assert results[1].detail == "stopped by you before it was sent"
    assert [server.state.jobs[request.target.job.id].retried for request in plan.requests] == [True, False, False]


# --- the dialog on its own ------------------------------------------------------------------------


async def _every_state_plan(server: SimServer, tokens: dict[str, str], kind: str = "retry") -> Any:
    """A plan over the :data:`EVERY_STATE` pipeline, as the jobs table would make it."""
    pipeline_id, ids = await pipeline_in_every_state(server)
    async with ApiClient(server.base_url, Secret(tokens["admin"])) as client:
        jobs = await client.jobs.list(PROJECT_ID, pipeline_id=pipeline_id).all()
    planner = {"retry": plan_retry, "cancel": plan_cancel, "play": plan_play}[kind]
    return pipeline_id, ids, planner(job_targets(PROJECT_ID, PROJECT_PATH, jobs), action="jobs.bulk-retry",
                                     scope="3 marked jobs")


async def test_the_guard_then_a_finished_dialog_only_closes(console: SimConsole,
                                                            tokens: dict[str, str],
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    clock = freeze_guard_clock(monkeypatch)
    server = console.server
    pipeline_id, _, plan = await _every_state_plan(server, tokens)
    app = console.app()
    returned: list[BulkOutcome | None] = []
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        app.push_screen(BulkActionScreen(plan, PROJECT_PATH), returned.append)
        dialog = await bulk_dialog(app, pilot)
        assert app.focused is dialog.query_one("#cancel", Button)
        assert "Dry run: 2 requests" in str(dialog.query_one("#intro").render())
        await pilot.click("#confirm")  # at once: refused, and said
        await pilot.pause(0.1)
        assert dialog.state == "review" and "too soon" in str(dialog.query_one("#why-not").render())
        assert len(tries(server, pipeline_id, "unit-tests")) == 1

        clock[0] += 1
        await pilot.pause(0.3)
        await confirm_and_finish(pilot, dialog)
        assert [result.outcome for result in dialog.results] == ["done", "done"]
        assert "✓ done: retried as #" in dialog_text(dialog)
        # right after the results: the Close button waits as well (an Enter still held down)
        await pilot.pause(0.3)
        await pilot.click("#confirm")
        await pilot.pause(0.1)
        assert app.screen is dialog and "results just came in" in str(dialog.query_one("#why-not").render())
        dialog._confirm()  # pressed again and again: never a second request
        dialog._confirm()
        assert len(tries(server, pipeline_id, "unit-tests")) == 2
        clock[0] += 1
        await close_finished(app, pilot, dialog)
        assert len(returned) == 1 and returned[0] is not None and returned[0].summary() == "2 done"
        assert len(tries(server, pipeline_id, "unit-tests")) == 2 and len(tries(server, pipeline_id, "lint")) == 2


async def test_escape_stops_after_the_request_in_flight(console: SimConsole,
                                                        tokens: dict[str, str],
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(BulkActionScreen, "GUARD_SECONDS", 0.0)
    server = console.server
    ids = await _failed_pipeline(server, PROJECT_ID, ("a", "b", "c"))
    async with ApiClient(server.base_url, Secret(tokens["admin"])) as client:
        jobs = [job for job in await client.jobs.list(PROJECT_ID).all() if job.id in ids.values()]
    plan = plan_retry(job_targets(PROJECT_ID, PROJECT_PATH, jobs), marked=True)
    await control(server, "PUT", "/faults", json={"latency_ms": 800, "methods": ["POST"]})
    app = console.app()
    returned: list[BulkOutcome | None] = []
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        app.push_screen(BulkActionScreen(plan, PROJECT_PATH), returned.append)
        dialog = await bulk_dialog(app, pilot)
        await pilot.click("#confirm")
        await wait_until(pilot, lambda: len(dialog.results) == 1, what="the first result")
        await pilot.press("escape")  # stop: the request in flight finishes, the last is not sent
        await wait_until(pilot, lambda: dialog.state == "finished", what="the run to stop")
        assert [result.outcome for result in dialog.results] == ["done", "done", "not reached"]
        assert "stopped by you" in dialog_text(dialog)
        sent = [result.request.target.job.id for result in dialog.results]
        await pilot.press("escape")  # finished: escape closes and still returns the results
        await wait_until(pilot, lambda: bool(returned), what="the dialog to close")
    assert returned[0] is not None and returned[0].count("not reached") == 1
    assert [server.state.jobs[job_id].retried for job_id in sent] == [True, True, False]


async def test_read_only_mode_sends_nothing_from_the_dialog(console: SimConsole,
                                                            tokens: dict[str, str],
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(BulkActionScreen, "GUARD_SECONDS", 0.0)
    server = console.server
    pipeline_id, _, plan = await _every_state_plan(server, tokens)
    async with console.run(read_only=True, size=(80, 24)) as (app, pilot):
        await settle(app, pilot)
        app.push_screen(BulkActionScreen(plan, PROJECT_PATH))
        dialog = await bulk_dialog(app, pilot)
        await pilot.click("#confirm")
        await pilot.pause(0.2)
        assert dialog.state == "review" and "Read-only mode" in str(dialog.query_one("#why-not").render())
    assert len(tries(server, pipeline_id, "unit-tests")) == 1
