"""The jobs section of a project (or of one pipeline): a live table with filters, grouping and
the job actions. ``enter`` opens the trace viewer."""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Sequence
from datetime import datetime
from typing import ClassVar, cast

from rich.cells import cell_len
from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.timer import Timer
from textual.widgets import Label

from labdeck.api import errors
from labdeck.api.models import Job
from labdeck.operations.bulk_plan import PLANNERS, BulkKind, BulkOutcome, job_targets
from labdeck.ui.connection import short_trouble, trouble_text
from labdeck.ui.dialogs.bulk import open_bulk_action
from labdeck.ui.screens.base import SectionScreen
from labdeck.ui.screens.jobs.actions import MUTATING_ACTIONS, JobActionsMixin
from labdeck.ui.screens.jobs.header import JobsHeader
from labdeck.ui.screens.jobs.status_filter import StatusFilterDialog
from labdeck.ui.screens.jobs.table import (
    ACTIVE_STATUSES,
    GROUP_MODES,
    JobFilter,
    JobTable,
)
from labdeck.ui.triaging import PENDING, triaging
from labdeck.ui.widgets.status_line import is_shown

ACTIVE_INTERVAL = 2.0
"""Seconds between refreshes while some job can still change by itself."""
IDLE_INTERVAL = 10.0
"""Seconds between refreshes when every listed job is finished or waiting for a person."""
HIGHLIGHT_SECONDS = 6.0
"""How long a row stays highlighted after its status changed."""


