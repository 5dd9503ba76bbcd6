"""Notification settings (spec 001 §Notification settings)."""

from __future__ import annotations

from collections.abc import Mapping

from labdeck.api.models import NOTIFICATION_EVENTS, NotificationSettings
from labdeck.api.models.params import NotificationLevelName
from labdeck.api.resources.base import ProjectRef, Resource, encode, ref


def _body(level: str | None, events: Mapping[str, bool] | None, email: str | None = None) -> dict[str, str | list[str]]:
    unknown = set(events or {}) - set(NOTIFICATION_EVENTS)
    if unknown:
        raise ValueError(f"unknown notification events: {', '.join(sorted(unknown))}")
    return encode({"level": level, "notification_email": email, **dict(events or {})})


class NotificationsResource(Resource):
    """``/notification_settings`` (global), per group and per project."""

    async def global_settings(self) -> NotificationSettings:
        """``GET /notification_settings``."""
        settings: NotificationSettings = await self._engine.get("notification_settings", NotificationSettings)
        return settings

    async def update_global(self, *, level: NotificationLevelName | None = None,
                            notification_email: str | None = None,
                            events: Mapping[str, bool] | None = None) -> NotificationSettings:
        """``PUT /notification_settings`` (``events`` keys from ``NOTIFICATION_EVENTS``)."""
        settings: NotificationSettings = await self._engine.call(
            "PUT", "notification_settings", NotificationSettings, data=_body(level, events, notification_email))
        return settings

    async def group_settings(self, group: ProjectRef) -> NotificationSettings:
        """``GET /groups/:id/notification_settings``."""
        settings: NotificationSettings = await self._engine.get(f"groups/{ref(group)}/notification_settings",
                                                                NotificationSettings)
        return settings

    async def update_group(self, group: ProjectRef, *, level: NotificationLevelName | None = None,
                           events: Mapping[str, bool] | None = None) -> NotificationSettings:
        """``PUT /groups/:id/notification_settings``."""
        settings: NotificationSettings = await self._engine.call(
            "PUT", f"groups/{ref(group)}/notification_settings", NotificationSettings, data=_body(level, events))
        return settings

    async def project_settings(self, pid: ProjectRef) -> NotificationSettings:
        """``GET /projects/:id/notification_settings``."""
        settings: NotificationSettings = await self._engine.get(f"projects/{ref(pid)}/notification_settings",
                                                                NotificationSettings)
        return settings

    async def update_project(self, pid: ProjectRef, *, level: NotificationLevelName | None = None,
                             events: Mapping[str, bool] | None = None) -> NotificationSettings:
        """``PUT /projects/:id/notification_settings``."""
        settings: NotificationSettings = await self._engine.call(
            "PUT", f"projects/{ref(pid)}/notification_settings", NotificationSettings, data=_body(level, events))
        return settings
