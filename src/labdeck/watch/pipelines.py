"""Pipelines derived from jobs: the spec has no ``/pipelines`` endpoint, so a board row is the set
of jobs that share a ``pipeline.id``.

Status of a pipeline (what the board shows), from the *newest try* of each job name:

====================  ===================================================================
derived status        job statuses that lead to it (first match wins, top to bottom)
====================  ===================================================================
``failed``            any ``failed`` job that is not ``allow_failure``
``running``           ``running``, ``canceling`` (still holds a runner until it stops)
``pending``           ``pending``, ``created``, ``preparing``, ``waiting_for_resource``,
                      ``scheduled``, ``waiting_for_callback`` and unknown statuses (all of
                      them will move without anyone acting; an unknown future status is
                      polled rather than ignored)
``manual``            ``manual`` (waits for a person; does not change on its own)
``canceled``          ``canceled``
``success``           ``success``, and ``failed`` jobs with ``allow_failure`` (the row's
                      ``allowed_failures`` names them: "passed with warnings")
``skipped``           only ``skipped`` jobs
====================  ===================================================================

Retried jobs: GitLab lists every try; the try with the highest id of a name in a pipeline decides,
so a failed job retried to success no longer makes its pipeline failed.

Partial pipelines: a row derived from *some* of a pipeline's jobs (one page of a project's newest
jobs cuts a 1,500-job pipeline) is never derived from what it holds. It is marked ``partial`` and
its status is the server's own (``pipeline.status`` embedded in every job record, GitLab's
composite rules), or ``failed`` when a blocking failure among the latest tries is actually known
(the board's precedence); what is not known yet (failed names, the running count, the duration)
says so (``failed_known``, ``running_known``, ``timing_known``) until the poller's scoped reads
complete it (:mod:`labdeck.watch.deep`).

Times (age, duration so far) are measured against the *server's* clock (``as_of``, see
:mod:`labdeck.watch.clock`), never the local one: a console on a laptop with a drifting clock must
not show "-3 min" or a running job that ran for an hour.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta
from typing import Final

from labdeck.api.models import Job

FAILED: Final = "failed"
RUNNING: Final = "running"
PENDING: Final = "pending"
MANUAL: Final = "manual"
CANCELED: Final = "canceled"
SUCCESS: Final = "success"
SKIPPED: Final = "skipped"

STATUS_ORDER: Final = (FAILED, RUNNING, PENDING, MANUAL, CANCELED, SUCCESS, SKIPPED)
"""Derived statuses, most urgent first (the precedence of the derivation)."""

_BUCKET: Final[dict[str, str]] = {
    "failed": FAILED,
    "running": RUNNING, "canceling": RUNNING,
    "pending": PENDING, "created": PENDING, "preparing": PENDING, "waiting_for_resource": PENDING,
    "scheduled": PENDING, "waiting_for_callback": PENDING,
    "manual": MANUAL,
    "canceled": CANCELED,
    "success": SUCCESS,
    "skipped": SKIPPED,
}

FINISHED_JOB_STATUSES: Final = frozenset({"success", "failed", "canceled", "skipped"})
"""Job statuses that never change on their own."""
RUNNING_JOB_STATUSES: Final = frozenset({"running", "canceling", "preparing"})
"""Job statuses that hold (or are about to hold) a runner: these can fail any second."""


def job_bucket(job: Job) -> str:
    """The derived status one job contributes (``allow_failure`` failures count as success)."""
    status = job.status or ""
    if status == "failed" and job.allow_failure:
        return SUCCESS
    return _BUCKET.get(status, PENDING)


def job_unfinished(status: str | None) -> bool:
    """True when a job will change without anyone acting (not finished, not ``manual``)."""
    return status not in FINISHED_JOB_STATUSES and status != "manual"


@dataclass(frozen=True)
class PipelineRow:
    """One pipeline on the board. Immutable; the :class:`~labdeck.api.models.Job` models it holds
    are shared with the poller's snapshot and must not be modified."""

    project_id: int
    project_path: str
    pipeline_id: int
    ref: str | None
    sha: str | None
    status: str
    """Derived status, one of :data:`STATUS_ORDER`."""
    failed_jobs: tuple[str, ...]
    """Names of the failed jobs that fail the pipeline (newest try of each name), by job id."""
    allowed_failures: tuple[str, ...]
    running: int
    pending: int
    manual: int
    created_at: datetime | None
    started_at: datetime | None
    finished_at: datetime | None
    """When the last job finished, once nothing is left to run on its own (else None)."""
    triggered_by: str | None
    """Username of whoever started the pipeline (the user of its first job)."""
    jobs: tuple[Job, ...]
    """The newest try of each job name, by id."""
    retries: int
    """How many older tries were superseded by a retry."""
    as_of: datetime
    """The server's time when the row was derived (what ``age`` and ``duration`` count to)."""
    latest_for_ref: bool = True
    """False when a newer pipeline of the same project and ref is on the same page of jobs."""
    failed_at: datetime | None = field(default=None)
    """When the newest blocking failure happened (``finished_at`` of that job)."""
    server_status: str | None = None
    """The pipeline's status as the server states it (embedded ``pipeline.status`` or the
    pipelines API), GitLab's own composite; None when no job carried one."""
    partial: bool = False
    """``jobs`` holds only some of the pipeline's jobs: ``status`` is the server's (or ``failed``
    for a known blocking failure), never derived from the jobs held."""
    failed_known: bool = True
    """``failed_jobs`` names every blocking failure (False: not read yet, shown as ``…``)."""
    failed_count: int | None = None
    """How many blocking failures there are when more are known than named (None: ``len(failed_jobs)``)."""
    running_known: bool = True
    """``running`` and ``pending`` are the pipeline's counts (False: not read yet)."""
    timing_known: bool = True
    """``started_at``/``finished_at`` are the pipeline's (False: a partial pipeline whose first
    job or end was not read: the duration shows ``…``)."""
    restarted_at: datetime | None = None
    """When the pipeline last ran again after it had stopped (a retry days later); None when it
    ran once. A running pipeline's time counts from here, not from its first job's start."""
    ran_for: float | None = None
    """Seconds the finished pipeline ran once it was retried after it had stopped: the time some
    job was running, as the server's ``duration`` counts it (the days between not counted); None:
    from its first job's start to its end."""

    @property
    def unfinished(self) -> bool:
        """True when some job will still change on its own (polling must go on)."""
        if self.partial and self.server_status is not None:
            return job_unfinished(self.server_status)
        return any(job_unfinished(job.status) for job in self.jobs)

    @property
    def failed_total(self) -> int:
        """Blocking failures known (all of them when :attr:`failed_known`)."""
        return self.failed_count if self.failed_count is not None else len(self.failed_jobs)

    @property
    def failed_label(self) -> str:
        """``unit-0001``, ``unit-0001 +39 more``; ``…`` (or ``unit-0001 +…``) while not all
        failures are read; empty when none fails."""
        total = self.failed_total
        if not self.failed_jobs:
            return "…" if not self.failed_known else ""
        first = self.failed_jobs[0]
        if not self.failed_known:
            return f"{first} +…"
        return first if total <= 1 else f"{first} +{total - 1} more"

    @property
    def running_label(self) -> str:
        """The running count for a cell: ``12``, empty when none, ``…`` when not read yet."""
        if not self.running_known:
            return "…"
        return str(self.running) if self.running else ""

    @property
    def broken(self) -> bool:
        """Failed and not superseded by a newer pipeline of the same ref: "broken right now"."""
        return self.status == FAILED and self.latest_for_ref

    @property
    def age(self) -> timedelta | None:
        """Server time since the pipeline was created, as of :attr:`as_of`."""
        return self.age_at(self.as_of)

    @property
    def duration(self) -> timedelta | None:
        """Duration so far (to the end, once finished), as of :attr:`as_of`."""
        return self.duration_at(self.as_of)

    def age_at(self, now: datetime) -> timedelta | None:
        """Age at the server time ``now`` (e.g. ``poller.server_now()`` for a ticking display)."""
        if self.created_at is None:
            return None
        return max(now - self.created_at, timedelta(0))

    def duration_at(self, now: datetime) -> timedelta | None:
        """Duration so far at the server time ``now``; None before the first job started (and
        while :attr:`timing_known` is False)."""
        if self.started_at is None or not self.timing_known:
            return None
        if self.finished_at is not None and self.ran_for is not None:
            return timedelta(seconds=max(self.ran_for, 0.0))
        if self.finished_at is None and self.restarted_at is not None:
            return max(now - self.restarted_at, timedelta(0))  # a retried pipeline: this run so far
        end = self.finished_at or now
        return max(end - self.started_at, timedelta(0))

    @property
    def attention_key(self) -> tuple[int, float, int]:
        """Sort key, smallest first: broken pipelines (newest failure first), then running,
        pending, manual, then finished ones (newest first); superseded pipelines last."""
        if not self.latest_for_ref and self.status != RUNNING and self.status != PENDING:
            rank = len(STATUS_ORDER)
        elif self.status in (CANCELED, SUCCESS, SKIPPED):
            rank = STATUS_ORDER.index(CANCELED)
        else:
            rank = STATUS_ORDER.index(self.status)
        moment = self.failed_at if self.status == FAILED and self.failed_at else self.created_at
        stamp = moment.timestamp() if moment is not None else 0.0
        return rank, -stamp, -self.pipeline_id


