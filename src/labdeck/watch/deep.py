"""Completing partial pipelines: what the poller reads beyond a project's page of newest jobs.

A 1,500-job pipeline does not fit the page of 40 newest jobs the poller reads per project (its
newest jobs are the last stage's, ``created`` or ``skipped``). Such a row is partial
(:func:`labdeck.watch.pipelines.as_partial`): its status is the server's, and what the board also
shows is read by scope, never all the jobs on every round:

- the failed jobs: ``GET /projects/:id/pipelines/:pipeline_id/jobs?scope[]=failed`` (paged,
  conditional: an unchanged page is not parsed), only when the count of failed jobs changed;
- that count: ``scope[]=failed&scope[]=canceled`` with ``per_page=1`` (its ``X-Total``; the body,
  one job, carries the pipeline's status: a cancel moves the count and shows at once). A failed job stays failed (a retry is a new job), so a count that did not
  move means no new failure anywhere in the pipeline, on its first page or its last;
- the running count: ``scope[]=running`` with ``per_page=1`` (``X-Total``), when something moved;
- the pipeline's first job (start time), once, in the spec dialect; the pipeline's detail (start,
  end) where the server has the pipelines API.

What was learned is kept (:class:`DeepPipeline`) until the pipeline's jobs change.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from datetime import datetime

from labdeck.api.core import HttpEngine
from labdeck.api.models import Job, Pipeline
from labdeck.api.parsers import list_parser
from labdeck.watch.pipelines import PipelineRow, as_partial, job_unfinished, latest_tries

PAGE = 100
"""Jobs per page of a scoped read (the API's maximum)."""


@dataclass
class DeepPipeline:
    """What the poller learned about one partial pipeline (mutable; only the poller touches it)."""

    pipeline_id: int
    server_status: str | None = None
    updated_at: datetime | None = None
    """The pipelines API's ``updated_at`` (moves when the pipeline's own status changes, or it is
    retried or canceled; not when one of its jobs fails while it keeps running)."""
    failed_seen: int | None = None
    """``X-Total`` of the failed scope when the failed jobs were last read."""
    failed: tuple[Job, ...] | None = None
    """Every failed job of the pipeline (all tries), or None: not read yet."""
    running: int | None = None
    running_for: tuple[str | None, int | None] | None = None
    """(server status, failed count) the running count was read at."""
    first: Job | None = None
    """The pipeline's oldest job (its start), spec dialect."""
    detail: Pipeline | None = None
    """The pipeline's detail (times), where the server has the pipelines API."""
    pages: dict[str, tuple[str | None, tuple[Job, ...]]] = field(default_factory=dict)
    """Parsed pages of the failed scope by URL, with their ETag (an unchanged page is not parsed)."""
    rounds: int = 0
    """Rounds since the page of newest jobs was last read (spec dialect)."""
    looked_at: float | None = None
    """When its failed count was last read by REST (the poller's clock)."""
    batch_counts: tuple[str | None, int | None, int | None] | None = None
    """(status, failed, running) of the pipeline as the GraphQL batch stated it at that read (None:
    no batch had answered for it): while the batches keep stating the same, nothing failed since."""
    parsed: int = 0


def _total(headers: object) -> int | None:
    raw = getattr(headers, "get", lambda _name: None)("x-total")
    try:
        return int(raw) if raw not in (None, "") else None
    except (TypeError, ValueError):
        return None


async def count(engine: HttpEngine, project_id: int, pipeline_id: int,
                scope: str | tuple[str, ...]) -> tuple[int | None, list[Job]]:
    """``X-Total`` of one scope (or several) of a pipeline's jobs (None when the server sends no counts), and
    the newest such job (carrying the pipeline's status), from one ``per_page=1`` request."""
    response = await engine.request("GET", f"projects/{project_id}/pipelines/{pipeline_id}/jobs",
                                    params={"scope[]": list(scope) if isinstance(scope, tuple) else scope,
                                            "per_page": 1})
    jobs = list_parser(Job).validate_json(response.content or b"[]")
    return _total(response.headers), jobs


async def read_scope(engine: HttpEngine, state: DeepPipeline, project_id: int, scope: str) -> list[Job]:
    """Every job of one scope of the pipeline, page by page (conditional: pages whose ETag did not
    change are taken from ``state`` unparsed)."""
    found: list[Job] = []
    page = 1
    while True:
        read = await engine.fetch_conditional(f"projects/{project_id}/pipelines/{state.pipeline_id}/jobs",
                                              {"scope[]": scope, "per_page": PAGE, "page": page}, model=list[Job])
        held = state.pages.get(read.url)
        if held is not None and read.etag is not None and held[0] == read.etag:
            jobs = held[1]
        else:
            jobs = tuple(read.value if read.value is not None else list_parser(Job).validate_json(read.content or b"[]"))
            state.parsed += 1
            state.pages[read.url] = (read.etag, jobs)
        found.extend(jobs)
        following = read.headers.get("x-next-page") or ""
        if not following.isdigit() or not jobs or page >= 200:
            return found
        page = int(following)


async def first_job(engine: HttpEngine, project_id: int, pipeline_id: int) -> Job | None:
    """The pipeline's oldest job (lists are newest first: the last page of ``per_page=1``)."""
    path = f"projects/{project_id}/pipelines/{pipeline_id}/jobs"
    response = await engine.request("GET", path, params={"per_page": 1})
    total = _total(response.headers)
    if total is None or total <= 1:
        jobs = list_parser(Job).validate_json(response.content or b"[]")
        return jobs[0] if jobs and total is not None else None
    response = await engine.request("GET", path, params={"per_page": 1, "page": total})
    jobs = list_parser(Job).validate_json(response.content or b"[]")
    return jobs[0] if jobs else None


def complete(row: PipelineRow, state: DeepPipeline | None) -> PipelineRow:
    """``row`` (partial) completed with what was read beyond the page."""
    if not row.partial:
        return row
    if state is None:
        return as_partial(row)
    if state.server_status is not None and state.server_status != row.server_status:
        row = replace(row, server_status=state.server_status)
    jobs = list(row.jobs)
    failed_names: tuple[str, ...] | None = None
    failed_at: datetime | None = None
    if state.failed is not None:
        jobs.extend(state.failed)
        latest, _ = latest_tries(jobs)
        blocking = [job for job in latest if job.status == "failed" and not job.allow_failure]
        failed_names = tuple(job.name or f"#{job.id}" for job in blocking)
        times = [job.finished_at for job in blocking if job.finished_at is not None]
        failed_at = max(times) if times else None
        jobs = latest
    server = state.server_status or row.server_status
    if failed_names == () and server == "failed":
        # The server says failed and no failure read yet names it: still being read ("…"), not none.
        failed_names = None
    detail, first = state.detail, state.first
    started = detail.started_at if detail is not None else (first.started_at if first is not None else None)
    finished_server = row.server_status is not None and not job_unfinished(row.server_status)
    finished = detail.finished_at if detail is not None and finished_server else None
    # The start is the first job's; the end only the pipeline detail knows (the last job to
    # finish may be on any page): a finished partial pipeline without it shows "…".
    timing = started is not None and (not finished_server or finished is not None)
    if detail is not None and detail.created_at is not None:
        row = replace(row, created_at=detail.created_at)
    # GitLab's ``duration``: the seconds it ran (a retried pipeline's runs, without the days between).
    ran_for = detail.duration if detail is not None and finished is not None else None
    completed = as_partial(row, failed=failed_names, failed_at=failed_at, running=state.running,
                           started_at=started, finished_at=finished, timing_known=timing, ran_for=ran_for)
    if state.failed is None:
        return completed
    return replace(completed, jobs=tuple(sorted(jobs, key=lambda job: job.id)))
