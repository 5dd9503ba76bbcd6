"""Pipelines derived from jobs: status precedence, retries, allowed failures, truncated pages,
superseded pipelines, board order, and times measured against the server's clock."""

from __future__ import annotations

from datetime import timedelta

import pytest

from labdeck.api.models import Job
from labdeck.watch.pipelines import PipelineRow, as_partial, derive_pipelines, sort_by_attention
from tests.watch.helpers import T0, job


def one(jobs: list[Job]) -> PipelineRow:
    rows = derive_pipelines(7, "platform/api", jobs, now=T0 + timedelta(hours=1))
    assert len(rows) == 1
    return rows[0]


@pytest.mark.parametrize(("statuses", "expected"), [
    (["success", "failed", "running", "pending", "manual"], "failed"),
    (["success", "running", "pending", "manual"], "running"),
    (["success", "canceling"], "running"),
    (["success", "pending", "manual"], "pending"),
    (["created", "created"], "pending"),
    (["success", "preparing"], "pending"),
    (["success", "waiting_for_resource"], "pending"),
    (["success", "scheduled"], "pending"),
    (["success", "some_future_status"], "pending"),
    (["success", "manual"], "manual"),
    (["success", "canceled"], "canceled"),
    (["success", "skipped"], "success"),
    (["skipped", "skipped"], "skipped"),
])
def test_status_precedence(statuses: list[str], expected: str) -> None:
    row = one([job(i + 1, f"job-{i}", status) for i, status in enumerate(statuses)])
    assert row.status == expected


def test_failed_job_names_counts_and_who() -> None:
    row = one([job(1, "build", "success", user="bob"), job(2, "lint", "failed"), job(3, "unit", "failed"),
               job(4, "e2e", "running"), job(5, "deploy", "manual"), job(6, "smoke", "created")])
    assert row.failed_jobs == ("lint", "unit")
    assert (row.running, row.pending, row.manual) == (1, 1, 1)
    assert row.triggered_by == "bob"


def test_a_failed_job_retried_to_success_no_longer_fails_the_pipeline() -> None:
    row = one([job(1, "build", "success"), job(2, "e2e", "failed", finished=5), job(3, "e2e", "success")])
    assert row.status == "success" and row.failed_jobs == ()
    assert row.retries == 1 and [j.id for j in row.jobs] == [1, 3]


def test_a_success_retried_to_failure_fails_it() -> None:
    row = one([job(1, "e2e", "success"), job(9, "e2e", "failed")])
    assert row.status == "failed"


def test_a_running_retry_of_a_failed_job_is_running() -> None:
    row = one([job(1, "e2e", "failed"), job(2, "e2e", "running")])
    assert row.status == "running" and row.unfinished


def test_allowed_failures_pass_with_warnings() -> None:
    row = one([job(1, "build", "success"), job(2, "audit", "failed", allow_failure=True)])
    assert row.status == "success"
    assert row.allowed_failures == ("audit",) and row.failed_jobs == ()


def test_times_are_server_times_and_duration_stops_at_the_end() -> None:
    now = T0 + timedelta(minutes=30)
    running = derive_pipelines(1, "p", [job(1, "a", "success", minutes=0, started=1, finished=4),
                                        job(2, "b", "running", minutes=0, started=5)], now=now)[0]
    assert running.age == timedelta(minutes=30)
    assert running.duration == timedelta(minutes=29)  # since the first job started, so far
    assert running.finished_at is None
    assert running.duration_at(now + timedelta(minutes=1)) == timedelta(minutes=30)
    done = derive_pipelines(1, "p", [job(1, "a", "success", started=1, finished=4),
                                     job(2, "b", "failed", started=5, finished=9)], now=now)[0]
    assert done.finished_at == T0 + timedelta(minutes=9)
    assert done.duration == timedelta(minutes=8)
    assert done.failed_at == T0 + timedelta(minutes=9)


def test_a_manual_job_left_does_not_keep_the_clock_running() -> None:
    row = derive_pipelines(1, "p", [job(1, "a", "success", started=1, finished=4), job(2, "deploy", "manual")],
                           now=T0 + timedelta(hours=5))[0]
    assert row.status == "manual" and not row.unfinished
    assert row.duration == timedelta(minutes=3)