def latest_tries(jobs: Iterable[Job]) -> tuple[list[Job], int]:
    """The newest try of each job name (by id), and how many older tries were dropped."""
    newest: dict[str, Job] = {}
    total = 0
    for job in jobs:
        total += 1
        key = job.name if job.name is not None else f"#{job.id}"
        held = newest.get(key)
        if held is None or job.id > held.id:
            newest[key] = job
    latest = sorted(newest.values(), key=lambda job: job.id)
    return latest, total - len(latest)


def run_periods(jobs: Iterable[Job], now: datetime) -> list[tuple[datetime, datetime]]:
    """The pipeline's runs: from a start to the end of what ran with it, every try included. A run
    ends where no job runs and the next one to start was made after that (a retry, days later);
    a job made with the pipeline that waited for a runner or a person goes on the same run."""
    periods: list[tuple[datetime, datetime]] = []
    for job in sorted((job for job in jobs if job.started_at is not None), key=lambda job: job.started_at or now):
        start = job.started_at or now
        end = job.finished_at or (now if job_unfinished(job.status) else start)
        if periods and (start <= periods[-1][1] or job.created_at is None or job.created_at < periods[-1][1]):
            periods[-1] = (periods[-1][0], max(periods[-1][1], end))
        else:
            periods.append((start, end))
    return periods


