"""Why did a job fail: a verdict with its evidence, from a project's jobs page and (when
``failure_reason`` does not explain it) the job's log. Nothing here does I/O.

Verdicts, decided in this order (:func:`decide`):

- ``infrastructure``: a system ``failure_reason`` (:data:`~labdeck.triage.signature.SYSTEM_FAILURE_REASONS`)
  or a log whose error matches a platform pattern (image pull, OOM, disk full…);
- ``flaky``: the same job on the same ref both failed and passed on one commit within the window
  (for example it passed on retry), and this failure did not fail again on its own retry;
- ``broken``: it failed again on retry, or it failed on two or more pipelines of the ref in a row,
  with no flaky history. :attr:`Verdict.first_failure` names the first failing pipeline after the
  last green run (None when no green run precedes it in the window);
- ``unknown``: the evidence is not there (a single new failure: "retry to tell flaky from broken"),
  or the log that had to decide could not be read (``log not read: 500``): never a verdict from
  half the evidence, since the log may hold a platform failure that outranks the history.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Literal

from labdeck.api.models import Job
from labdeck.triage.history import (
    ORDER_NOTE,
    History,
    Run,
    attempts,
    job_history,
    pipeline_id,
    runs,
    same_job,
    sha_of,
)
from labdeck.triage.signature import LogFacts, platform_failure

VerdictKind = Literal["infrastructure", "flaky", "broken", "unknown"]
RETRY_HINT = "retry to tell flaky from broken"


@dataclass(frozen=True)
class FirstFailure:
    """The first failing pipeline after the last green run: who broke it."""

    pipeline_id: int
    sha: str
    title: str
    author: str

    @property
    def short_sha(self) -> str:
        return self.sha[:8]

    def as_json(self) -> dict[str, object]:
        return {"pipeline_id": self.pipeline_id, "sha": self.short_sha, "title": self.title, "author": self.author}


@dataclass(frozen=True)
class Verdict:
    """A job's verdict: ``kind``, a short ``reason`` (``runner_system_failure``, ``passed on retry``…),
    one or two lines of ``evidence``, and for ``broken`` the ``first_failure``."""

    kind: VerdictKind
    reason: str
    evidence: tuple[str, ...] = ()
    first_failure: FirstFailure | None = None
    history: History | None = field(default=None, compare=False)

    @property
    def label(self) -> str:
        """The board's ``Why`` cell: ``flaky``, ``infra``, ``broken since #127``, ``broken``, ``?``."""
        if self.kind == "infrastructure":
            return "infra"
        if self.kind == "broken":
            return f"broken since #{self.first_failure.pipeline_id}" if self.first_failure else "broken"
        return "flaky" if self.kind == "flaky" else "?"


def _first_failure(history: Sequence[Run], pipeline: int, jobs: Sequence[Job]) -> FirstFailure | None:
    """Walk back from ``pipeline`` over failed runs; the one after the last green run, if any."""
    before = [run for run in history if run.pipeline_id <= pipeline and run.status in ("success", "failed")]
    first: Run | None = None
    for run in reversed(before):
        if run.status == "success":
            break
        first = run
    else:
        return None  # no green run precedes the break within the window
    if first is None:
        return None
    job = next((j for j in jobs if j.id == first.job_id), None)
    commit = job.commit if job is not None else None
    author = (commit.author_name if commit is not None and commit.author_name else
              (job.user.username if job is not None and job.user is not None and job.user.username else ""))
    return FirstFailure(first.pipeline_id, first.sha, (commit.title if commit and commit.title else "") or "", author)


def _flaky_commit(history: Sequence[Job], exclude_pipeline: int | None = None) -> str | None:
    """A commit on which the job both failed and passed (retries included), if any."""
    outcomes: dict[str, set[str]] = {}
    for job in history:
        if exclude_pipeline is not None and pipeline_id(job) == exclude_pipeline:
            continue
        sha = sha_of(job)
        if sha and job.status in ("success", "failed"):
            outcomes.setdefault(sha, set()).add(job.status)
    return next((sha for sha, seen in outcomes.items() if seen == {"success", "failed"}), None)


