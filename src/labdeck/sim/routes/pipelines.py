"""Pipeline endpoints of current GitLab (lib/api/ci/pipelines.rb), in the gitlab dialect only: the
list, one pipeline, retry (201) and cancel (200, whatever the pipeline's state, as GitLab answers).

The spec does not document them: in the spec dialect every one answers what an unknown route
answers (404 ``{"error": "404 Not Found"}``), before looking at the token. The pipeline's jobs
(``…/pipelines/:pipeline_id/jobs``) are in :mod:`labdeck.sim.routes.jobs`, in both dialects.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route

from labdeck.sim.ci import pipelines as ci_pipelines
from labdeck.sim.ci.engine import CiStore, store
from labdeck.sim.ci.model import Pipeline
from labdeck.sim.core.context import Ctx, endpoint
from labdeck.sim.core.dialect import is_gitlab
from labdeck.sim.core.http import forbidden, paginate, record_not_found
from labdeck.sim.core.state import SimState
from labdeck.sim.routes.jobs import readable_project

_RETRYABLE = frozenset({"failed", "canceled"})


def _gitlab_only(handler: Callable[[Request], Awaitable[Response]]) -> Callable[[Request], Awaitable[Response]]:
    """The spec dialect has no such route."""

    async def route(request: Request) -> Response:
        state: SimState = request.app.state.sim
        if not is_gitlab(state):
            return JSONResponse({"error": "404 Not Found"}, status_code=404)
        return await handler(request)

    return route


def _pipeline(ctx: Ctx, ci: CiStore, project_id: int) -> Pipeline:
    pipeline = ci.pipelines.get(ctx.path_int("pipeline_id"))
    if pipeline is None or pipeline.project_id != project_id:
        raise record_not_found()
    return pipeline


@endpoint()
async def list_pipelines(ctx: Ctx) -> Any:
    """GET /projects/:id/pipelines: newest first unless ``order_by``/``sort`` say otherwise; counted
    pages; anonymous callers see a public project's pipelines when its jobs are public."""
    project = readable_project(ctx, anonymous=True)
    ci = store(ctx.state)
    pipelines = ci_pipelines.filtered(ci, project.id, ctx.params)
    items, headers = paginate(ctx.request, ctx.params, pipelines, link_defaults={"order_by": "id", "sort": "desc"})
    return [ci_pipelines.basic(ci, pipeline, ctx.base_url) for pipeline in items], 200, headers


@endpoint()
async def get_pipeline(ctx: Ctx) -> Any:
    """GET /projects/:id/pipelines/:pipeline_id."""
    project = readable_project(ctx, anonymous=True)
    ci = store(ctx.state)
    return ci_pipelines.detail(ci, _pipeline(ctx, ci, project.id), ctx.base_url, ctx.state.now())


def _updatable(ctx: Ctx) -> tuple[CiStore, Pipeline]:
    """``update_pipeline`` / ``cancel_pipeline``: developer access."""
    project = ctx.project()
    user = ctx.require_user()
    ci = store(ctx.state)
    pipeline = _pipeline(ctx, ci, project.id)
    if not ctx.state.can_develop(user, project):
        raise forbidden()
    return ci, pipeline


@endpoint(auth=True)
async def retry_pipeline(ctx: Ctx) -> Any:
    """POST …/retry → 201: every failed or canceled job (latest tries) is retried; nothing happens
    when there is none."""
    ci, pipeline = _updatable(ctx)
    user = ctx.require_user()
    now = ctx.state.now()
    for job in [job for job in ci.pipeline_jobs(pipeline) if job.status in _RETRYABLE]:
        if not job.retried:
            ci.retry(job, user, now)
    ci.touch(pipeline, now)
    return ci_pipelines.detail(ci, pipeline, ctx.base_url, now, with_name=False), 201


@endpoint(auth=True)
async def cancel_pipeline(ctx: Ctx) -> Any:
    """POST …/cancel → 200: every unfinished job is canceled (running ones are ``canceling`` until
    their runner acknowledges)."""
    ci, pipeline = _updatable(ctx)
    now = ctx.state.now()
    for job in ci.pipeline_jobs(pipeline):
        ci.cancel(job, now)
    ci.touch(pipeline, now)
    return ci_pipelines.detail(ci, pipeline, ctx.base_url, now, with_name=False), 200


def routes() -> list[BaseRoute]:
    """The pipeline routes (``…/pipelines/:pipeline_id/jobs`` is a job route)."""
    base = "/projects/{id}/pipelines"
    return [
        Route(base, _gitlab_only(list_pipelines), methods=["GET"]),
        Route(f"{base}/{{pipeline_id}}", _gitlab_only(get_pipeline), methods=["GET"]),
        Route(f"{base}/{{pipeline_id}}/retry", _gitlab_only(retry_pipeline), methods=["POST"]),
        Route(f"{base}/{{pipeline_id}}/cancel", _gitlab_only(cancel_pipeline), methods=["POST"]),
    ]
