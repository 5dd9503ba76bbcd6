"""A triage round's result: failures with verdicts, clusters across projects, runner flags. No I/O.

:func:`cluster` groups failures that share a signature across projects (exact signatures first,
then near matches: signatures that differ only in volatile tokens, fewer than 10 % of them; a
changed name is never absorbed). :meth:`TriageReport.as_json` is the
``labdeck triage --json`` shape. :func:`merge_reports` joins the rounds of several instances into
one report whose failures name their instance and whose clusters may span instances.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from labdeck.api.models import Job
from labdeck.triage.owners import RunnerShare
from labdeck.triage.signature import LogFacts
from labdeck.triage.verdict import Verdict

_ORDER = ("infrastructure", "broken", "flaky", "unknown")


@dataclass(frozen=True)
class Failure:
    """One failed job (the newest failed pipeline of a project, ref and job name) and its verdict."""

    project: str
    project_id: int
    job: Job
    verdict: Verdict
    signature: str
    owner: str = ""
    log: LogFacts | None = field(default=None, compare=False)
    log_read: bool = False
    """Whether the log was needed (``failure_reason`` did not explain the failure)."""
    problem: str = ""
    """Why a log that was needed could not be read (``500``), '' when it was or was not needed."""
    instance: str = ""
    """The instance's short name (its profile) when several instances are triaged together."""

    @property
    def where(self) -> str:
        """The project, with its instance when there is one (``staging:platform/api``)."""
        return f"{self.instance}:{self.project}" if self.instance else self.project

    @property
    def pipeline_id(self) -> int:
        return int(self.job.pipeline.id) if self.job.pipeline and self.job.pipeline.id is not None else 0

    def as_json(self) -> dict[str, Any]:
        """One entry of ``failures`` in the ``--json`` shape (plus ``owner``, ``evidence``, ``history``)."""
        runner = self.job.runner
        history = self.verdict.history
        named = {"instance": self.instance} if self.instance else {}
        return {
            **named, "project": self.project, "pipeline_id": self.pipeline_id, "job_id": self.job.id,
            "job_name": self.job.name, "ref": self.job.ref, "verdict": self.verdict.kind,
            "reason": self.verdict.reason, "signature": self.signature,
            "first_failure": self.verdict.first_failure.as_json() if self.verdict.first_failure else None,
            "runner": {"id": runner.id, "description": runner.description or runner.name or ""} if runner else None,
            "owner": self.owner, "evidence": list(self.verdict.evidence),
            "history": history.strip() if history else "", "history_order": "newest first",
            "log_problem": self.problem or None,
        }


@dataclass(frozen=True)
class Cluster:
    """Failures sharing a signature across projects within the window."""

    signature: str
    verdict: str
    failures: tuple[Failure, ...]

    @property
    def projects(self) -> list[str]:
        """The projects, each with its instance when instances are named (``prod:platform/api``):
        a path may exist on two instances, and those are two projects."""
        return sorted({failure.where for failure in self.failures})

    @property
    def instances(self) -> list[str]:
        """The instances the failures come from (empty for one unnamed instance)."""
        return sorted({failure.instance for failure in self.failures if failure.instance})

    @property
    def job_ids(self) -> list[int]:
        return [failure.job.id for failure in self.failures]

    @property
    def title(self) -> str:
        """``image pull failed · 3 projects · infra`` for the board."""
        verdict = "infra" if self.verdict == "infrastructure" else self.verdict
        reasons = {f.verdict.reason for f in self.failures}
        head = next(iter(reasons)) if len(reasons) == 1 and self.verdict == "infrastructure" else self.signature
        spread = f" on {len(self.instances)} instances" if len(self.instances) > 1 else ""
        return f"{head} · {len(self.projects)} projects{spread} · {verdict}"

    def as_json(self) -> dict[str, Any]:
        named: dict[str, Any] = {}
        if self.instances:
            # Job ids are per instance: say whose each one is.
            named = {"instances": self.instances,
                     "jobs": [{"instance": f.instance, "project": f.project, "job_id": f.job.id} for f in self.failures]}
        return {"signature": self.signature, "verdict": self.verdict, "projects": self.projects,
                "job_ids": self.job_ids, "title": self.title, **named}


_TOKEN = re.compile(r"<[a-z]+>|\w+|[^\w\s]")
_VOLATILE = re.compile(r"<[a-z]+>|\d+|[^\w\s]")
"""Tokens near matching may absorb: the stand-ins :func:`~labdeck.logtext.cause.normalize` leaves
for volatile parts, bare numbers and punctuation. A word (a module, file, test, package or host
name) never is."""


