"""Notification settings (spec document 001): the levels, the email events, and each user's setting
per scope (``global``, ``group``, ``project``), with GitLab's defaults.

Stored in ``state.notification_settings`` under ``(scope, target id, user id)`` (target 0 for
``global``). Shared by the data set and the routes, which read and change them over HTTP.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from labdeck.sim.core.state import SimState, User

LEVELS = ("disabled", "participating", "watch", "global", "mention", "custom")
EMAIL_EVENTS = (
    "new_note",
    "new_issue",
    "reopen_issue",
    "close_issue",
    "reassign_issue",
    "new_merge_request",
    "push_to_merge_request",
    "reopen_merge_request",
    "close_merge_request",
    "reassign_merge_request",
    "merge_merge_request",
    "failed_pipeline",
    "success_pipeline",
)
NOTIFICATION_EMAILS_KEY = "notification_emails"  # state.extra: user id -> chosen address


@dataclass
class NotificationSetting:
    level: str
    events: dict[str, bool] = field(default_factory=lambda: dict.fromkeys(EMAIL_EVENTS, False))


def setting_for(
    state: SimState, scope: str, target_id: int, user: User, *, store: bool = False
) -> NotificationSetting:
    """The user's setting, or GitLab's default (kept in the state only when ``store``)."""
    key = (scope, target_id, user.id)
    setting: NotificationSetting | None = state.notification_settings.get(key)
    if setting is None:
        setting = NotificationSetting(level="participating" if scope == "global" else "global")
        if store:
            state.notification_settings[key] = setting
    return setting