def running_time(jobs: Iterable[Job]) -> float:
    """Seconds some of ``jobs`` was running, overlaps counted once: over the newest tries, GitLab's
    ``Gitlab::Ci::Pipeline::Duration`` (the pipelines API's ``duration``), what a finished pipeline
    took without the days it sat idle."""
    total = 0.0
    current: tuple[datetime, datetime] | None = None
    for start, end in sorted((job.started_at, job.finished_at) for job in jobs
                             if job.started_at is not None and job.finished_at is not None):
        if current is not None and start <= current[1]:
            current = (current[0], max(current[1], end))
            continue
        if current is not None:
            total += (current[1] - current[0]).total_seconds()
        current = (start, end)
    return total + ((current[1] - current[0]).total_seconds() if current is not None else 0.0)


def _status(latest: list[Job]) -> str:
    buckets = {job_bucket(job) for job in latest}
    for status in STATUS_ORDER:
        if status in buckets:
            return status
    return SKIPPED


def build_row(project_id: int, project_path: str, pipeline_id: int, jobs: list[Job], now: datetime) -> PipelineRow:
    """Derive one :class:`PipelineRow` from every try of every job of one pipeline."""
    latest, retries = latest_tries(jobs)
    status = _status(latest)
    failed = [job for job in latest if job.status == "failed" and not job.allow_failure]
    allowed = [job for job in latest if job.status == "failed" and job.allow_failure]
    first = min(jobs, key=lambda job: job.id)
    created = [job.created_at for job in jobs if job.created_at is not None]
    started = [job.started_at for job in jobs if job.started_at is not None]
    ended = [job.finished_at for job in latest if job.finished_at is not None]
    settled = not any(job_unfinished(job.status) for job in latest)
    failed_times = [job.finished_at for job in failed if job.finished_at is not None]
    ref_job = next((job for job in latest if job.pipeline is not None), first)
    pipeline = ref_job.pipeline
    newest = max(jobs, key=lambda job: job.id)
    server_status = newest.pipeline.status if newest.pipeline is not None and newest.pipeline.status else None
    runs = run_periods(jobs, now) if retries else []
    finished_at = max(ended) if settled and ended else None
    return PipelineRow(
        project_id=project_id,
        project_path=project_path,
        pipeline_id=pipeline_id,
        ref=(pipeline.ref if pipeline is not None and pipeline.ref else None) or ref_job.ref,
        sha=(pipeline.sha if pipeline is not None else None) or (ref_job.commit.id if ref_job.commit else None),
        status=status,
        failed_jobs=tuple(job.name or f"#{job.id}" for job in failed),
        allowed_failures=tuple(job.name or f"#{job.id}" for job in allowed),
        running=sum(1 for job in latest if job.status in ("running", "canceling")),
        pending=sum(1 for job in latest if job_bucket(job) == PENDING),
        manual=sum(1 for job in latest if job.status == "manual"),
        created_at=min(created) if created else None,
        started_at=min(started) if started else None,
        finished_at=finished_at,
        restarted_at=runs[-1][0] if len(runs) > 1 else None,
        ran_for=running_time(latest) if len(runs) > 1 and finished_at is not None else None,
        triggered_by=first.user.username if first.user is not None else None,
        jobs=tuple(latest),
        retries=retries,
        as_of=now,
        failed_at=max(failed_times) if failed_times else None,
        server_status=server_status,
    )


