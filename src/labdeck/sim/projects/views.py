"""JSON shapes of projects (Project, ProjectWithAccess, BasicProjectDetails) and the project filters.

Field lists follow the 10.x entities (docs/wire-facts.md §6.1) and the spec's Project table.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from labdeck.sim.core.clock import iso
from labdeck.sim.core.dialect import is_gitlab
from labdeck.sim.core.http import Params
from labdeck.sim.core.state import OWNER, Project, SimState, User

ORDER_FIELDS = ("id", "name", "path", "created_at", "updated_at", "last_activity_at")
VISIBILITIES = ("private", "internal", "public")
MERGE_METHODS = ("merge", "rebase_merge", "ff")

# Write parameters (set W) and the value a new project gets.
BOOL_SETTINGS: dict[str, bool] = {
    "issues_enabled": True,
    "merge_requests_enabled": True,
    "jobs_enabled": True,
    "wiki_enabled": True,
    "snippets_enabled": True,
    "resolve_outdated_diff_discussions": False,
    "container_registry_enabled": True,
    "shared_runners_enabled": True,
    "public_jobs": True,
    "only_allow_merge_if_pipeline_succeeds": False,
    "only_allow_merge_if_all_discussions_are_resolved": False,
    "lfs_enabled": True,
    "request_access_enabled": False,
    "printing_merge_request_link_enabled": True,
}
STRING_SETTINGS: dict[str, str | None] = {"merge_method": "merge", "import_url": None}


def default_settings() -> dict[str, Any]:
    """A fresh copy of the settings of a new project."""
    return {**BOOL_SETTINGS, **STRING_SETTINGS}


def apply_write_params(project: Project, params: Params, *, creating: bool, gitlab: bool = False) -> None:
    """Apply set W from ``params`` to ``project`` (validation errors are Grape's 400s); the gitlab
    dialect also takes ``topics``, the current name of ``tag_list``."""
    for name in BOOL_SETTINGS:
        if name == "printing_merge_request_link_enabled" and not creating:
            continue
        value = params.bool(name)
        if value is not None:
            project.settings[name] = value
    merge_method = params.choice("merge_method", MERGE_METHODS)
    if merge_method is not None:
        project.settings["merge_method"] = merge_method
    if params.has("import_url"):
        project.settings["import_url"] = params.str("import_url")
    if params.has("description"):
        project.description = params.str("description")
    visibility = params.choice("visibility", VISIBILITIES)
    if visibility is not None:
        project.visibility = visibility
    if params.has("tag_list"):
        project.tag_list = [str(tag).strip() for tag in params.list("tag_list") if str(tag).strip()]
    if gitlab and params.has("topics"):
        project.tag_list = [str(tag).strip() for tag in params.list("topics") if str(tag).strip()]
    if params.has("ci_config_path"):
        project.ci_config_path = params.str("ci_config_path") or None
    avatar = params.file("avatar")
    if avatar is not None:
        project.avatar_url = f"/uploads/-/system/project/avatar/{project.id}/{avatar.filename or 'avatar.png'}"


_FORKS_CACHE = "project_fork_counts"
_GENERATION = "projects_generation"


def projects_changed(state: SimState) -> None:
    """Invalidate caches derived from the live projects (call after a delete or a rename)."""
    state.extra[_GENERATION] = int(state.extra.get(_GENERATION, 0)) + 1


def projects_generation(state: SimState) -> int:
    """A counter that :func:`projects_changed` moves on (part of the caches' keys)."""
    return int(state.extra.get(_GENERATION, 0))


def fork_counts(state: SimState) -> Counter[int]:
    """Live forks per source project, cached until a project is added or deleted."""
    key = (len(state.projects), projects_generation(state))
    cached = state.extra.get(_FORKS_CACHE)
    if cached is not None and cached[0] == key:
        counts: Counter[int] = cached[1]
        return counts
    counts = Counter(p.forked_from_id for p in state.projects.values() if p.forked_from_id and not p.deleted)
    state.extra[_FORKS_CACHE] = (key, counts)
    return counts


class ProjectPresenter:
    """Renders projects for one caller; counts that need a scan are computed once per request."""

    def __init__(self, state: SimState, user: User | None, base_url: str) -> None:
        self.state = state
        self.user = user
        self.base_url = base_url
        self.api_url = f"{base_url}/api/v4"
        self.gitlab = is_gitlab(state)
        self._forks: Counter[int] | None = None
        self._open_issues: Counter[int] | None = None

    # --- counts -----------------------------------------------------------------------------------

    def forks_count(self, project: Project) -> int:
        if self._forks is None:
            self._forks = fork_counts(self.state)
        return self._forks.get(project.id, 0)

    def open_issues_count(self, project: Project) -> int:
        if self._open_issues is None:
            counts: Counter[int] = Counter()
            for issue in self.state.issues.values():
                if getattr(issue, "state", None) == "opened":
                    counts[int(getattr(issue, "project_id", 0) or 0)] += 1
            self._open_issues = counts
        return self._open_issues.get(project.id, 0)

    # --- shapes -------------------------------------------------------------------------------------

    def basic(self, project: Project) -> dict[str, Any]:
        """BasicProjectDetails: the anonymous and ``simple=true`` list shape (with ``topics`` beside
        ``tag_list`` in the gitlab dialect)."""
        state = self.state
        full_path = state.project_full_path(project)
        host = self.base_url.split("://", 1)[-1].split(":", 1)[0]
        body = {
            "id": project.id,
            "description": project.description,
            "name": project.name,
            "name_with_namespace": f"{state.namespace_name(project)} / {project.name}",
            "path": project.path,
            "path_with_namespace": full_path,
            "created_at": iso(project.created_at),
            "default_branch": project.default_branch,
            "tag_list": list(project.tag_list),
            "ssh_url_to_repo": f"git@{host}:{full_path}.git",
            "http_url_to_repo": f"{self.base_url}/{full_path}.git",
            "web_url": f"{self.base_url}/{full_path}",
            "avatar_url": f"{self.base_url}{project.avatar_url}" if project.avatar_url else None,
            "star_count": len(project.starred_by),
            "forks_count": self.forks_count(project),
            "last_activity_at": iso(project.last_activity_at),
        }
        if self.gitlab:
            body["topics"] = list(project.tag_list)
        return body

    def identity(self, project: Project) -> dict[str, Any]:
        """ProjectIdentity: the head of the export and import status records."""
        state = self.state
        return {
            "id": project.id,
            "description": project.description,
            "name": project.name,
            "name_with_namespace": f"{state.namespace_name(project)} / {project.name}",
            "path": project.path,
            "path_with_namespace": state.project_full_path(project),
            "created_at": iso(project.created_at),
        }

    def full(
        self,
        project: Project,
        *,
        statistics: bool = False,
        custom_attributes: bool = False,
        with_access: bool = True,
    ) -> dict[str, Any]:
        """Project (or ProjectWithAccess when the caller is authenticated and ``with_access``)."""
        state = self.state
        user = self.user
        settings = {**default_settings(), **project.settings}
        body = self.basic(project)
        link = f"{self.api_url}/projects/{project.id}"
        links = {"self": link}
        if settings["issues_enabled"]:
            links["issues"] = f"{link}/issues"
        if settings["merge_requests_enabled"]:
            links["merge_requests"] = f"{link}/merge_requests"
        links.update(
            repo_branches=f"{link}/repository/branches",
            labels=f"{link}/labels",
            events=f"{link}/events",
            members=f"{link}/members",
        )
        body["_links"] = links
        body["archived"] = project.archived
        body["visibility"] = project.visibility
        if project.namespace_kind == "user":
            owner = state.users[project.namespace_id]
            body["owner"] = {**owner.brief(self.base_url), "created_at": iso(owner.created_at)}
        for name in ("resolve_outdated_diff_discussions", "container_registry_enabled", "issues_enabled",
                     "merge_requests_enabled", "wiki_enabled", "jobs_enabled", "snippets_enabled",
                     "shared_runners_enabled", "lfs_enabled"):
            body[name] = settings[name]
        body["creator_id"] = project.creator_id
        body["namespace"] = state.namespace_entity(project.namespace_kind, project.namespace_id)
        if project.forked_from_id is not None:
            source = state.projects.get(project.forked_from_id)
            if source is not None and not source.deleted:
                body["forked_from_project"] = self.basic(source)
        body["import_status"] = project.import_status
        if user is not None and user.is_admin or project.import_status == "failed":
            body["import_error"] = project.import_error
        body["open_issues_count"] = self.open_issues_count(project)
        if state.can_maintain(user, project):
            body["runners_token"] = project.runners_token
        body["public_jobs"] = settings["public_jobs"]
        body["ci_config_path"] = project.ci_config_path
        body["shared_with_groups"] = [
            {
                "group_id": group_id,
                "group_name": state.groups[group_id].name,
                "group_access_level": link_record["group_access"],
                "expires_at": link_record.get("expires_at"),
            }
            for group_id, link_record in sorted(project.shared_with_groups.items())
            if group_id in state.groups
        ]
        for name in ("only_allow_merge_if_pipeline_succeeds", "request_access_enabled",
                     "only_allow_merge_if_all_discussions_are_resolved", "printing_merge_request_link_enabled"):
            body[name] = settings[name]
        # The spec spells the response field with "requests"; 10.x code without. Both are sent.
        body["printing_merge_requests_link_enabled"] = settings["printing_merge_request_link_enabled"]
        body["merge_method"] = settings["merge_method"]
        if statistics:
            body["statistics"] = dict(project.statistics)
        if custom_attributes and user is not None and user.is_admin:
            body["custom_attributes"] = [{"key": k, "value": v} for k, v in sorted(project.custom_attributes.items())]
        if with_access and user is not None:
            body["permissions"] = self.permissions(project)
        return body

    def permissions(self, project: Project) -> dict[str, Any]:
        """``permissions.project_access`` (direct membership) and ``group_access`` (namespace group)."""
        user = self.user
        assert user is not None
        direct = project.members.get(user.id)
        if direct is None and project.namespace_kind == "user" and project.namespace_id == user.id:
            direct = OWNER
        group_level = 0
        if project.namespace_kind == "group":
            group = self.state.groups.get(project.namespace_id)
            while group is not None:
                group_level = max(group_level, group.members.get(user.id, 0))
                group = self.state.groups.get(group.parent_id) if group.parent_id else None
        return {
            "project_access": {"access_level": direct, "notification_level": 3} if direct else None,
            "group_access": {"access_level": group_level, "notification_level": 3} if group_level else None,
        }
