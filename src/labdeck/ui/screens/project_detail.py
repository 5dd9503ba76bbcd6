"""One project's fields, statistics, links and permissions (``d`` on the projects table)."""

from __future__ import annotations

from datetime import datetime
from typing import Any, ClassVar

from textual.binding import Binding, BindingType

from labdeck.ui.formatting import size
from labdeck.ui.screens.record_detail import value_text
from labdeck.ui.screens.table_section import TableSectionScreen
from labdeck.ui.widgets.resource_table import Column, ResourceTable, TableRow

ACCESS_LEVELS = {0: "none", 5: "minimal", 10: "guest", 20: "reporter", 30: "developer", 40: "maintainer",
                 50: "owner", 60: "admin"}
_SKIPPED = {"statistics", "links", "permissions", "runners_token"}
_STATISTICS_BYTES = {"storage_size", "repository_size", "lfs_objects_size", "job_artifacts_size"}


def project_rows(project: Any, now: datetime) -> list[TableRow]:
    """Rows of (section, field, value) for every field of a project record."""
    rows: list[TableRow] = []
    data = project.model_dump(by_alias=False) if hasattr(project, "model_dump") else dict(project)
    for name in type(project).model_fields if hasattr(type(project), "model_fields") else data:
        if name in _SKIPPED:
            continue
        rows.append(TableRow(key=("field", name), cells=("field", name, value_text(getattr(project, name, None), now))))
    statistics = getattr(project, "statistics", None)
    if statistics is not None:
        for name, value in statistics.model_dump().items():
            shown = size(value) if name in _STATISTICS_BYTES else value_text(value, now)
            rows.append(TableRow(key=("statistics", name), cells=("statistics", name, shown)))
    links = getattr(project, "links", None) or {}
    for name, url in links.items():
        rows.append(TableRow(key=("links", name), cells=("_links", name, url or "—"), data=url))
    permissions = getattr(project, "permissions", None)
    if permissions is not None:
        for scope in ("project_access", "group_access"):
            entry = getattr(permissions, scope, None)
            if entry is None:
                shown = "—"
            else:
                level = entry.access_level
                shown = f"{ACCESS_LEVELS.get(level, str(level))} ({level}), notification level {entry.notification_level}"
            rows.append(TableRow(key=("permissions", scope), cells=("permissions", scope, shown)))
    return rows


class ProjectDetailScreen(TableSectionScreen):
    """Every field of one project, as a filterable table; ``y`` copies the highlighted value."""

    SECTION_TITLE = "Project"
    TABLE_ID = "project-fields"
    COLUMNS = (Column("section", "Section", max_width=12), Column("field", "Field", max_width=48, flex=True, min_width=22),
               Column("value", "Value", max_width=200, flex=True, min_width=20))
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "open_jobs", "Jobs", id="project-detail.jobs"),
    ]

    def __init__(self, project_id: int, project_path: str) -> None:
        super().__init__()
        self.project_id = project_id
        self.project_path = project_path
        self.context_text = project_path
        self.project: Any = None

    async def load(self) -> None:
        """Fetch the project with its statistics."""
        self.project = await self.app.client.projects.get(self.project_id, statistics=True)  # type: ignore[attr-defined]
        self.replace_rows(project_rows(self.project, self.app.clock()), keep_cursor=False)  # type: ignore[attr-defined]
        self.mark_loaded()

    def copy_target(self) -> str | None:
        if self.table.cursor_key is None:
            return getattr(self.project, "web_url", None)
        return self.cursor_cell_text(2)

    def on_resource_table_selected(self, event: ResourceTable.Selected) -> None:
        event.stop()
        self.action_open_jobs()

    def action_open_jobs(self) -> None:
        """Open this project's jobs."""
        self.app.open_jobs(self.project_id, self.project_path)  # type: ignore[attr-defined]
