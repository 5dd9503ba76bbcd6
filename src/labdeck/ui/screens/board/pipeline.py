"""One pipeline: its jobs by stage, live while jobs are active, with bulk retry, cancel and play.

    app.push_screen(PipelineScreen(project_id, project_path, pipeline_id))

The spec has no pipeline record, so everything shown comes from the pipeline's jobs
(``GET /projects/:id/pipelines/:pipeline_id/jobs``, the newest try of each job): its status is
derived as the board derives it (:func:`labdeck.watch.pipelines.build_row`), and its age and
duration are measured against the server's clock (:class:`labdeck.watch.clock.ServerClock`,
learnt from the ``Date`` of the answers). The list is re-read every ``active_interval`` seconds
while jobs can still change, every ``idle_interval`` otherwise, conditionally: an unchanged list
is not parsed.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import ClassVar

import httpx
from rich.style import Style
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.widgets import Label, Static

from labdeck.api import errors
from labdeck.api.models import Job
from labdeck.ui.screens.base import SectionScreen
from labdeck.ui.screens.board.stage_columns import StageView, job_matches, palette_for, stages_of
from labdeck.ui.screens.jobs.detail import JobDetailScreen, job_web_url
from labdeck.ui.screens.jobs.log import TraceScreen
from labdeck.ui.screens.jobs.table import format_duration
from labdeck.ui.widgets.bulk import open_bulk_action
from labdeck.ui.widgets.bulk_plan import PLANNERS, BulkKind, BulkOutcome, job_targets
from labdeck.ui.widgets.form import clean
from labdeck.watch.clock import ServerClock
from labdeck.watch.pipelines import PipelineRow, build_row, job_unfinished, latest_tries

ACTION_IDS: dict[BulkKind, str] = {"retry": "pipeline.retry-failed", "cancel": "pipeline.cancel-active",
                                   "play": "pipeline.play-stage"}
"""Binding ids, which are also the audit log's ``action`` of the bulk requests."""


def _span(seconds: float | None) -> str:
    return format_duration(seconds) if seconds is not None else "—"


class PipelineHeader(Static):
    """Two lines: status, pipeline, ref @ sha, who; then age, duration and counts."""

    DEFAULT_CSS = """
    PipelineHeader { height: 2; padding: 0 1; background: $panel; }
    """

    def show(self, row: PipelineRow | None, now: datetime, *, marked: int, shown: int) -> None:
        """Redraw from the derived row at the server time ``now``."""
        palette = palette_for(self.app)
        if row is None:
            self.update(Text("loading the pipeline's jobs…", style=palette.muted))
            return
        first = Text(no_wrap=True, overflow="ellipsis")
        first.append(f"● {clean(row.status)}", style=palette.status(row.status))
        first.append(f"  pipeline #{row.pipeline_id} · ", style=Style(bold=True))
        first.append(clean(row.ref or "—"), style=Style(bold=True))
        first.append(f" @ {clean((row.sha or '')[:8] or '—')} · by {clean(row.triggered_by or '—')}")
        age, duration = row.age_at(now), row.duration_at(now)
        second = Text(no_wrap=True, overflow="ellipsis", style=palette.muted)
        second.append(f"created {_span(age.total_seconds() if age else None)} ago · "
                      f"{'ran' if row.finished_at else 'running for'} "
                      f"{_span(duration.total_seconds() if duration else None)}")
        total = len(row.jobs)
        second.append(f" · {total} job{'' if total == 1 else 's'}")
        if shown != total:
            second.append(f" ({shown} shown)")
        if row.retries:
            second.append(f" · {row.retries} older tr{'y' if row.retries == 1 else 'ies'} hidden")
        if row.failed_jobs:
            second.append(" · failed: " + clean(", ".join(row.failed_jobs[:4])), style=palette.error)
        if marked:
            second.append(f" · {marked} marked", style=palette.mark)
        self.update(Text("\n").join([first, second]))


