"""Job endpoints (lib/api/jobs.rb and job_artifacts.rb, 10.x/11.x): lists with scopes, a job, its
actions (cancel, retry, play, erase, keep artifacts), its trace and its artifacts."""

from __future__ import annotations

import re
from typing import Any

from starlette.requests import Request
from starlette.responses import Response, StreamingResponse
from starlette.routing import BaseRoute, Route

from labdeck.sim.ci.artifacts import iter_handle, iter_member, member_size, valid_member_path
from labdeck.sim.ci.engine import CiStore, store
from labdeck.sim.ci.model import CURRENT_JOB_STATUSES, JOB_STATUSES, Job
from labdeck.sim.ci.views import job_entity
from labdeck.sim.core.context import Ctx, endpoint
from labdeck.sim.core.dialect import is_gitlab
from labdeck.sim.core.http import (
    ApiError,
    bad_request,
    forbidden,
    missing,
    not_found,
    paginate,
    record_not_found,
)
from labdeck.sim.core.state import REPORTER, Project

_RANGE = re.compile(r"^bytes=(\d+)-(\d*)$")


def readable_project(ctx: Ctx, *, anonymous: bool = False) -> Project:
    """``authorize_read_builds!``: members from reporter up, or anyone who sees the project when
    its jobs are public (``anonymous``: without a token too, as the pipelines API allows)."""
    project = ctx.project()
    user = ctx.user if anonymous else ctx.require_user()
    if user is not None and (user.is_admin or ctx.state.access_level(user, project) >= REPORTER):
        return project
    if project.settings.get("public_jobs", True):
        return project
    raise forbidden()


def _job(ctx: Ctx, project: Project) -> Job:
    ci = store(ctx.state)
    job = ci.jobs.get(ctx.path_int("job_id"))
    if job is None or job.project_id != project.id:
        raise record_not_found()
    return job


def _scopes(ctx: Ctx) -> set[str] | None:
    raw = ctx.params.raw("scope")
    if raw is None:
        return None
    values = raw if isinstance(raw, list) else [raw]
    scopes = {str(value) for value in values if str(value) != ""}
    if not scopes <= set(CURRENT_JOB_STATUSES if is_gitlab(ctx.state) else JOB_STATUSES):
        raise bad_request("Scope contains invalid value(s)")
    return scopes or None


def _job_list(ctx: Ctx, ci: CiStore, jobs: list[Job], *, with_counts: bool = True) -> Any:
    scopes = _scopes(ctx)
    if scopes is not None:
        jobs = [job for job in jobs if job.status in scopes]
    jobs.sort(key=lambda job: job.id, reverse=True)
    items, headers = paginate(ctx.request, ctx.params, jobs, with_counts=with_counts)
    now = ctx.state.now()
    return [job_entity(ci, job, ctx.base_url, now) for job in items], 200, headers


@endpoint(auth=True)
async def list_jobs(ctx: Ctx) -> Any:
    """GET /projects/:id/jobs (scope / scope[]), newest first. Current GitLab never counts this list
    (no ``X-Total``, ``X-Total-Pages`` or ``rel="last"``, docs/wire-facts.md §1.3)."""
    project = readable_project(ctx)
    ci = store(ctx.state)
    return _job_list(ctx, ci, ci.project_jobs(project.id), with_counts=not is_gitlab(ctx.state))


@endpoint(auth=True)
async def list_pipeline_jobs(ctx: Ctx) -> Any:
    """GET /projects/:id/pipelines/:pipeline_id/jobs (scope / scope[]). The spec (10.x) lists every
    try; current GitLab only the latest unless ``include_retried``."""
    project = readable_project(ctx)
    ci = store(ctx.state)
    pipeline = ci.pipelines.get(ctx.path_int("pipeline_id"))
    if pipeline is None or pipeline.project_id != project.id:
        raise record_not_found()
    latest = is_gitlab(ctx.state) and not ctx.params.bool("include_retried", False)
    return _job_list(ctx, ci, ci.pipeline_jobs(pipeline, latest=latest))


@endpoint(auth=True)
async def get_job(ctx: Ctx) -> Any:
    """GET /projects/:id/jobs/:job_id."""
    project = readable_project(ctx)
    job = _job(ctx, project)
    return job_entity(store(ctx.state), job, ctx.base_url, ctx.state.now())


