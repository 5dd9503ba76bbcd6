"""One stage of a pipeline as a list: what ``enter`` opens on a folded stage of the pipeline view.

Every job of the stage (the newest try of each), the most urgent first: failures, then failures
allowed to fail (warnings), running, pending, manual, canceled, passed, skipped; by name within
each. ``/`` filters (name, status, runner, failure reason, id), ``enter`` opens the job's log,
``i`` its details. The jobs come from the pipeline view below it, which keeps reading them: while
its pages are still arriving the title says so, and the list grows.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import ClassVar, Protocol

from rich.style import Style
from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType

from labdeck.api.models import Job
from labdeck.base.durations import format_duration
from labdeck.ui.screens.base import SectionScreen
from labdeck.ui.screens.jobs.detail import JobDetailScreen, job_web_url
from labdeck.ui.screens.jobs.table import runner_label
from labdeck.ui.screens.jobs.trace import TraceScreen
from labdeck.ui.screens.pipeline.columns import count_jobs, job_status_text, palette_for, stages_of
from labdeck.ui.widgets.resource_table import Column, ResourceTable, TableRow
from labdeck.ui.widgets.status_line import StatusLine


class StageSource(Protocol):
    """What the list needs of the pipeline view (:class:`~.pipeline.PipelineScreen`)."""

    project_id: int
    project_path: str
    pipeline_id: int
    loading_text: str
    data_loaded_at: datetime | None

    @property
    def jobs(self) -> Sequence[Job]:
        """Every try of every job read so far."""

    @property
    def jobs_version(self) -> int:
        """Changes whenever ``jobs`` does."""

    @property
    def complete(self) -> bool:
        """True once every job of the pipeline was read."""

    def tick(self, now: datetime) -> None:
        """Refresh when due."""

    def reload(self) -> None:
        """Read the jobs again."""

URGENCY = ("failed", "allowed", "running", "pending", "manual", "canceled", "success", "skipped")
"""Order of the list (``allowed``: failed, but allowed to fail)."""

COLUMNS = (
    Column("status", "Status", min_width=9, max_width=10),
    Column("name", "Name", max_width=40, flex=True),
    Column("duration", "Duration", max_width=9),
    Column("runner", "Runner", max_width=20, flex=True),
    Column("reason", "Failure reason", max_width=28, flex=True),
    Column("id", "ID", align="right", max_width=10),
)


def urgency(job: Job) -> int:
    """Where ``job`` goes in the list (smaller first)."""
    status = job.status or ""
    if status == "failed":
        return URGENCY.index("allowed" if job.allow_failure else "failed")
    if status in ("running", "canceling"):
        return URGENCY.index("running")
    if status in URGENCY:
        return URGENCY.index(status)
    return URGENCY.index("pending")


class StageJobsScreen(SectionScreen):
    """See the module docstring."""

    SECTION_TITLE = "Stage"
    BINDING_GROUP_TITLE = "Stage"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "open_log", "Log", id="stage.log", tooltip="Open the job's log"),
        Binding("i", "job_detail", "Detail", id="stage.detail", tooltip="The job's details; why a pending job waits"),
    ]
    HELP = """
## Stage
Every job of one stage of a pipeline, failures first. **/** filters (name, status, runner,
failure reason), **enter** opens the job's log, **i** its details, **y** copies its URL,
**esc** clears the filter, then goes back to the pipeline.
"""

    def __init__(self, pipeline: StageSource, stage: str) -> None:
        super().__init__()
        self.pipeline = pipeline
        self.stage = stage
        self.jobs: list[Job] = []
        self._shown_from: int | None = None
        self._ready = False

    def compose_content(self) -> ComposeResult:
        yield ResourceTable(COLUMNS, id="stage-jobs")

    @property
    def table(self) -> ResourceTable:
        """The list."""
        return self.query_one(ResourceTable)

    def on_mount(self) -> None:
        """Show the stage's jobs as the pipeline view holds them."""
        self._ready = True
        self.table.focus()
        self.update_jobs()

    def on_unmount(self) -> None:
        """Let go of the jobs (the closed screen's object may outlive it a while; they must not)."""
        self.jobs = []
        for table in self.query(ResourceTable):
            table.clear()

    def _show_data_age(self) -> None:
        """The status line gives the age of the pipeline view's data (it is this list's)."""
        loaded = self.pipeline.data_loaded_at
        if loaded is not None and loaded != self.data_loaded_at:
            self.data_loaded_at = loaded
            for status in self.query(StatusLine):
                status.data_loaded_at = loaded
                status.update_status()

    def update_jobs(self) -> None:
        """Take the stage's jobs from the pipeline view again (it read more, or refreshed)."""
        if not self._ready:
            return
        self._show_data_age()
        if self._shown_from == self.pipeline.jobs_version:
            self.update_title()
            return
        self._shown_from = self.pipeline.jobs_version
        stage = next((found for found in stages_of(self.pipeline.jobs) if found.name == self.stage), None)
        self.jobs = sorted(stage.jobs if stage else (), key=lambda job: (urgency(job), job.name or "", job.id))
        palette = palette_for(self.app)
        table = self.table
        cursor = table.cursor_key
        table.clear()
        table.append_rows(TableRow(key=job.id, data=job, cells=(
            job_status_text(job, palette),
            Text(job.name or f"#{job.id}", style=Style(bold=True)),
            format_duration(job.duration),
            runner_label(job),
            Text(job.failure_reason or "", style=palette.error),
            str(job.id),
        )) for job in self.jobs)
        if cursor is not None:
            table.move_cursor_to_key(cursor)
        self.update_title()

    def update_title(self) -> None:
        """Stage, pipeline, counts (``so far`` while the pipeline's pages are still arriving)."""
        partial = not self.pipeline.complete
        counts = count_jobs(self.jobs).summary()
        self.context_text = (f"{self.pipeline.project_path} · #{self.pipeline.pipeline_id} · {self.stage} · "
                             f"{counts}{' so far' if partial else ''}")
        self.loading_text = self.pipeline.loading_text
        super().update_title()

    def tick(self, now: datetime) -> None:
        """The pipeline view keeps reading while this list is on top."""
        self.pipeline.tick(now)
        self.update_jobs()

    def reload(self) -> None:
        """``ctrl+r``: the pipeline view reads its jobs again."""
        self.pipeline.reload()

    def selected_job(self) -> Job | None:
        """The job under the cursor."""
        data = self.table.cursor_data
        return data if isinstance(data, Job) else None

    def copy_target(self) -> str | None:
        """``y`` copies the job's web address."""
        job = self.selected_job()
        return job_web_url(self.client, self.pipeline.project_path, job) if job is not None else None

    @on(ResourceTable.Selected)
    def _selected(self, event: ResourceTable.Selected) -> None:
        self.action_open_log()

    def action_open_log(self) -> None:
        """The log of the job under the cursor."""
        job = self.selected_job()
        if job is not None:
            self.app.push_screen(TraceScreen(self.pipeline.project_id, self.pipeline.project_path, job))

    def action_job_detail(self) -> None:
        """The details of the job under the cursor (and why it is pending)."""
        job = self.selected_job()
        if job is not None:
            self.app.push_screen(JobDetailScreen(self.pipeline.project_id, self.pipeline.project_path, job))
