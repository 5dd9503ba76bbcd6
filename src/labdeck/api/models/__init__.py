"""Pydantic v2 models of every resource in the two spec documents.

Parsing is tolerant: unknown fields are ignored, fields missing in other server versions are
optional, status fields are plain strings (known values are constants such as
``JobStatus.RUNNING``), and timestamps are timezone-aware.
"""

from __future__ import annotations

from labdeck.api.models.base import Message, Model
from labdeck.api.models.ci import (
    Artifact,
    ArtifactsFile,
    DetailedStatus,
    Job,
    JobStatus,
    Pipeline,
    Runner,
    RunnerDetail,
    RunnerJob,
    RunnerStatus,
    RunnerType,
)
from labdeck.api.models.common import (
    Commit,
    Milestone,
    Namespace,
    Owner,
    PipelineRef,
    ProjectIdentity,
    TimeStats,
    User,
    UserBrief,
    Version,
)
from labdeck.api.models.issues import Issue, IssueState, MergeRequest, Todo, UserAgentDetail
from labdeck.api.models.projects import (
    ExportStatus,
    ExportStatusValue,
    ImportStatus,
    ImportStatusValue,
    Permissions,
    Project,
    ProjectGroupLink,
    ProjectHook,
    ProjectMember,
    ProjectStatistics,
    UploadedFile,
)
from labdeck.api.models.settings import (
    NOTIFICATION_EVENTS,
    AccessLevel,
    Badge,
    BadgePreview,
    Integration,
    NotificationLevel,
    NotificationSettings,
    ProtectedBranch,
)

__all__ = [
    "NOTIFICATION_EVENTS", "AccessLevel", "Artifact", "ArtifactsFile", "Badge", "BadgePreview", "Commit",
    "DetailedStatus", "ExportStatus", "ExportStatusValue", "ImportStatus", "ImportStatusValue", "Integration", "Issue",
    "IssueState", "Job", "JobStatus", "Message", "MergeRequest", "Milestone", "Model", "Namespace",
    "NotificationLevel", "NotificationSettings", "Owner", "Permissions", "Pipeline", "PipelineRef",
    "Project", "ProjectGroupLink", "ProjectHook", "ProjectIdentity", "ProjectMember", "ProjectStatistics",
    "ProtectedBranch", "Runner", "RunnerDetail", "RunnerJob", "RunnerStatus", "RunnerType", "TimeStats", "Todo",
    "UploadedFile", "User", "UserAgentDetail", "UserBrief", "Version",
]