def _actionable(ctx: Ctx) -> tuple[CiStore, Job]:
    """``authorize_update_builds!``: developer access for job actions."""
    project = ctx.project()
    user = ctx.require_user()
    job = _job(ctx, project)
    if not ctx.state.can_develop(user, project):
        raise forbidden()
    return store(ctx.state), job


@endpoint(auth=True)
async def cancel_job(ctx: Ctx) -> Any:
    """POST …/cancel → 201; a finished job comes back unchanged."""
    ci, job = _actionable(ctx)
    ci.cancel(job, ctx.state.now())
    return job_entity(ci, job, ctx.base_url, ctx.state.now(), action=True), 201


@endpoint(auth=True)
async def retry_job(ctx: Ctx) -> Any:
    """POST …/retry → 201 with the NEW job; 403 unless success, failed or canceled."""
    ci, job = _actionable(ctx)
    if not job.retryable:
        raise forbidden("Job is not retryable")
    clone = ci.retry(job, ctx.require_user(), ctx.state.now())
    return job_entity(ci, clone, ctx.base_url, ctx.state.now(), action=True), 201


@endpoint(auth=True)
async def play_job(ctx: Ctx) -> Any:
    """POST …/play → 200; a manual job is queued; 400 when not playable."""
    ci, job = _actionable(ctx)
    if not job.playable:
        raise bad_request('400 (Bad request) "Unplayable Job" not given')
    ci.play(job, ctx.require_user(), ctx.state.now())
    return job_entity(ci, job, ctx.base_url, ctx.state.now(), action=True), 200


@endpoint(auth=True)
async def erase_job(ctx: Ctx) -> Any:
    """POST …/erase → 201; removes trace and artifacts of a finished job."""
    ci, job = _actionable(ctx)
    if not (job.complete and (job.has_artifacts() or ci.has_trace(job))):
        raise forbidden("Job is not erasable!")
    ci.erase(job, ctx.require_user(), ctx.state.now())
    body = job_entity(ci, job, ctx.base_url, ctx.state.now(), action=True)
    body["download_url"] = None
    return body, 201


@endpoint(auth=True)
async def keep_artifacts(ctx: Ctx) -> Any:
    """POST …/artifacts/keep → 200; the artifacts no longer expire."""
    ci, job = _actionable(ctx)
    if not job.has_artifacts():
        raise not_found()
    job.artifacts_expire_at = None
    body = job_entity(ci, job, ctx.base_url, ctx.state.now(), action=True)
    body["download_url"] = None
    return body, 200


# --- trace --------------------------------------------------------------------------------------------


@endpoint(auth=True)
async def get_trace(ctx: Ctx) -> Any:
    """GET …/trace: the whole log as text/plain (Range only with ``trace_range``)."""
    project = readable_project(ctx)
    job = _job(ctx, project)
    data = store(ctx.state).trace(job, ctx.state.now())
    headers = {"Content-Disposition": f'infile; filename="{job.id}.log"'}
    if ctx.state.extra.get("trace_range"):
        ranged = _range(ctx.request, data, headers)
        if ranged is not None:
            return ranged
    return Response(data, status_code=200, media_type="text/plain", headers=headers)


def _range(request: Request, data: bytes, headers: dict[str, str]) -> Response | None:
    match = _RANGE.match(request.headers.get("range", "").strip())
    if match is None:
        return None
    start = int(match.group(1))
    total = len(data)
    if start >= total:
        return Response(b"", status_code=416, media_type="text/plain",
                        headers={**headers, "Content-Range": f"bytes */{total}"})
    end = min(int(match.group(2)), total - 1) if match.group(2) else total - 1
    if end < start:
        return None
    return Response(data[start : end + 1], status_code=206, media_type="text/plain",
                    headers={**headers, "Content-Range": f"bytes {start}-{end}/{total}"})


# --- artifacts ----------------------------------------------------------------------------------------


