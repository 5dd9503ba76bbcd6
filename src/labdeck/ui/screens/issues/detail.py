"""One issue: its fields, description (plain text, never markup), time stats, the merge requests
that close it, participants and, for administrators, the user agent detail; with every action."""

from __future__ import annotations

import asyncio
from datetime import datetime
from typing import Any, ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.widgets import Static

from labdeck.api import errors
from labdeck.api.models import Issue, UserBrief
from labdeck.ui.screens.base import reload_screen
from labdeck.ui.screens.issues.actions import IssueActions, issue_project_path
from labdeck.ui.screens.table_section import TableSectionScreen
from labdeck.ui.widgets.cells import clean, field_row, fields_table, shown
from labdeck.ui.widgets.resource_table import ResourceTable, TableRow


def _user(user: UserBrief | None) -> str:
    if user is None:
        return "—"
    return f"{user.username or user.id}" + (f" ({user.name})" if user.name else "")


def _human(text: str | None, seconds: int) -> str | None:
    if text:
        return text
    return f"{seconds} s" if seconds else None


def issue_rows(issue: Issue, now: datetime) -> list[TableRow]:
    """The (field, value) rows of an issue."""
    stats = issue.time_stats
    rows = [
        field_row("title", issue.title),
        field_row("state", issue.state),
        field_row("author", _user(issue.author)),
        field_row("assignees", ", ".join(_user(a) for a in issue.assignees) or None),
        field_row("labels", issue.labels or None),
        field_row("milestone", issue.milestone.title if issue.milestone else None),
        field_row("due_date", issue.due_date),
        field_row("confidential", issue.confidential),
        field_row("discussion_locked", issue.discussion_locked),
        field_row("subscribed", issue.subscribed),
        field_row("time estimate", _human(stats.human_time_estimate, stats.time_estimate) if stats else None),
        field_row("time spent", _human(stats.human_total_time_spent, stats.total_time_spent) if stats else None),
        field_row("comments", issue.user_notes_count),
        field_row("upvotes/downvotes", f"{issue.upvotes or 0}/{issue.downvotes or 0}"),
        field_row("created_at", issue.created_at, now),
        field_row("updated_at", issue.updated_at, now),
        field_row("closed_at", issue.closed_at, now),
        field_row("closed_by", _user(issue.closed_by) if issue.closed_by else None),
        field_row("moved_to_id", issue.moved_to_id),
        field_row("web_url", issue.web_url),
    ]
    return rows