def derive_pipelines(project_id: int, project_path: str, jobs: Iterable[Job], *, now: datetime,
                     page_full: bool = False) -> list[PipelineRow]:
    """Group a project's jobs by ``pipeline.id`` into rows, newest pipeline first.

    ``page_full``: the jobs are one full page of a longer list (newest first), so pipelines may be
    cut by the page boundary: the pipeline of the page's oldest job and every older one are
    ``partial`` (see :func:`as_partial`), and so is any other whose jobs disagree with the status
    the server states for it (:func:`consistent`). Jobs without a pipeline (action responses) are
    ignored. ``latest_for_ref`` is set per ref on what is seen.
    """
    groups: dict[int, list[Job]] = {}
    oldest: Job | None = None
    for job in jobs:
        if job.pipeline is None or job.pipeline.id is None:
            continue
        groups.setdefault(job.pipeline.id, []).append(job)
        if oldest is None or job.id < oldest.id:
            oldest = job
    cut = oldest.pipeline.id if page_full and oldest is not None and oldest.pipeline is not None else None
    rows = []
    for pid, members in groups.items():
        row = build_row(project_id, project_path, pid, members, now)
        if cut is not None and (pid <= cut or not consistent(row)):
            row = as_partial(row)
        rows.append(row)
    return mark_latest_for_ref(rows)


