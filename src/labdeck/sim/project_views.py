"""JSON shapes of projects (Project, ProjectWithAccess, BasicProjectDetails) and the project filters.

Field lists follow the 10.x entities (wire-facts §6.1) and the spec's Project table.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable
from operator import attrgetter
from typing import Any

from labdeck.sim.clock import iso
from labdeck.sim.http import Params, invalid
from labdeck.sim.state import GUEST, OWNER, Project, SimState, User

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


def apply_write_params(project: Project, params: Params, *, creating: bool) -> None:
    """Apply set W from ``params`` to ``project`` (validation errors are Grape's 400s)."""
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


def fork_counts(state: SimState) -> Counter[int]:
    """Live forks per source project, cached until a project is added or deleted."""
    key = (len(state.projects), state.extra.get(_GENERATION, 0))
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
        """BasicProjectDetails: the anonymous and ``simple=true`` list shape."""
        state = self.state
        full_path = state.project_full_path(project)
        host = self.base_url.split("://", 1)[-1].split(":", 1)[0]
        return {
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


# --- filtering and ordering ---------------------------------------------------------------------------


def visible_projects(state: SimState, user: User | None) -> list[Project]:
    """Live projects the caller may see (public only when anonymous), in id order."""
    projects = state.projects.values()
    if user is None:
        return [p for p in projects if not p.deleted and p.visibility == "public"]
    if user.is_admin:
        return [p for p in projects if not p.deleted]
    member_of = {g.id for g in state.groups.values() if user.id in g.members}
    # Membership of a group grants access to the projects of its subgroups too.
    inherited = {g.id for g in state.groups.values() if _in_any(state, g.id, member_of)}
    uid = user.id

    def readable(p: Project) -> bool:
        if p.visibility != "private" or uid in p.members:
            return True
        if p.namespace_kind == "group":
            if p.namespace_id in inherited:
                return True
        elif p.namespace_id == uid:
            return True
        return any(gid in member_of for gid in p.shared_with_groups)

    return [p for p in projects if not p.deleted and readable(p)]


def _in_any(state: SimState, group_id: int, wanted: set[int]) -> bool:
    current: int | None = group_id
    while current is not None:
        if current in wanted:
            return True
        group = state.groups.get(current)
        current = group.parent_id if group is not None else None
    return False


_ORDER_CACHE = "project_order"


def _sort_key(order_by: str) -> Callable[[Project], Any]:
    if order_by == "name":
        return lambda p: (p.name.lower(), p.id)
    if order_by == "path":
        return lambda p: (p.path.lower(), p.id)
    if order_by == "updated_at":
        return lambda p: (p.updated_at or p.last_activity_at, p.id)
    if order_by == "id":
        return attrgetter("id")
    return attrgetter(order_by, "id")


def _ordered(state: SimState, projects: list[Project], order_by: str) -> list[Project]:
    """``projects`` sorted ascending. The order of all projects by id, creation time, name or path is
    cached until a project is added, renamed or deleted (:func:`projects_changed`) and used to order
    any subset without sorting it again; activity times change too often to be cached."""
    if order_by not in ("id", "created_at", "name", "path"):
        return sorted(projects, key=_sort_key(order_by))
    key = (len(state.projects), state.extra.get(_GENERATION, 0), order_by)
    cached = state.extra.get(_ORDER_CACHE + order_by)
    if cached is None or cached[0] != key:
        ranking = {p.id: rank for rank, p in enumerate(sorted(state.projects.values(), key=_sort_key(order_by)))}
        cached = (key, ranking)
        state.extra[_ORDER_CACHE + order_by] = cached
    ranking = cached[1]
    if len(projects) * 4 < len(ranking):
        return sorted(projects, key=lambda p: ranking[p.id])
    chosen = {p.id for p in projects}
    by_id = state.projects
    return [by_id[pid] for pid in ranking if pid in chosen]


def filter_projects(state: SimState, user: User | None, params: Params, projects: Iterable[Project]) -> list[Project]:
    """Apply the spec's project filters, then ``order_by``/``sort`` (default ``created_at desc``)."""
    order_by = params.choice("order_by", ORDER_FIELDS, default="created_at") or "created_at"
    sort = params.choice("sort", ("asc", "desc"), default="desc") or "desc"
    archived = params.bool("archived")
    visibility = params.choice("visibility", VISIBILITIES)
    search = (params.str("search") or "").strip().lower()
    owned = params.bool("owned") and user is not None
    membership = params.bool("membership") and user is not None
    starred = params.bool("starred") and user is not None
    with_issues = params.bool("with_issues_enabled")
    with_mrs = params.bool("with_merge_requests_enabled")
    attributes = {str(k): str(v) for k, v in params.hash("custom_attributes").items()}
    if user is None or not user.is_admin:
        attributes = {}  # the custom attribute filter is honoured for admins only
    if archived is None and visibility is None and not (search or owned or membership or starred or with_issues
                                                         or with_mrs or attributes):
        result = list(projects)
    else:
        result = []
        for project in projects:
            if archived is not None and project.archived != archived:
                continue
            if visibility is not None and project.visibility != visibility:
                continue
            if search and search not in project.name.lower() and search not in project.path.lower() and \
                    search not in (project.description or "").lower():
                continue
            if owned and state.access_level(user, project) < OWNER:
                continue
            if membership and state.access_level(user, project) < GUEST:
                continue
            if starred and (user is None or user.id not in project.starred_by):
                continue
            if with_issues and not project.settings.get("issues_enabled", True):
                continue
            if with_mrs and not project.settings.get("merge_requests_enabled", True):
                continue
            if attributes and any(project.custom_attributes.get(k) != v for k, v in attributes.items()):
                continue
            result.append(project)
    result = _ordered(state, result, order_by)
    if sort == "desc":
        result.reverse()
    return result


def check_order_params(params: Params) -> None:
    """Validate ``order_by``/``sort`` early so that a bad value is a 400 even on an empty list."""
    if params.has("order_by") and params.str("order_by") not in ORDER_FIELDS:
        raise invalid("order_by")
    if params.has("sort") and params.str("sort") not in ("asc", "desc"):
        raise invalid("sort")
