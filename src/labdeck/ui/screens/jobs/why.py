"""Why a job failed and whose it is, and its recent runs, for the job detail and the log viewer.

:class:`WhyFailed` (top of the job detail): the verdict with its evidence in one or two lines and
whose it is; then the last runs of the same job name on the same ref (``✗✗✓✓✗✓``, newest first, with durations).
:class:`HistoryLine` (the log viewer's header): the runs alone. Both are filled by
:meth:`follow` in a worker (:meth:`labdeck.ui.triaging.Triaging.one`); ``…`` until then.
Server strings (signatures, commit titles, names) are shown as plain text, never as markup.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rich.style import Style
from rich.text import Text
from textual.widgets import Static

from labdeck.api import ApiClient, errors
from labdeck.api.models import Job
from labdeck.triage.collect import last_green
from labdeck.triage.history import ORDER_NOTE, History
from labdeck.triage.report import Failure
from labdeck.ui.dialogs.form import clean, theme_colour
from labdeck.ui.instances import triaging_of

if TYPE_CHECKING:
    from textual.app import App
    from textual.worker import Worker

KIND_COLOURS = {"infrastructure": "warning", "broken": "error", "flaky": "accent", "unknown": "foreground-muted"}
EVIDENCE_SHOWN = 3
"""Evidence lines shown (the log's line first, then what the history says), as ``labdeck triage``."""
DURATIONS_SHOWN = 8
"""Durations listed after the strip (the newest runs)."""


def history_text(history: History | None) -> str:
    """``last 3 runs on main (newest first): ✗✗✓ · took 10s 25s 45s`` (or why there is none): the
    marks and the durations in the same order, and the line says which."""
    if history is None or not history.runs:
        return "runs: none in the project's latest jobs page"
    durations = history.durations()[:DURATIONS_SHOWN]
    more = " …" if len(history.runs) > DURATIONS_SHOWN else ""
    return (f"{history.runs_said()} on {history.ref} ({ORDER_NOTE}): {history.strip()}"
            f" · took {' '.join(durations)}{more}")


async def green_baseline(app: App[Any], client: ApiClient, project_id: int, project_path: str,
                         job: Job) -> tuple[Job, bytes] | None:
    """The last green run of ``job`` on its ref and its log (the baseline of "new since green"),
    from the jobs page triage holds (else one read) and the shared log cache; None without one."""
    state = triaging_of(app, client)
    triager = state.triager(client)
    page = state.page(project_id)
    if page is None or not any(held.id == job.id for held in page):
        page = (await triager.page(project_id, project_path)).jobs
        state.keep_page(project_id, page)
    green = last_green(page, job)
    if green is None:
        return None
    return green, await triager.log_bytes(project_id, green)


def why_lines(failure: Failure) -> list[str]:
    """The verdict line, its evidence and whose it is (plain text)."""
    verdict = failure.verdict
    head = f"Why: {verdict.label} — {verdict.reason}"
    lines = [head, *verdict.evidence[:EVIDENCE_SHOWN]]
    if failure.owner:
        lines.append(f"whose: {failure.owner}")
    return lines


class WhyFailed(Static):
    """The verdict, evidence, owner and history of one job (hidden until :meth:`follow`)."""

    DEFAULT_CSS = """
    WhyFailed { height: auto; max-height: 6; padding: 0 1; background: $boost; display: none;
                text-wrap: nowrap; text-overflow: ellipsis; }
    WhyFailed.-shown { display: block; }
    """

    def __init__(self, *, id: str | None = None, history_only: bool = False) -> None:
        super().__init__("", id=id)
        self.history_only = history_only
        self.failure: Failure | None = None
        self.history: History | None = None
        self.done = 0
        """Completed look-ups (tests wait on it)."""
        self._key: tuple[int, str] | None = None

    def _style(self, *names: str) -> Style:
        colour = theme_colour(self.app, *names)
        return Style(color=colour) if colour else Style()

    def follow(self, client: ApiClient, project_id: int, project_path: str, job: Job) -> None:
        """Work out ``job``'s verdict (when failed) and history in a worker; ``…`` meanwhile."""
        key = (job.id, job.status)
        if key == self._key:
            return
        self._key = key
        self.add_class("-shown")
        if self.failure is None or self.failure.job.id != job.id:
            self.update(Text("Why: …" if job.status == "failed" and not self.history_only else "runs: …",
                             style=self._style("foreground-muted")))
        # Not exclusive (never cancelled half-way); an answer for an older state is dropped.
        # The function, not a coroutine made here: a worker that never starts (the view closed
        # meanwhile) then leaves no coroutine that was never awaited.
        async def read() -> None:
            await self._read(client, project_id, project_path, job)

        worker: Worker[None] = self.run_worker(read, group="why-failed", exit_on_error=False,
                                               description="Why did the job fail")
        del worker  # named only to give mypy the result type it cannot infer from a local function

    async def _read(self, client: ApiClient, project_id: int, project_path: str, job: Job) -> None:
        try:
            failure, history = await triaging_of(self.app, client).one(client, project_id, project_path, job)
        except errors.ApiError as exc:
            self.update(Text(clean(f"Why: cannot tell: {exc.user_message()}"), style=self._style("warning")))
        else:
            if self._key == (job.id, job.status):
                self.failure, self.history = failure, history.as_now(job) if history is not None else None
                self._render_answer()
        self.done += 1

    def _render_answer(self) -> None:
        text = Text(no_wrap=False)
        failure = self.failure
        if failure is not None and not self.history_only:
            lines = why_lines(failure)
            text.append(clean(lines[0]), style=self._style(KIND_COLOURS.get(failure.verdict.kind, "foreground"))
                        + Style(bold=True))
            for line in lines[1:]:
                text.append("\n" + clean(line), style=self._style("foreground-muted" if not line.startswith("whose")
                                                                  else "foreground"))
            text.append("\n")
        text.append(clean(history_text(self.history)), style=self._style("foreground-muted"))
        self.update(text)


class HistoryLine(WhyFailed):
    """The log viewer's header line: the job's last runs on its ref."""

    DEFAULT_CSS = """
    HistoryLine { height: auto; max-height: 2; padding: 0 1; border: none; background: $panel; display: none; }
    HistoryLine.-shown { display: block; }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id, history_only=True)
