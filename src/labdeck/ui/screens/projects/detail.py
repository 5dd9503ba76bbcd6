"""One project's fields, statistics, links and permissions (``d`` on the projects table)."""

from __future__ import annotations

from datetime import datetime
from typing import ClassVar

from textual.binding import Binding, BindingType

from labdeck.api.models import Project
from labdeck.ui.formatting import size
from labdeck.ui.screens.record_detail import value_text
from labdeck.ui.screens.table_section import TableSectionScreen
from labdeck.ui.widgets.resource_table import Column, ResourceTable, TableRow

ACCESS_LEVELS = {0: "none", 5: "minimal", 10: "guest", 20: "reporter", 30: "developer", 40: "maintainer",
                 50: "owner", 60: "admin"}
_SKIPPED = {"statistics", "links", "permissions", "runners_token"}
_STATISTICS_BYTES = {"storage_size", "repository_size", "lfs_objects_size", "job_artifacts_size"}


def project_rows(project: Project, now: datetime) -> list[TableRow]:
    """Rows of (section, field, value) for every field of a project record."""
    rows: list[TableRow] = []
    for name, value in project:  # every field of the model, in its declared order
        if name in _SKIPPED:
            continue
        rows.append(TableRow(key=("field", name), cells=("field", name, value_text(value, now))))
    statistics = project.statistics
    if statistics is not None:
        for name, value in statistics.model_dump().items():
            shown = size(value) if name in _STATISTICS_BYTES else value_text(value, now)
            rows.append(TableRow(key=("statistics", name), cells=("statistics", name, shown)))
    links = project.links or {}
    for name, url in links.items():
        rows.append(TableRow(key=("links", name), cells=("_links", name, url or "—"), data=url))
    permissions = project.permissions
    if permissions is not None:
        for scope, entry in (("project_access", permissions.project_access),
                             ("group_access", permissions.group_access)):
            if entry is None:
                shown = "—"
            else:
                level = entry.access_level
                name = ACCESS_LEVELS.get(level, str(level)) if level is not None else "—"
                shown = f"{name} ({level}), notification level {entry.notification_level}"
            rows.append(TableRow(key=("permissions", scope), cells=("permissions", scope, shown)))
    return rows


class ProjectDetailScreen(TableSectionScreen):
    """Every field of one project, as a filterable table; ``y`` copies the highlighted value."""

    SECTION_TITLE = "Project"
    TABLE_ID = "project-fields"
    COLUMNS = (Column("section", "Section", max_width=12), Column("field", "Field", max_width=48, flex=True, min_width=22, squeeze=20),
               Column("value", "Value", max_width=200, flex=True, min_width=20))
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "open_jobs", "Jobs", id="project-detail.jobs"),
    ]

    def __init__(self, project_id: int, project_path: str) -> None:
        super().__init__()
        self.project_id = project_id
        self.project_path = project_path
        self.context_text = project_path
        self.project: Project | None = None

    async def load(self) -> None:
        """Fetch the project with its statistics."""
        self.project = await self.client.projects.get(self.project_id, statistics=True)
        self.replace_rows(project_rows(self.project, self.console_app.clock()), keep_cursor=False)
        self.mark_loaded()

    def copy_target(self) -> str | None:
        if self.table.cursor_key is None:
            return self.project.web_url if self.project is not None else None
        return self.cursor_cell_text(2)

    def on_resource_table_selected(self, event: ResourceTable.Selected) -> None:
        event.stop()
        self.action_open_jobs()

    def action_open_jobs(self) -> None:
        """Open this project's jobs."""
        self.console_app.open_jobs(self.project_id, self.project_path)