def test_grouping_newest_first_and_superseded_refs() -> None:
    jobs = [job(1, "a", "failed", pipeline=10, ref="main"), job(2, "a", "success", pipeline=11, ref="main"),
            job(3, "a", "failed", pipeline=12, ref="feature")]
    rows = derive_pipelines(1, "p", jobs, now=T0)
    assert [(r.pipeline_id, r.latest_for_ref) for r in rows] == [(12, True), (11, True), (10, False)]
    assert [r.broken for r in rows] == [True, False, False]


def test_a_full_page_marks_its_oldest_pipeline_partial_and_keeps_the_server_status() -> None:
    jobs = [job(5, "a", "success", pipeline=3), job(4, "b", "failed", pipeline=2)]
    rows = derive_pipelines(1, "p", jobs, now=T0, page_full=True)
    assert [(r.pipeline_id, r.partial) for r in rows] == [(3, False), (2, True)]
    assert [r.pipeline_id for r in derive_pipelines(1, "p", jobs, now=T0)] == [3, 2]
    assert not any(r.partial for r in derive_pipelines(1, "p", jobs, now=T0))


def big(statuses: list[str], server: str, *, pipeline: int = 9) -> list[Job]:
    """The newest jobs of a big pipeline (ids descending from 1500) whose server status is ``server``."""
    out = []
    for i, status in enumerate(statuses):
        record = job(1500 - i, f"deploy-{300 - i:04d}", status, pipeline=pipeline)
        assert record.pipeline is not None
        out.append(record.model_copy(update={"pipeline": record.pipeline.model_copy(update={"status": server})}))
    return out


def test_a_cut_pipeline_of_skipped_jobs_that_the_server_calls_failed_is_failed_names_unknown() -> None:
    row = derive_pipelines(1, "p", big(["skipped"] * 40, "failed"), now=T0, page_full=True)[0]
    assert row.partial and row.status == "failed" and row.server_status == "failed"
    assert row.failed_jobs == () and not row.failed_known and row.failed_label == "…"
    assert not row.unfinished and row.broken


def test_a_cut_running_pipeline_is_running_not_pending_and_its_count_unknown() -> None:
    row = derive_pipelines(1, "p", big(["created"] * 40, "running"), now=T0, page_full=True)[0]
    assert row.status == "running" and row.unfinished
    assert not row.running_known and row.running_label == "…"
    assert not row.timing_known and row.duration is None


def test_a_cut_successful_pipeline_has_no_failures_to_read() -> None:
    row = derive_pipelines(1, "p", big(["success"] * 40, "success"), now=T0, page_full=True)[0]
    assert row.status == "success" and row.failed_known and row.failed_label == ""
    assert row.running_known and row.running_label == ""


def test_a_pipeline_whose_jobs_disagree_with_the_server_is_partial_even_when_newer_than_the_cut() -> None:
    jobs = big(["skipped"] * 39, "failed", pipeline=9) + [job(100, "x", "success", pipeline=8)]
    rows = derive_pipelines(1, "p", jobs, now=T0, page_full=True)
    assert [(r.pipeline_id, r.partial, r.status) for r in rows] == [(9, True, "failed"), (8, True, "success")]


def test_known_failures_complete_a_partial_row_and_win_while_others_run() -> None:
    row = derive_pipelines(1, "p", big(["created"] * 40, "running"), now=T0, page_full=True)[0]
    names = tuple(f"unit-{i:04d}" for i in range(1, 41))
    done = as_partial(row, failed=names, running=3, started_at=T0, timing_known=True)
    assert done.status == "failed" and done.failed_known and done.failed_label == "unit-0001 +39 more"
    assert done.running_label == "3" and done.duration == timedelta(0)
    assert as_partial(row, failed=("unit-0007",)).failed_label == "unit-0007"
    assert as_partial(row, failed=()).status == "running"


