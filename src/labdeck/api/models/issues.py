"""Issues and the records their endpoints return (todos, merge requests, user agent detail)."""

from __future__ import annotations

from typing import Any

from pydantic import Field

from labdeck.api.models.base import Day, Model, Status, Timestamp
from labdeck.api.models.common import Milestone, ProjectIdentity, TimeStats, UserBrief


class IssueState:
    """Known issue states."""

    OPENED = "opened"
    CLOSED = "closed"
    KNOWN = frozenset({OPENED, CLOSED})


class Issue(Model):
    """An issue. ``subscribed`` and ``links`` appear only in single-issue style responses."""

    id: int
    iid: int
    project_id: int | None = None
    title: str = ""
    description: str | None = None
    state: Status = ""
    created_at: Timestamp = None
    updated_at: Timestamp = None
    closed_at: Timestamp = None
    closed_by: UserBrief | None = None
    labels: list[str] = Field(default_factory=list)
    milestone: Milestone | None = None
    author: UserBrief | None = None
    assignees: list[UserBrief] = Field(default_factory=list)
    assignee: UserBrief | None = None
    user_notes_count: int | None = None
    upvotes: int | None = None
    downvotes: int | None = None
    due_date: Day = None
    web_url: str | None = None
    time_stats: TimeStats | None = None
    confidential: bool | None = None
    discussion_locked: bool | None = None
    subscribed: bool | None = None
    moved_to_id: int | None = None
    links: dict[str, str | None] | None = Field(default=None, alias="_links")


class Todo(Model):
    """``POST …/issues/:iid/todo``."""

    id: int
    project: ProjectIdentity | None = None
    author: UserBrief | None = None
    action_name: str | None = None
    target_type: str | None = None
    target: dict[str, Any] | None = None
    target_url: str | None = None
    body: str | None = None
    state: Status = ""
    created_at: Timestamp = None


class MergeRequest(Model):
    """An item of ``GET …/issues/:iid/closed_by``."""

    id: int
    iid: int | None = None
    project_id: int | None = None
    source_project_id: int | None = None
    target_project_id: int | None = None
    title: str | None = None
    description: str | None = None
    state: Status = ""
    target_branch: str | None = None
    source_branch: str | None = None
    sha: str | None = None
    merge_status: str | None = None
    merge_commit_sha: str | None = None
    web_url: str | None = None
    upvotes: int | None = None
    downvotes: int | None = None
    user_notes_count: int | None = None
    created_at: Timestamp = None
    updated_at: Timestamp = None
    closed_at: Timestamp = None
    closed_by: UserBrief | None = None
    author: UserBrief | None = None
    assignee: UserBrief | None = None
    labels: list[str] = Field(default_factory=list)
    work_in_progress: bool | None = None
    merge_when_pipeline_succeeds: bool | None = None
    should_remove_source_branch: bool | None = None
    force_remove_source_branch: bool | None = None
    milestone: Milestone | None = None
    time_stats: TimeStats | None = None


class UserAgentDetail(Model):
    """``GET …/issues/:iid/user_agent_detail`` (admin)."""

    user_agent: str | None = None
    ip_address: str | None = None
    spamcheck_submitted: bool | None = None
    akismet_submitted: bool | None = None
