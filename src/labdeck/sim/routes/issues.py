"""Issue lists and issue CRUD (spec document 001, "Issues").

Every issue call needs authentication. An issue the caller may not see (confidential, or in an
invisible project) is answered like a missing one: ``404 Not found`` (``find_by!`` in GitLab).
"""

from __future__ import annotations

import re
from datetime import date
from typing import Any

from starlette.routing import BaseRoute, Route

from labdeck.sim.core.context import Ctx, endpoint
from labdeck.sim.core.http import ApiError, Params, forbidden, missing, not_found, paginate, record_not_found
from labdeck.sim.core.state import Group, Project, SimState
from labdeck.sim.issues.filters import filter_issues, parse_datetime
from labdeck.sim.issues.model import (
    Issue,
    MergeRequest,
    can_admin_issues,
    can_see_issue,
    can_update_issue,
    ensure_labels,
    issue_basic,
    issue_single,
)

_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_EDIT_PARAMS = (
    "title",
    "description",
    "assignee_ids",
    "assignee_id",
    "milestone_id",
    "labels",
    "created_at",
    "due_date",
    "confidential",
    "state_event",
    "updated_at",
    "discussion_locked",
)


# --- shared helpers (also used by issue_actions) ---------------------------------------------------


def find_issue(ctx: Ctx, project: Project) -> Issue:
    """The issue named by ``issue_iid`` in ``project``; ``404 Not found`` when absent or hidden."""
    iid = ctx.path_int("issue_iid")
    for issue in ctx.state.issues.values():
        if issue.project_id == project.id and issue.iid == iid and not issue.deleted:
            if can_see_issue(ctx.state, ctx.user, issue):
                return issue
            break
    raise record_not_found()


def new_issue_iid(state: SimState, project_id: int) -> int:
    """The next per-project iid."""
    return state.next_id(f"issue_iid:{project_id}")


def validation_error(field: str, message: str) -> ApiError:
    """``render_validation_error!``: 400 with the model's error hash."""
    return ApiError(400, {"message": {field: [message]}})


def _due_date(params: Params) -> str | None:
    text = params.str("due_date")
    if text is None or text == "":
        return None
    try:
        if not _DATE.match(text):
            raise ValueError(text)
        date.fromisoformat(text)
    except ValueError:
        raise ApiError(400, {"error": "due_date is invalid"}) from None
    return text


def _label_names(params: Params) -> list[str]:
    names: list[str] = []
    for raw in params.list("labels"):
        name = str(raw).strip()
        if name and name not in names:
            names.append(name)
    return names


def _assignees(ctx: Ctx, project: Project) -> list[int] | None:
    """``assignee_ids`` (or legacy ``assignee_id``); ``[]`` when 0 or empty unassigns; None if absent."""
    params = ctx.params
    if params.has("assignee_ids"):
        raw_values = params.list("assignee_ids")
    elif params.has("assignee_id"):
        raw_values = [params.raw("assignee_id")]
    else:
        return None
    ids: list[int] = []
    for raw in raw_values:
        text = "" if raw is None else str(raw).strip()
        if text == "":
            continue
        try:
            value = int(text)
        except ValueError:
            raise ApiError(400, {"error": "assignee_ids is invalid"}) from None
        if value == 0:
            return []
        user = ctx.state.users.get(value)
        if user is not None and ctx.state.can_read(user, project) and value not in ids:
            ids.append(value)
    return ids


def _milestone(ctx: Ctx, project: Project) -> tuple[bool, int | None]:
    """(given, milestone id); 0 or empty unassigns; a milestone of another project is ignored."""
    if not ctx.params.has("milestone_id"):
        return False, None
    value = ctx.params.int("milestone_id")
    if not value:
        return True, None
    milestone = ctx.state.milestones.get(value)
    if milestone is None or milestone.project_id != project.id:
        return True, None
    return True, value


