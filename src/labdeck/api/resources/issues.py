"""Issues with subscriptions, todos and time tracking (spec 001 §Issues)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date, datetime
from typing import Any, TypedDict, Unpack

from labdeck.api.models import Issue, MergeRequest, TimeStats, Todo, UserAgentDetail, UserBrief
from labdeck.api.models.params import IssueOrderBy, IssueScope, IssueStateEvent, IssueStateFilter, SortOrder
from labdeck.api.pagination import Paginator
from labdeck.api.resources.base import ProjectRef, Resource, encode, ref
from labdeck.api.results import ActionResult


class IssueFilters(TypedDict, total=False):
    """Issue list filters."""

    state: IssueStateFilter
    labels: str | Sequence[str]
    milestone: str
    scope: IssueScope
    author_id: int
    assignee_id: int
    my_reaction_emoji: str
    iids: Sequence[int]
    order_by: IssueOrderBy
    sort: SortOrder
    search: str
    created_after: datetime | str
    created_before: datetime | str
    updated_after: datetime | str
    updated_before: datetime | str


def _filters(filters: dict[str, Any]) -> dict[str, Any]:
    labels = filters.get("labels")
    if labels is not None and not isinstance(labels, str):
        filters["labels"] = ",".join(labels)
    return encode(filters)


class IssuesResource(Resource):
    """``/issues``, ``/groups/:id/issues``, ``/projects/:id/issues``."""

    def list(self, *, per_page: int = 100, conditional: bool = False, since: str | None = None,
             **filters: Unpack[IssueFilters]) -> Paginator[Issue]:
        """Issues the caller can access (default scope ``created-by-me``). ``GET /issues``.
        ``since``: see :class:`Paginator`."""
        return Paginator(self._engine, "issues", Issue, _filters(dict(filters)), per_page=per_page,
                         conditional=conditional, since=since)

    def group_issues(self, group: ProjectRef, *, per_page: int = 100,
                     **filters: Unpack[IssueFilters]) -> Paginator[Issue]:
        """``GET /groups/:id/issues``."""
        return Paginator(self._engine, f"groups/{ref(group)}/issues", Issue, _filters(dict(filters)),
                         per_page=per_page)

    def project_issues(self, pid: ProjectRef, *, per_page: int = 100, conditional: bool = False,
                       since: str | None = None, **filters: Unpack[IssueFilters]) -> Paginator[Issue]:
        """``GET /projects/:id/issues``. ``since``: see :class:`Paginator`."""
        return Paginator(self._engine, f"projects/{ref(pid)}/issues", Issue, _filters(dict(filters)),
                         per_page=per_page, conditional=conditional, since=since)

    def _path(self, pid: ProjectRef, iid: int, tail: str = "") -> str:
        return f"projects/{ref(pid)}/issues/{int(iid)}{tail}"

    async def get(self, pid: ProjectRef, iid: int) -> Issue:
        """``GET /projects/:id/issues/:issue_iid``."""
        issue: Issue = await self._engine.get(self._path(pid, iid), Issue)
        return issue

    async def create(self, pid: ProjectRef, title: str, *, description: str | None = None,
                     confidential: bool | None = None, assignee_ids: Sequence[int] | None = None,
                     milestone_id: int | None = None, labels: str | Sequence[str] | None = None,
                     created_at: datetime | str | None = None, due_date: date | str | None = None,
                     merge_request_to_resolve_discussions_of: int | None = None,
                     discussion_to_resolve: str | None = None) -> Issue:
        """``POST /projects/:id/issues``."""
        data = _filters({"title": title, "description": description, "confidential": confidential,
                         "assignee_ids": list(assignee_ids) if assignee_ids is not None else None,
                         "milestone_id": milestone_id, "labels": labels, "created_at": created_at,
                         "due_date": due_date,
                         "merge_request_to_resolve_discussions_of": merge_request_to_resolve_discussions_of,
                         "discussion_to_resolve": discussion_to_resolve})
        issue: Issue = await self._engine.call("POST", f"projects/{ref(pid)}/issues", Issue, data=data)
        return issue

    async def update(self, pid: ProjectRef, iid: int, *, title: str | None = None, description: str | None = None,
                     confidential: bool | None = None, assignee_ids: Sequence[int] | None = None,
                     milestone_id: int | None = None, labels: str | Sequence[str] | None = None,
                     state_event: IssueStateEvent | None = None, updated_at: datetime | str | None = None,
                     due_date: date | str | None = None, discussion_locked: bool | None = None) -> Issue:
        """Edit; ``state_event`` closes or reopens, an empty ``assignee_ids`` unassigns all.
        ``PUT /projects/:id/issues/:issue_iid``."""
        data = _filters({"title": title, "description": description, "confidential": confidential,
                         "assignee_ids": list(assignee_ids) if assignee_ids is not None else None,
                         "milestone_id": milestone_id, "labels": labels, "state_event": state_event,
                         "updated_at": updated_at, "due_date": due_date, "discussion_locked": discussion_locked})
        issue: Issue = await self._engine.call("PUT", self._path(pid, iid), Issue, data=data)
        return issue

    async def close(self, pid: ProjectRef, iid: int) -> Issue:
        """Shortcut for ``update(state_event="close")``."""
        return await self.update(pid, iid, state_event="close")

    async def reopen(self, pid: ProjectRef, iid: int) -> Issue:
        """Shortcut for ``update(state_event="reopen")``."""
        return await self.update(pid, iid, state_event="reopen")

    async def delete(self, pid: ProjectRef, iid: int) -> None:
        """Admin or owner. ``DELETE /projects/:id/issues/:issue_iid``."""
        await self._engine.call("DELETE", self._path(pid, iid))

    async def move(self, pid: ProjectRef, iid: int, to_project_id: int) -> Issue:
        """Move to another project; returns the issue there. ``POST …/issues/:issue_iid/move``."""
        issue: Issue = await self._engine.call("POST", self._path(pid, iid, "/move"), Issue,
                                               data=encode({"to_project_id": to_project_id}))
        return issue

    async def subscribe(self, pid: ProjectRef, iid: int) -> ActionResult[Issue]:
        """``changed`` False (304) when already subscribed. ``POST …/issues/:issue_iid/subscribe``."""
        return await self._engine.action("POST", self._path(pid, iid, "/subscribe"), Issue)

    async def unsubscribe(self, pid: ProjectRef, iid: int) -> ActionResult[Issue]:
        """``changed`` False (304) when not subscribed. ``POST …/issues/:issue_iid/unsubscribe``."""
        return await self._engine.action("POST", self._path(pid, iid, "/unsubscribe"), Issue)

    async def todo(self, pid: ProjectRef, iid: int) -> ActionResult[Todo]:
        """Add a todo; ``changed`` False (304) when one exists. ``POST …/issues/:issue_iid/todo``."""
        return await self._engine.action("POST", self._path(pid, iid, "/todo"), Todo)

    async def _time(self, pid: ProjectRef, iid: int, tail: str, duration: str | None = None) -> TimeStats:
        stats: TimeStats = await self._engine.call("POST", self._path(pid, iid, tail), TimeStats,
                                                   data=encode({"duration": duration}))
        return stats

    async def time_estimate(self, pid: ProjectRef, iid: int, duration: str) -> TimeStats:
        """Set the estimate (e.g. ``"3h30m"``). ``POST …/time_estimate``."""
        return await self._time(pid, iid, "/time_estimate", duration)

    async def reset_time_estimate(self, pid: ProjectRef, iid: int) -> TimeStats:
        """``POST …/reset_time_estimate``."""
        return await self._time(pid, iid, "/reset_time_estimate")

    async def add_spent_time(self, pid: ProjectRef, iid: int, duration: str) -> TimeStats:
        """``POST …/add_spent_time``."""
        return await self._time(pid, iid, "/add_spent_time", duration)

    async def reset_spent_time(self, pid: ProjectRef, iid: int) -> TimeStats:
        """``POST …/reset_spent_time``."""
        return await self._time(pid, iid, "/reset_spent_time")

    async def time_stats(self, pid: ProjectRef, iid: int) -> TimeStats:
        """``GET …/time_stats``."""
        stats: TimeStats = await self._engine.get(self._path(pid, iid, "/time_stats"), TimeStats)
        return stats

    def closed_by(self, pid: ProjectRef, iid: int, *, per_page: int = 100) -> Paginator[MergeRequest]:
        """Merge requests that close the issue when merged. ``GET …/closed_by``."""
        return Paginator(self._engine, self._path(pid, iid, "/closed_by"), MergeRequest, per_page=per_page)

    def participants(self, pid: ProjectRef, iid: int, *, per_page: int = 100) -> Paginator[UserBrief]:
        """``GET …/participants``."""
        return Paginator(self._engine, self._path(pid, iid, "/participants"), UserBrief, per_page=per_page)

    async def user_agent_detail(self, pid: ProjectRef, iid: int) -> UserAgentDetail:
        """Admin only. ``GET …/user_agent_detail``."""
        detail: UserAgentDetail = await self._engine.get(self._path(pid, iid, "/user_agent_detail"),
                                                         UserAgentDetail)
        return detail
