"""Projects and the records around them: statistics, shares, uploads, hooks, export/import."""

from __future__ import annotations

from typing import Any

from pydantic import Field, model_validator

from labdeck.api.models.base import Day, Model, Timestamp, WithEventFlags
from labdeck.api.models.common import Namespace, Owner, ProjectIdentity


class ProjectStatistics(Model):
    commit_count: int | None = None
    storage_size: int | None = None
    repository_size: int | None = None
    lfs_objects_size: int | None = None
    job_artifacts_size: int | None = None


class AccessEntry(Model):
    access_level: int | None = None
    notification_level: int | None = None


class Permissions(Model):
    project_access: AccessEntry | None = None
    group_access: AccessEntry | None = None


class SharedGroup(Model):
    group_id: int
    group_name: str | None = None
    group_access_level: int | None = None


class ForkedFrom(Model):
    id: int
    name: str | None = None
    path_with_namespace: str | None = None


class Project(Model):
    """A project record (list, single, star, archive and fork responses carry different subsets).

    ``tag_list`` (10.x–15.x) and ``topics`` (14.0+, which later servers send alone) are filled
    from each other when only one is sent, so either works with every server.
    """

    id: int
    name: str | None = None
    name_with_namespace: str | None = None
    path: str | None = None
    path_with_namespace: str | None = None
    description: str | None = None
    default_branch: str | None = None
    visibility: str | None = None
    ssh_url_to_repo: str | None = None
    http_url_to_repo: str | None = None
    web_url: str | None = None
    avatar_url: str | None = None
    tag_list: list[str] = Field(default_factory=list)
    topics: list[str] = Field(default_factory=list)
    owner: Owner | None = None
    namespace: Namespace | None = None
    issues_enabled: bool | None = None
    merge_requests_enabled: bool | None = None
    jobs_enabled: bool | None = None
    wiki_enabled: bool | None = None
    snippets_enabled: bool | None = None
    lfs_enabled: bool | None = None
    resolve_outdated_diff_discussions: bool | None = None
    container_registry_enabled: bool | None = None
    shared_runners_enabled: bool | None = None
    public_jobs: bool | None = None
    request_access_enabled: bool | None = None
    only_allow_merge_if_pipeline_succeeds: bool | None = None
    only_allow_merge_if_all_discussions_are_resolved: bool | None = None
    printing_merge_requests_link_enabled: bool | None = None
    merge_method: str | None = None
    ci_config_path: str | None = None
    open_issues_count: int | None = None
    forks_count: int | None = None
    star_count: int | None = None
    creator_id: int | None = None
    created_at: Timestamp = None
    last_activity_at: Timestamp = None
    archived: bool | None = None
    import_status: str | None = None
    import_error: str | None = None
    runners_token: str | None = Field(default=None, repr=False)
    permissions: Permissions | None = None
    shared_with_groups: list[SharedGroup] = Field(default_factory=list)
    forked_from_project: ForkedFrom | None = None
    statistics: ProjectStatistics | None = None
    links: dict[str, str | None] | None = Field(default=None, alias="_links")

    @model_validator(mode="before")
    @classmethod
    def _topics_or_tags(cls, data: Any) -> Any:
        if not isinstance(data, dict):
            return data
        tags, topics = data.get("tag_list"), data.get("topics")
        if tags and not topics:
            return {**data, "topics": tags}
        if topics and not tags:
            return {**data, "tag_list": topics}
        return data


class ProjectMember(Model):
    """A user of ``GET /projects/:id/users``."""

    id: int
    username: str | None = None
    name: str | None = None
    state: str | None = None
    avatar_url: str | None = None
    web_url: str | None = None


class UploadedFile(Model):
    """``POST /projects/:id/uploads``."""

    alt: str | None = None
    url: str | None = None
    markdown: str | None = None
    full_path: str | None = None


class ProjectGroupLink(Model):
    """``POST /projects/:id/share``."""

    id: int | None = None
    project_id: int | None = None
    group_id: int | None = None
    group_access: int | None = None
    expires_at: Day = None


class ProjectHook(WithEventFlags):
    """A project web hook (its secret token is never returned).

    Servers keep adding event kinds (``releases_events``, ``emoji_events`` …): unknown
    ``*_events`` flags are kept and listed by :attr:`events` with the known ones.
    """

    id: int
    url: str | None = None
    name: str | None = None
    """17.x+ (absent before)."""
    description: str | None = None
    project_id: int | None = None
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
    repository_update_events: bool | None = None
    enable_ssl_verification: bool | None = None
    push_events_branch_filter: str | None = None
    created_at: Timestamp = None


class ExportStatus(ProjectIdentity):
    """``GET /projects/:id/export``; ``links`` only once finished."""

    export_status: str | None = None
    links: dict[str, Any] | None = Field(default=None, alias="_links")


class ImportStatus(ProjectIdentity):
    """``POST /projects/import`` and ``GET /projects/:id/import``."""

    import_status: str | None = None
    import_error: str | None = None


class ExportStatusValue:
    """Known ``export_status`` values (others are kept as plain strings)."""

    NONE = "none"
    STARTED = "started"
    AFTER_EXPORT_ACTION = "after_export_action"
    FINISHED = "finished"
    KNOWN = frozenset({NONE, STARTED, AFTER_EXPORT_ACTION, FINISHED})


class ImportStatusValue:
    """Known ``import_status`` values."""

    NONE = "none"
    SCHEDULED = "scheduled"
    FAILED = "failed"
    STARTED = "started"
    FINISHED = "finished"
    KNOWN = frozenset({NONE, SCHEDULED, FAILED, STARTED, FINISHED})
