"""Projects section: the table of projects, filled page by page, with server-side filters,
star/unstar, archive/unarchive (confirmed), details, and the jump to a project's jobs."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any, ClassVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.widgets import Input

from labdeck.api.models import Project
from labdeck.ui.console import CommandError, parse_options
from labdeck.ui.dialogs.confirm import ConfirmScreen
from labdeck.ui.formatting import count, relative_time
from labdeck.ui.screens.base import ServerFilterInput
from labdeck.ui.screens.table_section import TableSectionScreen
from labdeck.ui.widgets.resource_table import Column, ResourceTable, TableRow
from labdeck.ui.widgets.status_colours import status_text
from labdeck.ui.widgets.status_line import is_shown
from labdeck.watch import ProjectsSnapshot, ProjectsSubscription, ProjectStatus, WatchTarget

PROJECT_FILTERS = ("search", "owned", "membership", "starred", "archived", "visibility", "order_by", "sort")
"""Server-side filters accepted by ``:projects`` and the filter bar."""

DEFAULT_ORDER = "last_activity_at"
"""Order of the projects table unless the filters say otherwise."""
_BOOLEAN_FILTERS = {"owned", "membership", "starred", "archived"}
_CHOICES = {
    "visibility": {"public", "internal", "private"},
    "order_by": {"id", "name", "path", "created_at", "updated_at", "last_activity_at"},
    "sort": {"asc", "desc"},
}

CI_COLUMN, ACTIVITY_COLUMN = 2, 7
"""Positions of the CI status and of the last activity in a row's cells."""

COLUMNS = (
    Column("marks", "", min_width=2, max_width=2),
    Column("path", "Path", min_width=16, max_width=56, flex=True),
    Column("ci", "CI", max_width=8),
    Column("visibility", "Visibility", max_width=10),
    Column("stars", "Stars", align="right", max_width=6),
    Column("forks", "Forks", align="right", max_width=6),
    Column("issues", "Issues", align="right", max_width=6),
    Column("activity", "Activity", max_width=10),
)


def parse_project_filters(args: list[str]) -> dict[str, Any]:
    """``["search=api", "starred=true"]`` → keyword arguments for ``client.projects.list``."""
    raw = parse_options(args, PROJECT_FILTERS)
    filters: dict[str, Any] = {}
    for key, value in raw.items():
        if key in _BOOLEAN_FILTERS:
            lowered = value.lower()
            if lowered not in ("true", "false", "yes", "no", "1", "0"):
                raise CommandError(f"{key} must be true or false, not {value!r}")
            filters[key] = lowered in ("true", "yes", "1")
        elif key in _CHOICES:
            if value not in _CHOICES[key]:
                raise CommandError(f"{key} must be one of {', '.join(sorted(_CHOICES[key]))}")
            filters[key] = value
        elif value:
            filters[key] = value
    return filters


def describe_filters(filters: dict[str, Any]) -> str:
    """The filters as the user would type them (``search=api starred=true``)."""
    parts = []
    for key in PROJECT_FILTERS:
        if key in filters:
            value = filters[key]
            parts.append(f"{key}={str(value).lower() if isinstance(value, bool) else value}")
    return " ".join(parts)


@dataclass(slots=True, frozen=True)
class ProjectSummary:
    """The part of a project record the table needs (10,000 full records cost ~50 MB more)."""

    id: int
    name: str | None
    path_with_namespace: str | None
    visibility: str | None
    archived: bool | None
    web_url: str | None
    star_count: int | None
    forks_count: int | None
    open_issues_count: int | None
    last_activity_at: datetime | None

    @classmethod
    def of(cls, project: Project | ProjectSummary) -> ProjectSummary:
        """Summarise an API project record (or return a summary unchanged)."""
        if isinstance(project, ProjectSummary):
            return project
        return cls(project.id, project.name, project.path_with_namespace or project.path, project.visibility,
                   project.archived, project.web_url, project.star_count, project.forks_count,
                   project.open_issues_count, project.last_activity_at)


