"""Issues section: the issues of a project, of a group, or every issue the caller can see, with
the spec's server-side filters (scope, state, labels, milestone, search, author, assignee, order)."""

from __future__ import annotations

from datetime import datetime
from typing import Any, ClassVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.widgets import Input

from labdeck.api.models import Issue
from labdeck.ui.console import CommandError, parse_options
from labdeck.ui.formatting import relative_time
from labdeck.ui.screens.base import ServerFilterInput
from labdeck.ui.screens.issues.actions import IssueActions, issue_project_path
from labdeck.ui.screens.table_section import TableSectionScreen
from labdeck.ui.widgets.cells import clean, coloured, shown
from labdeck.ui.widgets.resource_table import Column, ResourceTable, TableRow

ISSUE_FILTERS = ("state", "scope", "labels", "milestone", "search", "author_id", "assignee_id",
                 "my_reaction_emoji", "order_by", "sort")
"""Server-side filters of ``:issues`` and the ``f`` bar (the spec's issue list filters)."""
_CHOICES: dict[str, tuple[str, ...]] = {
    "state": ("opened", "closed", "all"),
    "scope": ("created-by-me", "assigned-to-me", "all"),
    "order_by": ("created_at", "updated_at"),
    "sort": ("asc", "desc"),
}
_INTEGERS = {"author_id", "assignee_id"}
STATES: tuple[str, ...] = ("opened", "closed", "all")
SCOPES: tuple[str, ...] = ("created-by-me", "assigned-to-me", "all")
PAGE_SIZE = 50
"""Issues per request: pages arrive quickly and the first rows show at once."""

COLUMNS = (
    Column("ref", "Issue", max_width=40),
    Column("state", "State", max_width=6),
    Column("title", "Title", min_width=28, max_width=80, flex=True),
    Column("labels", "Labels", min_width=6, max_width=24, flex=True),
    Column("assignees", "Assignees", min_width=9, max_width=18, flex=True),
    Column("milestone", "Milestone", min_width=9, max_width=12, flex=True),
    Column("updated", "Updated", max_width=8),
)


def parse_issue_filters(args: list[str]) -> dict[str, Any]:
    """``["state=closed", "labels=bug,p1", "crash"]`` → filters (a bare word is ``search``)."""
    raw = parse_options(args, ISSUE_FILTERS)
    filters: dict[str, Any] = {}
    for key, value in raw.items():
        if key in _CHOICES and value not in _CHOICES[key]:
            raise CommandError(f"{key} must be one of {', '.join(_CHOICES[key])}")
        if key in _INTEGERS:
            if not value.isdigit():
                raise CommandError(f"{key} must be a user id (a number), not {value!r}")
            filters[key] = int(value)
        elif value:
            filters[key] = value
    return filters


def describe_issue_filters(filters: dict[str, Any]) -> str:
    """The filters as typed (``state=opened labels=bug``)."""
    return " ".join(f"{key}={filters[key]}" for key in ISSUE_FILTERS if key in filters)


