"""One runner (``GET /runners/:id``: tags, projects, version, platform, last contact; the runner
token is never shown) and the jobs it processed (``GET /runners/:id/jobs``)."""

from __future__ import annotations

from typing import Any, ClassVar

from textual.binding import Binding, BindingType

from labdeck.api.models import RunnerDetail
from labdeck.base.durations import format_duration
from labdeck.ui.formatting import relative_time
from labdeck.ui.screens.base import reload_screen
from labdeck.ui.screens.runners.actions import RunnerActions, runner_kind, runner_status, status_text
from labdeck.ui.screens.table_section import TableSectionScreen
from labdeck.ui.widgets.cells import clean, coloured, field_row, fields_table, shown
from labdeck.ui.widgets.resource_table import Column, ResourceTable, TableRow

JOB_STATUSES: tuple[str, ...] = ("", "running", "success", "failed", "canceled")
"""The ``status`` filter of ``GET /runners/:id/jobs`` ("" = all)."""
_JOB_COLOURS: dict[str, tuple[str, ...]] = {
    "success": ("job-success", "success"), "failed": ("job-failed", "error"),
    "running": ("job-running", "primary"), "pending": ("job-pending", "warning"),
    "canceled": ("job-canceled", "text-muted"), "skipped": ("job-skipped", "text-muted"),
    "manual": ("job-manual", "accent"),
}


def runner_rows(runner: Any, now: Any) -> list[TableRow]:
    """The (field, value) rows of a runner detail; the token is masked, projects get a row each."""
    rows = [
        field_row("id", runner.id),
        field_row("description", runner.description),
        field_row("status", runner_status(runner)),
        field_row("paused", runner.paused),
        field_row("online", runner.online),
        field_row("type", runner_kind(runner)),
        field_row("name", runner.name),
        field_row("ip_address", runner.ip_address),
        field_row("tags", runner.tag_list or None),
        field_row("run_untagged", runner.run_untagged),
        field_row("locked", runner.locked),
        field_row("access_level", runner.access_level),
        field_row("maximum_timeout", f"{runner.maximum_timeout} s" if runner.maximum_timeout else None),
        field_row("maintenance_note", runner.maintenance_note),
        field_row("version", runner.version),
        field_row("revision", runner.revision),
        field_row("platform", runner.platform),
        field_row("architecture", runner.architecture),
        field_row("contacted_at", runner.contacted_at, now),
        field_row("token", runner.token, secret=True),
    ]
    for project in runner.projects:
        path = project.path_with_namespace or project.name_with_namespace or str(project.id)
        rows.append(TableRow(key=("project", project.id), cells=("project", shown(f"{path} (#{project.id})")),
                             data=project))
    return rows


class RunnerDetailScreen(RunnerActions, TableSectionScreen):
    """Every field of one runner; ``enter`` on a project row opens that project's runners."""

    SECTION_TITLE = "Runner"
    TABLE_ID = "runner-fields"
    MUTATING_ACTIONS = frozenset({"edit", "toggle_active", "delete"})
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("J", "jobs", "Jobs", id="runner.jobs"),
        Binding("e", "edit", "Edit", id="runner.edit"),
        Binding("p", "toggle_active", "Pause/Resume", id="runner.pause"),
        Binding("D", "delete", "Delete", id="runner.delete"),
    ]

    def __init__(self, runner_id: int) -> None:
        super().__init__()
        self.runner_id = runner_id
        self.runner: RunnerDetail | None = None
        self.context_text = f"#{runner_id}"

    def make_table(self) -> ResourceTable:
        return fields_table(self.TABLE_ID)

    async def load(self) -> None:
        """Fetch the runner."""
        self.show(await self.client.runners.get(self.runner_id))

    def show(self, runner: Any) -> None:
        """Display a runner detail record."""
        if runner is None:
            return
        self.runner = runner
        self.context_text = clean(f"#{runner.id} {runner.description or ''}".strip())
        rows = runner_rows(runner, self.console_app.clock())
        rows[2] = TableRow(key="status", cells=("status", status_text(self.app, runner)))
        self.replace_rows(rows)
        self.mark_loaded()
        self.update_title()

    def copy_target(self) -> str | None:
        if self.table.cursor_key == "token":
            return None  # the runner token is never copied from the console
        return self.cursor_cell_text(1)

    def on_resource_table_selected(self, event: ResourceTable.Selected) -> None:
        event.stop()
        key = event.key
        if isinstance(key, tuple) and key[0] == "project":
            project = self.table.get_data(key)
            self.console_app.open_project_section("runners", project.id,
                                                  project.path_with_namespace or str(project.id))

    def action_jobs(self) -> None:
        """The jobs of this runner."""
        description = (self.runner.description if self.runner is not None else None) or ""
        self.app.push_screen(RunnerJobsScreen(self.runner_id, description))

    def action_edit(self) -> None:
        """Edit this runner."""
        if not self.refuse_if_read_only():
            self.runner_edit(self, self.runner_id, self.show)

    def action_toggle_active(self) -> None:
        """Pause or resume this runner."""
        if self.runner is not None and not self.refuse_if_read_only():
            self.runner_toggle_active(self, self.runner, self.show)

    def action_delete(self) -> None:
        """Delete this runner (type its id), then go back."""
        if self.runner is not None and not self.refuse_if_read_only():
            self.runner_delete(self, self.runner, lambda _: self._deleted())

    def _deleted(self) -> None:
        self.dismiss_after_delete()

    def dismiss_after_delete(self) -> None:
        """Leave the screen of a runner that no longer exists; refresh the list below."""
        if self.app.screen is self:
            self.app.pop_screen()
        reload_screen(self.app.screen)


