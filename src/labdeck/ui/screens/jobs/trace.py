"""The trace viewer of one job: follows a running job live, folds sections, searches, jumps to
the first error, and offers the job actions."""

from __future__ import annotations

import asyncio
import math
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import Screen
from textual.widgets import Input

from labdeck.api import errors
from labdeck.api.models import Job
from labdeck.operations.follower import TraceFollower
from labdeck.ui.connection import stalled_text, trouble_text
from labdeck.ui.console import console_app
from labdeck.ui.dialogs.download import PathDialog, default_download_dir
from labdeck.ui.screens.jobs.actions import JobActionsMixin
from labdeck.ui.screens.jobs.detail import PendingReasonLine
from labdeck.ui.screens.jobs.header import TraceHeader
from labdeck.ui.screens.jobs.table import FINISHED_STATUSES
from labdeck.ui.screens.jobs.why import HistoryLine, green_baseline
from labdeck.ui.widgets.key_bar import KeyBar
from labdeck.ui.widgets.status_line import StatusLine
from labdeck.ui.widgets.trace.document import TraceDocument
from labdeck.ui.widgets.trace.view import TraceView

INGEST_PIECE = 8 * 1024
"""Characters indexed at a time (about 1 ms of work)."""
SLICE_SECONDS = 0.004
"""Indexing runs at most this long before the event loop gets a turn (keys, repaints). A key
reaches its action through about four message queues (app, focused widget, screen, app again),
each a turn of the loop: every turn spent indexing counts four times in the key's delay."""
PAUSE_SECONDS = 0.0
"""The turn between slices: everything already waiting (a key, a repaint, the network) runs
before the next slice. Not a real sleep: a 50 MB log is a few thousand slices, and a millisecond
of idling after each would add seconds to reading it."""
OUTAGE_AFTER_FAILURES = 3
"""Log reads failing in a row before the header speaks of a disconnection (one is "retrying")."""


