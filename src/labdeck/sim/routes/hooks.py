"""Project hooks: list, get, create, edit, delete. Maintainers only; the secret token is never returned."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlparse

from starlette.routing import BaseRoute, Route

from labdeck.sim.core.context import Ctx, endpoint
from labdeck.sim.core.http import bad_request, forbidden, paginate, record_not_found
from labdeck.sim.core.state import Project
from labdeck.sim.projects.records import HOOK_EVENTS, Hook


def _admin_project(ctx: Ctx) -> Project:
    project = ctx.project()
    if not ctx.state.can_maintain(ctx.user, project):
        raise forbidden()
    return project


def _hook(ctx: Ctx, project: Project) -> Hook:
    hook = ctx.state.hooks.get(ctx.path_int("hook_id"))
    if hook is None or hook.project_id != project.id:
        raise record_not_found()
    return hook


def _apply(ctx: Ctx, hook: Hook) -> None:
    url = ctx.params.req("url")
    parsed = urlparse(url)
    if parsed.scheme not in ("http", "https") or not parsed.netloc:
        raise bad_request({"url": ["is blocked: Only allowed protocols are http, https"]})
    for name in (*HOOK_EVENTS, "enable_ssl_verification"):
        value = ctx.params.bool(name)
        if value is not None:
            hook.flags[name] = value
    if ctx.params.has("token"):
        hook.token = ctx.params.str("token") or None
    hook.url = url


@endpoint(auth=True)
async def list_hooks(ctx: Ctx) -> Any:
    """GET /projects/:id/hooks."""
    project = _admin_project(ctx)
    hooks = sorted((h for h in ctx.state.hooks.values() if h.project_id == project.id), key=lambda h: h.id)
    page, headers = paginate(ctx.request, ctx.params, hooks)
    return [hook.to_json() for hook in page], 200, headers


@endpoint(auth=True)
async def get_hook(ctx: Ctx) -> Any:
    """GET /projects/:id/hooks/:hook_id: 404 ``Not found`` for an unknown id."""
    return _hook(ctx, _admin_project(ctx)).to_json()


@endpoint(auth=True)
async def create_hook(ctx: Ctx) -> Any:
    """POST /projects/:id/hooks: ``url`` required, event flags optional (push on by default)."""
    project = _admin_project(ctx)
    hook = Hook(0, project.id, "", ctx.state.now())
    _apply(ctx, hook)
    hook.id = ctx.state.next_id("hook")
    ctx.state.hooks[hook.id] = hook
    return hook.to_json(), 201


@endpoint(auth=True)
async def edit_hook(ctx: Ctx) -> Any:
    """PUT /projects/:id/hooks/:hook_id: ``url`` required, as in 10.x."""
    project = _admin_project(ctx)
    hook = _hook(ctx, project)
    _apply(ctx, hook)
    return hook.to_json(), 200


@endpoint(auth=True)
async def delete_hook(ctx: Ctx) -> Any:
    """DELETE /projects/:id/hooks/:hook_id: 204."""
    project = _admin_project(ctx)
    hook = _hook(ctx, project)
    del ctx.state.hooks[hook.id]
    return None, 204


def routes() -> list[BaseRoute]:
    return [
        Route("/projects/{id}/hooks", list_hooks, methods=["GET"]),
        Route("/projects/{id}/hooks", create_hook, methods=["POST"]),
        Route("/projects/{id}/hooks/{hook_id}", get_hook, methods=["GET"]),
        Route("/projects/{id}/hooks/{hook_id}", edit_hook, methods=["PUT"]),
        Route("/projects/{id}/hooks/{hook_id}", delete_hook, methods=["DELETE"]),
    ]