class IssuesScreen(IssueActions, TableSectionScreen):
    """The issues table (section 4): ``project_id`` or ``group`` narrows it; neither = every issue."""

    SECTION_TITLE = "Issues"
    TABLE_ID = "issues-table"
    COLUMNS = COLUMNS
    MUTATING_ACTIONS = frozenset({"new_issue", "close_reopen", "delete"})
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "details", "Details", id="issues.details"),
        Binding("f", "server_filter", "Server filter", id="issues.server-filter"),
        Binding("s", "next_state", "State", id="issues.state"),
        Binding("o", "next_scope", "Scope", id="issues.scope"),
        Binding("n", "new_issue", "New", id="issues.new"),
        Binding("x", "close_reopen", "Close/Reopen", id="issues.close"),
        Binding("D", "delete", "Delete", id="issues.delete"),
    ]

    def __init__(self, project_id: int | None = None, group: str | None = None, *,
                 project_path: str | None = None, filters: dict[str, Any] | None = None) -> None:
        super().__init__()
        self.project_id = project_id
        self.group = clean(group) if group is not None else None
        self.group_ref = group
        """The group as given (for the API); :attr:`group` is the displayed form."""
        self.project_path = clean(project_path) if project_path is not None else None
        self.filters: dict[str, Any] = dict(filters) if filters is not None else {"state": "opened"}
        if project_id is None and group is None:
            self.filters.setdefault("scope", "created-by-me")

    def compose_content(self) -> ComposeResult:
        yield ServerFilterInput(placeholder="server filters: state= scope= labels=a,b milestone= search= "
                                "author_id= assignee_id= order_by= sort=", id="issue-filter")
        yield from super().compose_content()

    # --- loading ------------------------------------------------------------------------------

    @property
    def where(self) -> str:
        """Which issues: the project path, ``group <path>`` or ``all projects``."""
        if self.project_id is not None:
            return self.project_path or f"project {self.project_id}"
        if self.group is not None:
            return f"group {self.group}"
        return "all projects"

    def set_filters(self, filters: dict[str, Any]) -> None:
        """Replace the server-side filters and reload."""
        self.filters = dict(filters)
        self.reload()

    def _query(self) -> dict[str, Any]:
        query = dict(self.filters)
        if query.get("state") == "all":
            query.pop("state")
        return query

    def reload(self) -> None:
        """Fetch the issues page by page."""
        self.context_text = f"{self.where} · {describe_issue_filters(self.filters) or 'no filter'}"
        super().reload()

    async def load(self) -> None:
        client = self.client
        query = self._query()
        if self.project_id is not None:
            pager = client.issues.project_issues(self.project_id, per_page=PAGE_SIZE, **query)
        elif self.group_ref is not None:
            pager = client.issues.group_issues(self.group_ref, per_page=PAGE_SIZE, **query)
        else:
            pager = client.issues.list(per_page=PAGE_SIZE, **query)
        table = self.table
        keep = table.cursor_key
        first = True
        async for page in pager.pages():
            if first:
                table.clear()
                first = False
            now = self.console_app.clock()
            table.append_rows(self._row(issue, now) for issue in page)
            if keep is not None and table.cursor_key != keep:
                table.move_cursor_to_key(keep)
            self.update_title()
        if first:
            table.clear()
        self.mark_loaded()

    def _row(self, issue: Issue, now: datetime) -> TableRow:
        reference = (f"#{issue.iid}" if self.project_id is not None
                     else f"{issue_project_path(self.console_app, issue)}#{issue.iid}")
        state = coloured(self.app, issue.state or "—", "job-success" if issue.state == "opened" else "ld-text-muted")
        title = Text(clean(issue.title))
        if issue.confidential:
            title = Text.assemble(coloured(self.app, "[confidential] ", "warning"), title)
        return TableRow(
            key=(issue.project_id, issue.iid),
            cells=(reference, state, title, shown(issue.labels),
                   shown([a.username or str(a.id) for a in issue.assignees]),
                   shown(issue.milestone.title if issue.milestone else None),
                   relative_time(issue.updated_at, now)),
            data=issue,
        )

    def _replace(self, issue: Issue | None) -> None:
        if issue is None:
            self.reload()
            return
        self.table.update_row(self._row(issue, self.console_app.clock()))

    # --- server filters -----------------------------------------------------------------------

    def action_server_filter(self) -> None:
        """Edit the server-side filters."""
        field = self.query_one("#issue-filter", ServerFilterInput)
        field.value = describe_issue_filters(self.filters)
        field.add_class("-active")
        field.focus()

    @on(Input.Submitted, "#issue-filter")
    def _filter_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        try:
            filters = parse_issue_filters(event.value.split())
        except CommandError as error:
            self.notify(str(error), severity="error", title="Filter", markup=False)
            return
        self.query_one("#issue-filter", ServerFilterInput).remove_class("-active")
        self.table.focus()
        self.set_filters(filters)

    async def action_back(self) -> None:
        field = self.query_one("#issue-filter", ServerFilterInput)
        if field.has_class("-active"):
            field.remove_class("-active")
            self.table.focus()
            return
        await super().action_back()

    def action_next_state(self) -> None:
        """Cycle opened → closed → all."""
        current = self.filters.get("state", "all")
        self.filters["state"] = STATES[(STATES.index(current) + 1) % len(STATES)] if current in STATES else "opened"
        self.reload()

    def action_next_scope(self) -> None:
        """Cycle created-by-me → assigned-to-me → all."""
        current = self.filters.get("scope", "all" if self.project_id or self.group else "created-by-me")
        self.filters["scope"] = SCOPES[(SCOPES.index(current) + 1) % len(SCOPES)] if current in SCOPES else "all"
        self.reload()

    # --- actions ------------------------------------------------------------------------------

    def _current(self) -> Issue | None:
        issue = self.table.cursor_data
        if issue is None:
            self.notify("No issue selected.", severity="warning", timeout=3)
        return issue

    def copy_target(self) -> str | None:
        issue = self.table.cursor_data
        return None if issue is None else (issue.web_url or f"#{issue.iid}")

    def on_resource_table_selected(self, event: ResourceTable.Selected) -> None:
        event.stop()
        self.action_details()

    def action_details(self) -> None:
        """Open the highlighted issue."""
        issue = self._current()
        if issue is None:
            return
        from labdeck.ui.screens.issues.detail import IssueDetailScreen

        project_id = issue.project_id if issue.project_id is not None else self.project_id
        if project_id is None:
            self.notify(f"The server did not say which project issue #{issue.iid} belongs to.", severity="error")
            return
        path = self.project_path if self.project_id is not None else issue_project_path(self.console_app, issue)
        self.app.push_screen(IssueDetailScreen(project_id, issue.iid, project_path=path))

    def action_new_issue(self) -> None:
        """Create an issue (in this project, or in one you name)."""
        if not self.refuse_if_read_only():
            self.issue_create(self, self.project_id, self.project_path, lambda issue: self.reload())

    def action_close_reopen(self) -> None:
        """Close the highlighted issue (confirmed) or reopen it."""
        issue = self._current()
        if issue is not None and not self.refuse_if_read_only():
            self.issue_close_reopen(self, issue, self._replace)

    def action_delete(self) -> None:
        """Delete the highlighted issue (type its iid)."""
        issue = self._current()
        if issue is not None and not self.refuse_if_read_only():
            self.issue_delete(self, issue, lambda _: self.reload())