def _archive_response(ci: CiStore, job: Job, request: Request) -> Response:
    """The whole archive, streamed (Workhorse also honours ``Range: bytes=N-[M]`` → 206)."""
    size = ci.artifacts.size(job)
    headers = {"Content-Disposition": 'attachment; filename="artifacts.zip"', "Accept-Ranges": "bytes"}
    match = _RANGE.match(request.headers.get("range", "").strip())
    if match is not None:
        start = int(match.group(1))
        if start >= size:
            return Response(b"", status_code=416, headers={**headers, "Content-Range": f"bytes */{size}"})
        end = min(int(match.group(2)), size - 1) if match.group(2) else size - 1
        if end >= start:
            length = end - start + 1
            headers.update({"Content-Range": f"bytes {start}-{end}/{size}", "Content-Length": str(length)})
            return StreamingResponse(iter_handle(ci.artifacts.open(job), start, length), status_code=206,
                                     media_type="application/zip", headers=headers)
    headers["Content-Length"] = str(size)
    return StreamingResponse(iter_handle(ci.artifacts.open(job)), media_type="application/zip", headers=headers)


@endpoint(auth=True)
async def download_artifacts(ctx: Ctx) -> Any:
    """GET …/jobs/:job_id/artifacts: the archive, streamed."""
    project = readable_project(ctx)
    job = _job(ctx, project)
    ci = store(ctx.state)
    if not job.has_artifacts():
        raise not_found()
    return _archive_response(ci, job, ctx.request)


@endpoint(auth=True)
async def download_by_ref(ctx: Ctx) -> Any:
    """GET …/jobs/artifacts/:ref_name/download?job=: latest successful job of that name."""
    project = readable_project(ctx)
    name = ctx.params.str("job")
    if not name:
        raise missing("job")
    ref = ctx.path("ref_name")
    ci = store(ctx.state)
    candidates = [j for j in ci.project_jobs(project.id) if j.ref == ref and j.name == name and j.status == "success"]
    if not candidates:
        raise not_found()
    job = max(candidates, key=lambda j: (j.pipeline_id, j.id))
    if not job.has_artifacts():
        raise not_found()
    return _archive_response(ci, job, ctx.request)


@endpoint(auth=True)
async def artifact_file(ctx: Ctx) -> Any:
    """GET …/jobs/:job_id/artifacts/*path: one file of the archive, streamed."""
    project = readable_project(ctx)
    job = _job(ctx, project)
    path = ctx.path("artifact_path")
    if not valid_member_path(path):
        raise ApiError(400, {"message": "400 (Bad request)"})
    ci = store(ctx.state)
    if not job.has_artifacts():
        raise not_found()
    size = member_size(ci.artifacts.open(job), path)
    chunks = iter_member(ci.artifacts.open(job), path) if size is not None else None
    if chunks is None or size is None:
        raise not_found()
    filename = path.rsplit("/", 1)[-1].replace('"', "")
    headers = {"Content-Disposition": f'attachment; filename="{filename}"', "Content-Length": str(size)}
    return StreamingResponse(chunks, media_type="application/octet-stream", headers=headers)


def routes() -> list[BaseRoute]:
    """The job routes (the by-ref download before ``{job_id}`` paths)."""
    base = "/projects/{id}/jobs"
    return [
        Route(f"{base}/artifacts/{{ref_name:path}}/download", download_by_ref, methods=["GET"]),
        Route(base, list_jobs, methods=["GET"]),
        Route("/projects/{id}/pipelines/{pipeline_id}/jobs", list_pipeline_jobs, methods=["GET"]),
        Route(f"{base}/{{job_id}}", get_job, methods=["GET"]),
        Route(f"{base}/{{job_id}}/cancel", cancel_job, methods=["POST"]),
        Route(f"{base}/{{job_id}}/retry", retry_job, methods=["POST"]),
        Route(f"{base}/{{job_id}}/play", play_job, methods=["POST"]),
        Route(f"{base}/{{job_id}}/erase", erase_job, methods=["POST"]),
        Route(f"{base}/{{job_id}}/artifacts/keep", keep_artifacts, methods=["POST"]),
        Route(f"{base}/{{job_id}}/trace", get_trace, methods=["GET"]),
        Route(f"{base}/{{job_id}}/artifacts", download_artifacts, methods=["GET"]),
        Route(f"{base}/{{job_id}}/artifacts/{{artifact_path:path}}", artifact_file, methods=["GET"]),
    ]
