"""What ``R``, ``C`` and ``P`` plan on one pipeline, always from its complete set of jobs.

- Once the pipeline view holds every job, the plan is made from them.
- While its pages are still arriving, the plan is made from the server's list of the jobs in the
  states the action touches (``GET /projects/:id/pipelines/:pipeline_id/jobs?scope[]=failed``
  for a retry, paged to the end), never from the pages read so far. The jobs already on screen
  only tell which of those are older tries of a job retried since.
- On a server with the pipelines API, retrying or canceling the whole pipeline is one request
  to the pipeline's endpoint, provided that it would act on exactly the planned jobs (a pipeline's
  retry also retries its canceled jobs: with some, one request per job is planned instead, and
  the dry run says why).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from labdeck.api import ApiClient
from labdeck.api.models import Job
from labdeck.operations.bulk_plan import (
    CANCELABLE,
    PIPELINE_RETRIES,
    PLANNERS,
    BulkKind,
    BulkPlan,
    job_targets,
    pipeline_endpoint_differs,
    through_pipeline,
)
from labdeck.ui.screens.pipeline.columns import stages_of
from labdeck.watch.pipelines import latest_tries

SPEC_SCOPES = frozenset({"created", "pending", "running", "failed", "success", "canceled", "skipped", "manual"})
"""The ``scope[]`` values the spec accepts (GitLab accepts every status)."""


@dataclass(frozen=True)
class PipelineTarget:
    """The pipeline a plan is for, and the action's audit id."""

    project_id: int
    project_path: str
    pipeline_id: int
    action: str


def scopes_for(kind: BulkKind, gitlab: bool) -> list[str]:
    """The statuses to read for ``kind`` while the view is incomplete (every status the action
    may touch, and for a retry the canceled jobs a pipeline retry would touch too)."""
    wanted = {"retry": PIPELINE_RETRIES, "cancel": CANCELABLE, "play": frozenset({"manual"})}[kind]
    return sorted(wanted if gitlab else wanted & SPEC_SCOPES)


def plan_from_jobs(kind: BulkKind, target: PipelineTarget, jobs: Sequence[Job], *, scope: str,
                   stage: str | None = None, note: str = "") -> BulkPlan:
    """``kind`` on every job of ``jobs`` (of stage ``stage`` when given), unmarked."""
    # In pipeline order (stage, then id), the newest try of each job, as the view shows them.
    chosen = [job for found in stages_of(jobs) if stage is None or found.name == stage for job in found.jobs]
    plan = PLANNERS[kind](job_targets(target.project_id, target.project_path, chosen), marked=False,
                          action=target.action, scope=scope, pipeline_id=target.pipeline_id)
    return replace(plan, note=note) if note else plan


async def read_scoped(client: ApiClient, target: PipelineTarget, scopes: list[str]) -> list[Job]:
    """Every job of the pipeline in ``scopes`` (all pages)."""
    return await client.jobs.list(target.project_id, pipeline_id=target.pipeline_id, scope=scopes).all()


def with_newer_tries(found: Sequence[Job], known: Sequence[Job]) -> list[Job]:
    """``found`` plus the jobs of ``known`` that are newer tries of the same names (so that an
    older try is left out as such)."""
    newest: dict[str | None, int] = {}
    for job in found:
        newest[job.name] = max(newest.get(job.name, job.id), job.id)
    seen = {job.id for job in found}
    newer = [job for job in known if job.name in newest and job.id not in seen and job.id > newest[job.name]]
    return [*found, *newer]


async def plan_whole_pipeline(client: ApiClient, kind: BulkKind, target: PipelineTarget, *,
                              complete: Sequence[Job] | None, loaded: Sequence[Job], scope: str,
                              stage: str | None = None) -> BulkPlan:
    """The plan of ``kind`` on the whole pipeline (or the stage ``stage``), unmarked.

    ``complete``: every job of the pipeline, when the view holds them all; otherwise the jobs in
    the states ``kind`` touches are read from the server and ``loaded`` (what is on screen) only
    shows which of them were retried since."""
    if complete is not None:
        plan = plan_from_jobs(kind, target, complete, scope=scope, stage=stage)
        latest, _ = latest_tries(complete)
    else:
        dialect = await client.discover()  # once per client; GitLab filters by every status, the spec by fewer
        scopes = scopes_for(kind, dialect.flavour == "gitlab")
        found = with_newer_tries(await read_scoped(client, target, scopes), loaded)
        note = (f"Planned from the server's list of the pipeline's {'/'.join(scopes)} jobs "
                "(the view was still reading its pages).")
        plan = plan_from_jobs(kind, target, found, scope=scope, stage=stage, note=note)
        latest, _ = latest_tries(found)
    if kind == "play" or stage is not None or not plan.requests:
        return plan
    if not await client.has_pipelines_api(target.project_id):
        return plan
    why = pipeline_endpoint_differs(plan, latest)
    if why:
        return replace(plan, note=" ".join(part for part in (plan.note, f"One request per job: {why}.") if part))
    return through_pipeline(plan, target.project_id, target.project_path, target.pipeline_id)
