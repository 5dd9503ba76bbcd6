"""Protected branches: list, get, protect, unprotect (10.x ``lib/api/protected_branches.rb``).

Every endpoint needs maintainer access (``authorize_admin_project``). Names may be wildcards
(``release-*``) and arrive URL-encoded (``feature%2Fx``). Access levels are 0, 30 or 40 (default 40).
"""

from __future__ import annotations

from typing import Any

from starlette.routing import BaseRoute, Route

from labdeck.sim.core.context import Ctx, endpoint
from labdeck.sim.core.http import conflict, forbidden, invalid, paginate, record_not_found
from labdeck.sim.core.state import Project
from labdeck.sim.projects.records import ACCESS_DESCRIPTIONS, ProtectedBranch


def _admin_project(ctx: Ctx) -> Project:
    project = ctx.project()
    ctx.require_user()
    if not ctx.state.can_maintain(ctx.user, project):
        raise forbidden()
    return project


def _level(ctx: Ctx, name: str) -> int:
    text = ctx.params.str(name)
    if text is None or text == "":
        return 40
    try:
        value = int(text)
    except ValueError:
        raise invalid(name) from None
    if value not in ACCESS_DESCRIPTIONS:
        raise invalid(name)
    return value


@endpoint(auth=True)
async def list_protected(ctx: Ctx) -> Any:
    """GET /projects/:id/protected_branches."""
    project = _admin_project(ctx)
    branches = sorted(
        (b for (pid, _), b in ctx.state.protected_branches.items() if pid == project.id), key=lambda b: b.id
    )
    page, headers = paginate(ctx.request, ctx.params, branches)
    return [branch.to_json() for branch in page], 200, headers


@endpoint(auth=True)
async def get_protected(ctx: Ctx) -> Any:
    """GET /projects/:id/protected_branches/:name: 404 ``Not found`` (lower case) when unknown."""
    project = _admin_project(ctx)
    branch = ctx.state.protected_branches.get((project.id, ctx.path("name")))
    if branch is None:
        raise record_not_found()
    return branch.to_json()


@endpoint(auth=True)
async def protect(ctx: Ctx) -> Any:
    """POST /projects/:id/protected_branches: 201; 409 when the name is already protected."""
    project = _admin_project(ctx)
    name = ctx.params.req("name")
    push = _level(ctx, "push_access_level")
    merge = _level(ctx, "merge_access_level")
    if (project.id, name) in ctx.state.protected_branches:
        raise conflict(f"Protected branch '{name}' already exists")
    branch = ProtectedBranch(project.id, name, push, merge, ctx.state.next_id("protected_branch"))
    ctx.state.protected_branches[(project.id, name)] = branch
    return branch.to_json(), 201


@endpoint(auth=True)
async def unprotect(ctx: Ctx) -> Any:
    """DELETE /projects/:id/protected_branches/:name: 204."""
    project = _admin_project(ctx)
    key = (project.id, ctx.path("name"))
    if key not in ctx.state.protected_branches:
        raise record_not_found()
    del ctx.state.protected_branches[key]
    return None, 204


def routes() -> list[BaseRoute]:
    return [
        Route("/projects/{id}/protected_branches", list_protected, methods=["GET"]),
        Route("/projects/{id}/protected_branches", protect, methods=["POST"]),
        Route("/projects/{id}/protected_branches/{name}", get_protected, methods=["GET"]),
        Route("/projects/{id}/protected_branches/{name}", unprotect, methods=["DELETE"]),
    ]
