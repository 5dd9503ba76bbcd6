"""The pipeline view's layout without a server: counts of a stage (retried jobs once, allowed
failures as warnings, the other states where non-zero), which stages fold at a given height, and
the grouped list kept short enough to lay out on every key."""

from __future__ import annotations

from rich.style import Style

from labdeck.api.models import Job
from labdeck.ui.screens.pipeline.columns import LIST_BUDGET, Palette, layout, stages_of

PALETTE = Palette(lambda status: Style(), Style(), Style(), Style(), Style())


def _job(job_id: int, name: str, status: str, stage: str = "test", *, allowed: bool = False) -> Job:
    return Job.model_validate({"id": job_id, "name": name, "status": status, "stage": stage, "allow_failure": allowed,
                               "pipeline": {"id": 12, "project_id": 7, "ref": "main", "status": "running"}})


def test_counts_take_the_newest_try_and_say_allowed_failures_apart() -> None:
    jobs = [_job(1, "unit-1", "failed"), _job(2, "unit-2", "failed", allowed=True), _job(3, "unit-3", "running"),
            _job(4, "unit-4", "created"), _job(5, "unit-5", "manual"), _job(6, "unit-6", "skipped"),
            _job(7, "unit-7", "success"), _job(8, "unit-1", "success")]  # 8: unit-1 retried and passed
    (stage,) = stages_of(jobs)
    assert len(stage.jobs) == 7
    assert stage.counts.summary() == ("2 ✓ 0 ✗ · 1 ⚠ allowed to fail · 1 running · 1 pending · 1 manual · "
                                      "1 skipped")
    assert stage.status == "running"  # the allowed failure does not fail it


def test_a_stage_longer_than_the_view_folds_into_counts_and_unfolds_when_it_fits() -> None:
    jobs = [_job(index, f"unit-{index:04d}", "failed" if index == 1 else "success") for index in range(1, 31)]
    jobs.append(_job(31, "deploy", "skipped", "deploy"))
    stages = stages_of(jobs)
    low = layout(stages, 80, PALETTE, height=18)
    assert low.folded == frozenset({"test"}) and low.items == [["test"], [31]]
    assert [line.plain.rstrip() for line in low.lines[:2]] == [
        "▸ test · failed · 30 jobs", "    test 29 ✓ 1 ✗  (enter: its jobs)"]
    tall = layout(stages, 80, PALETTE, height=40)
    assert tall.folded == frozenset() and len(tall.items[0]) == 30
    partial = layout(stages, 80, PALETTE, height=18, partial=True)
    assert partial.lines[0].plain.startswith("▸ test · … · 30 jobs so far")
    assert "test 29 ✓ 1 ✗ so far" in partial.lines[1].plain


def test_the_grouped_list_folds_its_longest_stages_past_its_budget() -> None:
    jobs = [_job(index, f"job-{index:04d}", "success", f"stage-{index // 15:03d}") for index in range(1500)]
    lines = layout(stages_of(jobs), 80, PALETTE, height=30).lines
    assert len(lines) <= LIST_BUDGET
    assert any("enter: its jobs" in line.plain for line in lines)


def test_at_80_columns_a_failed_job_keeps_its_verdicts_pipeline_number() -> None:
    from labdeck.ui.screens.pipeline.columns import reason_line

    failed = Job.model_validate({"id": 1, "name": "integration-tests-postgres", "status": "failed", "stage": "test",
                                 "failure_reason": "script_failure",
                                 "pipeline": {"id": 12, "project_id": 7, "ref": "main", "status": "failed"}})
    jobs = [failed, *(_job(index, f"unit-{index}", "success", stage) for index, stage in
                      ((2, "build"), (3, "lint"), (4, "deploy"), (5, "docs")))]
    why = {1: "broken since #127"}
    shown = layout(stages_of(jobs), 80, PALETTE, height=40, why=why)
    line = next(text.plain for text in shown.lines if "integration" in text.plain)
    assert "#127" in line and "broken" in line, line  # was "… · why: broken s…"
    for width in (60, 30, 22, 14, 9):
        text = reason_line(failed, why, width)
        assert len(text) <= width and text.endswith("#127"), (width, text)
    assert reason_line(failed, why, 60) == "  ⚠ script_failure · why: broken since #127"
    assert reason_line(failed, why, 32) == "  ⚠ script_failure · broken #127"
    assert reason_line(failed, {1: "flaky 3/10"}, 12).endswith("3/10")
