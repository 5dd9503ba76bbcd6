"""Whose is it: the owner of a verdict, and runners failing well above the fleet. No I/O.

- ``broken`` → the author of the first bad commit;
- ``infrastructure`` → the runner, with its failure share over its recent jobs
  (``k8s-autoscaler: 5 of its last 8 jobs failed``);
- ``flaky`` → the project.

:func:`runner_shares` counts, from the jobs already read (the projects' jobs pages: no extra
request), each runner's failures among its last :data:`RECENT` finished jobs, and flags a runner
with at least :data:`MIN_FAILURES` failures and at least twice the failure rate of the other
runners together.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from labdeck.api.models import Job
from labdeck.triage.verdict import Verdict

RECENT = 20
MIN_FAILURES = 3


@dataclass(frozen=True)
class RunnerShare:
    """One runner's recent record: ``failed`` of its last ``total`` finished jobs."""

    id: int
    description: str
    failed: int
    total: int
    flagged: bool = False
    """At least :data:`MIN_FAILURES` failures and twice the other runners' failure rate."""

    @property
    def rate(self) -> float:
        return self.failed / self.total if self.total else 0.0

    def describe(self) -> str:
        """``k8s-autoscaler: 5 of its last 8 jobs failed``."""
        return f"{self.description or f'runner #{self.id}'}: {self.failed} of its last {self.total} jobs failed"


def runner_shares(jobs: Iterable[Job]) -> dict[int, RunnerShare]:
    """Runner id → its :class:`RunnerShare` over its last :data:`RECENT` finished jobs among ``jobs``."""
    by_runner: dict[int, list[Job]] = {}
    names: dict[int, str] = {}
    seen: set[int] = set()
    for job in jobs:
        if job.runner is None or job.id in seen or job.status not in ("success", "failed"):
            continue
        seen.add(job.id)
        by_runner.setdefault(job.runner.id, []).append(job)
        names[job.runner.id] = job.runner.description or job.runner.name or ""
    counts: dict[int, tuple[int, int]] = {}
    for runner_id, held in by_runner.items():
        recent = sorted(held, key=lambda job: job.id)[-RECENT:]
        counts[runner_id] = (sum(job.status == "failed" for job in recent), len(recent))
    shares = {}
    for runner_id, (failed, total) in counts.items():
        other_failed = sum(f for rid, (f, _) in counts.items() if rid != runner_id)
        other_total = sum(t for rid, (_, t) in counts.items() if rid != runner_id)
        other_rate = other_failed / other_total if other_total else 0.0
        rate = failed / total if total else 0.0
        flagged = failed >= MIN_FAILURES and (rate >= 2 * other_rate if other_total else True)
        shares[runner_id] = RunnerShare(runner_id, names[runner_id], failed, total, flagged)
    return shares


def owner(verdict: Verdict, job: Job, project: str, shares: dict[int, RunnerShare] | None = None) -> str:
    """Whose it is, in a few words ('' when nobody can be named: ``unknown``)."""
    if verdict.kind == "broken":
        return verdict.first_failure.author if verdict.first_failure else ""
    if verdict.kind == "infrastructure":
        if job.runner is None:
            return "the platform"
        share = (shares or {}).get(job.runner.id)
        return share.describe() if share else (job.runner.description or f"runner #{job.runner.id}")
    if verdict.kind == "flaky":
        return project
    return ""