RUNNER_JOB_COLUMNS = (
    Column("id", "Job", align="right", max_width=9),
    Column("status", "Status", max_width=9),
    Column("project", "Project", min_width=10, max_width=36, flex=True),
    Column("ref", "Ref", max_width=20),
    Column("stage", "Stage", max_width=10),
    Column("name", "Name", max_width=24),
    Column("duration", "Duration", align="right", max_width=8),
    Column("created", "Created", max_width=9),
)


class RunnerJobsScreen(TableSectionScreen):
    """Jobs processed by one runner, with the status filter; ``enter`` opens the job's log."""

    SECTION_TITLE = "Runner jobs"
    TABLE_ID = "runner-jobs-table"
    COLUMNS = RUNNER_JOB_COLUMNS
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "open_trace", "Log", id="runner-jobs.trace"),
        Binding("s", "next_status", "Status filter", id="runner-jobs.status"),
        Binding("B", "bundle", "Incident bundle", id="runner-jobs.bundle"),
    ]

    def __init__(self, runner_id: int, description: str = "", *, status: str = "") -> None:
        super().__init__()
        self.runner_id = runner_id
        self.description = clean(description)
        self.status = status

    def reload(self) -> None:
        """Fetch the runner's jobs with the current status filter."""
        self.context_text = (f"runner #{self.runner_id} {self.description} · status {self.status or 'any'}"
                             " · s: status")
        super().reload()

    async def load(self) -> None:
        client = self.client
        status: Any = self.status or None
        jobs = await client.runners.jobs(self.runner_id, status=status).all()
        now = self.console_app.clock()
        self.replace_rows((self._row(job, now) for job in jobs), keep_cursor=False)
        self.mark_loaded()

    def _row(self, job: Any, now: Any) -> TableRow:
        project = job.project
        path = shown(project.path_with_namespace or str(project.id)) if project is not None else "—"
        status = job.status or "—"
        return TableRow(
            key=job.id,
            cells=(str(job.id), coloured(self.app, status, *_JOB_COLOURS.get(status, ())), path,
                   shown(job.ref), shown(job.stage), shown(job.name), format_duration(job.duration),
                   relative_time(job.created_at, now)),
            data=job,
        )

    def action_next_status(self) -> None:
        """Cycle the server-side status filter."""
        position = JOB_STATUSES.index(self.status) if self.status in JOB_STATUSES else 0
        self.status = JOB_STATUSES[(position + 1) % len(JOB_STATUSES)]
        self.reload()

    def copy_target(self) -> str | None:
        job = self.table.cursor_data
        return None if job is None else (job.web_url or str(job.id))

    def on_resource_table_selected(self, event: ResourceTable.Selected) -> None:
        event.stop()
        self.action_open_trace()

    def action_bundle(self) -> None:
        """The incident bundle of the highlighted job (its log, record, runner and audit lines)."""
        job = self.table.cursor_data
        if job is None:
            self.notify("No job selected.", severity="warning", timeout=3)
            return
        if job.project is None:
            self.notify("The server did not say which project this job belongs to.", severity="warning")
            return
        from labdeck.ui.dialogs.bundle import request_bundle

        request_bundle(self, job.project.path_with_namespace or str(job.project.id), project=job.project.id,
                       job=job.id)

    def action_open_trace(self) -> None:
        """Open the highlighted job's log in the trace viewer."""
        job = self.table.cursor_data
        if job is None:
            return
        if job.project is None:
            self.notify("The server did not say which project this job belongs to.", severity="warning")
            return
        from labdeck.ui.screens.jobs.trace import TraceScreen

        path = job.project.path_with_namespace or str(job.project.id)
        self.app.push_screen(TraceScreen(job.project.id, path, job))
