"""Notification settings over HTTP (spec document 001): global, per group and per project, per user.

The settings, their levels and defaults live in :mod:`labdeck.sim.issues.notification_settings`.
"""

from __future__ import annotations

from typing import Any

from starlette.routing import BaseRoute, Route

from labdeck.sim.core.context import Ctx, endpoint
from labdeck.sim.core.http import ApiError
from labdeck.sim.core.state import User
from labdeck.sim.issues.notification_settings import (
    EMAIL_EVENTS,
    LEVELS,
    NOTIFICATION_EMAILS_KEY,
    NotificationSetting,
    setting_for,
)


def _view(setting: NotificationSetting) -> dict[str, Any]:
    result: dict[str, Any] = {"level": setting.level}
    if setting.level == "custom":
        result["events"] = {name: setting.events.get(name, False) for name in EMAIL_EVENTS}
    return result


def _apply(ctx: Ctx, setting: NotificationSetting) -> None:
    """Validate every parameter first, then update (a 400 leaves the setting untouched)."""
    level = ctx.params.choice("level", LEVELS)
    flags = {name: ctx.params.bool(name) for name in EMAIL_EVENTS}
    if level is not None:
        setting.level = level
    for name, value in flags.items():
        if value is not None:
            setting.events[name] = value


def _global_view(ctx: Ctx, user: User, setting: NotificationSetting) -> dict[str, Any]:
    emails: dict[int, str] = ctx.state.extra.setdefault(NOTIFICATION_EMAILS_KEY, {})
    result = _view(setting)
    result["notification_email"] = emails.get(user.id, user.email)
    return result


@endpoint(auth=True)
async def get_global(ctx: Ctx) -> Any:
    """GET /notification_settings."""
    user = ctx.require_user()
    return _global_view(ctx, user, setting_for(ctx.state, "global", 0, user))


@endpoint(auth=True)
async def put_global(ctx: Ctx) -> Any:
    """PUT /notification_settings (level, notification_email, event flags)."""
    user = ctx.require_user()
    setting = setting_for(ctx.state, "global", 0, user, store=True)
    email = ctx.params.str("notification_email")
    if email is not None and email != "" and email != user.email:
        raise ApiError(400, {"message": {"notification_email": ["is not an email you own"]}})
    _apply(ctx, setting)
    if email is not None:
        emails: dict[int, str] = ctx.state.extra.setdefault(NOTIFICATION_EMAILS_KEY, {})
        emails[user.id] = email or user.email
    return _global_view(ctx, user, setting), 200


@endpoint(auth=True)
async def get_group(ctx: Ctx) -> Any:
    """GET /groups/:id/notification_settings."""
    group = ctx.group()
    return _view(setting_for(ctx.state, "group", group.id, ctx.require_user()))


@endpoint(auth=True)
async def put_group(ctx: Ctx) -> Any:
    """PUT /groups/:id/notification_settings."""
    group = ctx.group()
    setting = setting_for(ctx.state, "group", group.id, ctx.require_user(), store=True)
    _apply(ctx, setting)
    return _view(setting), 200


@endpoint(auth=True)
async def get_project(ctx: Ctx) -> Any:
    """GET /projects/:id/notification_settings."""
    project = ctx.project()
    return _view(setting_for(ctx.state, "project", project.id, ctx.require_user()))


@endpoint(auth=True)
async def put_project(ctx: Ctx) -> Any:
    """PUT /projects/:id/notification_settings."""
    project = ctx.project()
    setting = setting_for(ctx.state, "project", project.id, ctx.require_user(), store=True)
    _apply(ctx, setting)
    return _view(setting), 200


def routes() -> list[BaseRoute]:
    """Global, group and project notification settings."""
    return [
        Route("/notification_settings", get_global, methods=["GET"]),
        Route("/notification_settings", put_global, methods=["PUT"]),
        Route("/groups/{id}/notification_settings", get_group, methods=["GET"]),
        Route("/groups/{id}/notification_settings", put_group, methods=["PUT"]),
        Route("/projects/{id}/notification_settings", get_project, methods=["GET"]),
        Route("/projects/{id}/notification_settings", put_project, methods=["PUT"]),
    ]
