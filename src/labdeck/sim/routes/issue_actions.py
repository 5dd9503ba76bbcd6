"""Actions on one issue: move, subscriptions, todo, time tracking, closed_by, participants and the
user agent detail (spec document 001; statuses per docs/wire-facts.md §2.5 and §2.6)."""

from __future__ import annotations

from typing import Any

from starlette.routing import BaseRoute, Route

from labdeck.sim.core.context import Ctx, endpoint
from labdeck.sim.core.http import ApiError, bad_request, forbidden, not_found, not_modified, paginate
from labdeck.sim.core.state import Project
from labdeck.sim.issues.model import (
    Issue,
    Todo,
    can_admin_issues,
    can_update_issue,
    ensure_labels,
    is_subscribed,
    issue_single,
    merge_request_view,
    participant_ids,
    project_labels,
    time_stats,
    todo_view,
)
from labdeck.sim.issues.time_tracking import parse_human_time
from labdeck.sim.routes.issues import find_issue, new_issue_iid, validation_error


def _issue(ctx: Ctx) -> tuple[Project, Issue]:
    project = ctx.project()
    return project, find_issue(ctx, project)


# --- move -------------------------------------------------------------------------------------------


@endpoint(auth=True)
async def move_issue(ctx: Ctx) -> Any:
    """POST …/move → 201 with the new issue in the target project."""
    project, issue = _issue(ctx)
    user = ctx.require_user()
    state = ctx.state
    target_id = ctx.params.int("to_project_id", required=True)
    target = state.projects.get(target_id) if target_id is not None else None
    if target is None or target.deleted or not state.can_read(user, target):
        raise not_found("Project")
    if target.id == project.id:
        raise bad_request("Cannot move issue to project it originates from!")
    if issue.moved_to_id is not None or not (
        can_admin_issues(state, user, project) and can_admin_issues(state, user, target)
    ):
        raise bad_request("Cannot move issue due to insufficient permissions!")
    now = state.now()
    target_labels = project_labels(state, target.id)
    milestone_id = None
    if issue.milestone_id is not None:
        title = state.milestones[issue.milestone_id].title
        for milestone in state.milestones.values():
            if milestone.project_id == target.id and milestone.title == title:
                milestone_id = milestone.id
                break
    moved = Issue(
        id=state.next_id("issue"),
        iid=new_issue_iid(state, target.id),
        project_id=target.id,
        title=issue.title,
        description=issue.description,
        author_id=issue.author_id,
        created_at=now,
        updated_at=now,
        labels=[name for name in issue.labels if name in target_labels],
        milestone_id=milestone_id,
        assignee_ids=[uid for uid in issue.assignee_ids if state.can_read(state.users.get(uid), target)],
        confidential=issue.confidential,
        due_date=issue.due_date,
        time_estimate=issue.time_estimate,
        total_time_spent=issue.total_time_spent,
        subscriptions=dict(issue.subscriptions),
    )
    ensure_labels(state, target.id, moved.labels)
    state.issues[moved.id] = moved
    issue.moved_to_id = moved.id
    issue.updated_at = now
    if issue.state != "closed":
        issue.state = "closed"
        issue.closed_at = now
        issue.closed_by_id = user.id
    return issue_single(state, moved, ctx.base_url, user), 201


# --- subscriptions and todo -------------------------------------------------------------------------


@endpoint(auth=True)
async def subscribe(ctx: Ctx) -> Any:
    """POST …/subscribe → 201 issue; 304 when already subscribed."""
    _, issue = _issue(ctx)
    user = ctx.require_user()
    if is_subscribed(issue, user):
        raise not_modified()
    issue.subscriptions[user.id] = True
    return issue_single(ctx.state, issue, ctx.base_url, user), 201


@endpoint(auth=True)
async def unsubscribe(ctx: Ctx) -> Any:
    """POST …/unsubscribe → 201 issue; 304 when not subscribed."""
    _, issue = _issue(ctx)
    user = ctx.require_user()
    if not is_subscribed(issue, user):
        raise not_modified()
    issue.subscriptions[user.id] = False
    return issue_single(ctx.state, issue, ctx.base_url, user), 201


@endpoint(auth=True)
async def mark_todo(ctx: Ctx) -> Any:
    """POST …/todo → 201 Todo; 304 when the caller already has a pending todo on the issue."""
    project, issue = _issue(ctx)
    user = ctx.require_user()
    state = ctx.state
    for todo in state.todos.values():
        if todo.user_id == user.id and todo.target_id == issue.id and todo.state == "pending":
            raise not_modified()
    todo = Todo(
        id=state.next_id("todo"),
        user_id=user.id,
        project_id=project.id,
        author_id=user.id,
        target_id=issue.id,
        created_at=state.now(),
        body=issue.title,
    )
    state.todos[todo.id] = todo
    return todo_view(state, todo, ctx.base_url), 201


# --- time tracking ----------------------------------------------------------------------------------


def _editable(ctx: Ctx) -> Issue:
    _, issue = _issue(ctx)
    if not can_update_issue(ctx.state, ctx.require_user(), issue):
        raise forbidden()
    return issue