class PipelineScreen(SectionScreen):
    """See the module docstring. ``space`` marks jobs; ``R``/``C``/``P`` then act on the marked ones."""

    SECTION_TITLE = "Pipeline"
    BINDING_GROUP_TITLE = "Pipeline"
    MUTATING_ACTIONS = frozenset({"retry_failed", "cancel_active", "play_stage"})
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "open_log", "Log", id="pipeline.log", tooltip="Open the job's log"),
        Binding("i", "job_detail", "Detail", id="pipeline.detail",
                tooltip="The job's details; why a pending job waits"),
        Binding("space", "toggle_mark", "Mark", id="pipeline.mark",
                tooltip="Mark the job: R, C and P then act on the marked jobs only"),
        Binding("R", "retry_failed", "Retry failed", id=ACTION_IDS["retry"],
                tooltip="Retry every failed job (or the marked ones), after a dry run"),
        Binding("C", "cancel_active", "Cancel active", id=ACTION_IDS["cancel"],
                tooltip="Cancel every running or pending job (or the marked ones), after a dry run"),
        Binding("P", "play_stage", "Play stage", id=ACTION_IDS["play"],
                tooltip="Start the manual jobs of the stage under the cursor (or the marked ones)"),
        Binding("B", "bundle", "Bundle", show=False, id="pipeline.bundle",
                tooltip="Incident bundle of the pipeline (or of the marked jobs): logs, records, runners, summary"),
    ]
    HELP = """
## Pipeline
The jobs of one pipeline by stage (side by side from 120 columns, a list below). It refreshes by
itself while jobs run. Ages and durations use the server's clock.

- **h**/**l** previous/next stage · **j**/**k** previous/next job · **g**/**G** first/last job
- **enter** the job's log · **i** details (why a pending job waits) · **y** copy the job URL
- **space** mark jobs · **R** retry failed · **C** cancel running and pending · **P** play the
  manual jobs of the stage: each shows a dry run (the exact requests) and asks once
- **B** incident bundle of the pipeline (or of the marked jobs) for a ticket
- **/** filter jobs (name, stage, status, runner, failure reason) · **esc** clears the filter,
  then the marks, then goes back
"""

    active_interval = 2.0
    """Seconds between refreshes while some job can still change by itself."""
    idle_interval = 30.0
    """Seconds between refreshes once every job is finished or waits for a person."""

    def __init__(self, project_id: int, project_path: str, pipeline_id: int, *, jobs: Sequence[Job] = (),
                 server_clock: ServerClock | None = None) -> None:
        """``jobs``: what the caller already knows (shown at once, then refreshed); ``server_clock``:
        a clock already synchronised with the server (the board's); else the screen learns one."""
        super().__init__()
        self.project_id = project_id
        self.project_path = project_path
        self.pipeline_id = pipeline_id
        self.jobs: list[Job] = list(jobs)
        """Every try of every job of the pipeline, as last read."""
        self.load_count = 0
        """Completed loads (tests wait on it)."""
        self.server_clock = server_clock or ServerClock()
        self._own_clock = server_clock is None
        self._hooked: httpx.AsyncClient | None = None
        self._version: str | None = None
        self._loading = False
        self._last_load: datetime | None = None
        self._filter = ""

    def compose_content(self) -> ComposeResult:
        yield PipelineHeader(id="pipeline-header")
        yield StageView(id="stages")

    @property
    def view(self) -> StageView:
        """The stages widget."""
        return self.query_one(StageView)

    def on_mount(self) -> None:
        """Show what is known, learn the server's time from the answers, load."""
        if self._own_clock:
            self._hooked = self.client.http
            self._hooked.event_hooks["response"].append(self._observe_date)
        self.view.focus()
        self._redraw()
        self.reload()

    def on_unmount(self) -> None:
        """Stop observing the client's answers."""
        if self._hooked is not None and self._observe_date in self._hooked.event_hooks["response"]:
            self._hooked.event_hooks["response"].remove(self._observe_date)
        self._hooked = None

    async def _observe_date(self, response: httpx.Response) -> None:
        self.server_clock.observe(response.headers.get("date"))

    def server_now(self) -> datetime:
        """The server's time (the console's clock until an answer told it)."""
        return self.server_clock.now() if self.server_clock.synchronised else self.console_app.clock()

    # --- loading ---------------------------------------------------------------------------------

    def reload(self, *, quiet: bool = False) -> None:
        """Read the pipeline's jobs (conditionally: an unchanged list is not parsed); ``quiet``: the
        automatic refresh, which does not flash "loading…" in the title every few seconds."""
        self._loading = True
        if not quiet:
            self.loading_text = "loading…"
            self.update_title()
        self.run_api(self._load, "load")

    async def _load(self) -> None:
        try:
            paginator = self.client.jobs.list(self.project_id, pipeline_id=self.pipeline_id, since=self._version)
            result = await paginator.poll()
            if result.changed and result.value is not None:
                self.jobs = list(result.value)
                self._redraw()
            self._version = result.etag
            self.load_count += 1
            self.load_failed = False
            self.mark_loaded()
        except (errors.TransportError, errors.ServerError):
            self.load_failed = True
            raise
        finally:
            self._loading = False
            self._last_load = self.console_app.clock()
            self.loading_text = ""
            self.update_title()

    @property
    def active(self) -> bool:
        """True while some job can still change by itself."""
        latest, _ = latest_tries(self.jobs)
        return any(job_unfinished(job.status) for job in latest)

    def tick(self, now: datetime) -> None:
        """Once a second: the age and duration move on; refresh when due."""
        self._draw_header()
        interval = self.active_interval if self.active else self.idle_interval
        if not self._loading and (self._last_load is None or (now - self._last_load).total_seconds() >= interval):
            self.reload(quiet=True)

    def row(self) -> PipelineRow | None:
        """The pipeline as the board derives it (None before any job is known)."""
        if not self.jobs:
            return None
        return build_row(self.project_id, self.project_path, self.pipeline_id, self.jobs, self.server_now())

    def _redraw(self) -> None:
        stages = stages_of([job for job in self.jobs if job_matches(job, self._filter)])
        view = self.view
        view.marked &= {job.id for job in self.jobs}
        view.show(stages)
        self._draw_header()

    def _draw_header(self) -> None:
        shown = sum(len(stage.jobs) for stage in self.view.stages)
        self.query_one(PipelineHeader).show(self.row(), self.server_now(), marked=len(self.view.marked),
                                            shown=shown)

    def update_title(self) -> None:
        """The title row: project, pipeline, refresh state, counts, filter."""
        live = f"live · every {self.active_interval:g}s" if self.active else f"every {self.idle_interval:g}s"
        self.context_text = f"{self.project_path} · #{self.pipeline_id} · {live}"
        super().update_title()
        if not self.is_mounted:
            return
        shown = sum(len(stage.jobs) for stage in self.view.stages)
        counts = f"{shown} jobs" + (f" · {len(self.view.marked)} marked" if self.view.marked else "")
        if self.loading_text:
            counts += f" · {self.loading_text}"
        self.query_one("#title-counts", Label).update(Text(counts))
        self.query_one("#title-filter", Label).update(Text(f"/{self._filter}" if self._filter else ""))

    def apply_filter(self, text: str) -> None:
        """``/``: keep the jobs whose name, stage, status, runner or failure reason contains it."""
        self._filter = text
        if self.is_mounted:
            self._redraw()
            self.update_title()

    def _focus_body(self) -> None:
        self.view.focus()

    async def action_back(self) -> None:
        """Clear the filter, then the marks, then go back."""
        if self.clear_filter():
            return
        if self.view.marked:
            self.view.marked.clear()
            self.view.redraw()
            self._draw_header()
            self.update_title()
            return
        await self.console_app.action_back()

    # --- jobs ------------------------------------------------------------------------------------

    def selected_job(self) -> Job | None:
        """The job under the cursor."""
        return self.view.cursor_job

    def copy_target(self) -> str | None:
        """``y`` copies the job's web address."""
        job = self.selected_job()
        return job_web_url(self.client, self.project_path, job) if job is not None else None

    def action_open_log(self) -> None:
        """The log of the job under the cursor."""
        job = self.selected_job()
        if job is not None:
            self.app.push_screen(TraceScreen(self.project_id, self.project_path, job))

    def action_job_detail(self) -> None:
        """The details of the job under the cursor (and why it is pending)."""
        job = self.selected_job()
        if job is not None:
            self.app.push_screen(JobDetailScreen(self.project_id, self.project_path, job))

    def action_bundle(self) -> None:
        """``B``: the incident bundle of the marked jobs, else of the whole pipeline (reads only)."""
        from labdeck.ui.widgets.bundle_dialog import request_bundle

        marked = [job.id for job in self.jobs if job.id in self.view.marked]
        if marked:
            request_bundle(self, self.project_path, project=self.project_id, jobs=marked)
        else:
            request_bundle(self, self.project_path, project=self.project_id, pipeline=self.pipeline_id)

    def action_toggle_mark(self) -> None:
        """Mark or unmark the job under the cursor, then move to the next one."""
        if self.view.cursor is None:
            return
        self.view.toggle_mark()
        self.view.action_move(0, 1)
        self._draw_header()
        self.update_title()

    # --- bulk actions ------------------------------------------------------------------------------

    def action_retry_failed(self) -> None:
        """Retry every failed job (or the marked jobs), after a dry run and one confirmation."""
        self.start_bulk("retry")

    def action_cancel_active(self) -> None:
        """Cancel every running or pending job (or the marked jobs), after a dry run."""
        self.start_bulk("cancel")

    def action_play_stage(self) -> None:
        """Start the manual jobs of the stage under the cursor (or the marked jobs), after a dry run."""
        self.start_bulk("play")

    def start_bulk(self, kind: BulkKind) -> None:
        """Plan ``kind`` from what is on screen and open the dry run (synchronously: keys typed
        right after ``R`` must find the dialog)."""
        if self.refuse_if_read_only():
            return
        latest = [job for stage in stages_of(self.jobs) for job in stage.jobs]
        marked = [job for job in latest if job.id in self.view.marked]
        scope = f"pipeline #{self.pipeline_id}"
        if marked:
            jobs, scope = marked, f"{scope} (marked)"
        elif kind == "play":
            stage = self.view.cursor_stage
            if stage is None:
                self.notify("Move the cursor to a stage first.", severity="warning", timeout=3)
                return
            jobs, scope = list(stage.jobs), f"stage {stage.name} of {scope}"
        else:
            jobs = latest
        plan = PLANNERS[kind](job_targets(self.project_id, self.project_path, jobs), marked=bool(marked),
                              action=ACTION_IDS[kind], scope=scope, pipeline_id=self.pipeline_id)
        open_bulk_action(self.app, plan, project_path=self.project_path, on_done=self._after_bulk)

    def _after_bulk(self, outcome: BulkOutcome) -> None:
        self.view.marked.clear()
        self.reload()
