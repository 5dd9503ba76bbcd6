"""``F``: one view following many jobs at once (a stage, marked jobs, a pipeline's running jobs).

    open_follow(app, project_id, project_path, jobs, title="deploy")

Every job is read by a :class:`~labdeck.operations.following.multi.MultiFollower` (Range reads, no
byte read twice, one shared budget of two requests a second, finished jobs no longer read), in a
worker; this screen shows its merged log. The view is redrawn at most every
:data:`DRAW_SECONDS`, whatever the jobs write. ``p`` pauses the view (reads go on; the lines that
arrive are counted and shown on ``f``); a new size never pauses it. A job that fails while the
view is not on screen rings the console's alert (as ``W`` does).
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import Any

from textual import on, work
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import Screen
from textual.timer import Timer
from textual.widgets import Input

from labdeck.api import errors
from labdeck.api.models import Job
from labdeck.operations.following.multi import MultiFollower
from labdeck.operations.following.statuses import FollowedJob
from labdeck.ui.collector import start_streaming, stop_streaming
from labdeck.ui.console import console_app
from labdeck.ui.instances import Instance, client_of
from labdeck.ui.screens.follow.header import FollowHeader, job_mark
from labdeck.ui.screens.follow.picker import JobPicker
from labdeck.ui.screens.follow.view import FollowView
from labdeck.ui.screens.jobs.trace import TraceScreen
from labdeck.ui.widgets.key_bar import KeyBar
from labdeck.ui.widgets.status_line import StatusLine
from labdeck.watch.alerts import WatchTarget

DRAW_SECONDS = 0.2
"""New lines are drawn at most this often (a person cannot read faster; every frame while following
repaints the whole view, and keys wait behind it: its rows are rendered beforehand, a few a turn)."""


HEADER_SECONDS = 1.0
"""While lines stream, the header's counts (lines, errors, new lines while paused) move at most this
often: each redraw wraps its text again, a quarter of a frame's work. A key, a status that changes
and a job's end show at once."""
WARM_ROWS = 8
"""Rows of the coming frame rendered in one turn of the event loop before the frame (a
millisecond or two: a key waits behind a turn; a frame that rendered a whole screen of new rows
itself took 15-25 ms of a busy machine's CPU)."""
WARM_TURN = 0.001
"""Seconds between two such turns (the event loop runs whatever waits in between: a key first)."""


def followed(project_id: int, jobs: Sequence[Job]) -> list[FollowedJob]:
    """What the multi-follower needs of each job."""
    return [FollowedJob(project_id, job.id, job.name or f"#{job.id}",
                        job.pipeline.id if job.pipeline is not None else None, job.status or "", job.stage or "")
            for job in jobs]


def open_follow(app: App[Any], project_id: int, project_path: str, jobs: Sequence[Job], *, title: str = "") -> None:
    """Push the merged view of ``jobs`` (or say there is nothing to follow)."""
    if not jobs:
        app.notify("No job to follow here.", timeout=3)
        return
    app.push_screen(FollowScreen(project_id, project_path, jobs, title=title))