def mark_latest_for_ref(rows: Iterable[PipelineRow]) -> list[PipelineRow]:
    """``rows`` newest first, ``latest_for_ref`` False on all but the newest of each ref."""
    ordered = sorted(rows, key=lambda row: row.pipeline_id, reverse=True)
    seen_refs: set[str | None] = set()
    marked: list[PipelineRow] = []
    for row in ordered:
        newest = row.ref not in seen_refs
        seen_refs.add(row.ref)
        marked.append(row if newest == row.latest_for_ref else replace(row, latest_for_ref=newest))
    return marked


_SETTLED_CLEAN: Final = frozenset({SUCCESS, SKIPPED, CANCELED})
"""Server statuses that imply no blocking failure and nothing running (GitLab's composite: a
failure among the latest tries makes a finished pipeline ``failed``)."""


def consistent(row: PipelineRow) -> bool:
    """Whether the jobs a row holds can be all of its pipeline's jobs, given the status the server
    states for it. A row whose jobs say ``skipped`` while the server says ``failed`` (the page holds
    only the skipped last stage) cannot; nor one whose jobs all finished while the server says
    ``running``."""
    server = row.server_status
    if server is None:
        return True
    bucket = _BUCKET.get(server, PENDING)
    unfinished = any(job_unfinished(job.status) for job in row.jobs)
    if bucket == FAILED:
        return bool(row.failed_jobs) and not unfinished
    if bucket in (RUNNING, PENDING):
        return unfinished
    if bucket == MANUAL:
        return row.manual > 0
    return not row.failed_jobs and not unfinished and (bucket != CANCELED or any(
        job.status == "canceled" for job in row.jobs))


def as_partial(row: PipelineRow, *, failed: tuple[str, ...] | None = None, failed_count: int | None = None,
               failed_at: datetime | None = None, running: int | None = None, pending: int | None = None,
               started_at: datetime | None = None, finished_at: datetime | None = None,
               timing_known: bool = False, ran_for: float | None = None) -> PipelineRow:
    """``row`` (derived from some of its pipeline's jobs) as a partial row: the server's status, or
    ``failed`` when a blocking failure is known; what was read beyond the jobs (every failed
    job's name ``failed``, the running and pending counts, the times) completes it."""
    server = row.server_status
    bucket = _BUCKET.get(server, PENDING) if server is not None else None
    names = failed if failed is not None else row.failed_jobs
    settled_clean = bucket in _SETTLED_CLEAN
    if settled_clean:
        # The server says no blocking failure is left (retried to success, allowed to fail).
        names, failed_known, failed_count = (), True, None
    else:
        failed_known = failed is not None
    if bucket == FAILED or (names and not settled_clean):
        status = FAILED  # the server's word, or a failure actually known while others still run
    else:
        status = bucket or row.status
    finished = server is not None and not job_unfinished(server)
    running_known = running is not None or finished
    if finished:
        running = pending = 0  # nothing runs in a finished pipeline, whatever was counted before
    return replace(
        row, partial=True, status=status, failed_jobs=names, failed_known=failed_known,
        failed_count=failed_count if failed_known and not settled_clean else None,
        failed_at=failed_at if failed_at is not None else (row.failed_at if names else None),
        running=running if running is not None else 0, pending=pending if pending is not None else 0,
        running_known=running_known,
        started_at=started_at if started_at is not None else row.started_at,
        finished_at=finished_at if finished_at is not None else (row.finished_at if timing_known else None),
        timing_known=timing_known,
        # Some of the jobs say nothing sure of the runs: the server's duration once finished.
        restarted_at=None, ran_for=ran_for,
    )


def sort_by_attention(rows: Iterable[PipelineRow]) -> list[PipelineRow]:
    """Rows in board order (see :attr:`PipelineRow.attention_key`)."""
    return sorted(rows, key=lambda row: row.attention_key)


def newest_pipeline(rows: Iterable[PipelineRow]) -> PipelineRow | None:
    """The newest pipeline among ``rows`` (the projects table's CI column)."""
    return max(rows, key=lambda row: row.pipeline_id, default=None)
