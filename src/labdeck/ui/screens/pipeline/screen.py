"""One pipeline: its jobs by stage, live while jobs are active, with bulk retry, cancel and play.

    app.push_screen(PipelineScreen(project_id, project_path, pipeline_id))

Everything shown comes from the pipeline's jobs (``GET /projects/:id/pipelines/:pipeline_id/jobs``,
the newest try of each job). The first read walks the pages in a worker and draws as they arrive
("loading 300 of 1,500 jobs…"): until the last page is in, no status is derived (the header and the
stages say "…", counts say "so far"), and what the caller passed (the board's jobs of the pipeline)
only fills the screen until the first page comes. Once complete, the pipeline's status is derived
as the board derives it (:func:`labdeck.watch.pipelines.build_row`), and its age and duration are
measured against the server's clock (:class:`labdeck.watch.clock.ServerClock`, learnt from the
``Date`` of the answers). The list is then re-read every ``active_interval`` seconds while jobs can
still change, every ``idle_interval`` otherwise, conditionally: an unchanged list is not parsed.

Stages too long for the screen fold into counts (``test 1,199 ✓ 1 ✗``); ``enter`` lists their
jobs (:class:`~labdeck.ui.screens.pipeline.stage_jobs.StageJobsScreen`). ``R``/``C``/``P`` plan from
the complete set of jobs, even while the view is filling in (:mod:`.pipeline_bulk`).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from datetime import datetime
from typing import ClassVar

import httpx
from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.widgets import Label

from labdeck.api import errors
from labdeck.api.models import Job
from labdeck.operations.bulk_plan import PLANNERS, BulkKind, BulkOutcome, BulkPlan, job_targets
from labdeck.ui.collector import give_back
from labdeck.ui.dialogs.bulk import open_bulk_action, open_planned_bulk_action, say_nothing_to_do
from labdeck.ui.instances import primary_triaging
from labdeck.ui.screens.base import SectionScreen
from labdeck.ui.screens.follow.screen import open_follow
from labdeck.ui.screens.jobs.detail import JobDetailScreen, job_web_url
from labdeck.ui.screens.jobs.trace import TraceScreen
from labdeck.ui.screens.pipeline.bulk import PipelineTarget, plan_whole_pipeline
from labdeck.ui.screens.pipeline.columns import job_matches, stages_of
from labdeck.ui.screens.pipeline.header import PipelineHeader, loading_words
from labdeck.ui.screens.pipeline.stage_jobs import StageJobsScreen
from labdeck.ui.screens.pipeline.stage_view import StageView
from labdeck.ui.triaging import PENDING
from labdeck.watch.clock import ServerClock
from labdeck.watch.deep import count
from labdeck.watch.pipelines import PipelineRow, build_row, job_unfinished, latest_tries

ACTION_IDS: dict[BulkKind, str] = {"retry": "pipeline.retry-failed", "cancel": "pipeline.cancel-active",
                                   "play": "pipeline.play-stage"}
"""Binding ids, which are also the audit log's ``action`` of the bulk requests."""


