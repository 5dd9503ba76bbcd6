"""Issues, merge requests, milestones and todos of the simulator, and their JSON views.

The entities are stored on :class:`~labdeck.sim.core.state.SimState` (``issues``, ``merge_requests``,
``milestones``, ``todos``); project labels live in ``state.extra["labels"]`` (project id → names).
Views follow GitLab 10.x entities (docs/wire-facts.md §6.1): IssueBasic for lists, Issue (with ``_links``
and ``subscribed``) for single responses.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from labdeck.sim.core.clock import iso
from labdeck.sim.core.state import REPORTER, Project, SimState, User
from labdeck.sim.issues.time_tracking import human_time

LABELS_KEY = "labels"


@dataclass
class Milestone:
    id: int
    iid: int
    project_id: int
    title: str
    created_at: datetime
    updated_at: datetime
    description: str = ""
    state: str = "active"
    due_date: str | None = None
    start_date: str | None = None
    closed_at: datetime | None = None


@dataclass
class Issue:
    id: int
    iid: int
    project_id: int
    title: str
    author_id: int
    created_at: datetime
    updated_at: datetime
    description: str | None = None
    state: str = "opened"
    closed_at: datetime | None = None
    closed_by_id: int | None = None
    labels: list[str] = field(default_factory=list)
    milestone_id: int | None = None
    assignee_ids: list[int] = field(default_factory=list)
    confidential: bool = False
    discussion_locked: bool = False
    due_date: str | None = None
    time_estimate: int = 0
    total_time_spent: int = 0
    user_notes_count: int = 0
    award_emoji: dict[int, set[str]] = field(default_factory=dict)  # user id -> emoji names
    subscriptions: dict[int, bool] = field(default_factory=dict)  # explicit (un)subscriptions
    commenter_ids: list[int] = field(default_factory=list)
    user_agent: dict[str, Any] | None = None
    moved_to_id: int | None = None
    deleted: bool = False

    def votes(self, emoji: str) -> int:
        """How many users awarded ``emoji``."""
        return sum(1 for names in self.award_emoji.values() if emoji in names)


@dataclass
class MergeRequest:
    id: int
    iid: int
    project_id: int
    title: str
    author_id: int
    created_at: datetime
    updated_at: datetime
    source_branch: str
    target_branch: str
    sha: str
    description: str = ""
    state: str = "opened"
    assignee_id: int | None = None
    labels: list[str] = field(default_factory=list)
    milestone_id: int | None = None
    closes_issue_ids: list[int] = field(default_factory=list)
    closed_at: datetime | None = None
    closed_by_id: int | None = None
    merge_commit_sha: str | None = None
    merge_status: str = "can_be_merged"
    upvotes: int = 0
    downvotes: int = 0
    user_notes_count: int = 0
    time_estimate: int = 0
    total_time_spent: int = 0
    work_in_progress: bool = False
    merge_when_pipeline_succeeds: bool = False
    force_remove_source_branch: bool = False


@dataclass
class Todo:
    id: int
    user_id: int
    project_id: int
    author_id: int
    target_id: int
    created_at: datetime
    body: str = ""
    action_name: str = "marked"
    target_type: str = "Issue"
    state: str = "pending"


# --- labels -----------------------------------------------------------------------------------------


def project_labels(state: SimState, project_id: int) -> dict[str, str]:
    """The labels (name → colour) defined in a project."""
    registry: dict[int, dict[str, str]] = state.extra.setdefault(LABELS_KEY, {})
    return registry.setdefault(project_id, {})


def ensure_labels(state: SimState, project_id: int, names: list[str]) -> None:
    """Create missing labels, as GitLab does when an issue names an unknown one."""
    labels = project_labels(state, project_id)
    for name in names:
        labels.setdefault(name, "#428bca")


# --- permissions ------------------------------------------------------------------------------------


def can_see_issue(state: SimState, user: User | None, issue: Issue) -> bool:
    """Readable project, and for confidential issues: reporter+, author, assignee or admin."""
    project = state.projects.get(issue.project_id)
    if project is None or project.deleted or issue.deleted:
        return False
    if not state.can_read(user, project):
        return False
    if not issue.confidential:
        return True
    if user is None:
        return False
    return (
        user.is_admin
        or state.access_level(user, project) >= REPORTER
        or issue.author_id == user.id
        or user.id in issue.assignee_ids
    )


def can_admin_issues(state: SimState, user: User | None, project: Project) -> bool:
    """GitLab's ``admin_issue``: reporter or above (or admin)."""
    if user is None:
        return False
    return user.is_admin or state.access_level(user, project) >= REPORTER