class ProjectsScreen(TableSectionScreen):
    """The projects table (section 1)."""

    SECTION_TITLE = "Projects"
    TABLE_ID = "projects-table"
    COLUMNS = COLUMNS
    MUTATING_ACTIONS = frozenset({"toggle_star", "toggle_archive"})
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "open_jobs", "Jobs", id="projects.jobs"),
        Binding("d", "details", "Details", id="projects.details"),
        Binding("f", "server_filter", "Server filter", id="projects.server-filter"),
        Binding("s", "toggle_star", "Star", id="projects.star"),
        Binding("A", "toggle_archive", "Archive", id="projects.archive"),
        Binding("w", "toggle_watch", "Watch", id="projects.watch",
                tooltip="Put the project on the board (0), or take it off"),
        Binding("W", "alert", "Alert", id="projects.alert", tooltip="Alert when a new pipeline of it fails"),
        Binding("I", "project_section('issues')", "Issues", id="projects.issues"),
        Binding("N", "project_section('integrations')", "Integrations", show=False, id="projects.integrations"),
        Binding("o", "project_section('settings')", "Settings", show=False, id="projects.settings"),
    ]
    HELP = "Projects visible to the signed-in account. `f` filters on the server; `/` filters what is loaded."
    REFRESH_EVERY = 60.0
    AUTO_REFRESH_MAX_ROWS = 500
    """Larger listings (many pages) are refreshed only on ``ctrl+r``; their data age turns amber."""

    def __init__(self, filters: dict[str, Any] | None = None) -> None:
        super().__init__(id="projects")
        self.filters: dict[str, Any] = dict(filters or {})
        self.starred_ids: set[int] = set()
        self._version: str | None = None
        """Identifies the listing on screen (conditional refreshes parse nothing when unchanged)."""
        self.ci: dict[int, ProjectStatus] = {}
        """What the shared poller knows of each project on screen (the CI column)."""
        self._ci_subscription: ProjectsSubscription | None = None
        self._ci_rows: dict[int, str] = {}

    def compose_top_bars(self) -> ComposeResult:
        yield ServerFilterInput(placeholder="server filters: search=… owned= membership= starred= archived= "
                                "visibility= order_by= sort=", id="server-filter")

    # --- loading ------------------------------------------------------------------------------

    def set_filters(self, filters: dict[str, Any]) -> None:
        """Replace the server-side filters and reload."""
        self.filters = dict(filters)
        self.reload()

    def reload(self) -> None:
        """Fetch the projects (page by page) and the caller's starred set."""
        self.context_text = describe_filters(self.filters)
        if hasattr(self.app, "project_filters"):
            self.app.project_filters = dict(self.filters)
        super().reload()

    async def load(self) -> None:
        client = self.client
        table = self.table
        keep = table.cursor_key
        first = True
        pager = client.projects.list(**self._query(), per_page=100, conditional=True)
        self._version = None
        async for page in pager.pages():
            if first:
                table.clear()
                first = False
                # after the first page, so that it does not queue behind this on the server
                self.run_api(self._load_starred, "starred")
            table.append_rows(self._row(project) for project in page)
            self.console_app.remember_projects(page)
            if keep is not None and table.cursor_key != keep:
                table.move_cursor_to_key(keep)
            self.update_title()
            self.mark_loaded()
        if first:
            table.clear()
        self._version = pager.version
        self.mark_loaded()
        self.console_app.listing_loaded()

    def _query(self) -> dict[str, Any]:
        # Recently active projects first (the server's default is by creation date): that is
        # where an on-call engineer looks; `order_by=` in the filters overrides it.
        return {"order_by": DEFAULT_ORDER, **self.filters}

    def refresh_due(self) -> None:
        """Every minute: read the listing again, conditionally (a 304 parses nothing)."""
        if self.table.row_count <= self.AUTO_REFRESH_MAX_ROWS:
            self.run_api(self._refresh_quietly, "refresh")

    async def _refresh_quietly(self) -> None:
        result = await self.client.projects.list(**self._query(), per_page=100, since=self._version).poll()
        if result.changed and result.value is not None:
            self.replace_rows(self._row(project) for project in result.value)
            self.console_app.remember_projects(result.value)
            self._version = result.etag
        self.mark_loaded()

    def retime(self, now: datetime) -> None:
        """Re-render the rows whose "last activity" text moved on (in one update)."""
        table = self.table
        table.append_rows([self._row(row.data) for row in table.rows() if row.data is not None and
                           str(row.cells[ACTIVITY_COLUMN]) != relative_time(row.data.last_activity_at, now)])

    async def _load_starred(self) -> None:
        client = self.client
        starred = {project.id for project in await client.projects.list(starred=True, simple=True,
                                                                          per_page=100).all()}
        changed = starred ^ self.starred_ids
        self.starred_ids = starred
        self._refresh_rows(changed)

    def _refresh_rows(self, project_ids: set[int]) -> None:
        table = self.table
        for project_id in project_ids:
            project = table.get_data(project_id)
            if project is not None:
                table.update_row(self._row(project))

    def _row(self, record: Project | ProjectSummary) -> TableRow:
        project = ProjectSummary.of(record)
        now = self.console_app.clock()
        marks = ("★" if project.id in self.starred_ids else " ") + ("A" if project.archived else " ")
        path = project.path_with_namespace or str(project.id)
        return TableRow(
            key=project.id,
            cells=(
                marks,
                path,
                self._ci_cell(project.id),
                project.visibility or "—",
                count(project.star_count),
                count(project.forks_count),
                count(project.open_issues_count),
                relative_time(project.last_activity_at, now),
            ),
            data=project,
            search_text=" ".join((path, project.name or "", project.visibility or "",
                                  "archived" if project.archived else "",
                                  "starred" if project.id in self.starred_ids else "")).lower(),
        )

    # --- the CI column (from the app's shared poller) ----------------------------------------

    def _ci_cell(self, project_id: int) -> Text | str:
        status = self.ci.get(project_id)
        if status is None or not status.loaded:
            return "…" if project_id in self._ci_rows else ""
        if status.newest is None:
            return "—"
        return status_text(self.app, status.newest.status)

    def ci_loading(self) -> int:
        """Rows on screen whose CI status has not arrived yet (0 once the column is complete)."""
        if not self._ci_rows:
            return self.table.row_count and 1
        return sum(1 for pid in self._ci_rows if not (pid in self.ci and self.ci[pid].loaded))

    def on_mount(self) -> None:
        super().on_mount()
        self._ci_subscription = self.console_app.watching.subscribe_projects(self._ci_changed, {})

    def on_screen_resume(self) -> None:
        """Visible: the CI column follows the server again."""
        if self._ci_subscription is not None:
            self._ci_subscription.set_visible(True)
            self._follow_visible_rows()

    def on_screen_suspend(self) -> None:
        """Hidden: the poller stops reading these projects (unless the board or alerts need them);
        not under a dialog, which leaves the column in view."""
        if is_shown(self):
            return
        if self._ci_subscription is not None:
            self._ci_subscription.set_visible(False)

    def on_unmount(self) -> None:
        if self._ci_subscription is not None:
            self._ci_subscription.close()

    def _ci_changed(self, snapshot: ProjectsSnapshot) -> None:
        if not self.is_attached:  # a round that ended while the screen was being closed
            return
        changed = [pid for pid, status in snapshot.projects.items() if self.ci.get(pid) != status]
        self.ci = dict(snapshot.projects)
        self._refresh_rows(set(changed))

    def _follow_visible_rows(self) -> None:
        """Tell the poller which projects are on screen (it reads only those for this column)."""
        if not self.is_attached:  # after a filter, the repaint it waited for may come at closing
            return
        table = self.table
        top = int(table.scroll_offset.y)
        shown = table.visible_rows(top, top + max(1, table.size.height))
        rows = {row.key: row.data.path_with_namespace or str(row.key) for row in shown
                if isinstance(row.key, int) and row.data is not None}
        if rows != self._ci_rows and self._ci_subscription is not None:
            self._ci_rows = rows
            self._ci_subscription.set_projects(rows)

    def apply_filter(self, text: str) -> None:
        """Filter, then have the CI column follow the rows the filter brought on screen (after the
        repaint, not inside the keystroke)."""
        super().apply_filter(text)
        self.call_after_refresh(self._follow_visible_rows)

    def tick(self, now: datetime) -> None:
        """Also: follow the rows on screen for the CI column (scrolling, filtering, loading)."""
        super().tick(now)
        self._follow_visible_rows()

    def action_toggle_watch(self) -> None:
        """``w``: put the highlighted project on the board, or take it off."""
        project = self._current()
        if project is None:
            return
        path = project.path_with_namespace or str(project.id)
        added = self.console_app.watching.store.toggle(project.id, path)
        starred = project.id in self.starred_ids
        if added:
            self.notify(f"{path} is on the board (0).", timeout=3, markup=False)
        elif starred:
            self.notify(f"{path}: no longer added with w, but still on the board because it is starred.",
                        timeout=5, markup=False)
        else:
            self.notify(f"{path} is off the board.", timeout=3, markup=False)

    def action_alert(self) -> None:
        """``W``: alert when a new pipeline of the highlighted project fails (again: stop)."""
        project = self._current()
        if project is None:
            return
        path = project.path_with_namespace or str(project.id)
        on = self.console_app.watching.toggle_alert(WatchTarget.for_project(project.id, path))
        self.notify(f"{'Alert on new failures of' if on else 'No more alerts for'} {path}.", timeout=3,
                    markup=False)

    # --- server filter bar --------------------------------------------------------------------

    def action_server_filter(self) -> None:
        """Edit the server-side filters."""
        field = self.query_one("#server-filter", ServerFilterInput)
        field.value = describe_filters(self.filters)
        field.add_class("-active")
        self.set_focus(field)

    @on(Input.Submitted, "#server-filter")
    def _server_filter_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        field = self.query_one("#server-filter", ServerFilterInput)
        try:
            filters = parse_project_filters(event.value.split())
        except CommandError as error:
            self.notify(str(error), severity="error", title="Filter", markup=False)
            return
        field.remove_class("-active")
        self.table.focus()
        self.set_filters(filters)

    async def action_back(self) -> None:
        field = self.query_one("#server-filter", ServerFilterInput)
        if field.has_class("-active"):
            field.remove_class("-active")
            self.table.focus()
            return
        await super().action_back()

    # --- actions ------------------------------------------------------------------------------

    def _current(self) -> ProjectSummary | None:
        project: ProjectSummary | None = self.table.cursor_data
        if project is None:
            self.notify("No project selected.", severity="warning", timeout=3)
        return project

    def copy_target(self) -> str | None:
        project = self.table.cursor_data
        if project is None:
            return None
        return project.web_url or project.path_with_namespace or str(project.id)

    @on(ResourceTable.Selected, "#projects-table")
    def _row_selected(self, event: ResourceTable.Selected) -> None:
        event.stop()
        self.action_open_jobs()

    def action_open_jobs(self) -> None:
        """Open the jobs section for the highlighted project."""
        project = self._current()
        if project is not None:
            self.console_app.open_jobs(project.id, project.path_with_namespace or str(project.id))

    def action_project_section(self, kind: str) -> None:
        """Open the highlighted project's issues, integrations or settings."""
        project = self._current()
        if project is not None:
            self.console_app.open_project_section(
                kind, project.id, project.path_with_namespace or str(project.id))

    def action_details(self) -> None:
        """Show every field of the highlighted project."""
        project = self._current()
        if project is None:
            return
        from labdeck.ui.screens.projects.detail import ProjectDetailScreen

        self.app.push_screen(ProjectDetailScreen(project.id, project.path_with_namespace or str(project.id)))

    def action_toggle_star(self) -> None:
        """Star the project, or unstar it when already starred."""
        project = self._current()
        if project is None or self.refuse_if_read_only():
            return
        unstar = project.id in self.starred_ids
        self.run_api(lambda: self._star(project.id, unstar), "star")

    async def _star(self, project_id: int, unstar: bool) -> None:
        client = self.client
        result = await (client.projects.unstar(project_id) if unstar else client.projects.star(project_id))
        if unstar:
            self.starred_ids.discard(project_id)
        else:
            self.starred_ids.add(project_id)
        project: ProjectSummary | None = self.table.get_data(project_id)
        label = (project.path_with_namespace if project is not None else None) or str(project_id)
        if result.value is not None:
            self.table.update_row(self._row(result.value))
        else:
            self._refresh_rows({project_id})
        if not result.changed:
            self.notify(f"{label}: already {'not starred' if unstar else 'starred'}", timeout=3, markup=False)
        else:
            self.notify(f"{label}: {'unstarred' if unstar else 'starred'}", timeout=3, markup=False)

    def action_toggle_archive(self) -> None:
        """Archive the project (or unarchive an archived one), after confirmation."""
        project = self._current()
        if project is None or self.refuse_if_read_only():
            return
        unarchive = bool(project.archived)
        path = project.path_with_namespace or str(project.id)
        verb = "Unarchive" if unarchive else "Archive"
        message = (f"{verb} {path}?\n"
                   + ("The repository becomes writable again." if unarchive else
                      "The project becomes read-only for everyone until it is unarchived."))

        def confirmed(answer: bool | None) -> None:
            if answer:
                self.run_api(lambda: self._archive(project.id, unarchive), "archive")

        self.app.push_screen(ConfirmScreen(f"{verb} project", message, action_label=verb, target=path), confirmed)

    async def _archive(self, project_id: int, unarchive: bool) -> None:
        client = self.client
        project = await (client.projects.unarchive(project_id) if unarchive else client.projects.archive(project_id))
        self.table.update_row(self._row(project))
        path = project.path_with_namespace or str(project_id)
        self.notify(f"{path} {'unarchived' if unarchive else 'archived'}"
                    + ("" if unarchive else " — press A again to unarchive"), timeout=8, markup=False)