def _can_override_timestamps(ctx: Ctx, project: Project) -> bool:
    return ctx.state.is_owner(ctx.user, project)


def _group_project_ids(state: SimState, group: Group) -> set[int]:
    group_ids = {group.id}
    changed = True
    while changed:
        changed = False
        for candidate in state.groups.values():
            if candidate.parent_id in group_ids and candidate.id not in group_ids:
                group_ids.add(candidate.id)
                changed = True
    return {
        project.id
        for project in state.projects.values()
        if project.namespace_kind == "group" and project.namespace_id in group_ids and not project.deleted
    }


def _list(ctx: Ctx, candidates: list[Issue], default_scope: str) -> Any:
    issues = filter_issues(ctx.state, ctx.user, ctx.params, candidates, default_scope=default_scope)
    page, headers = paginate(ctx.request, ctx.params, issues)
    return [issue_basic(ctx.state, issue, ctx.base_url) for issue in page], 200, headers


# --- lists ------------------------------------------------------------------------------------------


@endpoint(auth=True)
async def list_issues(ctx: Ctx) -> Any:
    """GET /issues: issues the caller can access; default scope ``created-by-me``."""
    return _list(ctx, list(ctx.state.issues.values()), "created-by-me")


@endpoint(auth=True)
async def list_group_issues(ctx: Ctx) -> Any:
    """GET /groups/:id/issues: issues of the group's projects and subgroups."""
    group = ctx.group()
    project_ids = _group_project_ids(ctx.state, group)
    candidates = [issue for issue in ctx.state.issues.values() if issue.project_id in project_ids]
    return _list(ctx, candidates, "all")


@endpoint(auth=True)
async def list_project_issues(ctx: Ctx) -> Any:
    """GET /projects/:id/issues (default state all)."""
    project = ctx.project()
    candidates = [issue for issue in ctx.state.issues.values() if issue.project_id == project.id]
    return _list(ctx, candidates, "all")


# --- single issue -----------------------------------------------------------------------------------


@endpoint(auth=True)
async def get_issue(ctx: Ctx) -> Any:
    """GET /projects/:id/issues/:issue_iid → Issue with ``_links`` and ``subscribed``."""
    project = ctx.project()
    issue = find_issue(ctx, project)
    return issue_single(ctx.state, issue, ctx.base_url, ctx.user)


def _follow_up(ctx: Ctx, project: Project, mr_iid: int) -> MergeRequest:
    for mr in ctx.state.merge_requests.values():
        if mr.project_id == project.id and mr.iid == mr_iid:
            return mr
    raise not_found("Merge Request")


@endpoint(auth=True)
async def create_issue(ctx: Ctx) -> Any:
    """POST /projects/:id/issues → 201 issue."""
    project = ctx.project()
    user = ctx.require_user()
    if not project.settings.get("issues_enabled", True):
        raise forbidden()
    params = ctx.params
    state = ctx.state
    title = params.str("title")
    description = params.str("description")
    mr_iid = params.int("merge_request_to_resolve_discussions_of")
    if mr_iid is not None:
        mr = _follow_up(ctx, project, mr_iid)
        if title is None:
            title = f'Follow-up from "{mr.title}"'
        if description is None:
            description = (
                f"The following discussions from !{mr.iid} should be addressed:\n\n"
                f"- [ ] @{state.users[mr.author_id].username} started a discussion"
            )
    if title is None:
        raise missing("title")
    if title.strip() == "":
        raise validation_error("title", "can't be blank")
    confidential = params.bool("confidential", default=False)
    due_date = _due_date(params)
    created_at = parse_datetime(params, "created_at")
    now = state.now()
    if created_at is None or not _can_override_timestamps(ctx, project):
        created_at = now
    privileged = can_admin_issues(state, user, project)
    assignees = (_assignees(ctx, project) or []) if privileged else []
    milestone_id = _milestone(ctx, project)[1] if privileged else None
    labels = _label_names(params) if privileged else []
    ensure_labels(state, project.id, labels)
    issue = Issue(
        id=state.next_id("issue"),
        iid=new_issue_iid(state, project.id),
        project_id=project.id,
        title=title,
        description=description,
        author_id=user.id,
        created_at=created_at,
        updated_at=created_at,
        labels=labels,
        milestone_id=milestone_id,
        assignee_ids=assignees,
        confidential=bool(confidential),
        due_date=due_date,
        # Issues created through the API record who sent them (spam checking), as GitLab does.
        user_agent={"user_agent": ctx.request.headers.get("user-agent", ""),
                    "ip_address": ctx.request.client.host if ctx.request.client else "", "submitted": False},
    )
    state.issues[issue.id] = issue
    return issue_single(state, issue, ctx.base_url, user), 201


