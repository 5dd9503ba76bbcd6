"""Enumerated request parameters (``Literal`` types) from the two spec documents."""

from __future__ import annotations

from typing import Literal

Visibility = Literal["private", "internal", "public"]
ProjectOrderBy = Literal["id", "name", "path", "created_at", "updated_at", "last_activity_at"]
SortOrder = Literal["asc", "desc"]
MergeMethod = Literal["merge", "rebase_merge", "ff"]
RunnerScope = Literal["active", "paused", "online"]
RunnerAllScope = Literal["specific", "shared", "active", "paused", "online"]
RunnerJobStatus = Literal["running", "success", "failed", "canceled"]
RunnerAccessLevel = Literal["not_protected", "ref_protected"]
JobScope = Literal["created", "pending", "running", "failed", "success", "canceled", "skipped", "manual"]
ExportHttpMethod = Literal["PUT", "POST"]
BranchAccessLevel = Literal[0, 30, 40]
IssueStateFilter = Literal["opened", "closed"]
IssueScope = Literal["created-by-me", "assigned-to-me", "all"]
IssueOrderBy = Literal["created_at", "updated_at"]
IssueStateEvent = Literal["close", "reopen"]
NotificationLevelName = Literal["disabled", "participating", "watch", "global", "mention", "custom"]
IntegrationSlug = Literal[
    "task-tracker", "project-mgmt-a", "project-mgmt-b", "ci-server-a", "ci-server-b", "ci-a", "ci-b",
    "mock-ci", "issue-tracker-a", "custom-issue-tracker", "issue-tracker-b", "issue-tracker-c",
    "chat-a", "chat-b", "chat-c", "chat-f", "chat-d", "chat-e", "chat-d-slash-commands",
    "chat-e-slash-commands", "irc-gateway", "emails-on-push", "pipelines-email", "external-wiki",
    "dependency-monitor", "package-registry", "monitoring", "push-notifier", "cluster-platform",
]