class TraceScreen(JobActionsMixin, Screen[None]):
    """One job's log. Leaving the screen stops following."""

    BINDING_GROUP_TITLE = "Job log"
    DEFAULT_CSS = """
    TraceScreen #search { dock: bottom; display: none; height: 3; }
    TraceScreen #search.visible { display: block; }
    TraceScreen > #bottom-bars { dock: bottom; height: auto; width: 100%; }
    TraceScreen > #bottom-bars > KeyBar { dock: none; }
    """
    BINDINGS = [
        Binding("question_mark", "app.keys", "Keys", id="trace.keys"),
        Binding("slash", "search", "Search", id="trace.search", tooltip="Search the log"),
        Binding("n", "next_match", "Next", id="trace.next", tooltip="Next match"),
        Binding("N", "previous_match", "Prev", id="trace.previous", tooltip="Previous match"),
        Binding("e", "next_error", "Error", id="trace.error",
                tooltip="The next cause block (new since the last green run first); the likeliest one at first"),
        Binding("E", "previous_error", "Prev error (e/E: new since green first; + marks those lines)", show=False,
                id="trace.previous-error",
                tooltip="The previous cause block"),
        Binding("w", "toggle_wrap", "Wrap", id="trace.wrap", tooltip="Wrap long lines"),
        Binding("v", "toggle_raw", "Raw", id="trace.raw",
                tooltip="Show the raw text with control sequences made visible"),
        Binding("S", "save_log", "Save", id="trace.save", tooltip="Save the log to a file"),
        Binding("c", "cancel_job", "Cancel", id="trace.cancel", tooltip="Cancel the job"),
        Binding("r", "retry_job", "Retry", id="trace.retry", tooltip="Retry the job"),
        Binding("y", "copy_url", "Copy URL", id="trace.copy_url", show=False),
        Binding("W", "alert_job", "Alert", id="trace.alert", tooltip="Alert when the job finishes or fails"),
        Binding("i", "job_detail", "Details", id="trace.detail",
                tooltip="Tags, runner, queue time, and why a pending job waits"),
        Binding("B", "bundle", "Bundle", show=False, id="trace.bundle",
                tooltip="Incident bundle (.tar.gz: log raw and clean, record, runner, summary)"),
        Binding("escape,q", "back", "Back", id="trace.back"),
    ]
    HELP = """
## Job log
Follows a running job live. Scrolling up pauses following; **end**/**G** resumes.

- **/** search · **n**/**N** next/previous match · **e**/**E** next/previous cause: the blocks that
  say what went wrong (tests, compilers, tracebacks, package managers, the failing command's last
  lines; never the runner's `ERROR: Job failed` trailer), the likeliest first
- **+** beside a line number: the line is **new since the last green run** of the same job on the
  same ref (a line the green run printed too is not the cause); **e** visits those first
- **enter**/**t** fold the section · **z**/**Z** fold/unfold all
- **w** wrap · **v** raw view (what was stripped, made visible) · **S** save the log
- **c** cancel · **r** retry · **y** copy the job URL · **B** incident bundle for a ticket
"""

    follow_min_interval = 1.0
    follow_max_interval = 5.0

    def __init__(self, project_id: int, project_path: str, job: Job, *, at_line: int | None = None) -> None:
        """``at_line``: put the cursor on that line (0-based) once it has arrived (the merged view's
        ``enter``)."""
        super().__init__()
        self.at_line = at_line
        self.project_id = project_id
        self.project_path = project_path
        self.job = job
        self.live = False
        self.note = ""
        self.error_position = ""
        """``cause 2/5`` once ``e`` was used."""
        self.green_note = ""
        """``12 lines new since green #123`` once the log was compared with the last green run."""
        self.waiting = ""
        """What the client waits for (``rate limited — retrying in 5 s``), said while the log waits."""
        self.read_failures = 0
        """Log reads that failed in a row (one is "retrying", several an outage)."""
        self.stalled = ""
        """Why the log is not updating (``server errors (502)``, ``no answer for 40 s``): the
        header then says so in place of ``● live``; "" while reads answer."""
        self.finished_reading = False
        self.follower: TraceFollower | None = None
        """The current reader of the log (its ``stats`` say what following cost)."""
        self.document = TraceDocument()
        """The log's lines (spooled files, released when the screen closes)."""

    @property
    def view(self) -> TraceView:
        """The log widget."""
        return self.query_one(TraceView)

    def compose(self) -> ComposeResult:
        yield TraceHeader(id="trace-header")
        yield PendingReasonLine(id="pending-reason")
        yield HistoryLine(id="trace-history")
        yield TraceView(self.document, id="trace")
        yield Input(id="search")
        # The freshness line every section has (one source of truth: the client's health says the
        # last failure, its reason and the next try; the follower's last answered read the age).
        with Vertical(id="bottom-bars"):
            yield StatusLine()
            yield KeyBar()

    def on_mount(self) -> None:
        """Start reading the trace."""
        self.view.document.job_failed = self.job.status == "failed"
        self.view.document.job_ended = self.job.status in FINISHED_STATUSES
        self.view.focus()
        for status in self.query(StatusLine):
            # Read every few seconds at most while live: twice the longest wait means reads fail.
            status.stale_after = 2 * self.follow_max_interval + 5
        self._update_header()
        self.follow_trace()

    def on_unmount(self) -> None:
        """Release the spooled files."""
        self.document.close()

    def on_screen_suspend(self) -> None:
        """Left for another section (``0``): this screen is not on the stack shown, and its log
        is read no more until it is shown again. A dialog on top keeps the log going."""
        if self.follower is not None and self not in self.app.screen_stack:
            self.follower.pause()

    def on_screen_resume(self) -> None:
        """Shown again: the log goes on from where it was."""
        if self.follower is not None:
            self.follower.resume()

    def selected_job(self) -> Job | None:
        """The actions apply to this screen's job."""
        return self.job

    def after_job_action(self, action: str, job: Job) -> None:
        """After a retry, show the new job's log; otherwise show the new state."""
        if action == "retry" and job.id != self.job.id:
            self.app.switch_screen(TraceScreen(self.project_id, self.project_path, job))
            return
        self._set_job(job)

    def _set_job(self, job: Job) -> None:
        if job.pipeline is None and self.job.pipeline is not None:
            # Action responses omit the pipeline; keep the one we know.
            job = job.model_copy(update={"pipeline": self.job.pipeline})
        self.job = job
        self.view.document.job_failed = job.status == "failed"
        self.view.document.job_ended = job.status in FINISHED_STATUSES
        self.refresh_bindings()
        self._update_header()

    def _update_header(self) -> None:
        view = self.view
        search = ""
        if view.search_term:
            if view.match_total is None:
                search = f"/{view.search_term}: searching…"
            elif view.match_total == 0:
                search = f"/{view.search_term}: no match"
            else:
                ordinal = view.match_ordinal if view.match_ordinal is not None else "?"
                search = f"/{view.search_term} {ordinal}/{view.match_total}"
        self.query_one(TraceHeader).show(
            job=self.job, live=self.live, following=view.following, pending_lines=view.pending_lines,
            wrap=view.wrap, raw=view.raw, note=" · ".join(part for part in (self.error_position, self.green_note, self.waiting, self.note) if part),
            search=search, duration=self._running_for(), stalled=self._stalled(), keep=self.error_position,
        )
        # A waiting job gets a line saying why (worked out again only when its status changes).
        self.query_one(PendingReasonLine).follow(self.client, self.project_id, self.job)
        # Its last runs on the ref (one jobs page, or none when the board's triage holds it).
        self.query_one(HistoryLine).follow(self.client, self.project_id, self.project_path, self.job)

    def _stalled(self) -> str:
        """Why the log is not updating, from the client's health (the status line's source) and
        this log's own reads failing in a row; "" while they answer."""
        stalled = stalled_text(getattr(self.client, "health", None))
        if stalled is None and self.read_failures and self.follower is not None:
            stalled = "reads fail" if self.follower.reading else "stopped"
        return stalled or ""

    def _running_for(self) -> float | None:
        """Seconds a running job has been running, by the console's clock (the record's
        ``duration`` is only as fresh as the last read)."""
        started = self.job.started_at
        if started is None or self.job.status != "running":
            return None
        # The server's time, not this machine's: a skewed local clock would show hours of running.
        return max(0.0, (console_app(self.app).watching.server_now() - started).total_seconds())

    def tick(self, now: datetime) -> None:
        """The console's clock: the running time in the header moves (no timer of its own), and
        so does what the client waits for (a rate limit's countdown, a gateway's failure)."""
        self._show_freshness(now)
        waiting = trouble_text(getattr(self.client, "health", None)) or ""
        stalled = self._stalled()
        if waiting != self.waiting or stalled != self.stalled:
            self.waiting, self.stalled = waiting, stalled
            self._update_header()
        elif self.job.status == "running":
            self._update_header()

    def _show_freshness(self, now: datetime) -> None:
        """The status line's data age: since the log's last read that answered (a 304 included),
        not the last attempt; a log read to its end is complete and never turns stale."""
        follower = self.follower
        since = follower.since_good_read() if follower is not None else None
        loaded = None if since is None else now - timedelta(seconds=since)
        for status in StatusLine.on_screen(self):
            status.data_loaded_at = loaded
            if self.finished_reading and not self.note:
                status.stale_after = math.inf
            status.update_status()

    def tick_covered(self, now: datetime) -> None:
        """Under a dialog the log reads on (see :meth:`on_screen_suspend`): its header follows."""
        self.tick(now)

    def client_replaced(self) -> None:
        """A new sign-in: the log goes on with the new client from where it is."""
        if self.follower is not None and not self.finished_reading:
            self.follower.use_client(self.client)

    @on(TraceView.Changed)
    def _view_changed(self) -> None:
        self._update_header()

    # -- following ----------------------------------------------------------------------------

    @work(exclusive=True, group="trace-tail", exit_on_error=False, description="Follow the job log")
    async def follow_trace(self) -> None:
        """Read the trace (and keep reading while the job runs)."""
        follower = TraceFollower(self.client, self.project_id, self.job.id,
                                 min_interval=self.follow_min_interval,
                                 max_interval=self.follow_max_interval)
        self.follower = follower
        self.live = self.job.status not in FINISHED_STATUSES
        self._update_header()
        try:
            async for event in follower:
                await self._handle(event)
        except errors.ApiError as exc:
            self.note = f"log unavailable: {exc.user_message()}"
        finally:
            self.live = False
            self.finished_reading = True
            self.view.finish()
            self._update_header()

    async def _handle(self, event: Any) -> None:
        kind = event.kind
        if kind == "data":
            self.note = ""
            self.read_failures = 0
            await self._ingest(event.data)
        elif kind == "reset":
            self.view.reset(f"— {event.message} —")
        elif kind == "status":
            self.read_failures = 0
            self.note = ""
            self.live = event.status not in FINISHED_STATUSES
            if event.status != self.job.status:
                # The first poll reports the status the job was opened with: reading the job
                # again then would only delay the first screen of the log by a round trip.
                await self._refresh_job()
        elif kind == "recovered":
            # The first good read after failures, a 304 included: the outage is over.
            self.read_failures = 0
            self.note = ""
        elif kind == "error":
            # One failed read is a hiccup: say "retrying". Only reads failing in a row for a while
            # are an outage worth the word (the data on screen stays, the follower keeps trying).
            self.read_failures += 1
            self.note = "retrying…" if self.read_failures < OUTAGE_AFTER_FAILURES else \
                f"disconnected ({self.read_failures} reads failed) – retrying"
            if self.follower is not None and not self.follower.reading:
                self.note = "stopped until the token is given again"  # a 401: no read until then
        elif kind == "end":
            self.live = False
            await self._refresh_job()
            if self.view.document.job_failed:
                self._mark_failed_section()
        self._update_header()

    async def _ingest(self, data: str) -> None:
        """Index new text in slices of a few milliseconds, letting keys and repaints run in
        between: a huge read shows its first screen at once and never freezes the console."""
        view = self.view
        document = self.document
        loop = asyncio.get_running_loop()
        position = 0
        while position < len(data):
            before = view.line_count
            budget_end = loop.time() + SLICE_SECONDS
            while position < len(data) and loop.time() < budget_end:
                document.feed(data[position:position + INGEST_PIECE])
                position += INGEST_PIECE
            view.after_growth(before)
            self._go_to_asked_line()
            if position < len(data):
                await asyncio.sleep(PAUSE_SECONDS)

    def _go_to_asked_line(self) -> None:
        """The line asked for at opening, once it is there: the cursor on it, following paused."""
        line = self.at_line
        if line is None or self.document.complete_lines <= line:
            return
        self.at_line = None
        view = self.view
        view.following = False
        view.move_cursor_to(line, center=True)
        view.refresh()

    async def _refresh_job(self) -> None:
        try:
            job = await self.client.jobs.get(self.project_id, self.job.id)
        except errors.ApiError:
            return
        self._set_job(job)

    # -- search and error ---------------------------------------------------------------------

    def action_search(self) -> None:
        """Open the search box."""
        box = self.query_one("#search", Input)
        box.add_class("visible")
        box.value = self.view.search_term
        box.focus()

    @on(Input.Submitted, "#search")
    def _search_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.query_one("#search", Input).remove_class("visible")
        self.view.focus()
        self.search(event.value)

    def search(self, term: str) -> None:
        """Highlight ``term``, jump to its next occurrence and count the matches."""
        self.view.set_search(term)
        if term:
            self._find(term, self.view.cursor_line, backwards=False)
        self._update_header()

    def action_next_match(self) -> None:
        """Next match after the cursor."""
        if self.view.search_term:
            self._find(self.view.search_term, self.view.cursor_line + 1, backwards=False)

    def action_previous_match(self) -> None:
        """Previous match before the cursor."""
        if self.view.search_term:
            self._find(self.view.search_term, self.view.cursor_line - 1, backwards=True)

    @work(exclusive=True, group="trace-search", exit_on_error=False, description="Search the log")
    async def _find(self, term: str, start: int, *, backwards: bool) -> None:
        view = self.view
        document = view.document
        if start < 0:
            start = len(document) - 1
        found = await asyncio.to_thread(document.search, term, start, backwards=backwards)
        if found is None:
            # Wrap around, as less and vim do.
            found = await asyncio.to_thread(document.search, term, 0 if not backwards else len(document) - 1,
                                            backwards=backwards)
        if term != view.search_term:
            return
        if found is None:
            view.match_total = 0
            self._update_header()
            return
        view.match_line = found
        if view.following:
            view.following = False
        view.move_cursor_to(found, center=True)
        total, ordinal = await asyncio.to_thread(document.count_matches, term, found)
        if term == view.search_term:
            view.match_total, view.match_ordinal = total, ordinal
        self._update_header()

    @work(group="trace-errors", exit_on_error=False, description="Find the failed section")
    async def _mark_failed_section(self) -> None:
        """Read the finished log for its cause (against the last green run's log of the same job
        on the same ref, when there is one), so the section holding it is marked failed and the
        lines new since that green run are marked."""
        await self._read_cause()
        self.view.refresh_sections()

    async def _read_cause(self) -> None:
        green: Job | None = None
        passing: bytes | None = None
        try:
            found = await green_baseline(self.app, self.client, self.project_id, self.project_path, self.job)
        except errors.ApiError as exc:
            found = None
            self.green_note = f"green run not read: {exc.user_message()}"
        if found is not None:
            green, passing = found
        await asyncio.to_thread(self.view.document.read_cause, passing, green.id if green is not None else None)
        document = self.view.document
        if document.green_job is not None:
            self.green_note = f"{len(document.new_lines):,} lines new since green #{document.green_job}"
        self.view.refresh()
        self._update_header()

    def action_next_error(self) -> None:
        """The next error line after the cursor (the first one when none is shown yet)."""
        self._go_to_error(backwards=False)

    def action_previous_error(self) -> None:
        """The error line before the cursor."""
        self._go_to_error(backwards=True)

    @work(exclusive=True, group="trace-search", exit_on_error=False, description="Find error lines")
    async def _go_to_error(self, *, backwards: bool) -> None:
        """Visit the error blocks in the cause finder's rank order: the block to read first, then
        the next most likely (new since the last green run first, when it is known)."""
        view = self.view
        document = view.document
        if self.finished_reading and not document.cause_read:
            await self._read_cause()
        order = document.cause_lines()
        if not order:
            await self._go_to_error_line(backwards=backwards)
            return
        # The finder's blocks in its order (new since green first): e walks it forwards, E back.
        current = view.error_line
        if current is None or current not in order:
            position = 0 if not backwards else None
        else:
            position = order.index(current) + (-1 if backwards else 1)
        if position is None or not 0 <= position < len(order):
            self.notify("No other error block that way." if current is not None else "No error line in this log.",
                        timeout=2)
            return
        self._show_error(order[position], f"cause {position + 1}/{len(order)}"
                         + (" · new since green" if order[position] in document.new_lines else ""))

    def _show_error(self, line: int, where: str) -> None:
        view = self.view
        view.following = False
        view.error_line = line
        view.move_cursor_to(line, center=True)
        view.refresh()
        self.error_position = where
        self._update_header()

    async def _go_to_error_line(self, *, backwards: bool) -> None:
        """``e`` while the log is still growing: the cause finder's blocks over the lines so far."""
        view = self.view
        answer = await asyncio.to_thread(view.document.cause)
        starts = [block.line - 1 for block in answer.candidates]
        if not starts:
            self.notify("No error line in this log.", severity="information")
            return
        current = view.error_line
        if current is None or current not in starts:
            position: int | None = None if backwards and current is not None else 0
        else:
            position = starts.index(current) + (-1 if backwards else 1)
        if position is None or not 0 <= position < len(starts):
            self.notify("No other error line that way.", timeout=2)
            return
        self._show_error(starts[position], f"error {position + 1}/{len(starts)}")

    # -- display options ----------------------------------------------------------------------

    def action_toggle_wrap(self) -> None:
        """Wrap long lines on/off."""
        self.view.set_wrap(not self.view.wrap)

    def action_toggle_raw(self) -> None:
        """Raw view on/off."""
        self.view.set_raw(not self.view.raw)

    def action_save_log(self) -> None:
        """Ask for a path, then save the log as plain text."""
        default = default_download_dir() / f"job-{self.job.id}.log"

        def chosen(answer: tuple[str, Path] | None) -> None:
            if answer is None:
                return
            if answer[1].exists():
                self.notify(f"{answer[1]} already exists; choose another path.", severity="warning",
                            markup=False)
                return
            self._save(answer[1])

        self.app.push_screen(PathDialog(f"Save the log of job #{self.job.id}", default), chosen)

    @work(group="trace-save", exit_on_error=False, description="Save the log")
    async def _save(self, path: Path) -> None:
        try:
            count = await asyncio.to_thread(self.view.document.save, path, raw=self.view.raw)
        except OSError as exc:
            self.notify(f"Could not save {path}: {exc.strerror}", severity="error", markup=False)
            return
        self.notify(f"Saved {count:,} lines to {path}.", markup=False)

    def action_job_detail(self) -> None:
        """``i``: the job's record, and why it waits when it is pending."""
        from labdeck.ui.screens.jobs.detail import JobDetailScreen

        self.app.push_screen(JobDetailScreen(self.project_id, self.project_path, self.job))

    def action_back(self) -> None:
        """Close the search box, else clear the search, else leave the log."""
        box = self.query_one("#search", Input)
        if box.has_class("visible"):
            box.remove_class("visible")
            self.view.focus()
            return
        if self.view.search_term:
            self.view.set_search("")
            self._update_header()
            return
        self.app.pop_screen()
