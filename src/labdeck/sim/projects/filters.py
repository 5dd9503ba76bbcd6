"""Which projects a caller sees, the list filters of ``GET /projects`` and their ordering."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from datetime import UTC, datetime
from operator import attrgetter
from typing import Any

from labdeck.sim.core.dialect import is_gitlab
from labdeck.sim.core.http import ApiError, Params, invalid
from labdeck.sim.core.state import GUEST, OWNER, Project, SimState, User
from labdeck.sim.projects.views import ORDER_FIELDS, VISIBILITIES, projects_generation


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
    key = (len(state.projects), projects_generation(state), order_by)
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


def moment_param(params: Params, name: str) -> datetime | None:
    """An ISO 8601 date-time parameter (Grape's ``DateTime`` coercion)."""
    text = params.str(name)
    if not text:
        return None
    try:
        moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        raise ApiError(400, {"error": f"{name} is invalid"}) from None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment


def _by_activity(state: SimState, params: Params, projects: list[Project]) -> list[Project]:
    """``last_activity_after``/``_before`` (current GitLab; a 10.x server ignores them)."""
    if not is_gitlab(state):
        return projects
    after, before = moment_param(params, "last_activity_after"), moment_param(params, "last_activity_before")
    if after is not None:
        projects = [p for p in projects if p.last_activity_at > after]
    if before is not None:
        projects = [p for p in projects if p.last_activity_at < before]
    return projects


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
    result = _by_activity(state, params, result)
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