class FollowScreen(Screen[None]):
    """See the module docstring."""

    instance: Instance | None = None
    """The instance the jobs are read from (a board row's, or the pipeline's that opened it)."""

    BINDING_GROUP_TITLE = "Following jobs"
    DEFAULT_CSS = """
    FollowScreen #follow-filter { dock: bottom; display: none; height: 3; }
    FollowScreen #follow-filter.visible { display: block; }
    FollowScreen > #bottom-bars { dock: bottom; height: auto; width: 100%; }
    FollowScreen > #bottom-bars > KeyBar { dock: none; }
    """
    BINDINGS = [
        Binding("question_mark", "app.keys", "Keys", id="follow.keys"),
        Binding("p", "pause", "Pause", id="follow.pause", tooltip="Stop moving; reads go on, new lines are counted"),
        Binding("f,end,G", "resume", "Follow", id="follow.resume", tooltip="Show every new line and follow again"),
        Binding("e", "next_error", "Error", id="follow.error",
                tooltip="The next error line of any job (compiler, tests, traceback …)"),
        Binding("E", "previous_error", "Prev error", show=False, id="follow.previous-error",
                tooltip="The previous error line of any job"),
        Binding("slash", "filter", "Filter", id="follow.filter", tooltip="Show only the lines containing a text"),
        Binding("o", "pick", "Job", id="follow.pick", tooltip="Show one job alone (or every job again)"),
        *(Binding(str(number), f"solo({number - 1})", f"Job {number}", show=False, id=f"follow.job-{number}",
                  tooltip=f"Show job {number} alone; again: every job") for number in range(1, 10)),
        Binding("enter", "open_log", "Its log", id="follow.open-log",
                tooltip="The job's own log viewer, at the line under the cursor"),
        Binding("escape,q", "back", "Back", id="follow.back"),
    ]
    HELP = """
## Following jobs
Every chosen job in one view, each line prefixed by its job, in the order lines arrive. A job
that ends says how (`deploy-eu ✗ failed after 4m12s`). The header lists the jobs with their status
and error lines.

- **p** pause (reads go on; new lines are counted) · **f**/**G** follow again
- **e**/**E** next/previous error line of any job · **/** filter lines · **1**…**9** one job alone
  (same key: all) · **o** pick a job
- **enter** the job's own log at the line under the cursor
"""

    rate = 2.0
    """Requests a second for every job together (logs and statuses)."""
    status_interval = 5.0
    """Seconds between reads of the jobs' statuses."""
    min_interval = 1.0
    max_interval = 30.0
    """A job's reads: at most this often while its log grows, slowing down to ``max_interval``."""

    def __init__(self, project_id: int, project_path: str, jobs: Sequence[Job], *, title: str = "") -> None:
        super().__init__()
        self.project_id = project_id
        self.project_path = project_path
        self.jobs = list(jobs)
        self.title_text = title
        self.follower = MultiFollower(client_of(self.app, self), followed(project_id, self.jobs), rate=self.rate,
                                      status_interval=self.status_interval, min_interval=self.min_interval,
                                      max_interval=self.max_interval)
        self._dirty = True
        self._timer: Timer | None = None
        self._alerted: set[int] = set()
        self._warming = False
        """The rows of the coming frame are being rendered (:meth:`_warm`)."""
        self._header_at = 0.0
        self._header_due = True
        """A job's status changed since the header was drawn (it is drawn at the next frame)."""
        self._header_stale = False
        """Lines arrived since the header was drawn (it is drawn within :data:`HEADER_SECONDS`)."""
        self._streaming = False
        """The collector is in its streaming pace for this view (:func:`start_streaming`)."""
        self._seen_status = [state.status for state in self.follower.states]

    @property
    def view(self) -> FollowView:
        """The merged lines."""
        return self.query_one(FollowView)

    def compose(self) -> ComposeResult:
        yield FollowHeader(id="follow-header")
        yield FollowView(self.follower.log, on_pause=self._changed, id="follow-view")
        yield Input(id="follow-filter", placeholder="show lines containing… (enter; empty: all)")
        # The freshness line every section has: the client's health (last failure, its reason, the
        # next try) and the age of the least fresh job's last answered read.
        with Vertical(id="bottom-bars"):
            yield StatusLine()
            yield KeyBar()

    def on_mount(self) -> None:
        """Start following."""
        # The instance is known only now: it is given when the screen is pushed (a board row's, a
        # pipeline's on another instance), after this screen was made with the console's client.
        self.follower.use_client(client_of(self.app, self))
        self.follower.on_change = self._changed
        for status in self.query(StatusLine):
            # A quiet job is read every ``max_interval`` at most: twice that means its reads fail.
            status.stale_after = 2 * self.max_interval + 5
        self.view.focus()
        self._timer = self.set_interval(DRAW_SECONDS, self._draw)
        self._draw()
        self.run_following()
        # After the first frame: what it made is alive and frozen with the rest.
        self.call_after_refresh(self._start_streaming)

    def _start_streaming(self) -> None:
        if not self._streaming and self.is_attached:
            self._streaming = True
            start_streaming()

    def on_unmount(self) -> None:
        """Stop reading (the reads end at their next wait, before any more text is fed), then
        release the spooled files."""
        self.workers.cancel_group(self, "follow-many")
        self.follower.log.close()
        if self._streaming:
            self._streaming = False
            stop_streaming()

    def client_replaced(self) -> None:
        """A new sign-in: every job goes on with the new client from where it is."""
        self.follower.use_client(client_of(self.app, self))

    def tick(self, now: datetime) -> None:
        """The console's clock (once a second while on top): the status line's data age, from the
        reads' outcomes (see :meth:`MultiFollower.since_good_read`)."""
        since = self.follower.since_good_read()
        loaded = None if since is None else now - timedelta(seconds=since)
        for status in StatusLine.on_screen(self):
            status.data_loaded_at = loaded
            if self.follower.finished:
                status.stale_after = math.inf  # every log read to its end: complete, never stale
            status.update_status()

    def tick_covered(self, now: datetime) -> None:
        """Under a dialog (the job picker, `?`) the jobs are read on: the status line follows."""
        self.tick(now)

    @work(exclusive=True, group="follow-many", exit_on_error=False, description="Follow the jobs")
    async def run_following(self) -> None:
        """Read every job until all ended."""
        try:
            await self.follower.run()
        except errors.ApiError as exc:
            self.notify(f"Following stopped: {exc.user_message()}", severity="error")
        self._changed()

    def _changed(self) -> None:
        self._dirty = True
        for number, state in enumerate(self.follower.states):
            if state.status != self._seen_status[number]:
                self._seen_status[number] = state.status
                self._header_due = True
                if state.status == "failed":
                    self._ring(number)

    def _ring(self, number: int) -> None:
        """A job failed: ring the alert when this view is not the one on screen."""
        if number in self._alerted or not self.is_attached or self.app.screen is self:
            return
        self._alerted.add(number)
        job = self.jobs[number]
        target = WatchTarget.for_job(self.project_id, self.project_path, job)
        # A job of another instance rings through that instance's alerts (``!`` says which).
        watching = self.instance.watching if self.instance is not None else None
        (watching or console_app(self.app).watching).ring(target, "failed", job_id=job.id)

    def _draw(self) -> None:
        if self._warming:
            return
        if not self._dirty:
            if self._header_stale and time.monotonic() - self._header_at >= HEADER_SECONDS:
                self._draw_header()  # the counts of the last lines that arrived
            return
        self._dirty = False
        self._warming = True
        self._warm(self.view.next_rows())

    def _warm(self, seqs: range) -> None:
        """Render the rows of the coming frame, :data:`WARM_ROWS` a turn, then show it."""
        if not self.is_attached:
            self._warming = False
            return
        self.view.warm(seqs[:WARM_ROWS])
        if len(seqs) > WARM_ROWS:
            self.set_timer(WARM_TURN, lambda: self._warm(seqs[WARM_ROWS:]), name="follow-warm")
            return
        self._warming = False
        # Up to the rows rendered: lines that arrived meanwhile would push a screen of rows never
        # rendered into this frame; they come at the next one.
        self.view.grow(upto=seqs.stop if seqs else None)
        if self._header_due or time.monotonic() - self._header_at >= HEADER_SECONDS:
            self._draw_header()
        else:
            self._header_stale = True

    def _draw_header(self) -> None:
        self._header_at = time.monotonic()
        self._header_due = self._header_stale = False
        view = self.view
        self.query_one(FollowHeader).show(
            self.follower.log, self.follower.states, style=view._style, following=view.following,
            pending=view.pending, term=view.term, solo=view.solo, trouble=self.follower.statuses.trouble)
        marks = "".join(job_mark(state.status) for state in self.follower.states)
        self.sub_title = f"{self.project_path} · {self.title_text} {marks}".strip()

    # -- keys -----------------------------------------------------------------------------------------

    def action_pause(self) -> None:
        """``p``: stop moving; reads go on."""
        self.view.pause()
        self._draw_header()

    def action_resume(self) -> None:
        """``f``: every line that arrived, and follow again (shown once the newest rows are
        rendered, in a few short turns: a screen of them at once would delay the next key)."""
        self.view.resume(show=False)
        self._dirty = True
        self._draw()
        self._draw_header()

    def action_next_error(self) -> None:
        """``e``: the next error line of any job shown."""
        self._go_to_error(backwards=False)

    def action_previous_error(self) -> None:
        """``E``: the previous error line."""
        self._go_to_error(backwards=True)

    def _go_to_error(self, *, backwards: bool) -> None:
        view = self.view
        log = self.follower.log
        jobs = {view.solo} if view.solo is not None else None
        current = view.seq_at(view.cursor)
        if view.following or current is None:
            found = log.previous_error(log.total, jobs) if backwards else log.next_error(log.dropped - 1, jobs)
        elif backwards:
            found = log.previous_error(current, jobs)
        else:
            found = log.next_error(current, jobs)
        while found is not None and not view.matches(found):
            found = log.previous_error(found, jobs) if backwards else log.next_error(found, jobs)
        if found is None:
            self.notify("No other error line that way." if log.error_total else "No error line yet.", timeout=2)
            return
        view.pause()
        view.reveal(found)
        self._draw_header()

    def action_filter(self) -> None:
        """``/``: type a text to keep only the lines containing it."""
        box = self.query_one("#follow-filter", Input)
        box.value = self.view.term
        box.add_class("visible")
        box.focus()

    @on(Input.Submitted, "#follow-filter")
    def _filter_submitted(self, event: Input.Submitted) -> None:
        event.input.remove_class("visible")
        self.view.set_filter(event.value.strip())
        self.view.focus()
        self._draw_header()

    def action_solo(self, number: int) -> None:
        """``1``…``9``: show that job alone; the same key again shows every job."""
        if number >= len(self.jobs):
            self.notify(f"There are {len(self.jobs)} jobs.", timeout=2)
            return
        self.view.set_filter(solo=None if self.view.solo == number else number)
        self._draw_header()

    def action_pick(self) -> None:
        """``o``: choose the job to show alone."""
        choices = [f"{label}  {job_mark(state.status)} {state.status or 'waiting'}"
                   for label, state in zip(self.follower.labels, self.follower.states, strict=True)]

        def chosen(answer: int | None) -> None:
            if answer is None:
                return
            self.view.set_filter(solo=None if answer < 0 else answer)
            self._draw_header()

        self.app.push_screen(JobPicker(choices), chosen)

    def action_open_log(self) -> None:
        """``enter``: the job's own log viewer, at the line under the cursor."""
        entry = self.view.cursor_entry
        if entry is None:
            return
        job = self.jobs[entry.job]
        status = self.follower.states[entry.job].status
        if status and status != job.status:
            job = job.model_copy(update={"status": status})
        self.app.push_screen(TraceScreen(self.project_id, self.project_path, job, at_line=entry.line))

    def action_back(self) -> None:
        """Close the filter box, else clear the filter, else the job shown alone, else leave."""
        box = self.query_one("#follow-filter", Input)
        if box.has_class("visible"):
            box.remove_class("visible")
            self.view.focus()
            return
        if self.view.term:
            self.view.set_filter("")
        elif self.view.solo is not None:
            self.view.set_filter(solo=None)
        else:
            self.app.pop_screen()
            return
        self._draw_header()
