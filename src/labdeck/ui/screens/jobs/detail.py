"""One job's details, and why a waiting job waits.

    app.push_screen(JobDetailScreen(project_id, project_path, job))

Tags, failure reason, queued time, runner, pipeline, commit, user and web address, read fresh from
``GET /projects/:id/jobs/:job_id``. For a job that waits for a runner (pending, created, waiting
for a resource, preparing) or was dropped as stuck, a panel above explains why from the project's
runners (:func:`labdeck.triage.gather.explain_job`, in a worker; shown as soon as it arrives;
``r`` works it out again).

For the log viewer: :func:`pending_headline` gives the one-line explanation, and
:class:`PendingReasonLine` is a header line that shows it for a waiting job and hides otherwise.
"""

from __future__ import annotations

from datetime import datetime
from typing import ClassVar

from rich.style import Style
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.widgets import Static

from labdeck.api import ApiClient, errors
from labdeck.api.models import Job
from labdeck.base.durations import format_duration
from labdeck.triage.gather import explain_job
from labdeck.triage.pending import PendingExplanation
from labdeck.ui.dialogs.form import clean, field_row, fields_table, theme_colour
from labdeck.ui.screens.jobs.why import WhyFailed
from labdeck.ui.screens.table_section import TableSectionScreen
from labdeck.ui.widgets.resource_table import ResourceTable, TableRow

WAITING_STATUSES = frozenset({"pending", "created", "waiting_for_resource", "preparing"})
"""Statuses in which a job waits for something (a runner, an earlier stage, a resource)."""
STUCK_REASON = "stuck_or_timeout_failure"
"""The ``failure_reason`` of a job the server gave up waiting for (GitLab drops it after an hour)."""


def waits(job: Job) -> bool:
    """True when the job waits, or was dropped because no runner took it: worth explaining."""
    return job.status in WAITING_STATUSES or (job.status == "failed" and job.failure_reason == STUCK_REASON)


async def explain_waiting(client: ApiClient, project_id: int, job: Job, *,
                          now: datetime | None = None) -> PendingExplanation:
    """Why ``job`` waits. A job dropped as stuck is explained as if it still waited, i.e. what would
    stop it now. ``now`` defaults to the server's time (its ``Date``)."""
    if job.status == "failed" and job.failure_reason == STUCK_REASON:
        answer = await explain_job(client, project_id, job.model_copy(update={"status": "pending"}), now=now)
        return PendingExplanation(answer.reason, f"dropped as stuck; today: {answer.headline}", answer.details,
                                  answer.candidates)
    return await explain_job(client, project_id, job, now=now)


async def pending_headline(client: ApiClient, project_id: int, job: Job, now: datetime | None = None) -> str | None:
    """The one-line explanation for the log viewer's header; None when the job does not wait.
    Plain text (server strings included): show it as ``rich.text.Text``, never as markup."""
    if not waits(job):
        return None
    try:
        answer = await explain_waiting(client, project_id, job, now=now)
    except errors.ApiError as exc:
        return f"cannot tell why it waits: {exc.user_message()}"
    return answer.headline


def job_web_url(client: ApiClient, project_path: str, job: Job) -> str:
    """The job's web address: the server's ``web_url``, else the usual ``<project>/-/jobs/<id>``."""
    return job.web_url or f"{client.base_url.rstrip('/')}/{project_path}/-/jobs/{job.id}"


def _duration(seconds: float | None) -> str | None:
    return format_duration(seconds) if seconds is not None else None


def queued_text(job: Job, now: datetime) -> str | None:
    """How long the job waited for a runner (``queued_duration``, else started − created; so far
    for a job still waiting)."""
    so_far = " so far" if job.status in WAITING_STATUSES else ""
    if job.queued_duration is not None:
        return format_duration(job.queued_duration) + so_far
    if job.created_at is None:
        return None
    if job.started_at is not None:
        return format_duration((job.started_at - job.created_at).total_seconds())
    if job.status in WAITING_STATUSES:
        return format_duration(max((now - job.created_at).total_seconds(), 0)) + so_far
    return None


