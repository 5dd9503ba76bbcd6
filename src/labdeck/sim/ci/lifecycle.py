"""The job statuses current GitLab adds, for the gitlab dialect (docs/wire-facts.md §4.1, §4.2):

- ``scheduled``: a ``when: delayed`` job waits ``start_in`` seconds, then is queued;
- ``waiting_for_resource``: a job of a ``resource_group`` waits while another job of the same
  project and group holds it (from ``preparing`` until it completes);
- ``preparing``: a job whose environment has prerequisites (deployments) prepares for a few
  seconds before it is pending;
- ``canceling``: cancelling a running job waits for the runner to acknowledge (a few seconds);
- stuck jobs: ``StuckCiJobsWorker`` drops a job pending for an hour with no active, online runner
  able to pick it, and any job pending for a day, with ``failure_reason: stuck_or_timeout_failure``.

The functions here act on a :class:`LifecycleStore` (the CI store of :mod:`labdeck.sim.ci.engine`,
which calls them only in the gitlab dialect; a protocol, so that this module need not import it).
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Protocol

from labdeck.sim.ci.model import Job, Runner
from labdeck.sim.core.state import Project, SimState


class LifecycleStore(Protocol):
    """What these transitions need of the CI store."""

    state: SimState
    active: set[int]
    """Ids of the jobs with events ahead."""

    @property
    def jobs(self) -> dict[int, Job]:
        """Every job by id."""

    @property
    def runners(self) -> dict[int, Runner]:
        """Every runner by id."""

    def can_run(self, runner: Runner, job: Job, project: Project) -> bool:
        """Whether ``runner`` would pick ``job``."""

    def project_jobs(self, project_id: int) -> list[Job]:
        """Every job of a project, oldest first."""

    def enqueue(self, job: Job, at: datetime) -> None:
        """→ pending."""

    def finish_cancel(self, job: Job, at: datetime) -> None:
        """→ canceled."""

    def drop(self, job: Job, at: datetime, reason: str) -> None:
        """→ failed with ``reason``."""

# Statuses in which a job holds its resource group.
HOLDING_STATUSES = frozenset({"preparing", "pending", "running", "canceling"})
# Statuses whose end is a timed event (the job is in ``CiStore.active`` meanwhile).
TIMED_STATUSES = frozenset({"scheduled", "preparing", "canceling"})
STUCK_TIMEOUT = timedelta(hours=1)
OUTDATED_PENDING_TIMEOUT = timedelta(days=1)
STUCK_REASON = "stuck_or_timeout_failure"

Event = tuple[datetime, int, Callable[[], None]]


def prepare_seconds(job: Job) -> float:
    """How long a job stays ``preparing`` (stable per job)."""
    return float(4 + job.id % 9)


def cancel_ack_seconds(job: Job) -> float:
    """How long a running job stays ``canceling``: the runner notices at its next trace update (3 s)."""
    return float(2 + job.id % 3)


def resource_holder(ci: LifecycleStore, job: Job) -> Job | None:
    """The job of the same project and resource group that holds the resource, if any."""
    if not job.resource_group:
        return None
    for other in ci.project_jobs(job.project_id):
        if other.id != job.id and other.id in ci.active and other.resource_group == job.resource_group \
                and other.status in HOLDING_STATUSES:
            return other
    return None


def enqueue(ci: LifecycleStore, job: Job, at: datetime) -> None:
    """created/scheduled/manual → waiting_for_resource, preparing or pending."""
    ci.active.add(job.id)
    if resource_holder(ci, job) is not None:
        job.status = "waiting_for_resource"
        return
    if job.prepare and job.prepared_at is None:
        job.status = "preparing"
        job.prepared_at = at + timedelta(seconds=prepare_seconds(job))
        return
    job.status = "pending"
    job.queued_at = at


def schedule(ci: LifecycleStore, job: Job, at: datetime) -> None:
    """A ``when: delayed`` job: scheduled until ``start_in`` has passed."""
    job.status = "scheduled"
    job.scheduled_at = at + timedelta(seconds=job.start_in or 0.0)
    ci.active.add(job.id)


def begin_cancel(ci: LifecycleStore, job: Job, at: datetime) -> None:
    """running → canceling; the runner acknowledges a few seconds later."""
    job.status = "canceling"
    job.cancel_at = at + timedelta(seconds=cancel_ack_seconds(job))


def release(ci: LifecycleStore, job: Job, at: datetime) -> None:
    """After ``job`` completed: the oldest job waiting for its resource goes on."""
    if not job.resource_group or job.status in HOLDING_STATUSES:
        return
    waiting = [other for other in ci.project_jobs(job.project_id)
               if other.status == "waiting_for_resource" and other.id in ci.active
               and other.resource_group == job.resource_group]
    if waiting:
        enqueue(ci, waiting[0], at)


def timed_event(ci: LifecycleStore, job: Job) -> Event | None:
    """The end of a scheduled, preparing or canceling job."""
    if job.status == "scheduled" and job.scheduled_at is not None:
        at = job.scheduled_at
        return at, 1, lambda: ci.enqueue(job, at)
    if job.status == "preparing" and job.prepared_at is not None:
        at = job.prepared_at

        def prepared() -> None:
            job.status = "pending"
            job.queued_at = at
        return at, 1, prepared
    if job.status == "canceling" and job.cancel_at is not None:
        at = job.cancel_at
        return at, 0, lambda: ci.finish_cancel(job, at)
    return None
