"""Group badges, protected branches, integrations and notification settings."""

from __future__ import annotations

from typing import Any

from pydantic import Field

from labdeck.api.models.base import Model, Status, Timestamp, WithEventFlags


class Badge(Model):
    """A group (or project) badge."""

    id: int
    name: str | None = None
    link_url: str | None = None
    image_url: str | None = None
    rendered_link_url: str | None = None
    rendered_image_url: str | None = None
    kind: str | None = None


class BadgePreview(Model):
    """``GET /groups/:id/badges/render``."""

    link_url: str | None = None
    image_url: str | None = None
    rendered_link_url: str | None = None
    rendered_image_url: str | None = None


class AccessLevel(Model):
    """One access rule: a role (``access_level``), or (EE) a user or group."""

    id: int | None = None
    access_level: int | None = None
    access_level_description: str | None = None
    user_id: int | None = None
    group_id: int | None = None


class ProtectedBranch(Model):
    """A protected branch or wildcard."""

    id: int | None = None
    name: str
    push_access_levels: list[AccessLevel] = Field(default_factory=list)
    merge_access_levels: list[AccessLevel] = Field(default_factory=list)
    unprotect_access_levels: list[AccessLevel] = Field(default_factory=list)
    allow_force_push: bool | None = None
    """13.10+ (absent before: force pushes are refused on protected branches)."""
    code_owner_approval_required: bool | None = None


class Integration(WithEventFlags):
    """An integration settings record; a never-configured one has ``id`` null, ``active`` false.

    ``slug`` is the server's (13.x+ send it; the API layer fills it in otherwise) and ``title``
    the human name ("Slack notifications"). Unknown ``*_events`` flags are kept (:attr:`events`).
    """

    id: int | None = None
    title: str | None = None
    slug: str | None = None
    created_at: Timestamp = None
    updated_at: Timestamp = None
    active: bool | None = None
    push_events: bool | None = None
    issues_events: bool | None = None
    confidential_issues_events: bool | None = None
    merge_requests_events: bool | None = None
    tag_push_events: bool | None = None
    note_events: bool | None = None
    confidential_note_events: bool | None = None
    job_events: bool | None = None
    pipeline_events: bool | None = None
    wiki_page_events: bool | None = None
    commit_events: bool | None = None
    comment_on_event_enabled: bool | None = None
    properties: dict[str, Any] | None = Field(default=None, repr=False)


class NotificationSettings(Model):
    """Global (with ``notification_email``) or group/project notification settings."""

    level: Status = ""
    notification_email: str | None = None
    events: dict[str, bool] | None = None


class NotificationLevel:
    """Known notification levels."""

    DISABLED = "disabled"
    PARTICIPATING = "participating"
    WATCH = "watch"
    GLOBAL = "global"
    MENTION = "mention"
    CUSTOM = "custom"
    KNOWN = frozenset({DISABLED, PARTICIPATING, WATCH, GLOBAL, MENTION, CUSTOM})


NOTIFICATION_EVENTS = (
    "new_note", "new_issue", "reopen_issue", "close_issue", "reassign_issue", "new_merge_request",
    "push_to_merge_request", "reopen_merge_request", "close_merge_request", "reassign_merge_request",
    "merge_merge_request", "failed_pipeline", "success_pipeline",
)
"""The 13 e-mail events controllable at level ``custom``."""