def runner_text(job: Job) -> str | None:
    """``shared-docker-01 (#1) · online · active``, or None before a runner took the job."""
    runner = job.runner
    if runner is None:
        return None
    parts = [f"{runner.description or runner.name or 'runner'} (#{runner.id})"]
    if runner.online is not None:
        parts.append("online" if runner.online else "offline")
    if runner.paused is not None:
        parts.append("paused" if runner.paused else "active")
    if runner.is_shared is not None:
        parts.append("shared" if runner.is_shared else "specific")
    return " · ".join(parts)


def job_rows(job: Job, now: datetime) -> list[TableRow]:
    """The (field, value) rows of a job's detail."""
    pipeline = job.pipeline
    commit = job.commit
    user = job.user
    rows = [
        field_row("job", f"#{job.id} {job.name or ''}"),
        field_row("status", job.status),
        field_row("stage", job.stage),
        field_row("ref", f"{job.ref or '—'}{' (tag)' if job.tag else ''}"),
        field_row("tags", ", ".join(job.tag_list) if job.tag_list else "none (untagged job)"),
        field_row("failure_reason", job.failure_reason),
        field_row("queued", queued_text(job, now)),
        field_row("runner", runner_text(job) or "none yet"),
        field_row("duration", _duration(job.duration)),
        field_row("created_at", job.created_at, now),
        field_row("started_at", job.started_at, now),
        field_row("finished_at", job.finished_at, now),
        field_row("pipeline", None if pipeline is None else
                  f"#{pipeline.id} · {pipeline.status or '?'} · {pipeline.ref or '—'} @ {(pipeline.sha or '')[:8]}"),
        field_row("commit", None if commit is None else f"{commit.short_id or (commit.id or '')[:8]} {commit.title or ''}"),
        field_row("user", None if user is None else f"{user.username}" + (f" ({user.name})" if user.name else "")),
        field_row("allow_failure", job.allow_failure),
        field_row("web_url", job.web_url),
    ]
    return rows


class WhyPending(Vertical):
    """The explanation panel: the headline (wrapped), then one line per runner (cut to the width);
    hidden for jobs that do not wait."""

    DEFAULT_CSS = """
    WhyPending { height: auto; max-height: 10; padding: 0 1; border: round $warning; display: none; }
    WhyPending.-shown { display: block; }
    WhyPending > #why-headline { width: 100%; height: auto; }
    WhyPending > #why-details { width: 100%; height: auto; text-wrap: nowrap; text-overflow: ellipsis; }
    """

    def compose(self) -> ComposeResult:
        yield Static("", id="why-headline")
        yield Static("", id="why-details")

    def _style(self, *names: str) -> Style:
        colour = theme_colour(self.app, *names)
        return Style(color=colour) if colour else Style(dim=True)

    def show_text(self, text: str) -> None:
        """A one-line state (working it out, or why it could not)."""
        self.add_class("-shown")
        self.query_one("#why-headline", Static).update(
            Text(clean(text), style=self._style("foreground-muted", "foreground")))
        self.query_one("#why-details", Static).update("")

    def show_answer(self, answer: PendingExplanation) -> None:
        """The explanation, as inert text."""
        self.add_class("-shown")
        headline = Text()
        headline.append("Why is it pending? ", style=Style(bold=True))
        headline.append(clean(answer.headline),
                        style=self._style("warning" if answer.is_problem else "success") + Style(bold=True))
        self.query_one("#why-headline", Static).update(headline)
        details = Text("\n".join(f"• {clean(line)}" for line in answer.details),
                       style=self._style("foreground-muted", "foreground"))
        self.query_one("#why-details", Static).update(details)