def _duration(ctx: Ctx, field: str) -> int:
    text = ctx.params.str("duration", required=True)
    seconds = parse_human_time(text or "")
    if seconds is None:
        raise validation_error(field, "has an invalid format")
    return seconds


@endpoint(auth=True)
async def set_time_estimate(ctx: Ctx) -> Any:
    """POST …/time_estimate → 200 time stats."""
    issue = _editable(ctx)
    seconds = _duration(ctx, "time_estimate")
    if seconds < 0:
        raise validation_error("time_estimate", "must be greater than or equal to 0")
    issue.time_estimate = seconds
    issue.updated_at = ctx.state.now()
    return time_stats(issue.time_estimate, issue.total_time_spent), 200


@endpoint(auth=True)
async def reset_time_estimate(ctx: Ctx) -> Any:
    """POST …/reset_time_estimate → 200 time stats."""
    issue = _editable(ctx)
    issue.time_estimate = 0
    issue.updated_at = ctx.state.now()
    return time_stats(issue.time_estimate, issue.total_time_spent), 200


@endpoint(auth=True)
async def add_spent_time(ctx: Ctx) -> Any:
    """201; a negative duration subtracts, but never below zero."""
    issue = _editable(ctx)
    seconds = _duration(ctx, "time_spent")
    if issue.total_time_spent + seconds < 0:
        raise validation_error("time_spent", "Time to subtract exceeds the total time spent")
    issue.total_time_spent += seconds
    issue.updated_at = ctx.state.now()
    return time_stats(issue.time_estimate, issue.total_time_spent), 201


@endpoint(auth=True)
async def reset_spent_time(ctx: Ctx) -> Any:
    """POST …/reset_spent_time → 200 time stats."""
    issue = _editable(ctx)
    issue.total_time_spent = 0
    issue.updated_at = ctx.state.now()
    return time_stats(issue.time_estimate, issue.total_time_spent), 200


@endpoint(auth=True)
async def get_time_stats(ctx: Ctx) -> Any:
    """GET …/time_stats."""
    _, issue = _issue(ctx)
    return time_stats(issue.time_estimate, issue.total_time_spent)


# --- related lists ----------------------------------------------------------------------------------


@endpoint(auth=True)
async def closed_by(ctx: Ctx) -> Any:
    """Merge requests that close the issue when merged (paginated)."""
    _, issue = _issue(ctx)
    state = ctx.state
    merge_requests = sorted(
        (
            mr
            for mr in state.merge_requests.values()
            if issue.id in mr.closes_issue_ids and state.can_read(ctx.user, state.projects[mr.project_id])
        ),
        key=lambda mr: mr.id,
    )
    page, headers = paginate(ctx.request, ctx.params, merge_requests)
    return [merge_request_view(state, mr, ctx.base_url) for mr in page], 200, headers


@endpoint(auth=True)
async def participants(ctx: Ctx) -> Any:
    """GET …/participants → UserBasic list (author first)."""
    _, issue = _issue(ctx)
    users = [ctx.state.users[uid] for uid in participant_ids(issue) if uid in ctx.state.users]
    return [user.brief(ctx.base_url) for user in users]


@endpoint(auth=True)
async def user_agent_detail(ctx: Ctx) -> Any:
    """Admin only (403 first, as ``authenticated_as_admin!`` runs before the lookup)."""
    ctx.require_admin()
    _, issue = _issue(ctx)
    detail = issue.user_agent
    if detail is None:
        raise ApiError(404, {"message": "404 UserAgentDetail Not Found"})
    submitted = bool(detail.get("submitted", False))
    return {
        "user_agent": detail.get("user_agent", ""),
        "ip_address": detail.get("ip_address", ""),
        "spamcheck_submitted": submitted,
        "akismet_submitted": submitted,
    }


def routes() -> list[BaseRoute]:
    """Routes under ``/projects/:id/issues/:issue_iid/…``."""
    base = "/projects/{id}/issues/{issue_iid}"
    return [
        Route(f"{base}/move", move_issue, methods=["POST"]),
        Route(f"{base}/subscribe", subscribe, methods=["POST"]),
        Route(f"{base}/unsubscribe", unsubscribe, methods=["POST"]),
        Route(f"{base}/todo", mark_todo, methods=["POST"]),
        Route(f"{base}/time_estimate", set_time_estimate, methods=["POST"]),
        Route(f"{base}/reset_time_estimate", reset_time_estimate, methods=["POST"]),
        Route(f"{base}/add_spent_time", add_spent_time, methods=["POST"]),
        Route(f"{base}/reset_spent_time", reset_spent_time, methods=["POST"]),
        Route(f"{base}/time_stats", get_time_stats, methods=["GET"]),
        Route(f"{base}/closed_by", closed_by, methods=["GET"]),
        Route(f"{base}/participants", participants, methods=["GET"]),
        Route(f"{base}/user_agent_detail", user_agent_detail, methods=["GET"]),
    ]