class IssueDetailScreen(IssueActions, TableSectionScreen):
    """Every field of one issue, its description below, and the issue actions."""

    SECTION_TITLE = "Issue"
    TABLE_ID = "issue-fields"
    MUTATING_ACTIONS = frozenset({"edit", "close_reopen", "lock", "subscribe", "todo", "time", "move", "delete"})
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("e", "edit", "Edit", id="issue.edit"),
        Binding("x", "close_reopen", "Close/Reopen", id="issue.close"),
        Binding("L", "lock", "Lock", id="issue.lock"),
        Binding("S", "subscribe", "Subscribe", id="issue.subscribe"),
        Binding("T", "todo", "Todo", id="issue.todo"),
        Binding("t", "time", "Time", id="issue.time"),
        Binding("M", "move", "Move", id="issue.move"),
        Binding("D", "delete", "Delete", id="issue.delete"),
    ]
    DEFAULT_CSS = """
    IssueDetailScreen #issue-fields { height: 1fr; }
    IssueDetailScreen #issue-description { height: auto; max-height: 40%; border-top: solid $panel; padding: 0 1; }
    """

    def __init__(self, project_id: int, iid: int, *, project_path: str | None = None) -> None:
        super().__init__()
        self.project_id = project_id
        self.iid = iid
        self.project_path = clean(project_path or f"project {project_id}")
        self.issue: Issue | None = None
        self.context_text = f"{self.project_path}#{iid}"

    def make_table(self) -> ResourceTable:
        return fields_table(self.TABLE_ID)

    def compose_content(self) -> ComposeResult:
        yield from super().compose_content()
        with VerticalScroll(id="issue-description"):
            yield Static("", id="description", markup=False)

    async def load(self) -> None:
        """Fetch the issue and what hangs off it."""
        client = self.client
        pid, iid = self.project_id, self.iid
        issue = await client.issues.get(pid, iid)
        extras: list[Any] = list(await asyncio.gather(
            client.issues.closed_by(pid, iid).all(), client.issues.participants(pid, iid).all(),
            client.issues.user_agent_detail(pid, iid), client.issues.time_stats(pid, iid),
            return_exceptions=True))
        closed_by, participants, agent, stats = extras
        if not isinstance(stats, BaseException):
            issue = issue.model_copy(update={"time_stats": stats})  # the dedicated, fresher read
        for extra in (closed_by, participants):
            if isinstance(extra, BaseException) and not isinstance(extra, errors.ApiError):
                raise extra
        self.show(issue, closed_by=None if isinstance(closed_by, BaseException) else closed_by,
                  participants=None if isinstance(participants, BaseException) else participants,
                  agent=None if isinstance(agent, BaseException) else agent)

    def show(self, issue: Any, *, closed_by: list[Any] | None = None, participants: list[Any] | None = None,
             agent: Any = None) -> None:
        """Display an issue (and the optional extras)."""
        self.issue = issue
        now = self.console_app.clock()
        rows = issue_rows(issue, now)
        if participants is not None:
            rows.append(field_row("participants", ", ".join(_user(p) for p in participants) or None))
        if closed_by is not None:
            if not closed_by:
                rows.append(field_row("closed by MRs", None))
            for mr in closed_by:
                rows.append(TableRow(key=("mr", mr.id), cells=(
                    "closed by MR", f"!{mr.iid} {shown(mr.title)} [{mr.state}] {mr.web_url or ''}".strip()),
                    data=mr))
        if agent is not None:
            rows.append(field_row("user_agent", agent.user_agent))
            rows.append(field_row("ip_address", agent.ip_address))
            rows.append(field_row("spam check submitted", agent.spamcheck_submitted
                                  if agent.spamcheck_submitted is not None else agent.akismet_submitted))
        self.replace_rows(rows)
        description = issue.description or "(no description)"
        self.query_one("#description", Static).update(Text(clean(description)))
        self.context_text = f"{self.project_path}#{issue.iid} · {issue.state}"
        self.mark_loaded()
        self.update_title()

    def _refresh(self, issue: Issue | None) -> None:
        """After an action: show the returned issue at once, then re-read the extras."""
        if issue is not None and issue.project_id != self.project_id:
            return  # moved elsewhere: the move handler navigates
        self.reload()

    def copy_target(self) -> str | None:
        key = self.table.cursor_key
        for row in self.table.rows():
            if row.key == key and key not in ("title", "state"):
                value = row.cells[1]
                return value if isinstance(value, str) else value.plain
        return self.issue.web_url if self.issue is not None else None

    # --- actions ------------------------------------------------------------------------------

    def _ready(self) -> Issue | None:
        """The issue, when it is loaded and changes are allowed (else a toast and None)."""
        if self.issue is None:
            self.notify("The issue is still loading.", severity="warning", timeout=3)
            return None
        return None if self.refuse_if_read_only() else self.issue

    def action_edit(self) -> None:
        """Edit every field of the issue."""
        if (issue := self._ready()) is not None:
            self.issue_edit(self, issue, self._refresh)

    def action_close_reopen(self) -> None:
        """Close (confirmed) or reopen."""
        if (issue := self._ready()) is not None:
            self.issue_close_reopen(self, issue, self._refresh)

    def action_lock(self) -> None:
        """Lock or unlock the discussion."""
        if (issue := self._ready()) is not None:
            self.issue_lock(self, issue, self._refresh)

    def action_subscribe(self) -> None:
        """Subscribe or unsubscribe."""
        if (issue := self._ready()) is not None:
            self.issue_subscribe(self, issue, self._refresh)

    def action_todo(self) -> None:
        """Add to your todo list."""
        if (issue := self._ready()) is not None:
            self.issue_todo(self, issue)

    def action_time(self) -> None:
        """Estimate, spend, reset."""
        if (issue := self._ready()) is not None:
            self.issue_time(self, issue, self._refresh)

    def action_move(self) -> None:
        """Move to another project; then show it there."""
        if (issue := self._ready()) is not None:
            self.issue_move(self, issue, self._moved)

    def _moved(self, issue: Issue | None) -> None:
        if issue is None or issue.project_id is None:
            return
        self.project_id = issue.project_id
        self.iid = issue.iid
        self.project_path = issue_project_path(self.console_app, issue)
        self.reload()

    def action_delete(self) -> None:
        """Delete (type the iid), then go back."""
        if (issue := self._ready()) is not None:
            self.issue_delete(self, issue, lambda _: self._deleted())

    def _deleted(self) -> None:
        if self.app.screen is self:
            self.app.pop_screen()
        reload_screen(self.app.screen)
