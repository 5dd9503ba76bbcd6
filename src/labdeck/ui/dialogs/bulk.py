"""The bulk action dialog: a dry run, one confirmation, then per-job results as they come.

    def after(outcome: BulkOutcome | None) -> None:
        if outcome is not None:      # something was sent: show the new state
            self.reload()

    self.app.push_screen(BulkActionScreen(plan, project_path), after)

Callers usually go through :func:`open_bulk_action`, which also says when there is nothing to do
and reports the outcome in a toast::

    plan = plan_retry(pipeline_targets(marked_rows), action="board.retry-failed", scope="3 pipelines")
    open_bulk_action(self.app, plan, on_done=lambda outcome: self.refresh_board())

The dialog shows every job of the :class:`~labdeck.operations.bulk_plan.BulkPlan` with the exact
request it will send (or the one pipeline request and the jobs it acts on), and the jobs left out
with why (grouped by reason when there are many). A plan that needs reading first (the failed jobs
of a pipeline still loading, whether the server has the pipelines API) is built inside the open
dialog (:func:`open_planned_bulk_action`): it says what it reads, and nothing can be confirmed
until the exact requests are on screen. Focus starts on Cancel; confirming is ignored
during the first :attr:`BulkActionScreen.GUARD_SECONDS` (the dialog says why), as in the shared
confirmation dialog. Once confirmed it sends the requests one by one
(:func:`~labdeck.operations.bulk_plan.run_plan`) and shows each result live; ``escape`` then stops
after the request in flight. A finished dialog only closes: confirming again sends nothing. It
returns a :class:`~labdeck.operations.bulk_plan.BulkOutcome` (None when nothing was sent).
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Awaitable, Callable
from typing import Any, ClassVar

from rich.style import Style
from rich.text import Text
from textual import on
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Label, Static
from textual.worker import Worker

from labdeck.api import errors
from labdeck.operations.bulk_plan import (
    DONE,
    NOT_REACHED,
    REFUSED,
    UNCHANGED,
    UNKNOWN,
    BulkKind,
    BulkOutcome,
    BulkPlan,
    JobResult,
    JobTarget,
    LeftOut,
    PipelineRequest,
    Request,
    run_plan,
    summarise,
)
from labdeck.ui.console import console_app
from labdeck.ui.instances import Instance, client_of, target_label
from labdeck.ui.type_ahead import HoldsTypeAhead
from labdeck.ui.widgets.cells import clean, theme_colour

_OUTCOME_STYLE = {
    DONE: ("✓", ("success",)),
    REFUSED: ("✗", ("error",)),
    UNKNOWN: ("?", ("warning",)),
    UNCHANGED: ("=", ("foreground-muted", "foreground")),
    NOT_REACHED: ("·", ("foreground-muted", "foreground")),
}
LEFT_OUT_LISTED = 12
"""Up to this many jobs left out are listed one by one; beyond, they are counted by reason."""
Planner = Callable[[], Awaitable[BulkPlan]]


def bulk_guard_clock() -> float:
    """The clock of the key guard (tests replace this function, never ``time.monotonic``)."""
    return time.monotonic()


class BulkActionScreen(HoldsTypeAhead, ModalScreen[BulkOutcome | None]):
    instance: Instance | None = None
    """The instance the plan is sent to (the screen's that opened the dialog): named, in its colour."""

    """See the module docstring. ``state`` is ``review``, ``running`` or ``finished``."""

    GUARD_SECONDS: ClassVar[float] = 0.5
    """Confirm presses within this time after opening are ignored (the confirmation dialog's guard)."""
    REDRAW_SECONDS: ClassVar[float] = 0.15
    """While requests are sent, the dry run and its results are redrawn at most this often."""
    HOLD_KEYS_SECONDS: ClassVar[float] = 1.5
    """While a plan is being made, keys typed ahead wait for it (so that they act on the dry run
    they were typed for) for at most this long; after that they go through (``escape`` must
    always close a dialog that waits for a slow server, and nothing can be confirmed anyway)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Cancel / stop", id="bulk.cancel"),
        Binding("left,h", "app.focus_previous", "Previous", show=False, id="bulk.previous"),
        Binding("right,l", "app.focus_next", "Next", show=False, id="bulk.next"),
        Binding("up,k", "scroll_body(-1)", "Scroll up", show=False, id="bulk.scroll-up"),
        Binding("down,j", "scroll_body(1)", "Scroll down", show=False, id="bulk.scroll-down"),
        Binding("pageup", "scroll_body(-8)", "Page up", show=False, id="bulk.page-up"),
        Binding("pagedown", "scroll_body(8)", "Page down", show=False, id="bulk.page-down"),
    ]
    DEFAULT_CSS = """
    BulkActionScreen { align: center middle; background: $background 60%; }
    BulkActionScreen > #dialog {
        width: 96; max-width: 96%; height: auto; max-height: 96%;
        border: thick $primary; background: $surface; padding: 0 1;
    }
    BulkActionScreen #title { text-style: bold; width: 100%; }
    BulkActionScreen #target, BulkActionScreen #intro { color: $text-muted; width: 100%; }
    BulkActionScreen #body { height: auto; max-height: 40vh; border: round $panel; }
    BulkActionScreen #why-not { color: $text-warning; width: 100%; }
    BulkActionScreen #why-not.-hidden { display: none; }
    BulkActionScreen #progress { width: 100%; }
    BulkActionScreen #progress.-hidden { display: none; }
    BulkActionScreen #buttons { height: auto; align-horizontal: right; }
    BulkActionScreen Button { margin: 0 0 0 2; min-width: 12; }
    BulkActionScreen Button.-hidden { display: none; }
    """

    def __init__(self, plan: BulkPlan | None, project_path: str | None = None, *, planner: Planner | None = None,
                 planning: str = "", reading: str = "", kind: BulkKind = "retry") -> None:
        """``project_path`` names the target in the dialog (default: the plan's projects). Without
        a ``plan``, ``planner()`` builds it once the dialog is open; meanwhile ``planning`` is the
        title, ``reading`` says what is read, ``kind`` which action it is."""
        super().__init__()
        self.plan: BulkPlan | None = plan
        self.planner = planner
        self.planning_text = planning
        self.reading_text = reading
        self.kind: BulkKind = plan.kind if plan is not None else kind
        self.project_path = project_path
        self.state = "review" if plan is not None else "planning"
        self.results: list[JobResult] = []
        """Results so far, in the plan's order."""
        self.outcome: BulkOutcome | None = None
        self._sending: Request | None = None
        self._stop = False
        self._released = False
        self._drawn_at = 0.0
        self._opened_at = bulk_guard_clock()

    # --- layout -------------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog"):
            yield Label("", id="title")
            yield Label("", id="target")
            yield Label("", id="intro")
            with VerticalScroll(id="body", can_focus=False):
                yield Static("", id="lines")
            yield Label("", id="why-not", classes="-hidden")
            yield Label("", id="progress", classes="-hidden")
            with Horizontal(id="buttons"):
                yield Button("Cancel", id="cancel", variant="default")
                yield Button("…", id="confirm", variant="error" if self.kind == "cancel" else "primary",
                             disabled=True)

    def _fill(self) -> None:
        """Title, target, intro, body and buttons for the plan (or for the planning)."""
        plan = self.plan
        confirm = self.query_one("#confirm", Button)
        if plan is None:
            self.query_one("#title", Label).update(Text(self.planning_text or "Planning…"))
            target = target_label(self.app, self)
            if self.project_path:
                target.append(f" · {self.project_path}" if target.plain else self.project_path)
            self.query_one("#target", Label).update(target)
            self.query_one("#intro", Label).update(Text("Reading what to act on; the exact requests follow. "
                                                        "Nothing is sent before you confirm them."))
            confirm.label = "…"
            confirm.disabled = True
            self._redraw()
            return
        projects = self.project_path or ", ".join(plan.project_paths[:3]) + (
            f" and {len(plan.project_paths) - 3} more" if len(plan.project_paths) > 3 else "")
        target = target_label(self.app, self)
        rest = " · ".join(part for part in (projects, f"pipeline #{plan.pipeline_id}" if plan.pipeline_id else "")
                          if part)
        if rest:
            target.append(f" · {rest}" if target.plain else rest)
        self.query_one("#title", Label).update(Text(plan.title))
        self.query_one("#target", Label).update(target)
        count = len(plan.requests)
        intro = (f"Dry run: {count} request{'' if count == 1 else 's'} to {client_of(self.app, self).api_url}, "
                 "sent one at a time, never repeated:") if count else "Nothing to send:"
        self.query_one("#intro", Label).update(Text(intro))
        jobs = len(plan.jobs)
        confirm.label = Text(f"{plan.verb} {jobs} job{'' if jobs == 1 else 's'}")
        confirm.disabled = not count
        confirm.refresh(layout=True)  # the label's width changed
        self._redraw()

    def on_mount(self) -> None:
        self._opened_at = bulk_guard_clock()
        self._fill()
        self.query_one("#cancel", Button).focus()
        if self.plan is None and self.planner is not None:
            self.set_timer(self.HOLD_KEYS_SECONDS, self._release_once)
            self.run_worker(self._plan(), name="bulk-plan", group="bulk-plan", exclusive=True, exit_on_error=False,
                            description=self.planning_text)
        else:
            self._release_once()

    def _release_once(self) -> None:
        if not self._released:
            self._released = True
            self.release_keys()

    async def _plan(self) -> None:
        assert self.planner is not None
        try:
            plan = await self.planner()
        except errors.ApiError as exc:
            self._say_why_not(f"Could not read what to act on: {exc.user_message()} Nothing was sent.")
            self.query_one("#intro", Label).update(Text("No plan: nothing can be sent."))
            self.reading_text = "No dry run: what to act on could not be read (close, then try again)."
            self._redraw()
            self._release_once()
            return
        if not plan.requests:
            self.dismiss(None)
            say_nothing_to_do(self.app, plan)
            return
        self.plan = plan
        self.state = "review"
        # The guard counts from the moment the exact requests are on screen.
        self._opened_at = bulk_guard_clock()
        self._fill()
        self._release_once()

    def _colour(self, *names: str) -> Style:
        colour = theme_colour(self.app, *names)
        return Style(color=colour) if colour else Style(dim=True)

    def _job_line(self, text: Text, target: JobTarget, extra: str = "", indent: str = "") -> None:
        assert self.plan is not None
        job = target.job
        text.append(indent)
        if len(self.plan.project_paths) > 1 or (self.project_path is None and not self.plan.pipeline_id):
            text.append(f"{clean(target.project_path)} ", style=self._colour("foreground-muted", "foreground"))
        text.append(f"#{job.id} ", style=Style(bold=True))
        text.append(clean(job.name or ""), style=Style(bold=True))
        text.append(f" · {clean(job.stage or '—')} · ")
        text.append(clean(job.status or "?"), style=self._colour(f"job-{job.status}", "foreground"))
        if extra:
            text.append(f" — {clean(extra)}", style=self._colour("foreground-muted", "foreground"))
        text.append("\n")

    def _body(self) -> Text:
        """The dry run, with each request's result once known."""
        text = Text(no_wrap=False, overflow="fold")
        plan = self.plan
        if plan is None:
            text.append(self.reading_text or "Reading what to act on…",
                        style=self._colour("foreground-muted", "foreground"))
            return text
        if plan.note:
            text.append(plan.note + "\n", style=self._colour("foreground-muted", "foreground"))
        done = {id(result.request): result for result in self.results}
        for request in plan.requests:
            if isinstance(request, PipelineRequest):
                text.append(f"{request.describe()}\n", style=self._colour("accent") + Style(bold=True))
                self._result(text, request, done)  # above its jobs: a long list must not hide it
                for target in request.jobs:
                    self._job_line(text, target, indent="  ")
            else:
                self._job_line(text, request.target)
                text.append(f"  {request.describe()}\n", style=self._colour("accent"))
                self._result(text, request, done)
        self._left_out(text, plan.left_out)
        text.rstrip()
        return text

    def _result(self, text: Text, request: Request, done: dict[int, JobResult]) -> None:
        result = done.get(id(request))
        if result is not None:
            mark, colours = _OUTCOME_STYLE[result.outcome]
            text.append(f"  {mark} {result.outcome}: ", style=self._colour(*colours) + Style(bold=True))
            text.append(clean(result.detail) + "\n")
        elif request is self._sending:
            text.append("  … sending\n", style=self._colour("accent"))

    def _left_out(self, text: Text, left_out: tuple[LeftOut, ...]) -> None:
        """Each job left out and why; past :data:`LEFT_OUT_LISTED`, how many for each reason."""
        if not left_out:
            return
        text.append(f"Left out ({len(left_out):,}):\n", style=Style(bold=True))
        if len(left_out) <= LEFT_OUT_LISTED:
            for left in left_out:
                self._job_line(text, left.target, left.reason)
            return
        reasons = Counter(left.reason for left in left_out)
        for reason, count in reasons.most_common():
            names = [clean(left.target.job.name or f"#{left.target.job.id}") for left in left_out
                     if left.reason == reason][:3]
            more = f" +{count - len(names):,} more" if count > len(names) else ""
            text.append(f"  {count:,} × {clean(reason)}", style=Style(bold=True))
            text.append(f" — {', '.join(names)}{more}\n", style=self._colour("foreground-muted", "foreground"))

    def _progress(self) -> str:
        if self.plan is None:
            return ""
        if self.state == "review":
            return "" if self.plan.requests else "No job of the selection needs this action."
        sent = len(self.results)
        total = len(self.plan.requests)
        if self.state == "running":
            stopping = " · stopping after this request" if self._stop else " · esc stops after this request"
            return f"Sending {min(sent + 1, total)}/{total}…{stopping}"
        return f"Finished: {summarise(self.results)}. Nothing is sent again; close to see the new state."

    def _redraw(self) -> None:
        self.query_one("#lines", Static).update(self._body())
        progress = self._progress()
        label = self.query_one("#progress", Label)
        label.update(Text(progress))
        label.set_class(not progress, "-hidden")

    def _say_why_not(self, text: str) -> None:
        why = self.query_one("#why-not", Label)
        why.update(Text(text))
        why.set_class(not text, "-hidden")

    def action_scroll_body(self, lines: int) -> None:
        """Scroll the dry run (the focus stays on the buttons)."""
        body = self.query_one("#body", VerticalScroll)
        body.scroll_to(y=body.scroll_y + lines, animate=False)

    # --- confirm, run, close ---------------------------------------------------------------------

    @property
    def guarded(self) -> bool:
        """True while confirm (or, once finished, close) presses are still ignored."""
        return bulk_guard_clock() - self._opened_at < self.GUARD_SECONDS

    @on(Button.Pressed, "#confirm")
    def _confirm(self) -> None:
        if self.state == "finished":
            if self.guarded:
                # An Enter still held from confirming must not close the results unseen.
                self._say_why_not("The results just came in: press again to close.")
                return
            self.dismiss(self.outcome)  # a finished dialog only closes: nothing is sent again
            return
        if self.state in ("running", "planning") or self.plan is None:
            return
        if self.guarded:
            # A key held down or typed ahead must not confirm: say so, the user presses again.
            self._say_why_not("Not confirmed: pressed too soon after the dialog opened. Press again.")
            return
        if console_app(self.app).read_only:
            self._say_why_not("Read-only mode: nothing is sent (:readonly toggles it).")
            return
        self._say_why_not("")
        self.state = "running"
        self.query_one("#confirm", Button).disabled = True
        cancel = self.query_one("#cancel", Button)
        cancel.label = "Stop"
        cancel.focus()
        self._redraw()
        self.run_worker(self._run(), name="bulk-run", group="bulk-run", exclusive=True, exit_on_error=False,
                        description=self.plan.title)

    async def _run(self) -> None:
        assert self.plan is not None
        try:
            await run_plan(client_of(self.app, self), self.plan, confirmation="dialog",
                           on_sending=self._on_sending, on_result=self._on_result, stop=lambda: self._stop)
        finally:
            self._finish()

    def _on_sending(self, request: Request) -> None:
        self._sending = request
        self._redraw_soon()

    def _on_result(self, result: JobResult) -> None:
        self.results.append(result)
        self._sending = None
        self._redraw_soon()

    def _redraw_soon(self) -> None:
        # The whole dry run is laid out again on each redraw: with a thousand requests, once per
        # request would cost more than the requests themselves.
        now = time.monotonic()
        if now - self._drawn_at >= self.REDRAW_SECONDS:
            self._drawn_at = now
            self._redraw()

    def _finish(self) -> None:
        self.state = "finished"
        self._opened_at = bulk_guard_clock()  # the guard applies to the Close button too
        self._sending = None
        assert self.plan is not None
        self.outcome = BulkOutcome(self.plan, tuple(self.results))
        confirm = self.query_one("#confirm", Button)
        confirm.label = "Close"
        confirm.variant = "default"
        confirm.disabled = False
        self.query_one("#cancel", Button).add_class("-hidden")
        confirm.focus()
        self._redraw()

    @on(Button.Pressed, "#cancel")
    def action_cancel(self) -> None:
        """Review: close without sending. Running: stop after the request in flight. Finished: close."""
        if self.state in ("review", "planning"):
            self.dismiss(None)
        elif self.state == "running":
            self._stop = True
            self._redraw()
        else:
            self.dismiss(self.outcome)

    @on(Worker.StateChanged)
    def _forward_worker_state(self, event: Worker.StateChanged) -> None:
        # The app's one error handler shows what went wrong (ModalScreen does not forward it).
        console_app(self.app).handle_worker_state(event.worker, event.state)


_NOTHING = {"retry": "No failed job", "cancel": "No running or pending job", "play": "No manual job"}


def say_nothing_to_do(app: App[Any], plan: BulkPlan) -> None:
    """The toast for a plan without requests: nothing to do, and what was left out."""
    where = f" in {plan.scope}" if plan.scope else ""
    reasons = "; ".join(f"#{left.target.job.id} {left.reason}" for left in plan.left_out[:3])
    console_app(app).notify(f"{_NOTHING[plan.kind]}{where}." + (f" Left out: {reasons}" if reasons else ""),
                            severity="warning", timeout=5, markup=False)


def _finished(app: App[Any], title: Callable[[], str],
              on_done: Callable[[BulkOutcome], None] | None) -> Callable[[BulkOutcome | None], None]:
    def finished(outcome: BulkOutcome | None) -> None:
        if outcome is None:
            return
        complete = outcome.count(DONE) == len(outcome.results)
        console_app(app).notify(f"{title()}: {outcome.summary()}.", timeout=6, markup=False,
                                severity="information" if complete else "warning")
        if on_done is not None:
            on_done(outcome)

    return finished


def open_bulk_action(app: App[Any], plan: BulkPlan, *, project_path: str | None = None,
                     on_done: Callable[[BulkOutcome], None] | None = None) -> bool:
    """Open the dry run of ``plan`` at once (keys typed right after the key that asked for it must
    find the dialog), or say why there is nothing to send. After a run, a toast sums it up and
    ``on_done(outcome)`` runs (refresh there). True when the dialog opened."""
    console = console_app(app)
    if console.read_only:
        console.notify("Read-only mode: this action is disabled (:readonly toggles it).", severity="warning",
                       title="Read-only", markup=False)
        return False
    if not plan.requests:
        say_nothing_to_do(app, plan)
        return False
    app.push_screen(BulkActionScreen(plan, project_path), _finished(app, lambda: plan.title, on_done))
    return True


def open_planned_bulk_action(app: App[Any], kind: BulkKind, planner: Planner, *, planning: str,
                             reading: str = "", project_path: str | None = None,
                             on_done: Callable[[BulkOutcome], None] | None = None) -> bool:
    """As :func:`open_bulk_action` for a plan that needs reading first: the dialog opens at once
    and says ``planning`` (its title) and ``reading`` (what it reads) until ``planner()`` returns the plan (a plan with nothing to send closes
    it again with the usual toast). True when the dialog opened."""
    console = console_app(app)
    if console.read_only:
        console.notify("Read-only mode: this action is disabled (:readonly toggles it).", severity="warning",
                       title="Read-only", markup=False)
        return False
    screen = BulkActionScreen(None, project_path, planner=planner, planning=planning, reading=reading, kind=kind)
    app.push_screen(screen, _finished(app, lambda: screen.plan.title if screen.plan else planning, on_done))
    return True
