"""The pipeline view of 1,500-job pipelines against private simulators over real HTTP, in both
dialects: the first screen comes before the later pages are read (a proxy holds them) and says
"loading n of N jobs…" with no status, the exact counts once all are in (`test 1,199 ✓ 1 ✗`), a
resize while pages arrive, a folded stage that opens on its jobs (failures first, filterable), and
``R``/``C`` dry runs of exactly the jobs concerned, planned from the complete set even while the
view is still filling in, through the pipeline endpoints in the gitlab dialect."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable

import httpx
import pytest
from rich.cells import cell_len

from labdeck.operations.bulk_plan import PipelineRequest, PlannedRequest
from labdeck.sim.server import SimServer
from labdeck.ui.dialogs.bulk import BulkActionScreen
from labdeck.ui.screens.jobs.trace import TraceScreen
from labdeck.ui.screens.pipeline.header import PipelineHeader
from labdeck.ui.screens.pipeline.screen import PipelineScreen
from labdeck.ui.screens.pipeline.stage_jobs import StageJobsScreen
from tests.support.pilot import settle, wait_until
from tests.ui.board_support import ROOMY
from tests.ui.conftest import SimConsole, both_dialects, gitlab_only
from tests.ui.jobs_support import PROJECT_ID, advance
from tests.ui.pipeline_support import (
    BIG_FAILED,
    big_pipeline,
    big_stages,
    bulk_dialog,
    close_finished,
    confirm_and_finish,
    dialog_text,
    gated_proxy,
    losing_proxy,
    open_pipeline,
    statuses,
)

SimFactory = Callable[..., SimServer]


@pytest.fixture
def no_bulk_guard(monkeypatch: pytest.MonkeyPatch) -> None:
    """Confirm the bulk dialog at once (the guard has its own tests)."""
    monkeypatch.setattr(BulkActionScreen, "GUARD_SECONDS", 0.0)


def _lines(screen: PipelineScreen) -> list[str]:
    assert screen.view.current is not None
    return [line.plain for line in screen.view.current.lines]


def _header(screen: PipelineScreen) -> str:
    return str(screen.query_one(PipelineHeader).render())


def _title_counts(screen: PipelineScreen) -> str:
    return str(screen.query_one("#title-counts").render())


def _fits(screen: PipelineScreen) -> None:
    width = screen.view.scrollable_content_region.width
    assert all(cell_len(line) <= width for line in _lines(screen)), width


@both_dialects
async def test_first_screen_before_the_pages_then_exact_counts_across_resizes(
        console: SimConsole, dialect: str) -> None:
    server = console.server
    pipeline_id, _ = await big_pipeline(server)
    assert statuses(server, pipeline_id) == {"failed": 1, "success": 1199, "skipped": 300}
    async with gated_proxy(server, pipeline_id) as (proxy, via_proxy):
        async with console.run(via=via_proxy, size=(80, 24)) as (app, pilot):
            await settle(app, pilot)
            screen = PipelineScreen(PROJECT_ID, "platform/audit-log", pipeline_id)
            await app.push_screen(screen)
            await wait_until(pilot, lambda: screen.first_drawn_at is not None and proxy.held > 0,
                             what="the first page on screen, the others held")
            await pilot.pause(0.1)
            # Page 1 (the newest jobs: deploy's) is on screen; nothing is derived from it.
            assert not screen.complete and proxy.held > 0
            assert "loading 100 of 1,500 jobs…" in _title_counts(screen)
            header = _header(screen)
            assert "◌ …" in header and "loading 100 of 1,500 jobs…" in header
            assert not re.search(r"● (failed|skipped|success|running|pending)", header), header
            lines = _lines(screen)
            assert lines[0].startswith("▸ deploy · … · 100 jobs so far"), lines[0]
            assert "deploy 0 ✓ 0 ✗ · 100 skipped so far" in lines[1]
            _fits(screen)

            await pilot.resize_terminal(120, 40)  # while the later pages are still held
            await pilot.pause(0.2)
            assert screen.view.current is not None and screen.view.current.columns
            lines = _lines(screen)
            assert lines[0].startswith("deploy (100)") and lines[0].rstrip().endswith("…")
            assert "▸ deploy 0 ✓ 0 ✗" in lines[1] and "100 skipped so far" in lines[2]
            assert not screen.complete and "loading 100 of 1,500 jobs…" in _title_counts(screen)
            _fits(screen)

            proxy.open()
            await wait_until(pilot, lambda: screen.complete, what="every page read")
            await settle(app, pilot)
            assert screen.view.current is not None and screen.view.current.columns
            lines = _lines(screen)
            heading = [part.strip() for part in lines[0].split("│")]
            assert heading[0].startswith("test (1,200)") and heading[0].endswith("failed")
            assert heading[1].startswith("deploy (300)") and heading[1].endswith("skipped")
            assert "▸ test 1,199 ✓ 1 ✗" in lines[1] and "▸ deploy 0 ✓ 0 ✗" in lines[1]
            assert "300 skipped" in lines[2]
            header = _header(screen)
            assert "● failed" in header and "failed: unit-0001" in header and "1,500 jobs" in header
            assert "loading" not in _title_counts(screen)
            _fits(screen)

            await pilot.resize_terminal(80, 24)
            await pilot.pause(0.2)
            lines = _lines(screen)
            assert screen.view.current is not None and not screen.view.current.columns
            assert lines[0].startswith("▸ test · failed · 1,200 jobs")
            assert "test 1,199 ✓ 1 ✗" in lines[1] and "(enter: its jobs)" in lines[1]
            assert lines[2].startswith("▸ deploy · skipped · 300 jobs")
            assert "deploy 0 ✓ 0 ✗ · 300 skipped" in lines[3]
            _fits(screen)


@gitlab_only
async def test_a_folded_stage_opens_on_its_jobs_failures_first(console: SimConsole) -> None:
    server = console.server
    pipeline_id, ids = await big_pipeline(server, big_stages([600, 1200], allowed=[1200]))
    async with console.run(size=(80, 24)) as (app, pilot):
        screen = await open_pipeline(app, pilot, pipeline_id)
        lines = _lines(screen)
        # unit-1200 failed but was allowed to: a warning, not a failure
        assert "test 1,198 ✓ 1 ✗ · 1 ⚠ allowed to fail" in lines[1]
        assert "⚠ 1 allowed to fail" in _header(screen) and "failed: unit-0600" in _header(screen)
        assert screen.view.folded_cursor is not None and screen.view.folded_cursor.name == "test"
        await pilot.press("enter")
        await wait_until(pilot, lambda: isinstance(app.screen, StageJobsScreen), what="the stage's jobs")
        stage = app.screen
        assert isinstance(stage, StageJobsScreen)
        await settle(app, pilot)
        assert stage.table.row_count == 1200
        rows = stage.table.visible_rows(0, 3)
        assert [row.data.name for row in rows[:2]] == ["unit-0600", "unit-1200"]
        assert str(rows[1].cells[0]) == "⚠ failed"
        assert "1,198 ✓ 1 ✗" in str(stage.query_one("#title-context").render())
        await pilot.press("slash", *"unit-011")
        await pilot.press("enter")
        assert stage.table.visible_count == 10  # unit-0110 … unit-0119
        await pilot.press("enter")
        await wait_until(pilot, lambda: isinstance(app.screen, TraceScreen), what="the job's log")
        assert app.screen.job.id == ids["unit-0110"]
        await pilot.press("escape")
        await wait_until(pilot, lambda: app.screen is stage, what="the stage again")
        await pilot.press("escape", "escape")  # the filter, then back
        await wait_until(pilot, lambda: app.screen is screen, what="the pipeline again")


def _failed_ids(ids: dict[str, int]) -> list[int]:
    return [ids[f"unit-{index:04d}"] for index in BIG_FAILED]


@both_dialects
@pytest.mark.usefixtures("no_bulk_guard")
async def test_retry_while_filling_in_plans_exactly_the_40_failed_jobs(console: SimConsole,
                                                                      dialect: str) -> None:
    server = console.server
    pipeline_id, ids = await big_pipeline(server, big_stages(BIG_FAILED))
    assert statuses(server, pipeline_id) == {"failed": 40, "success": 1160, "skipped": 300}
    failed = _failed_ids(ids)
    async with gated_proxy(server, pipeline_id) as (proxy, via_proxy):
        async with console.run(via=via_proxy, size=(120, 40)) as (app, pilot):
            await settle(app, pilot)
            screen = PipelineScreen(PROJECT_ID, "platform/audit-log", pipeline_id)
            await app.push_screen(screen)
            await wait_until(pilot, lambda: screen.first_drawn_at is not None and proxy.held > 0,
                             what="the first page")
            assert not any(job.status == "failed" for job in screen.jobs)  # page 1 is deploy's
            await pilot.press("R")
            dialog = await bulk_dialog(app, pilot)
            assert not screen.complete and proxy.held > 0  # planned while the view is still filling in
            plan = dialog.plan
            assert plan is not None and sorted(target.job.id for target in plan.jobs) == sorted(failed)
            text = dialog_text(dialog)
            assert "Planned from the server's list" in text
            if dialect == "gitlab":
                assert [request.describe() for request in plan.requests] == [
                    f"POST /projects/{PROJECT_ID}/pipelines/{pipeline_id}/retry"]
                assert isinstance(plan.requests[0], PipelineRequest)
            else:
                assert all(isinstance(request, PlannedRequest) for request in plan.requests)
                assert sorted(request.describe() for request in plan.requests) == sorted(
                    f"POST /projects/{PROJECT_ID}/jobs/{job_id}/retry" for job_id in failed)
            assert plan.title == f"Retry 40 jobs of pipeline #{pipeline_id}"
            assert all(f"#{job_id} " in text for job_id in failed)
            sent_before = len(proxy.forwarded)
            await confirm_and_finish(pilot, dialog)
            assert [result.outcome for result in dialog.results] == ["done"] * len(plan.requests)
            posts = [path for method, path in proxy.forwarded[sent_before:] if method == "POST"]
            if dialect == "gitlab":
                assert posts == [f"/api/v4/projects/{PROJECT_ID}/pipelines/{pipeline_id}/retry"]
            else:
                assert len(posts) == 40 and all(path.endswith("/retry") and "/jobs/" in path for path in posts)
            counted = Counter(job.name for job in server.state.jobs.values() if job.pipeline_id == pipeline_id)
            retried = {name for name, count in counted.items() if count == 2}
            assert retried == {f"unit-{index:04d}" for index in BIG_FAILED}
            proxy.open()
            await close_finished(app, pilot, dialog)
            # The view reads the pipeline again: each retried job counts once (its newest try). Until
            # that read ends the title says "loading…": the fill under way when the retry was sent
            # mixed pages from before and after it.
            await wait_until(pilot, lambda: screen.complete and not screen.loading_text and not any(
                job.status == "failed" for stage in screen.view.stages for job in stage.jobs), what="the new tries")
            test = screen.view.stages[0]
            assert test.name == "test" and len(test.jobs) == 1200
            counts = test.counts
            assert (counts.success, counts.failed, counts.pending + counts.running) == (1160, 0, 40)
            lines = _lines(screen)
            assert "▸ test 1,160 ✓ 0 ✗" in lines[1] and "  40 pending" in lines[2]


@pytest.mark.usefixtures("no_bulk_guard")
@gitlab_only
async def test_retry_of_the_complete_view_in_the_gitlab_dialect_is_one_pipeline_request(
        console: SimConsole) -> None:
    server = console.server
    pipeline_id, ids = await big_pipeline(server, big_stages(BIG_FAILED))
    async with losing_proxy(server) as (proxy, via_proxy):
        async with console.run(board=ROOMY, via=via_proxy, size=(80, 24)) as (app, pilot):
            screen = await open_pipeline(app, pilot, pipeline_id)
            assert screen.complete and "test 1,160 ✓ 40 ✗" in _lines(screen)[1]
            await pilot.press("R")
            dialog = await bulk_dialog(app, pilot)
            plan = dialog.plan
            assert plan is not None and len(plan.requests) == 1
            assert plan.requests[0].describe() == f"POST /projects/{PROJECT_ID}/pipelines/{pipeline_id}/retry"
            assert [target.job.id for target in plan.jobs] == sorted(_failed_ids(ids))
            text = dialog_text(dialog)
            # the 1,460 others are counted by reason, not listed one by one
            assert "Left out (1,460):" in text and "1,160 × success, not failed" in text
            assert "300 × skipped, not failed" in text
            await pilot.press("escape")  # nothing is sent
            await wait_until(pilot, lambda: app.screen is screen, what="the dialog to close")
            assert not [path for method, path in proxy.forwarded if method == "POST"]


@both_dialects
@pytest.mark.usefixtures("no_bulk_guard")
async def test_cancel_lists_exactly_the_unfinished_jobs(console: SimConsole,
                                                        dialect: str) -> None:
    server = console.server
    pipeline_id, _ = await big_pipeline(server, big_stages([]), seconds=300)
    counts = statuses(server, pipeline_id)
    unfinished = sum(counts.get(status, 0) for status in ("running", "pending", "created"))
    assert counts.get("running") and counts.get("pending") and counts.get("created") == 300
    async with console.run(size=(120, 40)) as (app, pilot):
        screen = await open_pipeline(app, pilot, pipeline_id)
        assert "● running" in _header(screen)
        await pilot.press("C")
        dialog = await bulk_dialog(app, pilot)
        plan = dialog.plan
        assert plan is not None and len(plan.jobs) == unfinished
        assert {target.job.status for target in plan.jobs} == {"running", "pending", "created"}
        if dialect == "gitlab":
            assert [request.describe() for request in plan.requests] == [
                f"POST /projects/{PROJECT_ID}/pipelines/{pipeline_id}/cancel"]
            await confirm_and_finish(pilot, dialog)
            assert [result.outcome for result in dialog.results] == ["done"]
            after = statuses(server, pipeline_id)
            assert not any(after.get(status) for status in ("running", "pending", "created")), after
        else:
            assert len(plan.requests) == unfinished
            await pilot.press("escape")
            await wait_until(pilot, lambda: app.screen is screen, what="the dialog to close")
            assert statuses(server, pipeline_id) == counts  # nothing sent



async def test_play_while_filling_in_plans_every_manual_job_of_the_stage(console: SimConsole) -> None:
    server = console.server
    stages = big_stages([])
    stages[1]["jobs"][0]["when"] = "manual"
    pipeline_id, ids = await big_pipeline(server, stages)
    assert statuses(server, pipeline_id) == {"success": 1200, "manual": 300}
    async with gated_proxy(server, pipeline_id) as (proxy, via_proxy):
        async with console.run(via=via_proxy, size=(80, 24)) as (app, pilot):
            await settle(app, pilot)
            screen = PipelineScreen(PROJECT_ID, "platform/audit-log", pipeline_id)
            await app.push_screen(screen)
            await wait_until(pilot, lambda: screen.first_drawn_at is not None and proxy.held > 0,
                             what="the first page")
            assert screen.view.folded_cursor is not None and screen.view.folded_cursor.name == "deploy"
            assert len(screen.view.folded_cursor.jobs) == 100  # page 1 only
            await pilot.press("P")
            dialog = await bulk_dialog(app, pilot)
            assert not screen.complete
            plan = dialog.plan
            assert plan is not None and plan.title == f"Play 300 jobs of stage deploy of pipeline #{pipeline_id}"
            assert sorted(request.describe() for request in plan.requests) == sorted(
                f"POST /projects/{PROJECT_ID}/jobs/{ids[f'deploy-{index:04d}']}/play" for index in range(1, 301))
            await pilot.press("escape")
            await wait_until(pilot, lambda: app.screen is screen, what="the dialog to close")
            proxy.open()
            await wait_until(pilot, lambda: screen.complete, what="every page")
            assert statuses(server, pipeline_id) == {"success": 1200, "manual": 300}  # nothing sent


async def test_pages_that_cannot_be_read_leave_a_partial_view_that_says_so(console: SimConsole) -> None:
    server = console.server
    pipeline_id, _ = await big_pipeline(server)
    async with gated_proxy(server, pipeline_id) as (proxy, via_proxy):
        proxy.refuse = True
        async with console.run(via=via_proxy, fast_retry=True, size=(80, 24)) as (app, pilot):
            await settle(app, pilot)
            screen = PipelineScreen(PROJECT_ID, "platform/audit-log", pipeline_id)
            await app.push_screen(screen)
            await wait_until(pilot, lambda: screen.load_failed, what="the read to fail")
            await pilot.pause(0.1)
            header = _header(screen)
            assert not screen.complete and "partial: read 100 of 1,500 jobs; the rest could not be read" in header
            assert not re.search(r"● (failed|skipped|success|running|pending)", header), header
            assert "so far" in _lines(screen)[1]
            proxy.refuse = False  # the server is back: the next refresh (on the server's clock) reads to the end
            proxy.open()
            await advance(server, 5)
            await wait_until(pilot, lambda: screen.complete, what="every page")
            await pilot.pause(0.1)
            assert "● failed" in _header(screen) and "test 1,199 ✓ 1 ✗" in _lines(screen)[1]


@gitlab_only
async def test_refreshes_of_a_big_pipeline_ask_its_record_and_read_the_jobs_only_when_it_moved(
        console: SimConsole, tokens: dict[str, str]) -> None:
    server = console.server
    stages = big_stages([])
    stages[0]["jobs"][0]["tags"] = ["no-runner-has-this"]  # pending for good: active, nothing moves
    pipeline_id, ids = await big_pipeline(server, stages, seconds=5)
    assert statuses(server, pipeline_id) == {"pending": 1200, "created": 300}
    jobs_path = f"/api/v4/projects/{PROJECT_ID}/pipelines/{pipeline_id}/jobs"
    record_path = f"/api/v4/projects/{PROJECT_ID}/pipelines/{pipeline_id}"
    async with losing_proxy(server) as (proxy, via_proxy):
        async with console.run(via=via_proxy, size=(80, 24)) as (app, pilot):
            screen = await open_pipeline(app, pilot, pipeline_id)

            def reads(path: str) -> int:
                return sum(1 for method, seen in proxy.forwarded if method == "GET" and seen == path)

            def pages_read() -> int:
                # Each refresh reads the record and the failed count (a one-job read of the jobs
                # path): what the jobs path saw beyond those counts is pages of jobs.
                return reads(jobs_path) - reads(record_path)

            await advance(server, 3)  # the first refresh reads the jobs once more, with the record
            await wait_until(pilot, lambda: reads(record_path) >= 1 and not screen._loading, what="a refresh")
            pages = pages_read()
            for round_number in range(2, 4):
                await advance(server, 3)
                await wait_until(pilot, lambda n=round_number: reads(record_path) >= n and not screen._loading,
                                 what="a refresh")
            assert pages_read() == pages  # neither the record nor the failed count moved: no page read
            async with httpx.AsyncClient(base_url=server.api_url, headers={"PRIVATE-TOKEN": tokens["admin"]}) as http:
                # Canceling the pipeline moves its updated_at (one job canceled in a pipeline that
                # stays pending would not, as on GitLab).
                answer = await http.post(f"/projects/{PROJECT_ID}/pipelines/{pipeline_id}/cancel")
                assert answer.status_code == 200
            await advance(server, 3)
            await wait_until(pilot, lambda: pages_read() > pages, what="the jobs read again")
            await wait_until(pilot, lambda: "canceled" in _lines(screen)[1], what="the canceled jobs counted")


async def test_without_the_pipelines_api_a_big_running_pipeline_is_read_a_second_per_page(
        console: SimConsole) -> None:
    server = console.server
    stages = big_stages([])
    stages[0]["jobs"][0]["tags"] = ["no-runner-has-this"]
    pipeline_id, _ = await big_pipeline(server, stages, seconds=5)
    async with console.run(size=(120, 40)) as (app, pilot):
        screen = await open_pipeline(app, pilot, pipeline_id)
        assert "live · every 2s" in str(screen.query_one("#title-context").render())
        loads = screen.load_count
        await advance(server, 3)
        await wait_until(pilot, lambda: screen.load_count > loads, what="a refresh")
        assert screen.refresh_interval() == 15.0  # 1,500 jobs: 15 pages, each refresh reads them all
        await wait_until(pilot, lambda: "live · every 15s" in str(screen.query_one("#title-context").render()),
                         what="the title to say so")
        loads = screen.load_count
        await advance(server, 5)
        await pilot.pause(1.5)
        assert screen.load_count == loads  # not due yet
        await advance(server, 10)
        await wait_until(pilot, lambda: screen.load_count > loads, what="the next refresh")
