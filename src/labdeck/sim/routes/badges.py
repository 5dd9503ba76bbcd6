"""Group badges: CRUD and the preview of ``%{…}`` variable substitution (``render``).

Variables take their values from the group's first project by creation date; a group without projects
returns its URLs unchanged. Reading needs a visible group, writing needs a group owner or an admin.
"""

from __future__ import annotations

from typing import Any

from starlette.routing import BaseRoute, Route

from labdeck.sim.core.context import Ctx, endpoint
from labdeck.sim.core.http import forbidden, not_found, paginate
from labdeck.sim.core.state import OWNER, Group
from labdeck.sim.projects.records import Badge, badge_json, badge_source_project, render_badge_url


def _admin_group(ctx: Ctx) -> Group:
    group = ctx.group()
    user = ctx.require_user()
    if user.is_admin:
        return group
    current: Group | None = group
    while current is not None:
        if current.members.get(user.id, 0) >= OWNER:
            return group
        current = ctx.state.groups.get(current.parent_id) if current.parent_id else None
    raise forbidden()


def _badge(ctx: Ctx, group: Group) -> Badge:
    badge = ctx.state.badges.get(ctx.path_int("badge_id"))
    if badge is None or badge.group_id != group.id:
        raise not_found("Badge")
    return badge


@endpoint()
async def list_badges(ctx: Ctx) -> Any:
    """GET /groups/:id/badges."""
    group = ctx.group()
    badges = sorted((b for b in ctx.state.badges.values() if b.group_id == group.id), key=lambda b: b.id)
    page, headers = paginate(ctx.request, ctx.params, badges)
    return [badge_json(ctx.state, badge) for badge in page], 200, headers


@endpoint()
async def render_badge(ctx: Ctx) -> Any:
    """GET /groups/:id/badges/render?link_url=…&image_url=…: a preview, nothing stored."""
    group = ctx.group()
    link_url = ctx.params.req("link_url")
    image_url = ctx.params.req("image_url")
    source = badge_source_project(ctx.state, group.id)
    return {
        "link_url": link_url,
        "image_url": image_url,
        "rendered_link_url": render_badge_url(ctx.state, link_url, source),
        "rendered_image_url": render_badge_url(ctx.state, image_url, source),
    }


@endpoint()
async def get_badge(ctx: Ctx) -> Any:
    """GET /groups/:id/badges/:badge_id: 404 ``Badge Not Found``."""
    group = ctx.group()
    return badge_json(ctx.state, _badge(ctx, group))


@endpoint(auth=True)
async def create_badge(ctx: Ctx) -> Any:
    """POST /groups/:id/badges: ``link_url`` and ``image_url`` required; 201."""
    group = _admin_group(ctx)
    link_url = ctx.params.req("link_url")
    image_url = ctx.params.req("image_url")
    badge = Badge(ctx.state.next_id("badge"), group.id, link_url, image_url)
    ctx.state.badges[badge.id] = badge
    return badge_json(ctx.state, badge), 201


@endpoint(auth=True)
async def edit_badge(ctx: Ctx) -> Any:
    """PUT /groups/:id/badges/:badge_id: either URL, both optional."""
    group = _admin_group(ctx)
    badge = _badge(ctx, group)
    if ctx.params.str("link_url"):
        badge.link_url = ctx.params.str("link_url") or badge.link_url
    if ctx.params.str("image_url"):
        badge.image_url = ctx.params.str("image_url") or badge.image_url
    return badge_json(ctx.state, badge), 200


@endpoint(auth=True)
async def delete_badge(ctx: Ctx) -> Any:
    """DELETE /groups/:id/badges/:badge_id: 204."""
    group = _admin_group(ctx)
    badge = _badge(ctx, group)
    del ctx.state.badges[badge.id]
    return None, 204


def routes() -> list[BaseRoute]:
    return [
        Route("/groups/{id}/badges", list_badges, methods=["GET"]),
        Route("/groups/{id}/badges", create_badge, methods=["POST"]),
        Route("/groups/{id}/badges/render", render_badge, methods=["GET"]),
        Route("/groups/{id}/badges/{badge_id}", get_badge, methods=["GET"]),
        Route("/groups/{id}/badges/{badge_id}", edit_badge, methods=["PUT"]),
        Route("/groups/{id}/badges/{badge_id}", delete_badge, methods=["DELETE"]),
    ]
