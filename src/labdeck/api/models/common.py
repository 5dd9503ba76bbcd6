"""Small records embedded in several resources: users, namespaces, commits, milestones."""

from __future__ import annotations

from pydantic import Field

from labdeck.api.models.base import Model, Timestamp


class UserBrief(Model):
    """A user as embedded in other records (``UserBasic``)."""

    id: int
    name: str | None = None
    username: str | None = None
    state: str | None = None
    avatar_url: str | None = None
    web_url: str | None = None


class User(UserBrief):
    """A full user record; ``GET /user`` adds e-mail and, for admins, ``is_admin``."""

    created_at: Timestamp = None
    bio: str | None = None
    location: str | None = None
    skype: str | None = None
    linkedin: str | None = None
    twitter: str | None = None
    website_url: str | None = None
    organization: str | None = None
    email: str | None = None
    is_admin: bool | None = None
    can_create_project: bool | None = None
    can_create_group: bool | None = None
    last_sign_in_at: Timestamp = None
    last_activity_on: str | None = None
    two_factor_enabled: bool | None = None
    external: bool | None = None


class Namespace(Model):
    """The namespace (group or user) a project lives in."""

    id: int | None = None
    name: str | None = None
    path: str | None = None
    kind: str | None = None
    full_path: str | None = None
    parent_id: int | None = None


class Owner(Model):
    """A project's owner (user namespaces only)."""

    id: int | None = None
    name: str | None = None
    username: str | None = None
    created_at: Timestamp = None


class Commit(Model):
    """A commit as embedded in jobs."""

    id: str | None = None
    short_id: str | None = None
    title: str | None = None
    message: str | None = None
    created_at: Timestamp = None
    parent_ids: list[str] = Field(default_factory=list)
    author_name: str | None = None
    author_email: str | None = None
    authored_date: Timestamp = None
    committer_name: str | None = None
    committer_email: str | None = None
    committed_date: Timestamp = None


class PipelineRef(Model):
    """The pipeline a job belongs to."""

    id: int | None = None
    project_id: int | None = None
    sha: str | None = None
    ref: str | None = None
    status: str | None = None


class ProjectIdentity(Model):
    """The identifying fields of a project (import/export status, runner detail, runner jobs)."""

    id: int
    description: str | None = None
    name: str | None = None
    name_with_namespace: str | None = None
    path: str | None = None
    path_with_namespace: str | None = None
    created_at: Timestamp = None


class Milestone(Model):
    """A milestone as embedded in issues."""

    id: int | None = None
    iid: int | None = None
    project_id: int | None = None
    group_id: int | None = None
    title: str | None = None
    description: str | None = None
    state: str | None = None
    due_date: str | None = None
    start_date: str | None = None
    created_at: Timestamp = None
    updated_at: Timestamp = None
    closed_at: Timestamp = None


class TimeStats(Model):
    """Time tracking of an issue, in seconds."""

    time_estimate: int = 0
    total_time_spent: int = 0
    human_time_estimate: str | None = None
    human_total_time_spent: str | None = None


class Version(Model):
    """``GET /version``."""

    version: str | None = None
    revision: str | None = None
