"""Collect the facts :func:`labdeck.triage.pending.explain_pending` needs, with the API client.

Requests (all GET): the job, the project (``shared_runners_enabled``, and the ``Date`` header as
the server's clock), ``/projects/:id/runners``, each runner's details, ``/runners/:id/jobs?
status=running`` for runners that are active and online, the project's protected branches when a
runner runs protected refs only, and, when shared runners are disabled in the project, the shared
runners (``/runners/all?scope=shared``, admins only; skipped on 403) so the explanation can say
that enabling them would help.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import datetime
from fnmatch import fnmatchcase
from typing import TYPE_CHECKING, TypeVar

from labdeck.api import errors
from labdeck.api.models import Job, Project, Runner, RunnerDetail
from labdeck.api.resources.base import ProjectRef, ref
from labdeck.base.when import server_time
from labdeck.triage.pending import JobFacts, PendingExplanation, RunnerFacts, availability, explain_pending

if TYPE_CHECKING:
    from labdeck.api.client import ApiClient

T = TypeVar("T")
_CONCURRENCY = 6


@dataclass(frozen=True)
class PendingFacts:
    """Everything gathered, ready for :func:`explain_pending` (and for the incident bundle)."""

    job: JobFacts
    runners: tuple[RunnerFacts, ...]
    shared_runners_enabled: bool | None
    now: datetime
    """The server's time (its ``Date`` header), or the local clock when it sent none."""

    def explain(self) -> PendingExplanation:
        """:func:`explain_pending` on these facts."""
        return explain_pending(self.job, self.runners, now=self.now, shared_runners_enabled=self.shared_runners_enabled)


def runner_facts(summary: Runner, detail: RunnerDetail | None, running: int | None) -> RunnerFacts:
    """Merge a runner's summary and detail views."""
    source = detail or summary
    fields = source.model_fields_set
    return RunnerFacts(
        id=summary.id, description=source.description or source.name or "", is_shared=bool(source.is_shared),
        active=source.active is not False, online=source.online, status=source.status,
        contacted_at=detail.contacted_at if detail else None,
        tag_list=tuple(detail.tag_list) if detail else (),
        run_untagged=detail.run_untagged if detail and "run_untagged" in fields else None,
        locked=detail.locked if detail and "locked" in fields else None,
        access_level=detail.access_level if detail else None, running_jobs=running,
    )


def job_facts(job: Job, protected_ref: bool | None = None) -> JobFacts:
    """The job's facts; ``tags`` None when the server's job record has no ``tag_list``."""
    tags = tuple(job.tag_list) if "tag_list" in job.model_fields_set else None
    return JobFacts(id=job.id, status=job.status, name=job.name, tags=tags, ref=job.ref, protected_ref=protected_ref)


async def _bounded(calls: list[Callable[[], Awaitable[T]]]) -> list[T]:
    gate = asyncio.Semaphore(_CONCURRENCY)

    async def one(call: Callable[[], Awaitable[T]]) -> T:
        async with gate:
            return await call()

    return list(await asyncio.gather(*(one(call) for call in calls)))


async def gather_pending_facts(client: ApiClient, project: ProjectRef, job: Job | int, *,
                               now: datetime | None = None) -> PendingFacts:
    """Read what explains a pending job (see the module docstring). Raises :mod:`labdeck.api.errors`
    for the job, project and runner list; per-runner reads that are refused become unknowns.

    ``now`` overrides the server's ``Date`` header as the reference time (for a server whose
    ``Date`` is not on the same clock as its ``contacted_at`` values, such as a simulator)."""
    if isinstance(job, int):
        job = await client.jobs.get(project, job)
    response = await client.request("GET", f"projects/{ref(project)}")
    info: Project = client.parse(response, Project)
    now = now or server_time(response.headers.get("date"))
    summaries = await client.runners.project_runners(project).all()
    shared_enabled = info.shared_runners_enabled
    if shared_enabled is False:
        try:
            shared = await client.runners.list_all(scope="shared").all()
        except (errors.Forbidden, errors.NotFound):
            shared = []
        known = {runner.id for runner in summaries}
        summaries += [runner for runner in shared if runner.id not in known]

    async def detail(runner: Runner) -> RunnerDetail | None:
        try:
            return await client.runners.get(runner.id)
        except (errors.Forbidden, errors.NotFound):
            return None

    details = await _bounded([lambda runner=runner: detail(runner) for runner in summaries])  # type: ignore[misc]
    bare = [runner_facts(summary, each, None) for summary, each in zip(summaries, details, strict=True)]

    async def running(facts: RunnerFacts) -> int | None:
        if availability(facts, now) is not None:
            return None  # paused or offline: its load does not matter
        try:
            return len(await client.runners.jobs(facts.id, status="running").all())
        except (errors.Forbidden, errors.NotFound):
            return None

    loads = await _bounded([lambda facts=facts: running(facts) for facts in bare])  # type: ignore[misc]
    runners = tuple(runner_facts(summary, each, load) for summary, each, load in zip(summaries, details, loads, strict=True))
    protected: bool | None = None
    if not job.tag and any(r.access_level == "ref_protected" for r in runners) and job.ref:
        try:
            names = [branch.name for branch in await client.protected_branches.list(project).all()]
            protected = any(fnmatchcase(job.ref, name) for name in names)
        except (errors.Forbidden, errors.NotFound):
            protected = None
    return PendingFacts(job_facts(job, protected), runners, shared_enabled, now)


async def explain_job(client: ApiClient, project: ProjectRef, job: Job | int, *,
                      now: datetime | None = None) -> PendingExplanation:
    """Gather and explain in one call (for the UI's "why pending" panel)."""
    return (await gather_pending_facts(client, project, job, now=now)).explain()
