"""The status rules a pipeline's jobs make up, per dialect (10.x ``status_sql`` for the spec, current
GitLab's ``Composite`` for gitlab), and pruning that never drops a pipeline in flight."""

from __future__ import annotations

import pytest

from labdeck.sim.ci.engine import JobSpec, StageSpec, store
from labdeck.sim.ci.status import COMPLETED, composite, counts_of, stage_done, with_warnings
from labdeck.sim.core.clock import SimClock
from labdeck.sim.dataset.build import build_state

RULES = [
    # (jobs as (status, allow_failure), spec status, gitlab status)
    ([("success", False)] * 1199 + [("running", False)] + [("created", False)] * 300, "running", "running"),
    ([("failed", False)] + [("success", False)] * 1199 + [("skipped", False)] * 300, "failed", "failed"),
    ([("failed", True)] + [("success", False)] * 1499, "success", "success"),
    ([("success", False), ("manual", False), ("created", False)], "manual", "manual"),
    # An optional manual job alone: 10.x says manual; Composite counts it as ignored, so skipped.
    ([("manual", True)], "manual", "skipped"),
    ([("success", False), ("manual", True)], "success", "success"),
    ([("canceled", False), ("success", False), ("skipped", False)], "canceled", "canceled"),
    ([("pending", False), ("created", False)], "pending", "pending"),
    # Statuses only current GitLab has (None: they never occur in the spec dialect).
    ([("canceling", False), ("canceled", False)], None, "canceling"),
    ([("scheduled", False), ("success", False)], None, "scheduled"),
    ([("waiting_for_resource", False), ("created", False)], None, "waiting_for_resource"),
    ([("preparing", False)], None, "preparing"),
    ([("skipped", False), ("failed", True)], "skipped", "success"),
]


@pytest.mark.parametrize(("jobs", "spec", "gitlab"), RULES)
def test_composite_rules(jobs: list[tuple[str, bool]], spec: str | None, gitlab: str) -> None:
    counts = counts_of(jobs)
    if spec is not None:
        assert composite(counts, gitlab=False) == spec
    assert composite(counts, gitlab=True) == gitlab


def test_stage_done_waits_for_a_blocking_manual_job() -> None:
    assert not stage_done(counts_of([("success", False), ("manual", False)]))
    assert stage_done(counts_of([("success", False), ("manual", True), ("failed", False)]))
    assert with_warnings(counts_of([("success", False), ("canceled", True)]))


def test_pruning_keeps_pipelines_in_flight_and_each_projects_newest() -> None:
    state = build_state(seed=42, clock=SimClock(mode="manual"))
    ci = store(state)
    ci.next_pipeline_at = None
    first, second = sorted((p for p in state.projects.values() if not p.deleted), key=lambda p: p.id)[:2]
    root = next(user for user in state.users.values() if user.username == "root")
    # Blocked on a manual job: no job has an event ahead, yet the pipeline is not finished.
    blocked = ci.create_pipeline(first, "master", [StageSpec("gate", [JobSpec("approve", when="manual",
                                                                              allow_failure=False)]),
                                                   StageSpec("deploy", [JobSpec("ship")])], root, state.now())
    newest = ci.create_pipeline(second, "master", [StageSpec("build", [JobSpec("build", duration=5)])], root,
                                state.now())
    state.clock.advance(600)
    state.tick()
    assert blocked.status == "manual" and newest.status == "success"
    assert not any(job.id in ci.active for job in ci.pipeline_jobs(blocked))
    ci.prune(1)
    assert blocked.id in ci.pipelines and newest.id in ci.pipelines
    kept = {pipeline.project_id for pipeline in ci.pipelines.values()}
    assert all(ci.project_pipelines(project_id)[-1].id in ci.pipelines for project_id in kept)
    assert all(pipeline.status not in COMPLETED or pipeline.id == ci.project_pipelines(pipeline.project_id)[-1].id
               or any(job.id in ci.active for job in ci.pipeline_jobs(pipeline))
               for pipeline in ci.pipelines.values())
    assert all(job.pipeline_id in ci.pipelines for job in ci.jobs.values())
    assert all(job.id in ci.jobs for project_id in kept for job in ci.project_jobs(project_id))
