"""The runs of one job name on one ref, from a project's jobs page, without any I/O.

A *run* is one pipeline's outcome for the job: the newest attempt of that name in the pipeline
(a retry replaces the attempt before it). :func:`job_history` keeps the last :data:`HISTORY_SIZE`
runs, :func:`attempts` the attempts of one pipeline. Everything shown reads **newest first**, in one
order everywhere (the strip ``✗✗✓✓``, the durations beside it, the evidence): :meth:`History.strip`
and :meth:`History.durations` give them so, and :data:`ORDER_NOTE` says so.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace

from labdeck.api.models import Job

HISTORY_SIZE = 20
FINISHED = frozenset({"success", "failed", "canceled", "skipped"})
ORDER_NOTE = "newest first"
"""What every history strip says about its order (the strips are drawn newest first)."""
_MARKS = {"success": "✓", "failed": "✗", "canceled": "⊘", "skipped": "»", "running": "▶", "pending": "…"}


@dataclass(frozen=True)
class Run:
    """One pipeline's run of a job (its newest attempt); ``attempts`` counts retries too."""

    job_id: int
    pipeline_id: int
    status: str
    duration: float | None
    sha: str
    attempts: int = 1
    passed_on_retry: bool = False
    """An earlier attempt in the same pipeline failed and this one passed."""

    @property
    def mark(self) -> str:
        """One character for the strip (``✓`` success, ``✗`` failed, ``…`` waiting)."""
        return _MARKS.get(self.status, "·")


@dataclass(frozen=True)
class History:
    """The last runs of ``name`` on ``ref``; ``runs`` is held oldest first, everything drawn from
    it reads newest first."""

    name: str
    ref: str
    runs: tuple[Run, ...]

    def newest_first(self) -> tuple[Run, ...]:
        """The runs, newest first (the order every strip is drawn in)."""
        return tuple(reversed(self.runs))

    def strip(self) -> str:
        """``✗✗✓✓✗✓`` (newest first: the leftmost mark is the latest run)."""
        return "".join(run.mark for run in self.newest_first())

    def durations(self) -> list[str]:
        """Each run's duration as ``95s`` / ``3m05s`` (``…`` when unknown), in strip order (newest first).
        A run still going has none yet: the server's ``duration`` of a running job is how long it had
        run when the page was read, which shown as "took" would be both stale and false."""
        return [_seconds(run.duration if run.status in FINISHED else None) for run in self.newest_first()]

    def as_now(self, job: Job) -> History:
        """The history with ``job``'s own run as ``job`` says now: the jobs page it came from may have
        been read while the job ran (the log viewer kept ``▶`` after the job had ended)."""
        runs = tuple(replace(run, status=job.status, duration=job.duration)
                     if run.job_id == job.id and (run.status, run.duration) != (job.status, job.duration) else run
                     for run in self.runs)
        return self if runs == self.runs else replace(self, runs=runs)

    def runs_said(self) -> str:
        """``last 3 runs`` (``last run`` for one)."""
        return "last run" if len(self.runs) == 1 else f"last {len(self.runs)} runs"

    def describe(self) -> str:
        """``✗✗✓ (last 3 runs of unit on main, newest first)`` for one-line evidence."""
        return f"{self.strip()} ({self.runs_said()} of {self.name} on {self.ref}, {ORDER_NOTE})"


def _seconds(value: float | None) -> str:
    if value is None:
        return "…"
    total = int(round(value))
    return f"{total}s" if total < 60 else f"{total // 60}m{total % 60:02d}s"


def pipeline_id(job: Job) -> int:
    """The job's pipeline id (0 when the server did not say)."""
    return int(job.pipeline.id) if job.pipeline is not None and job.pipeline.id is not None else 0


def sha_of(job: Job) -> str:
    """The commit the job ran ('' when unknown)."""
    if job.commit is not None and job.commit.id:
        return job.commit.id
    return job.pipeline.sha if job.pipeline is not None and job.pipeline.sha else ""


def same_job(jobs: Iterable[Job], name: str | None, ref: str | None) -> list[Job]:
    """Every attempt of ``name`` on ``ref``, oldest first (by id: retries get newer ids)."""
    return sorted((job for job in jobs if job.name == name and job.ref == ref), key=lambda job: job.id)


def attempts(jobs: Iterable[Job], pipeline: int, name: str | None) -> list[Job]:
    """The attempts of ``name`` in one pipeline, oldest first."""
    return sorted((job for job in jobs if pipeline_id(job) == pipeline and job.name == name), key=lambda j: j.id)


def runs(jobs: Sequence[Job]) -> list[Run]:
    """One :class:`Run` per pipeline from the attempts of one job name on one ref, oldest first."""
    by_pipeline: dict[int, list[Job]] = {}
    for job in sorted(jobs, key=lambda job: job.id):
        by_pipeline.setdefault(pipeline_id(job), []).append(job)
    result = []
    for pid in sorted(by_pipeline):
        tries = by_pipeline[pid]
        last = tries[-1]
        healed = last.status == "success" and any(t.status == "failed" for t in tries[:-1])
        result.append(Run(last.id, pid, last.status, last.duration, sha_of(last), len(tries), healed))
    return result


def job_history(jobs: Iterable[Job], name: str | None, ref: str | None, *, limit: int = HISTORY_SIZE) -> History:
    """The last ``limit`` runs of ``name`` on ``ref`` among ``jobs`` (a project's jobs page)."""
    return History(name or "", ref or "", tuple(runs(same_job(jobs, name, ref))[-limit:]))