class JobDetailScreen(TableSectionScreen):
    """See the module docstring."""

    SECTION_TITLE = "Job"
    TABLE_ID = "job-fields"
    BINDING_GROUP_TITLE = "Job"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("r", "explain", "Why pending", id="job-detail.explain",
                tooltip="Work out again why the job waits (runners may have changed)"),
    ]
    HELP = """
## Job
Every field of one job. At the top, for a failed job: why it failed (infra, flaky, broken since
#N, or ? when the evidence is not there yet), the evidence and whose it is; for every job, its last
runs on the same ref, newest first (✗✗✓✗✓✓, with durations in the same order). For a job waiting for a runner (or dropped as stuck) the panel says why,
from the project's runners: tags nobody has, runners offline or paused, shared runners disabled,
untagged jobs refused, all matching runners busy.

- **r** work it out again · **ctrl+r** read the job again · **y** copy the job's URL
"""

    def __init__(self, project_id: int, project_path: str, job: Job) -> None:
        super().__init__()
        self.project_id = project_id
        self.project_path = project_path
        self.job = job
        self.explanation: PendingExplanation | None = None
        """The last explanation (None before it arrived, or for a job that does not wait)."""
        self.explain_count = 0
        """Completed explanations (tests wait on it)."""
        self.context_text = f"{project_path} · #{job.id} {job.name or ''}"

    def make_table(self) -> ResourceTable:
        return fields_table(self.TABLE_ID)

    def compose_content(self) -> ComposeResult:
        yield WhyFailed(id="why-failed")
        yield WhyPending(id="why-pending")
        yield from super().compose_content()

    def on_mount(self) -> None:
        """Show the record we have at once (Textual then runs ``TableSectionScreen.on_mount``,
        which loads it again and so explains it)."""
        self._show(self.job)

    def _show(self, job: Job) -> None:
        self.job = job
        self.replace_rows(job_rows(job, self.console_app.clock()))

    async def load(self) -> None:
        """Read the job again, then explain it if it waits."""
        previous = self.job
        job = await self.client.jobs.get(self.project_id, self.job.id)
        if job.pipeline is None and previous.pipeline is not None:
            job = job.model_copy(update={"pipeline": previous.pipeline})
        self._show(job)
        self.mark_loaded()
        self.query_one(WhyFailed).follow(self.client, self.project_id, self.project_path, job)
        if self.explanation is None or job.status != previous.status:
            self.action_explain()

    def action_explain(self) -> None:
        """Work out (again) why the job waits, in a worker; the panel says so meanwhile."""
        panel = self.query_one(WhyPending)
        if not waits(self.job):
            panel.remove_class("-shown")
            return
        panel.show_text("Why is it pending? Reading the project's runners…")
        self.run_api(self._explain, "explain")

    async def _explain(self) -> None:
        panel = self.query_one(WhyPending)
        try:
            answer = await explain_waiting(self.client, self.project_id, self.job)
        except errors.ApiError as exc:
            panel.show_text(f"Why is it pending? Cannot tell: {exc.user_message()}")
        else:
            self.explanation = answer
            panel.show_answer(answer)
        self.explain_count += 1

    def copy_target(self) -> str | None:
        """``y`` copies the job's web address."""
        return job_web_url(self.client, self.project_path, self.job)


class PendingReasonLine(Static):
    """For the log viewer: one line saying why a waiting job waits; hidden for other jobs.

    Call :meth:`follow` whenever the viewer learns the job's state; it explains again only when
    the job or its status changed."""

    DEFAULT_CSS = """
    PendingReasonLine { height: auto; max-height: 2; padding: 0 1; background: $panel; display: none; }
    PendingReasonLine.-shown { display: block; }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__("", id=id)
        self.headline: str | None = None
        self._key: tuple[int, str] | None = None

    def follow(self, client: ApiClient, project_id: int, job: Job) -> None:
        """Show why ``job`` waits (worked out in a worker), or hide."""
        key = (job.id, job.status)
        if key == self._key:
            return
        self._key = key
        if not waits(job):
            self.headline = None
            self.remove_class("-shown")
            return
        self.add_class("-shown")
        self._say("why pending: reading the project's runners…")
        self.run_worker(self._explain(client, project_id, job), exclusive=True, group="pending-line",
                        exit_on_error=False, description="Why is the job pending")

    async def _explain(self, client: ApiClient, project_id: int, job: Job) -> None:
        headline = await pending_headline(client, project_id, job)
        if headline is not None and self._key == (job.id, job.status):
            self.headline = headline
            self._say(f"why pending: {headline}")

    def _say(self, text: str) -> None:
        colour = theme_colour(self.app, "warning")
        self.update(Text(clean(text), style=Style(color=colour) if colour else "", overflow="ellipsis"))