class PipelineScreen(SectionScreen):
    """See the module docstring. ``space`` marks jobs; ``R``/``C``/``P`` then act on the marked ones."""

    SECTION_TITLE = "Pipeline"
    BINDING_GROUP_TITLE = "Pipeline"
    MUTATING_ACTIONS = frozenset({"retry_failed", "cancel_active", "play_stage"})
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "open_log", "Log", id="pipeline.log",
                tooltip="Open the job's log (on a folded stage: the list of its jobs)"),
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
        Binding("F", "follow_many", "Follow", show=False, id="pipeline.follow",
                tooltip="Follow every job of the stage (or the marked jobs) in one live view"),
        Binding("B", "bundle", "Bundle", show=False, id="pipeline.bundle",
                tooltip="Incident bundle of the pipeline (or of the marked jobs): logs, records, runners, summary"),
    ]
    HELP = """
## Pipeline
The jobs of one pipeline by stage (side by side from 120 columns, a list below). It refreshes by
itself while jobs run. Ages and durations use the server's clock. A big pipeline fills in as its
pages arrive ("loading 300 of 1,500 jobs…"); its status shows once every job is read.

- **h**/**l** previous/next stage · **j**/**k** previous/next job · **g**/**G** first/last job
- a stage too long for the screen shows its counts (`test 1,199 ✓ 1 ✗`): **enter** lists its
  jobs, failures first, **/** filters them
- **enter** the job's log · **i** details (why a pending job waits) · **y** copy the job URL
- **space** mark jobs · **R** retry failed · **C** cancel running and pending · **P** play the
  manual jobs of the stage: each shows a dry run (the exact requests) and asks once; on servers
  with the pipelines API, retrying or canceling the whole pipeline is one request
- **F** follow the stage's jobs (or the marked ones) in one live view
- **B** incident bundle of the pipeline (or of the marked jobs) for a ticket
- **/** filter jobs (name, stage, status, runner, failure reason) · **esc** clears the filter,
  then the marks, then goes back
"""

    active_interval = 2.0
    """Seconds between refreshes while some job can still change by itself."""
    idle_interval = 30.0
    """Seconds between refreshes once every job is finished or waits for a person."""
    big_pipeline = 100
    """Past this many jobs (more than one page), automatic refreshes ask the pipeline's record
    first where the server has one (see :meth:`_refresh`)."""
    draw_interval = 0.1
    """While pages arrive, the screen is redrawn at most this often (seconds), and on the last."""

    def __init__(self, project_id: int, project_path: str, pipeline_id: int, *, jobs: Sequence[Job] = (),
                 server_clock: ServerClock | None = None) -> None:
        """``jobs``: what the caller already knows (shown, as incomplete, until the first page
        comes); ``server_clock``: a clock already synchronised with the server (the board's);
        else the screen learns one."""
        super().__init__()
        self.project_id = project_id
        self.project_path = project_path
        self.pipeline_id = pipeline_id
        self.jobs: list[Job] = list(jobs)
        """Every try of every job of the pipeline, as last read (while not :attr:`complete`: so far)."""
        self.jobs_version = 0
        """Goes up whenever :attr:`jobs` changes."""
        self.complete = False
        """True once every page of the pipeline's jobs was read (then statuses are derived)."""
        self.read_total: int | None = None
        """What the server announced (``X-Total``) for the read in progress."""
        self.read_count = 0
        """Jobs read so far by the read in progress (0: only the caller's are shown)."""
        self.load_count = 0
        """Completed loads (tests wait on it)."""
        self.opened_at = time.monotonic()
        self.first_drawn_at: float | None = None
        """``time.monotonic()`` when the first page was on screen (measurements)."""
        self.completed_at: float | None = None
        """``time.monotonic()`` when every job was on screen (measurements)."""
        self.server_clock = server_clock or ServerClock()
        self._own_clock = server_clock is None
        self._hooked: httpx.AsyncClient | None = None
        self._version: str | None = None
        self._loading = False
        self._load_number = 0
        self._moved_at: tuple[datetime | None, int | None] | None = None
        """The pipeline's ``updated_at`` when its jobs on screen were read (pipelines API only)."""
        self._jobs_read_at: datetime | None = None
        self._record_api: bool | None = None
        """Whether the server has the pipelines API (None: not asked yet)."""
        self._last_load: datetime | None = None
        self._filter = ""
        self._stage_screens: list[StageJobsScreen] = []
        self._stage_view = StageView(id="stages")
        self._why_asked: frozenset[int] = frozenset()
        """Failed jobs whose verdicts were last asked for (asked again only when that changes)."""

    def compose_content(self) -> ComposeResult:
        yield PipelineHeader(id="pipeline-header")
        yield self._stage_view

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
        self._untriage = primary_triaging(self.app, self.instance).subscribe(self._redraw)
        self._redraw()
        self.reload()

    def on_resize(self, event: events.Resize) -> None:
        """The header says as much as the new width holds (the stages lay themselves out)."""
        self._draw_header()

    def on_unmount(self) -> None:
        """Stop observing the client's answers (and the triage rounds), and let go of the jobs:
        the closed view's object may outlive it a while (a context variable of Textual's still
        names it as the last active message pump), its 5,000 jobs must not."""
        self._untriage()
        if self._hooked is not None and self._observe_date in self._hooked.event_hooks["response"]:
            self._hooked.event_hooks["response"].remove(self._observe_date)
        self._hooked = None
        big = len(self.jobs) > self.big_pipeline
        self.release()
        # The bodies of its job pages, kept for conditional re-reads, are of no use once it is closed.
        self.client.forget_listing(f"projects/{self.project_id}/pipelines/{self.pipeline_id}/jobs")
        if big:
            # Its memory back to the system once the view is gone (after this message).
            self.app.call_later(give_back)

    def release(self) -> None:
        """Drop what the view holds of the pipeline (its jobs, stages, laid-out lines, verdicts)."""
        self.jobs = []
        self.jobs_version += 1
        self._stage_screens = []
        self._why_asked = frozenset()
        # Through the widget itself: by now the screen's children are gone from its queries.
        self._stage_view.release()

    async def _observe_date(self, response: httpx.Response) -> None:
        self.server_clock.observe(response.headers.get("date"))

    def server_now(self) -> datetime:
        """The server's time (the console's clock until an answer told it)."""
        return self.server_clock.now() if self.server_clock.synchronised else self.console_app.clock()

    # --- loading ---------------------------------------------------------------------------------

    def reload(self, *, quiet: bool = False) -> None:
        """Read the pipeline's jobs: page by page until every one was read once, conditionally
        after that (an unchanged list is not parsed); ``quiet``: the automatic refresh, which does
        not flash "loading…" in the title every few seconds."""
        self._loading = True
        self._load_number += 1
        if not quiet and self.complete:
            self.loading_text = "loading…"
            self.update_title()
        number = self._load_number
        self.run_api(lambda: self._load(number, asked=not quiet), "load")

    async def _load(self, number: int, *, asked: bool = True) -> None:
        try:
            if self.complete:
                await self._refresh(asked=asked)
            else:
                await self._read_pages()
            self.load_count += 1
            self.load_failed = False
            self.mark_loaded()
        except (errors.TransportError, errors.ServerError) as exc:
            self.load_failed = True
            self.mark_failed(exc.user_message())
            self._redraw()
            raise
        except errors.ApiError as exc:
            self.mark_failed(exc.user_message())
            raise
        finally:
            if number == self._load_number:  # not a load replaced by a newer one (that one is under way)
                self._loading = False
                self._last_load = self.console_app.clock()
                self.loading_text = ""
                self.update_title()

    async def _read_pages(self) -> None:
        """The first complete read, drawn as the pages arrive (the caller's jobs give way to the
        first page: they may be stale or from a cut-off list)."""
        paginator = self.client.jobs.list(self.project_id, pipeline_id=self.pipeline_id, conditional=True)
        read: dict[int, Job] = {}
        self.read_count = 0
        drawn = 0.0
        self.loading_text = "loading the jobs…"
        self.update_title()
        async for page in paginator.pages():
            for job in page:
                read[job.id] = job  # a job pushed onto the next page by a new one comes twice
            self.read_total = paginator.total
            self.read_count = len(read)
            self._set_jobs(list(read.values()))
            self.loading_text = loading_words(len(read), paginator.total)
            now = time.monotonic()
            if self.first_drawn_at is None or now - drawn >= self.draw_interval:
                drawn = now
                self._redraw()
                self.update_title()
                if self.first_drawn_at is None:
                    self.first_drawn_at = now
        self._set_jobs(list(read.values()))
        self.complete = True
        self._version = paginator.version
        self.loading_text = ""
        self._redraw()
        self.completed_at = time.monotonic()

    async def _refresh(self, *, asked: bool) -> None:
        """Read the jobs again (conditionally). For a pipeline of more than one page, on a server
        with the pipelines API, the automatic refresh first asks the pipeline's record and reads
        the jobs only if it moved, or when the jobs on screen are ``idle_interval`` old (a running
        job's duration moves without it). "Moved": its ``updated_at`` (which moves only with the
        pipeline's own status, as on GitLab) or its failed jobs' count (a job failing deep inside a
        pipeline that keeps running)."""
        moved: tuple[datetime | None, int | None] | None = None
        if len(self.jobs) > self.big_pipeline:
            self._record_api = await self.client.has_pipelines_api(self.project_id)
        if len(self.jobs) > self.big_pipeline and self._record_api:
            updated = (await self.client.pipelines.get(self.project_id, self.pipeline_id)).updated_at
            failed, _ = await count(self.client, self.project_id, self.pipeline_id, "failed")
            moved = (updated, failed)
            fresh = (self._jobs_read_at is not None
                     and (self.console_app.clock() - self._jobs_read_at).total_seconds() < self.idle_interval)
            if not asked and fresh and moved is not None and moved == self._moved_at:
                return
        paginator = self.client.jobs.list(self.project_id, pipeline_id=self.pipeline_id, since=self._version)
        result = await paginator.poll()
        if result.changed and result.value is not None:
            self._set_jobs(list(result.value))
            self._redraw()
        self._version = result.etag
        # Asked before the jobs were read: a change meanwhile moves it past this, and is read next time.
        self._moved_at = moved
        self._jobs_read_at = self.console_app.clock()

    def _set_jobs(self, jobs: list[Job]) -> None:
        self.jobs = jobs
        self.jobs_version += 1

    @property
    def active(self) -> bool:
        """True while some job can still change by itself (or not every job was read yet)."""
        if not self.complete:
            return True
        latest, _ = latest_tries(self.jobs)
        return any(job_unfinished(job.status) for job in latest)

    def refresh_interval(self) -> float:
        """Seconds between automatic refreshes: ``active_interval`` while jobs can change, but on a
        server without the pipelines API at least one second per page of jobs (each refresh reads
        them all, conditionally); ``idle_interval`` once nothing changes by itself."""
        if not self.active:
            return self.idle_interval
        if self.complete and self._record_api is False:
            return max(self.active_interval, float(-(-len(self.jobs) // 100)))
        return self.active_interval

    def tick(self, now: datetime) -> None:
        """Once a second: the age and duration move on; refresh when due."""
        self._draw_header()
        interval = self.refresh_interval()
        if not self._loading and (self._last_load is None or (now - self._last_load).total_seconds() >= interval):
            self.reload(quiet=True)

    def tick_covered(self, now: datetime) -> None:
        """Under a dialog (``?``, the sign-in dialog, the bulk dialog acting on these jobs) the view
        stays in view: it reads on as on top, so what it shows stays what the server says."""
        self.tick(now)

    def row(self) -> PipelineRow | None:
        """The pipeline as the board derives it (None before every job is read)."""
        if not self.jobs or not self.complete:
            return None
        return build_row(self.project_id, self.project_path, self.pipeline_id, self.jobs, self.server_now())

    def _redraw(self) -> None:
        stages = stages_of([job for job in self.jobs if job_matches(job, self._filter)])
        view = self.view
        view.marked &= {job.id for job in self.jobs}
        state = primary_triaging(self.app, self.instance)
        shown = [job for stage in stages for job in stage.jobs]
        view.why = {job.id: state.label(job) for job in shown if job.status == "failed"}
        asked = frozenset(job_id for job_id, label in view.why.items() if label == PENDING)
        if asked and self.complete and asked != self._why_asked:  # in a worker: one jobs page, logs if needed
            self._why_asked = asked
            # Only the failed jobs: a cancelled round's traceback keeps its frame (and what it was
            # given) as long as its worker lives, which may outlast the view.
            failed = [job for job in shown if job.status == "failed"]
            self.run_api(lambda: state.verdicts(self.client, self.project_id, self.project_path, failed), "why",
                         exclusive=False)
        view.show(stages, partial=not self.complete)
        self._draw_header()
        for screen in list(self._stage_screens):
            if screen.is_attached:
                screen.update_jobs()
            else:
                self._stage_screens.remove(screen)

    def _draw_header(self) -> None:
        header = self.query_one(PipelineHeader)
        marked = len(self.view.marked)
        if not self.complete:
            if self.jobs:
                header.show_partial(self.pipeline_id, self.jobs, read=self.read_count, total=self.read_total,
                                    failed=self.load_failed, marked=marked)
            else:
                header.show(None, self.server_now(), marked=marked, shown=0)
            return
        if not self.jobs:
            header.update(Text(f"pipeline #{self.pipeline_id}: the server lists no jobs for it"))
            return
        shown = sum(len(stage.jobs) for stage in self.view.stages)
        header.show(self.row(), self.server_now(), marked=marked, shown=shown)

    def update_title(self) -> None:
        """The title row: project, pipeline, refresh state, counts, filter."""
        live = f"live · every {self.refresh_interval():g}s" if self.active else f"every {self.idle_interval:g}s"
        self.context_text = f"{self.project_path} · #{self.pipeline_id} · {live}"
        super().update_title()
        if not self.is_mounted:
            return
        shown = sum(len(stage.jobs) for stage in self.view.stages)
        counts = f"{shown:,} jobs" + (f" · {len(self.view.marked)} marked" if self.view.marked else "")
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
        """The log of the job under the cursor; on a folded stage, the list of its jobs."""
        folded = self.view.folded_cursor
        if folded is not None:
            screen = StageJobsScreen(self, folded.name)
            self._stage_screens.append(screen)
            self.app.push_screen(screen)
            return
        job = self.selected_job()
        if job is not None:
            self.app.push_screen(TraceScreen(self.project_id, self.project_path, job))

    def action_follow_many(self) -> None:
        """``F``: the marked jobs, else the stage under the cursor, followed in one view."""
        marked = [job for job in latest_tries(self.jobs)[0] if job.id in self.view.marked]
        stage = self.view.cursor_stage
        jobs = marked or (list(stage.jobs) if stage is not None else [])
        title = f"{len(marked)} marked" if marked else (stage.name if stage is not None else "")
        open_follow(self.app, self.project_id, self.project_path, jobs, title=title)

    def action_job_detail(self) -> None:
        """The details of the job under the cursor (and why it is pending)."""
        if self.view.folded_cursor is not None:
            self.notify("A folded stage: enter lists its jobs, i there gives one's details.", timeout=4)
            return
        job = self.selected_job()
        if job is not None:
            self.app.push_screen(JobDetailScreen(self.project_id, self.project_path, job))

    def action_bundle(self) -> None:
        """``B``: the incident bundle of the marked jobs, else of the whole pipeline (reads only)."""
        from labdeck.ui.dialogs.bundle import request_bundle

        marked = [job.id for job in self.jobs if job.id in self.view.marked]
        if marked:
            request_bundle(self, self.project_path, project=self.project_id, jobs=marked)
        else:
            request_bundle(self, self.project_path, project=self.project_id, pipeline=self.pipeline_id)

    def action_toggle_mark(self) -> None:
        """Mark or unmark the job under the cursor, then move to the next one."""
        if self.view.cursor is None:
            return
        if self.view.folded_cursor is not None:
            self.notify("A folded stage: enter lists its jobs; / filters them here, so that they unfold.",
                        timeout=4)
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
        """Start the manual jobs of the stage under the cursor (or the marked ones), after a dry run."""
        self.start_bulk("play")

    def start_bulk(self, kind: BulkKind) -> None:
        """Plan ``kind`` and open the dry run at once (keys typed right after ``R`` must find the
        dialog). Marked jobs are planned from what is on screen; the whole pipeline (or stage)
        from its complete set of jobs: once every page is in, from them, before that from the
        server's list of the jobs in the states concerned (read inside the open dialog)."""
        if self.refuse_if_read_only():
            return
        latest = [job for stage in stages_of(self.jobs) for job in stage.jobs]
        marked = [job for job in latest if job.id in self.view.marked]
        scope = f"pipeline #{self.pipeline_id}"
        if marked:
            plan = PLANNERS[kind](job_targets(self.project_id, self.project_path, marked), marked=True,
                                  action=ACTION_IDS[kind], scope=f"{scope} (marked)", pipeline_id=self.pipeline_id)
            open_bulk_action(self.app, plan, project_path=self.project_path, on_done=self._after_bulk)
            return
        stage_name: str | None = None
        if kind == "play":
            stage = self.view.cursor_stage
            if stage is None:
                self.notify("Move the cursor to a stage first.", severity="warning", timeout=3)
                return
            stage_name, scope = stage.name, f"stage {stage.name} of {scope}"
        target = PipelineTarget(self.project_id, self.project_path, self.pipeline_id, ACTION_IDS[kind])
        complete = list(self.jobs) if self.complete else None
        if complete is not None:
            chosen = [job for job in latest if stage_name is None or (job.stage or "—") == stage_name]
            plan = PLANNERS[kind](job_targets(self.project_id, self.project_path, chosen), action=ACTION_IDS[kind],
                                  scope=scope, pipeline_id=self.pipeline_id)
            if not plan.requests:
                say_nothing_to_do(self.app, plan)
                return
            if kind == "play":
                open_bulk_action(self.app, plan, project_path=self.project_path, on_done=self._after_bulk)
                return
        loaded = list(self.jobs)
        client = self.client

        async def planner() -> BulkPlan:
            return await plan_whole_pipeline(client, kind, target, complete=complete, loaded=loaded, scope=scope,
                                             stage=stage_name)

        verb = {"retry": "Retry the failed jobs", "cancel": "Cancel the active jobs", "play": "Play the manual jobs"}[kind]
        reading = ("Asking whether the server has the pipelines API (one request for the whole pipeline)…"
                   if complete is not None else
                   "Reading the pipeline's jobs in the states concerned from the server (the view is still "
                   "reading its pages)…")
        open_planned_bulk_action(self.app, kind, planner, planning=f"{verb} of {scope}", reading=reading,
                                 project_path=self.project_path, on_done=self._after_bulk)

    def _after_bulk(self, outcome: BulkOutcome) -> None:
        self.view.marked.clear()
        self.reload()
