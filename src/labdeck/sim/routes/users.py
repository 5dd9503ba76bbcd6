"""GET /user, GET /version and GET /users/:user_id/projects."""

from __future__ import annotations

from typing import Any

from starlette.routing import BaseRoute, Route

from labdeck.sim.core.clock import iso
from labdeck.sim.core.context import Ctx, endpoint
from labdeck.sim.core.dialect import GITLAB_VERSION, SPEC_VERSION, is_gitlab
from labdeck.sim.core.http import not_found
from labdeck.sim.core.state import User
from labdeck.sim.projects.filters import visible_projects
from labdeck.sim.projects.listing import project_list


def user_public(ctx: Ctx, user: User) -> dict[str, Any]:
    """UserPublic, plus ``is_admin`` for admins (UserWithAdmin)."""
    body = user.brief(ctx.base_url)
    body.update(
        created_at=iso(user.created_at),
        bio=user.bio or None,
        location=user.location or None,
        skype="",
        linkedin="",
        twitter="",
        website_url="",
        organization=user.organization or None,
        last_sign_in_at=iso(ctx.state.now()),
        confirmed_at=iso(user.created_at),
        last_activity_on=ctx.state.now().date().isoformat(),
        email=user.email,
        theme_id=1,
        color_scheme_id=1,
        projects_limit=100000 if user.is_admin else 100,
        current_sign_in_at=iso(ctx.state.now()),
        identities=[],
        can_create_group=True,
        can_create_project=True,
        two_factor_enabled=False,
        external=False,
    )
    if user.is_admin:
        body["is_admin"] = True
    return body


@endpoint(auth=True)
async def current_user(ctx: Ctx) -> Any:
    """GET /user: the token's owner."""
    return user_public(ctx, ctx.require_user())


@endpoint(auth=True)
async def version(ctx: Ctx) -> Any:
    """GET /version: a 10.x version in the spec dialect, a current one in the gitlab dialect."""
    return dict(GITLAB_VERSION if is_gitlab(ctx.state) else SPEC_VERSION)


@endpoint()
async def user_projects(ctx: Ctx) -> Any:
    """GET /users/:user_id/projects: the user's personal projects visible to the caller."""
    owner = ctx.state.user_by_ref(ctx.path("user_id"))
    if owner is None:
        raise not_found("User")
    projects = [
        project for project in visible_projects(ctx.state, ctx.user)
        if project.namespace_kind == "user" and project.namespace_id == owner.id
    ]
    return project_list(ctx, projects)


def routes() -> list[BaseRoute]:
    return [
        Route("/user", current_user, methods=["GET"]),
        Route("/version", version, methods=["GET"]),
        Route("/users/{user_id}/projects", user_projects, methods=["GET"]),
    ]
