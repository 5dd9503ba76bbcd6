"""What a pipeline is made of (the specs the data set and the control surface build), and how the
statuses of its jobs make up its own."""

from __future__ import annotations

from dataclasses import dataclass, field

from labdeck.sim import ci_lifecycle
from labdeck.sim.ci_model import COMPLETED_STATUSES, Job


@dataclass
class JobSpec:
    """How to create one job (the control surface and the data set build these)."""

    name: str
    tags: list[str] = field(default_factory=list)
    when: str = "on_success"
    script: list[str] = field(default_factory=list)
    fail: bool = False
    duration: float | None = 60.0
    allow_failure: bool | None = None
    artifacts: str | None = None
    artifact_bytes: int = 0
    trace_kind: str = "script"
    bulk_initial_bytes: int = 0
    bulk_rate: float = 0.0
    bulk_lines: int | None = None
    outcome_fixed: bool = True
    failure: str | None = None  # the failure_reason of a planned failure (script_failure when None)
    flaky: bool = False  # fails, passes on retry
    resource_group: str | None = None
    prepare: bool = False  # an environment with prerequisites: ``preparing`` first (gitlab dialect)
    start_in: float | None = None  # seconds, for ``when: delayed``


@dataclass
class StageSpec:
    name: str
    jobs: list[JobSpec]


def stage_done(job: Job) -> bool:
    """Whether ``job`` no longer holds its stage back (complete, or an optional manual job)."""
    return job.status in COMPLETED_STATUSES or (job.status == "manual" and job.allow_failure)


def composite_status(jobs: list[Job]) -> str:
    """10.x ``HasStatus.status_sql`` over jobs, ignoring allowed failures and optional manual jobs
    (current GitLab's rules when its statuses are present)."""
    relevant = [j.status for j in jobs if not (j.allow_failure and j.status in ("failed", "canceled", "manual"))]
    current = ci_lifecycle.composite(relevant)
    if current is not None:
        return current
    total = len(relevant)
    count = {status: relevant.count(status) for status in set(relevant)}

    def n(*names: str) -> int:
        return sum(count.get(name, 0) for name in names)

    if total == 0:
        if any(j.status == "manual" for j in jobs):
            return "manual"
        return "success" if any(j.status == "failed" for j in jobs) else "skipped"
    if total == n("skipped"):
        return "skipped"
    if total == n("success", "skipped"):
        return "success"
    if total == n("created"):
        return "created"
    if total == n("success", "skipped", "canceled"):
        return "canceled"
    if total == n("created", "skipped", "pending"):
        return "pending"
    if n("running", "pending") > 0:
        return "running"
    if n("manual") > 0:
        return "manual"
    if n("created") > 0:
        return "running"
    return "failed"


def go_duration(seconds: int) -> str:
    """Seconds as Go prints a duration (``1h0m0s``), as the runner's timeout message does."""
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}h{minutes}m{secs}s"