class JobsScreen(JobActionsMixin, SectionScreen):
    """Jobs of one project, optionally restricted to one pipeline."""

    SECTION_TITLE = "Jobs"
    MUTATING_ACTIONS = MUTATING_ACTIONS
    BINDING_GROUP_TITLE = "Jobs"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "open_trace", "Log", id="jobs.trace", tooltip="Open the job's log"),
        Binding("c", "cancel_job", "Cancel", id="jobs.cancel", tooltip="Cancel the job"),
        Binding("r", "retry_job", "Retry", id="jobs.retry", tooltip="Retry the job (a new job)"),
        Binding("p", "play_job", "Play", id="jobs.play", tooltip="Start a manual job"),
        Binding("E", "erase_job", "Erase", id="jobs.erase", tooltip="Erase log and artifacts"),
        Binding("K", "keep_artifacts", "Keep", id="jobs.keep", tooltip="Keep the artifacts"),
        Binding("d", "download_artifacts", "Download", id="jobs.download",
                tooltip="Download the artifacts archive or one file of it"),
        Binding("s", "filter_status", "Status", id="jobs.status", tooltip="Filter by statuses"),
        Binding("W", "alert_job", "Alert", id="jobs.alert", tooltip="Alert when the job finishes or fails"),
        Binding("i", "job_detail", "Details", id="jobs.detail",
                tooltip="Tags, runner, queue time, and why a pending job waits"),
        Binding("space", "mark", "Mark", id="jobs.mark", tooltip="Mark the job for a bulk action"),
        Binding("R", "bulk('retry')", "Retry all", show=False, id="jobs.bulk-retry",
                tooltip="Retry the marked jobs (or every failed job listed): dry run first"),
        Binding("C", "bulk('cancel')", "Cancel all", show=False, id="jobs.bulk-cancel",
                tooltip="Cancel the marked jobs (or every running and pending job listed): dry run first"),
        Binding("P", "bulk('play')", "Play all", show=False, id="jobs.bulk-play",
                tooltip="Play the marked manual jobs (or every manual job listed): dry run first"),
        Binding("F", "follow_many", "Follow", show=False, id="jobs.follow",
                tooltip="Follow the marked jobs in one live view"),
        Binding("B", "bundle", "Bundle", show=False, id="jobs.bundle",
                tooltip="Incident bundle (.tar.gz: logs, records, runner, summary) of the marked jobs or this one"),
        Binding("v", "cycle_group", "View", id="jobs.group",
                tooltip="View: flat list, grouped by pipeline, by pipeline and stage"),
    ]
    HELP = """
## Jobs
The list refreshes by itself (every 2 s while jobs run, every 10 s otherwise, paused while
another screen is on top). Rows whose status just changed are highlighted.

- **enter** opens the live log · **c** cancel · **r** retry · **p** play a manual job
- **E** erase (type the job id) · **K** keep artifacts · **d** download artifacts · **y** copy URL
- **space** mark jobs · **R**/**C**/**P** bulk retry / cancel / play (dry run first) · **B** incident
  bundle of the marked jobs (or this one): logs raw and clean, records, runner, summary for a ticket
- **s** status filter (several at once) · **/** filter: words match status, stage, name, ref, user,
  runner or id (`failed`, `main`); `stage:`, `name:`, `ref:`, `user:`, `runner:` narrow · **v** view:
  flat, by pipeline, by pipeline and stage
- **j**/**k** move · **g**/**G** (or **home**/**end**) first and last row, as in every table
"""

    active_interval = ACTIVE_INTERVAL
    idle_interval = IDLE_INTERVAL

    def __init__(self, project_id: int, project_path: str, *, pipeline_id: int | None = None) -> None:
        super().__init__()
        self.project_id = project_id
        self.project_path = project_path
        self._why_asked: frozenset[int] = frozenset()
        """Failed jobs whose verdicts were last asked for (asked again only when that changes)."""
        self.pipeline_id = pipeline_id
        self.jobs: list[Job] = []
        """The jobs of the last refresh (after the server-side status filter)."""
        self.job_filter = JobFilter()
        self.group_mode = "none"
        self.refresh_count = 0
        """Completed refreshes (tests wait on it)."""
        self._statuses: dict[int, str] = {}
        self._changed_at: dict[int, float] = {}
        self._timer: Timer | None = None
        self._suspended = False
        self._refresh_state = "loading…"
        self._failed: str | None = None
        self._refreshing = False
        """A refresh is under way: while the client holds it back (a 429's Retry-After, a 502's
        back-off) the header says so, not ``live``."""
        """Why the last refresh failed; None once one succeeded."""
        self._select_after_refresh: int | None = None
        self._pinned: int | None = None
        """A job shown whatever the filters say (the new job of a retry) until they change."""
        self._last_scope: list[str] | None = None
        self._version: str | None = None
        """Identifies the job list on screen (None: nothing shown yet)."""

    def compose_content(self) -> ComposeResult:
        yield JobsHeader(id="jobs-header")
        yield JobTable(id="jobs")

    def on_mount(self) -> None:
        """Load at once; the refresh reschedules itself."""
        self._untriage = triaging(self.app).subscribe(self._redraw)
        self._update_header()
        self.query_one(JobTable).focus()
        # A full screen pushed over a dialog hides this one without a suspend of its own.
        self.app.screen_change_signal.subscribe(self, self._follow_visibility)
        self.refresh_jobs()

    def on_unmount(self) -> None:
        self.app.screen_change_signal.unsubscribe(self)
        self._untriage()

    # Refresh loop -------------------------------------------------------------------------------

    def on_screen_suspend(self) -> None:
        """Another screen on top: polling stops, unless it is a dialog (the list stays in view
        under it, and what it says must stay true: a storm shows, a job that ends shows)."""
        self._follow_visibility()

    def on_screen_resume(self) -> None:
        """Poll again, starting with a refresh now (the list may be stale)."""
        self._follow_visibility()

    def _follow_visibility(self, _screen: object = None) -> None:
        shown = self.is_attached and is_shown(self)
        if shown and self._suspended:
            self._suspended = False
            self.refresh_jobs()
        elif not shown and not self._suspended:
            self._suspended = True
            if self._timer is not None:
                self._timer.stop()
                self._timer = None

    def _schedule_next(self) -> None:
        if self._timer is not None:
            self._timer.stop()
            self._timer = None
        if self._suspended or not self.is_attached:
            return
        interval = self.active_interval if self._has_active_jobs() else self.idle_interval
        self._timer = self.set_timer(interval, self.refresh_jobs)

    def _has_active_jobs(self) -> bool:
        return any(job.status in ACTIVE_STATUSES for job in self.jobs)

    def reload(self) -> None:
        """``ctrl+r``: refresh without waiting for the timer."""
        self.refresh_jobs()

    @work(exclusive=True, group="jobs-refresh", exit_on_error=False, description="Refresh jobs")
    async def refresh_jobs(self) -> None:
        """Fetch the jobs and redraw (a failed refresh keeps the last rows and tries again)."""
        self._refreshing = True
        try:
            jobs = await self._fetch_jobs()
        except errors.ApiError as exc:
            self._refresh_state = f"refresh failed: {exc.user_message()}"
            self._failed = exc.user_message()
            self.mark_failed(exc.user_message())
            self._update_header()
            if isinstance(exc, errors.Unauthorized | errors.Forbidden | errors.NotFound):
                raise  # the app's handler asks for a token or explains
        else:
            self._failed = None
            if jobs is not None:
                self._apply_jobs(jobs)
            else:  # unchanged (a 304): still a good read, the failure note goes with it
                self._refresh_state = self._live_state()
                self._update_context()
            self.refresh_count += 1
            self.mark_loaded()
        finally:
            self._refreshing = False
            self._schedule_next()

    async def _fetch_jobs(self) -> list[Job] | None:
        """The job list, or None when the server said nothing changed (conditional requests:
        an unchanged list is not even parsed)."""
        scope = sorted(self.job_filter.statuses) or None
        since = self._version if scope == self._last_scope else None
        result = await self.client.jobs.list(self.project_id, scope=scope, pipeline_id=self.pipeline_id,
                                             since=since).poll()
        self._last_scope = scope
        self._version = result.etag
        pinned = self._pinned
        if not result.changed or result.value is None:
            if pinned is None:
                # Highlights of changed rows still have to fade.
                return list(self.jobs) if self._changed_at else None
            jobs = [job for job in self.jobs if job.id != pinned]
        else:
            jobs = list(result.value)
        if pinned is not None and all(job.id != pinned for job in jobs):
            # The status filter hides it on the server's side: read it on its own.
            jobs.append(await self.client.jobs.get(self.project_id, pinned))
        return jobs

    def _apply_jobs(self, jobs: Sequence[Job]) -> None:
        now = time.monotonic()
        first_load = self.refresh_count == 0 and not self._statuses
        for job in jobs:
            previous = self._statuses.get(job.id)
            if not first_load and previous != job.status:
                self._changed_at[job.id] = now
            self._statuses[job.id] = job.status
        self._changed_at = {
            job_id: at for job_id, at in self._changed_at.items() if now - at < HIGHLIGHT_SECONDS
        }
        self.jobs = list(jobs)
        self._refresh_state = self._live_state()
        self._redraw()

    def _live_state(self) -> str:
        interval = self.active_interval if self._has_active_jobs() else self.idle_interval
        return f"live · every {interval:g}s"

    def _shown(self) -> list[Job]:
        """The jobs the filters let through, and the pinned one."""
        return [job for job in self.jobs if self.job_filter.matches(job) or job.id == self._pinned]

    def _redraw(self) -> None:
        visible = self._shown()
        table = self.query_one(JobTable)
        table.show_jobs(visible, changed=set(self._changed_at), group_mode=self.group_mode)
        if any(column.key == "why" for column in table.columns_shown):
            state = triaging(self.app)  # verdicts of the failed jobs shown, in a worker; … until then
            asked = frozenset(job.id for job in visible if state.label(job) == PENDING)
            if asked and asked != self._why_asked:
                self._why_asked = asked
                self.run_api(lambda: state.verdicts(self.client, self.project_id, self.project_path, visible), "why",
                             exclusive=False)
        if self._select_after_refresh is not None and table.select_job(self._select_after_refresh):
            self._select_after_refresh = None
        self._update_header()

    def _update_header(self) -> None:
        visible = self._shown()
        self.query_one(JobsHeader).show(jobs=visible, job_filter=self.job_filter, group_mode=self.group_mode)
        self._update_context(title=True)

    def _update_context(self, *, title: bool = False) -> None:
        """The title row's context (``title``: the whole row again, filters and counts too)."""
        pipeline = f" · pipeline #{self.pipeline_id}" if self.pipeline_id is not None else ""
        head = f"{self.project_path}{pipeline}"
        state = self._failure_state(head) if self._in_trouble() else self._refresh_state
        context = f"{head} · {state}"
        if context != self.context_text or title:
            self.context_text = context
            self.update_title()

    def _in_trouble(self) -> bool:
        """The last refresh failed, or the one under way waits for the client (the server is in
        trouble: a 429 storm holds it for the server's Retry-After, again and again)."""
        if self._failed is not None:
            return True
        return self._refreshing and trouble_text(getattr(self.client, "health", None)) is not None

    def _failure_state(self, head: str) -> str:
        """While refreshes fail: the client's trouble and when it tries again (``502 Bad Gateway
        (nginx) — retrying in 8 s · last rows kept``), shortened to the title row's room at 80
        columns with the countdown kept; the read's own reason when the client is not in trouble."""
        trouble = trouble_text(getattr(self.client, "health", None))
        if trouble is None:
            return f"refresh failed: {self._failed}" if self._failed is not None else self._refresh_state
        text = f"{trouble} · last rows kept"
        width = self.size.width
        # The section's name, the counts and the filter beside it (each with its padding).
        room = width - cell_len(self.section_title) - cell_len(self._counts()) - cell_len(self.job_filter.text()) \
            - 6 - cell_len(f"{head} · ") - 2
        if not width or cell_len(text) <= room:
            return text
        return short_trouble(trouble, room)

    def _counts(self) -> str:
        shown = sum(1 for job in self.jobs if self.job_filter.matches(job))
        return f"{shown}/{len(self.jobs)} jobs" if shown != len(self.jobs) else f"{len(self.jobs)} jobs"

    def tick(self, now: datetime) -> None:
        """While refreshes fail, the header's countdown moves on."""
        if self._failed is not None or self._refreshing:
            self._update_context()

    def tick_covered(self, now: datetime) -> None:
        """Under a dialog the list stays in view and reads on: the header too."""
        self.tick(now)

    def update_title(self) -> None:
        """The title row: project, refresh state, filters and counts."""
        super().update_title()
        self.query_one("#title-counts", Label).update(Text(self._counts()))
        self.query_one("#title-filter", Label).update(
            Text(f"/{self.job_filter.text()}" if self.job_filter.text() else ""))

    def jobs_by_id(self) -> dict[int, Job]:
        """The listed jobs by id."""
        return {job.id: job for job in self.jobs}

    def changed_job_ids(self) -> set[int]:
        """Jobs currently highlighted as changed."""
        return set(self._changed_at)

    def after_job_action(self, action: str, job: Job) -> None:
        """Show the outcome at once: refresh, and select the new job after a retry."""
        if action == "retry":
            self._select_after_refresh = job.id
            self._pinned = job.id
        self.refresh_jobs()

    # Navigation and filters ---------------------------------------------------------------------

    def selected_job(self) -> Job | None:
        """The job under the cursor."""
        return self.query_one(JobTable).selected_job()

    def copy_target(self) -> str | None:
        """``y`` copies the job's web address."""
        job = self.selected_job()
        return self.job_url(job) if job is not None else None

    @on(JobTable.RowHighlighted)
    def _row_highlighted(self) -> None:
        # The keys on offer follow the job under the cursor (no "r" on a running job).
        self.refresh_bindings()

    @on(JobTable.RowSelected)
    def _row_selected(self, event: JobTable.RowSelected) -> None:
        event.stop()
        self.action_open_trace()

    def action_open_trace(self) -> None:
        """Open the log of the selected job."""
        job = self.selected_job()
        if job is None:
            return
        from labdeck.ui.screens.jobs.trace import TraceScreen

        self.app.push_screen(TraceScreen(self.project_id, self.project_path, job))

    def action_follow_many(self) -> None:
        """``F``: the marked jobs followed in one view."""
        marked = self.marked_jobs()
        if not marked:
            self.notify("Mark jobs with space, then F follows them in one view.", timeout=3)
            return
        from labdeck.ui.screens.follow.screen import open_follow

        open_follow(self.app, self.project_id, self.project_path, marked, title=f"{len(marked)} marked")

    def action_job_detail(self) -> None:
        """``i``: the job's record, and why it waits when it is pending."""
        job = self.selected_job()
        if job is not None:
            from labdeck.ui.screens.jobs.detail import JobDetailScreen

            self.app.push_screen(JobDetailScreen(self.project_id, self.project_path, job))

    def marked_jobs(self) -> list[Job]:
        """The marked jobs still listed, in the list's order."""
        marked = self.query_one(JobTable).marked
        return [job for job in self.jobs if job.id in marked]

    def marked_job_ids(self) -> list[int]:
        """Ids of :meth:`marked_jobs` (what ``B`` bundles)."""
        return [job.id for job in self.marked_jobs()]

    def action_mark(self) -> None:
        """Mark or unmark the job under the cursor, then move down."""
        job = self.selected_job()
        if job is None:
            return
        table = self.query_one(JobTable)
        table.marked.symmetric_difference_update({job.id})
        self._redraw()
        table.action_cursor_down()
        self.update_title()

    def action_bulk(self, kind: str) -> None:
        """``R``/``C``/``P``: the marked jobs (else every listed job it applies to), dry run first."""
        if kind not in PLANNERS or self.refuse_if_read_only():
            return
        table = self.query_one(JobTable)
        marked = self.marked_jobs()
        jobs = marked or self._shown()
        scope = f"{len(marked)} marked job{'s' if len(marked) != 1 else ''}" if marked else "the jobs listed"
        plan = PLANNERS[cast(BulkKind, kind)](job_targets(self.project_id, self.project_path, jobs),
                                                marked=bool(marked), action=f"jobs.bulk-{kind}", scope=scope)

        def done(outcome: BulkOutcome | None) -> None:
            table.marked.clear()
            self.refresh_jobs()

        open_bulk_action(self.app, plan, project_path=self.project_path, on_done=done)

    def action_cycle_group(self) -> None:
        """none → pipeline → pipeline and stage → none."""
        self.group_mode = GROUP_MODES[(GROUP_MODES.index(self.group_mode) + 1) % len(GROUP_MODES)]
        self._redraw()

    def action_filter_status(self) -> None:
        """Choose the statuses to list (sent to the server as ``scope[]``)."""

        def chosen(statuses: frozenset[str] | None) -> None:
            if statuses is not None:
                self.set_status_filter(statuses)

        self.app.push_screen(StatusFilterDialog(self.job_filter.statuses), chosen)

    def set_status_filter(self, statuses: frozenset[str]) -> None:
        """List only jobs with these statuses (none = all); asks the server again."""
        self.job_filter = dataclasses.replace(self.job_filter, statuses=frozenset(statuses))
        self._pinned = None
        self._update_header()
        self.refresh_jobs()

    def apply_filter(self, text: str) -> None:
        """The ``/`` field: words matching any column, ``stage:NAME`` … (client side, no request)."""
        self.job_filter = JobFilter.parse(text, self.job_filter.statuses)
        self._pinned = None
        if self.is_mounted:
            self._redraw()

    def _focus_body(self) -> None:
        self.query_one(JobTable).focus()