def decide(job: Job, jobs: Sequence[Job], log: LogFacts | None = None, *, log_problem: str = "") -> Verdict:
    """The verdict for failed ``job`` given its project's jobs (one page: every attempt, within the
    window) and, when read, its log; ``log_problem``: why the log that was needed could not be
    read (``500``, ``no answer within 30 s``). See the module docstring for the rules."""
    history_jobs = same_job(jobs, job.name, job.ref)
    history = job_history(jobs, job.name, job.ref)
    ref = job.ref or "?"
    if platform_failure(job.failure_reason):
        return Verdict("infrastructure", str(job.failure_reason),
                       (f"failure_reason {job.failure_reason}" + _runner_part(job),), history=history)
    if log_problem and log is None:
        return Verdict("unknown", f"log not read: {log_problem}",
                       (f"log not read: {log_problem} (job #{job.id}): the verdict needs its log",
                        history.describe()), history=history)
    if log is not None and log.platform is not None:
        # The platform's whole line (already cut at 500 by the finder): which host, what failed.
        return Verdict("infrastructure", log.platform.label, (_cut(log.evidence(), PLATFORM_EVIDENCE),),
                       history=history)
    verdict = _from_history(job, history_jobs, history, jobs, ref)
    line = log.evidence() if log is not None else ""
    return replace(verdict, evidence=(_cut(line), *verdict.evidence)) if line else verdict


def _from_history(job: Job, history_jobs: Sequence[Job], history: History, jobs: Sequence[Job], ref: str) -> Verdict:
    """Flaky, broken or unknown from the job's runs (no platform failure in sight)."""
    pid = pipeline_id(job)
    tries = attempts(history_jobs, pid, job.name)
    later = [t for t in tries if t.id > job.id]
    others_failed = [t for t in tries if t.id != job.id and t.status == "failed"]
    passed = next((t for t in later if t.status == "success"), None)
    if passed is not None and not any(t.status == "failed" for t in later if t.id < passed.id):
        return Verdict("flaky", "passed on retry",
                       (f"job #{job.id} failed, its retry #{passed.id} passed on the same commit {sha_of(job)[:8]}",),
                       history=history)
    flaky_sha = _flaky_commit(history_jobs, exclude_pipeline=pid)
    all_runs = runs(history_jobs)
    if others_failed:
        if passed is not None or flaky_sha is not None:
            where = sha_of(job)[:8] if passed is not None else flaky_sha[:8] if flaky_sha else "?"
            return Verdict("unknown", "failed again on retry, but flaky before",
                           (f"failed {len(others_failed) + 1} times in pipeline #{pid}; {job.name} both failed and "
                            f"passed on {where} on {ref}", RETRY_HINT), history=history)
        first = _first_failure(all_runs, pid, jobs)
        return Verdict("broken", "failed again on retry",
                       (f"failed {len(others_failed) + 1} times in pipeline #{pid}", _since(first, ref)),
                       first, history=history)
    if flaky_sha is not None:
        return Verdict("flaky", "failed and passed on one commit",
                       (f"{job.name} both failed and passed on {flaky_sha[:8]} on {ref}", history.describe()),
                       history=history)
    finished = [run for run in all_runs if run.pipeline_id <= pid and run.status in ("success", "failed")]
    streak = 0
    for run in reversed(finished):
        if run.status != "failed":
            break
        streak += 1
    if streak >= 2:
        first = _first_failure(all_runs, pid, jobs)
        return Verdict("broken", f"failed {streak} pipelines in a row",
                       (f"failed on {streak} pipelines of {ref} in a row: {history.strip()} ({ORDER_NOTE})", _since(first, ref)),
                       first, history=history)
    detail = ("no earlier run of this job on " + ref) if len(finished) <= 1 else history.describe()
    return Verdict("unknown", RETRY_HINT, (detail, RETRY_HINT), history=history)


def _since(first: FirstFailure | None, ref: str) -> str:
    if first is None:
        return f"no green run before it on {ref} in the window: first failure unknown"
    return f"first failed in #{first.pipeline_id} {first.short_sha} “{first.title}” by {first.author}"


def _runner_part(job: Job) -> str:
    runner = job.runner
    if runner is None:
        return ""
    return f" on runner {runner.description or runner.name or f'#{runner.id}'}"


PLATFORM_EVIDENCE = 520
"""Characters of a platform failure's evidence: ``log line N:`` and the finder's line (at most 500)."""


def _cut(text: str, limit: int = 200) -> str:
    """``text`` within ``limit`` characters, its start and its end kept (a long error line names
    the tool first and the reason last: ``ERROR: … Temporary failure in name resolution')``)."""
    if len(text) <= limit:
        return text
    head = limit * 2 // 5
    return text[:head] + " … " + text[len(text) - (limit - head - 3):]
