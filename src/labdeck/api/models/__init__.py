"""Pydantic v2 models of every resource in the two spec documents.

Parsing is tolerant: unknown fields are ignored, fields missing in other server versions are
optional, status fields are plain strings (known values are constants such as
``JobStatus.RUNNING``), and timestamps are timezone-aware.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from labdeck.base.lazy import lazy_exports

if TYPE_CHECKING:
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

# The names are read from their modules when first asked for: a model class costs its fields'
# annotations at import (defer_build spares only the validator), and ``labdeck triage`` uses the
# jobs' and projects' models, not those of issues or settings.
_HOMES: dict[str, str] = {
    "NOTIFICATION_EVENTS": "settings",
    "AccessLevel": "settings",
    "Artifact": "ci",
    "ArtifactsFile": "ci",
    "Badge": "settings",
    "BadgePreview": "settings",
    "Commit": "common",
    "DetailedStatus": "ci",
    "ExportStatus": "projects",
    "ExportStatusValue": "projects",
    "ImportStatus": "projects",
    "ImportStatusValue": "projects",
    "Integration": "settings",
    "Issue": "issues",
    "IssueState": "issues",
    "Job": "ci",
    "JobStatus": "ci",
    "MergeRequest": "issues",
    "Message": "base",
    "Milestone": "common",
    "Model": "base",
    "Namespace": "common",
    "NotificationLevel": "settings",
    "NotificationSettings": "settings",
    "Owner": "common",
    "Permissions": "projects",
    "Pipeline": "ci",
    "PipelineRef": "common",
    "Project": "projects",
    "ProjectGroupLink": "projects",
    "ProjectHook": "projects",
    "ProjectIdentity": "common",
    "ProjectMember": "projects",
    "ProjectStatistics": "projects",
    "ProtectedBranch": "settings",
    "Runner": "ci",
    "RunnerDetail": "ci",
    "RunnerJob": "ci",
    "RunnerStatus": "ci",
    "RunnerType": "ci",
    "TimeStats": "common",
    "Todo": "issues",
    "UploadedFile": "projects",
    "User": "common",
    "UserAgentDetail": "issues",
    "UserBrief": "common",
    "Version": "common",
}


__getattr__ = lazy_exports(__name__, _HOMES, globals())


__all__ = [
    "NOTIFICATION_EVENTS", "AccessLevel", "Artifact", "ArtifactsFile", "Badge", "BadgePreview", "Commit",
    "DetailedStatus", "ExportStatus", "ExportStatusValue", "ImportStatus", "ImportStatusValue", "Integration", "Issue",
    "IssueState", "Job", "JobStatus", "Message", "MergeRequest", "Milestone", "Model", "Namespace",
    "NotificationLevel", "NotificationSettings", "Owner", "Permissions", "Pipeline", "PipelineRef",
    "Project", "ProjectGroupLink", "ProjectHook", "ProjectIdentity", "ProjectMember", "ProjectStatistics",
    "ProtectedBranch", "Runner", "RunnerDetail", "RunnerJob", "RunnerStatus", "RunnerType", "TimeStats", "Todo",
    "UploadedFile", "User", "UserAgentDetail", "UserBrief", "Version",
]