def can_update_issue(state: SimState, user: User | None, issue: Issue) -> bool:
    """``update_issue``: the author, an assignee, or reporter and above."""
    project = state.projects[issue.project_id]
    if user is None:
        return False
    return can_admin_issues(state, user, project) or issue.author_id == user.id or user.id in issue.assignee_ids


def is_subscribed(issue: Issue, user: User | None) -> bool:
    """Explicit subscription if any, otherwise participation (author, assignee, commenter)."""
    if user is None:
        return False
    if user.id in issue.subscriptions:
        return issue.subscriptions[user.id]
    return user.id in participant_ids(issue)


def participant_ids(issue: Issue) -> list[int]:
    """Author first, then assignees and commenters, without repeats."""
    ordered: list[int] = []
    for user_id in [issue.author_id, *issue.assignee_ids, *issue.commenter_ids]:
        if user_id not in ordered:
            ordered.append(user_id)
    return ordered


# --- views ------------------------------------------------------------------------------------------


def time_stats(estimate: int, spent: int) -> dict[str, Any]:
    """IssuableTimeStats."""
    return {
        "time_estimate": estimate,
        "total_time_spent": spent,
        "human_time_estimate": human_time(estimate),
        "human_total_time_spent": human_time(spent),
    }


def user_brief(state: SimState, user_id: int | None, base_url: str) -> dict[str, Any] | None:
    """UserBasic of a user id, or None when absent or deleted."""
    if user_id is None:
        return None
    user = state.users.get(user_id)
    return user.brief(base_url) if user is not None else None


def milestone_view(milestone: Milestone | None, *, single: bool = False) -> dict[str, Any] | None:
    """Milestone as embedded in issues (``closed_at`` only in single-issue responses)."""
    if milestone is None:
        return None
    view: dict[str, Any] = {
        "id": milestone.id,
        "iid": milestone.iid,
        "project_id": milestone.project_id,
        "title": milestone.title,
        "description": milestone.description,
        "state": milestone.state,
        "created_at": iso(milestone.created_at),
        "updated_at": iso(milestone.updated_at),
        "due_date": milestone.due_date,
        "start_date": milestone.start_date,
    }
    if single:
        view["closed_at"] = iso(milestone.closed_at)
    return view


def project_web_url(state: SimState, project: Project, base_url: str) -> str:
    """The project's web URL (``<base>/<namespace>/<path>``)."""
    return f"{base_url}/{state.project_full_path(project)}"


def issue_basic(state: SimState, issue: Issue, base_url: str, *, single: bool = False) -> dict[str, Any]:
    """IssueBasic (list item)."""
    project = state.projects[issue.project_id]
    assignees = [view for view in (user_brief(state, uid, base_url) for uid in issue.assignee_ids) if view]
    closed_by = user_brief(state, issue.closed_by_id, base_url) if issue.state == "closed" else None
    return {
        "id": issue.id,
        "iid": issue.iid,
        "project_id": issue.project_id,
        "title": issue.title,
        "description": issue.description,
        "state": issue.state,
        "created_at": iso(issue.created_at),
        "updated_at": iso(issue.updated_at),
        "closed_at": iso(issue.closed_at),
        "closed_by": closed_by,
        "labels": sorted(issue.labels),
        "milestone": milestone_view(state.milestones.get(issue.milestone_id), single=single)
        if issue.milestone_id
        else None,
        "assignees": assignees,
        "author": user_brief(state, issue.author_id, base_url),
        "assignee": assignees[0] if assignees else None,
        "user_notes_count": issue.user_notes_count,
        "upvotes": issue.votes("thumbsup"),
        "downvotes": issue.votes("thumbsdown"),
        "due_date": issue.due_date,
        "confidential": issue.confidential,
        "discussion_locked": issue.discussion_locked,
        "moved_to_id": issue.moved_to_id,
        "web_url": f"{project_web_url(state, project, base_url)}/issues/{issue.iid}",
        "time_stats": time_stats(issue.time_estimate, issue.total_time_spent),
    }