@endpoint(auth=True)
async def edit_issue(ctx: Ctx) -> Any:
    """PUT /projects/:id/issues/:issue_iid → 200 issue."""
    project = ctx.project()
    issue = find_issue(ctx, project)
    state = ctx.state
    params = ctx.params
    user = ctx.require_user()
    if not any(params.has(name) for name in _EDIT_PARAMS):
        raise ApiError(
            400, {"error": ", ".join(_EDIT_PARAMS) + " are missing, at least one parameter must be provided"}
        )
    if not can_update_issue(state, user, issue):
        raise forbidden()
    state_event = params.choice("state_event", ("close", "reopen"))
    title = params.str("title")
    if title is not None and title.strip() == "":
        raise validation_error("title", "can't be blank")
    due_given = params.has("due_date")
    due_date = _due_date(params)
    updated_at = parse_datetime(params, "updated_at")
    confidential = params.bool("confidential")
    locked = params.bool("discussion_locked")
    privileged = can_admin_issues(state, user, project)
    now = state.now()

    if title is not None:
        issue.title = title
    if params.has("description"):
        issue.description = params.str("description")
    if confidential is not None:
        issue.confidential = confidential
    if due_given:
        issue.due_date = due_date
    if privileged:
        assignees = _assignees(ctx, project)
        if assignees is not None:
            issue.assignee_ids = assignees
        given, milestone_id = _milestone(ctx, project)
        if given:
            issue.milestone_id = milestone_id
        if params.has("labels"):
            issue.labels = _label_names(params)
            ensure_labels(state, project.id, issue.labels)
        if locked is not None:
            issue.discussion_locked = locked
    if state_event == "close" and issue.state != "closed":
        issue.state = "closed"
        issue.closed_at = now
        issue.closed_by_id = user.id
    elif state_event == "reopen" and issue.state != "opened":
        issue.state = "opened"
        issue.closed_at = None
        issue.closed_by_id = None
    issue.updated_at = updated_at if updated_at is not None and _can_override_timestamps(ctx, project) else now
    return issue_single(state, issue, ctx.base_url, user)


@endpoint(auth=True)
async def delete_issue(ctx: Ctx) -> Any:
    """DELETE → 204; admin or project owner only."""
    project = ctx.project()
    issue = find_issue(ctx, project)
    if not ctx.state.is_owner(ctx.user, project):
        raise forbidden()
    issue.deleted = True
    return None, 204


def routes() -> list[BaseRoute]:
    """Issue list and CRUD routes."""
    return [
        Route("/issues", list_issues, methods=["GET"]),
        Route("/groups/{id}/issues", list_group_issues, methods=["GET"]),
        Route("/projects/{id}/issues", list_project_issues, methods=["GET"]),
        Route("/projects/{id}/issues", create_issue, methods=["POST"]),
        Route("/projects/{id}/issues/{issue_iid}", get_issue, methods=["GET"]),
        Route("/projects/{id}/issues/{issue_iid}", edit_issue, methods=["PUT"]),
        Route("/projects/{id}/issues/{issue_iid}", delete_issue, methods=["DELETE"]),
    ]