def test_attention_order() -> None:
    old_failure = derive_pipelines(1, "p", [job(1, "a", "failed", pipeline=1, ref="r1", finished=10)], now=T0)[0]
    new_failure = derive_pipelines(1, "p", [job(2, "a", "failed", pipeline=2, ref="r2", finished=50)], now=T0)[0]
    long_run_failed_last = derive_pipelines(1, "p", [job(3, "a", "failed", pipeline=3, ref="r3", minutes=-100,
                                                         finished=60)], now=T0)[0]
    running = derive_pipelines(1, "p", [job(4, "a", "running", pipeline=4, ref="r4")], now=T0)[0]
    pending = derive_pipelines(1, "p", [job(5, "a", "pending", pipeline=5, ref="r5")], now=T0)[0]
    manual = derive_pipelines(1, "p", [job(6, "a", "manual", pipeline=6, ref="r6")], now=T0)[0]
    success = derive_pipelines(1, "p", [job(7, "a", "success", pipeline=7, ref="r7")], now=T0)[0]
    superseded = derive_pipelines(1, "p", [job(9, "a", "success", pipeline=9, ref="r8"),
                                           job(8, "a", "failed", pipeline=8, ref="r8")], now=T0)[1]
    ordered = sort_by_attention([success, superseded, manual, pending, running, old_failure, new_failure,
                                 long_run_failed_last])
    assert [r.pipeline_id for r in ordered] == [3, 2, 1, 4, 5, 6, 7, 8]


def test_jobs_without_a_pipeline_are_ignored() -> None:
    orphan = job(1, "a", "failed").model_copy(update={"pipeline": None})
    assert derive_pipelines(1, "p", [orphan], now=T0) == []


DAYS_4 = 4 * 24 * 60  # minutes


def retried_days_later(retry_status: str, retry_finished: float | None) -> list[Job]:
    """Built and tested (10 minutes), the test failed; four days later the test retried."""
    retry = job(3, "test", retry_status, minutes=DAYS_4, started=DAYS_4 + 1, finished=retry_finished)
    return [job(1, "build", "success", started=0, finished=5), job(2, "test", "failed", started=5, finished=10),
            retry]


def test_a_pipeline_retried_days_later_counts_the_run_so_far_not_the_days_between() -> None:
    """Tried on the board: ``Took 102h05m`` for a pipeline retried four days after it ran (now
    minus its first job's start). A running retry counts from the retry's start."""
    now = T0 + timedelta(minutes=DAYS_4 + 3)
    row = derive_pipelines(1, "p", retried_days_later("running", None), now=now)[0]
    assert row.status == "running"
    assert row.duration == timedelta(minutes=2)
    assert row.duration_at(now + timedelta(minutes=1)) == timedelta(minutes=3)


def test_a_finished_retried_pipeline_took_its_runs_added_up() -> None:
    """Finished: the time its newest tries ran, without the idle days, as GitLab's ``duration``
    counts it (the failed try that the retry replaced not counted)."""
    row = derive_pipelines(1, "p", retried_days_later("success", DAYS_4 + 4),
                           now=T0 + timedelta(minutes=DAYS_4 + 30))[0]
    assert row.status == "success" and row.finished_at == T0 + timedelta(minutes=DAYS_4 + 4)
    assert row.duration == timedelta(minutes=8)


def test_a_retry_while_the_pipeline_still_runs_is_the_same_run() -> None:
    """A job retried while others of the first run still run: one run, from the first start."""
    now = T0 + timedelta(minutes=20)
    row = derive_pipelines(1, "p", [job(1, "slow", "running", started=1), job(2, "test", "failed", started=1, finished=3),
                                    job(3, "test", "running", minutes=4, started=5)], now=now)[0]
    assert row.duration == timedelta(minutes=19)


def test_a_finished_partial_pipeline_took_what_the_server_says() -> None:
    """Only some of its jobs read: the pipeline's own ``duration`` (seconds), not end minus start."""
    row = derive_pipelines(1, "p", retried_days_later("success", DAYS_4 + 4), now=T0 + timedelta(minutes=DAYS_4 + 30))[0]
    partial = as_partial(row, started_at=row.started_at, finished_at=row.finished_at, timing_known=True,
                         ran_for=780.0)
    assert partial.duration == timedelta(minutes=13)