def issue_single(state: SimState, issue: Issue, base_url: str, viewer: User | None) -> dict[str, Any]:
    """Issue entity: IssueBasic plus ``subscribed`` and ``_links`` built from the iid."""
    view = issue_basic(state, issue, base_url, single=True)
    api = f"{base_url}/api/v4/projects/{issue.project_id}"
    view["subscribed"] = is_subscribed(issue, viewer)
    view["_links"] = {
        "self": f"{api}/issues/{issue.iid}",
        "notes": f"{api}/issues/{issue.iid}/notes",
        "award_emoji": f"{api}/issues/{issue.iid}/award_emoji",
        "project": api,
    }
    return view


def merge_request_view(state: SimState, mr: MergeRequest, base_url: str) -> dict[str, Any]:
    """MergeRequestBasic (the closed_by list item)."""
    project = state.projects[mr.project_id]
    return {
        "id": mr.id,
        "iid": mr.iid,
        "project_id": mr.project_id,
        "title": mr.title,
        "description": mr.description,
        "state": mr.state,
        "created_at": iso(mr.created_at),
        "updated_at": iso(mr.updated_at),
        "closed_at": iso(mr.closed_at),
        "closed_by": user_brief(state, mr.closed_by_id, base_url),
        "target_branch": mr.target_branch,
        "source_branch": mr.source_branch,
        "upvotes": mr.upvotes,
        "downvotes": mr.downvotes,
        "author": user_brief(state, mr.author_id, base_url),
        "assignee": user_brief(state, mr.assignee_id, base_url),
        "source_project_id": mr.project_id,
        "target_project_id": mr.project_id,
        "labels": sorted(mr.labels),
        "work_in_progress": mr.work_in_progress,
        "milestone": milestone_view(state.milestones.get(mr.milestone_id)) if mr.milestone_id else None,
        "merge_when_pipeline_succeeds": mr.merge_when_pipeline_succeeds,
        "merge_status": mr.merge_status,
        "sha": mr.sha,
        "merge_commit_sha": mr.merge_commit_sha,
        "user_notes_count": mr.user_notes_count,
        "should_remove_source_branch": None,
        "force_remove_source_branch": mr.force_remove_source_branch,
        "web_url": f"{project_web_url(state, project, base_url)}/merge_requests/{mr.iid}",
        "time_stats": time_stats(mr.time_estimate, mr.total_time_spent),
    }


def todo_view(state: SimState, todo: Todo, base_url: str) -> dict[str, Any]:
    """Todo entity with the issue as target."""
    project = state.projects[todo.project_id]
    issue: Issue = state.issues[todo.target_id]
    return {
        "id": todo.id,
        "project": {
            "id": project.id,
            "name": project.name,
            "name_with_namespace": f"{state.namespace_name(project)} / {project.name}",
            "path": project.path,
            "path_with_namespace": state.project_full_path(project),
        },
        "author": user_brief(state, todo.author_id, base_url),
        "action_name": todo.action_name,
        "target_type": todo.target_type,
        "target": issue_basic(state, issue, base_url),
        "target_url": f"{project_web_url(state, project, base_url)}/issues/{issue.iid}",
        "body": todo.body,
        "state": todo.state,
        "created_at": iso(todo.created_at),
    }