def _near(a: str, b: str) -> bool:
    """Near: the two signatures differ in volatile tokens only (stand-ins, numbers, punctuation),
    fewer than 10 % of the longer one's tokens. A changed identifier (``'yaml'`` vs ``'toml'``,
    ``src/sync.c`` vs ``src/cache.c``) is a different failure, however short the edit."""
    left, right = _TOKEN.findall(a), _TOKEN.findall(b)
    limit = max(len(left), len(right)) // 10
    if abs(len(left) - len(right)) > limit:
        return False
    # Edit distance over tokens where only volatile tokens may be inserted, deleted or replaced
    # (an identifier may only be matched with itself).
    width = len(right) + 1
    blocked = limit + 1
    previous = [j if all(_VOLATILE.fullmatch(t) for t in right[:j]) else blocked for j in range(width)]
    for token_a in left:
        volatile_a = _VOLATILE.fullmatch(token_a) is not None
        current = [previous[0] + 1 if volatile_a else blocked] + [blocked] * len(right)
        for j, token_b in enumerate(right, 1):
            volatile_b = _VOLATILE.fullmatch(token_b) is not None
            best = previous[j - 1] if token_a == token_b else blocked
            if volatile_a and volatile_b:
                best = min(best, previous[j - 1] + 1)
            if volatile_a:
                best = min(best, previous[j] + 1)
            if volatile_b:
                best = min(best, current[j - 1] + 1)
            current[j] = min(best, blocked)
        if min(current) > limit:
            return False
        previous = current
    return previous[-1] <= limit


def cluster(failures: Sequence[Failure]) -> list[Cluster]:
    """Clusters of failures that share a signature in two or more projects (of one instance or
    several), biggest first."""
    groups: list[tuple[str, list[Failure]]] = []
    for failure in failures:
        if not failure.signature:
            continue
        home = next((members for signature, members in groups if signature == failure.signature), None)
        if home is None:
            home = next((members for signature, members in groups if _near(signature, failure.signature)), None)
        if home is None:
            groups.append((failure.signature, [failure]))
        else:
            home.append(failure)
    result = []
    for signature, members in groups:
        if len({member.where for member in members}) < 2:
            continue
        votes = Counter(member.verdict.kind for member in members)
        verdict = max(votes, key=lambda kind: (votes[kind], -_ORDER.index(kind)))
        result.append(Cluster(signature, verdict, tuple(members)))
    return sorted(result, key=lambda c: (-len(c.projects), -len(c.failures), c.signature))


@dataclass(frozen=True)
class TriageReport:
    """Everything one round found. ``problems``: projects that could not be read (never silently
    "nothing failing")."""

    failures: tuple[Failure, ...]
    clusters: tuple[Cluster, ...]
    runners: dict[int, RunnerShare]
    problems: tuple[str, ...] = ()
    projects: int = 0
    logs_read: int = 0
    """Logs fetched from the server this round (the cache answers the rest)."""
    pages_read: int = 0
    """Jobs pages read from the server this round."""
    pages_unchanged: int = 0
    """Jobs pages an earlier round kept that the change check showed unchanged (not read again)."""
    pages: dict[int, tuple[Job, ...]] = field(default_factory=dict, compare=False)
    """Project id → the jobs page read this round, within the window (for verdicts of other
    failed jobs of those projects, and histories, without another request)."""
    complete: bool = True
    """False when the round stopped before working out every failure of its window (a newer round
    was waiting): its failures and clusters are a part only, never to be shown as the whole."""

    @property
    def flagged_runners(self) -> list[RunnerShare]:
        """Runners failing well above the fleet."""
        return [share for share in self.runners.values() if share.flagged]

    def verdict_for(self, job_id: int) -> Failure | None:
        """The failure entry of a job, if it is one of this round's failures."""
        return next((failure for failure in self.failures if failure.job.id == job_id), None)

    def as_json(self) -> dict[str, Any]:
        """The ``labdeck triage --json`` shape (``failures``, ``clusters``; plus flagged ``runners``,
        ``problems`` and ``stats``: projects, logs and jobs pages read from the server, and pages
        found unchanged since an earlier round)."""
        return {
            "failures": [failure.as_json() for failure in self.failures],
            "clusters": [c.as_json() for c in self.clusters],
            "runners": [{"id": s.id, "description": s.description, "failed": s.failed, "total": s.total}
                        for s in self.flagged_runners],
            "problems": list(self.problems),
            "stats": {"projects": self.projects, "logs_read": self.logs_read, "pages_read": self.pages_read,
                      "pages_unchanged": self.pages_unchanged},
        }


def merge_reports(reports: dict[str, TriageReport]) -> TriageReport:
    """One report over several instances' rounds (instance short name → its report): every
    failure names its instance, clusters are formed over all of them (a registry outage failing
    jobs on two instances is one cluster), problems and flagged runners are prefixed by their
    instance. ``pages`` is left empty (project ids are per instance)."""
    failures: list[Failure] = []
    problems: list[str] = []
    runners: dict[int, RunnerShare] = {}
    for name, report in reports.items():
        failures += [replace(failure, instance=name) for failure in report.failures]
        problems += [f"{name}: {problem}" for problem in report.problems]
        for share in report.runners.values():
            if share.flagged:  # runner ids are per instance: numbered anew, described with it
                runners[len(runners) + 1] = replace(share, description=f"{name}: {share.description or f'runner #{share.id}'}")
    failures.sort(key=lambda f: (f.instance, f.project, f.job.ref or "", f.job.name or ""))
    return TriageReport(tuple(failures), tuple(cluster(failures)), runners, tuple(problems),
                        projects=sum(report.projects for report in reports.values()),
                        logs_read=sum(report.logs_read for report in reports.values()),
                        pages_read=sum(report.pages_read for report in reports.values()),
                        pages_unchanged=sum(report.pages_unchanged for report in reports.values()))
