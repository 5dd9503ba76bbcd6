"""Job actions shared by the jobs list and the trace viewer: cancel, retry, play, erase, keep
artifacts, download artifacts, copy URL.

Every mutating action is confirmed first, is hidden in read-only mode, is sent once (never
replayed), and after an ambiguous failure (:class:`errors.OutcomeUnknown`) the job is re-read so
the user sees its real state.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from textual.screen import Screen

from labdeck.api import ApiClient, errors
from labdeck.api.models import Job
from labdeck.audit.context import AuditTarget, audit_context
from labdeck.ui.console import console_app
from labdeck.ui.dialogs.confirm import ConfirmScreen
from labdeck.ui.dialogs.download import DownloadProgressDialog, PathDialog, default_download_dir
from labdeck.ui.instances import Instance, client_of
from labdeck.watch import WatchTarget


@dataclass(frozen=True)
class JobAction:
    """How one mutating action is asked for and reported."""

    method: str
    """Name of the ``client.jobs`` method."""
    verb: str
    question: str
    done: str
    typed: bool = False
    danger: bool = False
    confirm: str = ""
    """Label of the confirm button (default: the verb)."""


ACTIONS = {
    "cancel": JobAction("cancel", "Cancel job", "Cancel this job?", "canceled", danger=True,
                        confirm="Yes, cancel it"),
    "retry": JobAction("retry", "Retry job", "Retry this job? A new job is created.", "retried"),
    "play": JobAction("play", "Play job", "Start this manual job?", "started"),
    "erase": JobAction("erase", "Erase job",
                       "Erase this job's log and artifacts? This cannot be undone.", "erased",
                       typed=True, danger=True),
    "keep": JobAction("keep_artifacts", "Keep artifacts",
                      "Keep this job's artifacts (they will no longer expire)?", "artifacts kept"),
}

RETRYABLE = frozenset({"success", "failed", "canceled"})
CANCELABLE = frozenset({"created", "pending", "running", "preparing", "waiting_for_resource", "scheduled", "manual"})

APPLIES_TO: dict[str, Callable[[Job], bool]] = {
    "cancel_job": lambda job: job.status in CANCELABLE,
    "retry_job": lambda job: job.status in RETRYABLE,
    "play_job": lambda job: job.status == "manual",
    "erase_job": lambda job: job.status in RETRYABLE | {"skipped"},
    "keep_artifacts": lambda job: bool(job.artifacts_file or job.artifacts),
}
"""Which jobs each action applies to (docs/wire-facts.md §4.3): a key that cannot apply is not offered."""


MUTATING_ACTIONS = frozenset(
    {"cancel_job", "retry_job", "play_job", "erase_job", "keep_artifacts", "bulk"}
)
"""Screen actions hidden in read-only mode."""


class JobActionsMixin:
    """Mixed into a Screen that has ``project_id``, ``project_path`` and
    ``selected_job()``. Override :meth:`after_job_action` to react to the result."""

    project_id: int
    project_path: str
    instance: Instance | None = None
    """The instance the job lives on (a board row's; None: the console's primary instance)."""

    def selected_job(self) -> Job | None:  # pragma: no cover - overridden
        """The job the actions apply to."""
        raise AssertionError("the screen provides selected_job()")

    def after_job_action(self, action: str, job: Job) -> None:
        """Called with the job record returned (or re-read) after an action."""

    def marked_job_ids(self) -> list[int]:
        """Jobs marked for a bulk action (``B`` bundles them instead of the selected one)."""
        return []

    # -- helpers -----------------------------------------------------------------------------

    @property
    def _screen(self) -> Screen[Any]:
        assert isinstance(self, Screen)
        return self

    @property
    def client(self) -> ApiClient:
        """The API client of the screen's instance (read each time: it is replaced after a sign-in)."""
        return client_of(self._screen.app, self._screen)

    def _read_only(self) -> bool:
        return console_app(self._screen.app).read_only or self.client.read_only

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Hide mutating bindings in read-only mode, and the ones the selected job cannot take
        (``r`` on a running job, ``p`` on one that is not manual …)."""
        if action in MUTATING_ACTIONS and self._read_only():
            return False
        applies = APPLIES_TO.get(action)
        if applies is not None:
            job = self.selected_job()
            if job is None or not applies(job):
                return False
        return True

    def job_url(self, job: Job) -> str:
        """The job's web address (the server's ``web_url`` when it gives one)."""
        if job.web_url:
            return job.web_url
        return f"{self.client.base_url.rstrip('/')}/{self.project_path}/-/jobs/{job.id}"

    def _describe(self, job: Job) -> str:
        return (
            f"Job #{job.id}  {job.name or ''}\n"
            f"Stage {job.stage or '—'} · ref {job.ref or '—'} · status {job.status or '—'}"
        )

    def _notify(self, message: str, severity: str = "information") -> None:
        self._screen.app.notify(message, severity=severity, markup=False)  # type: ignore[arg-type]

    # -- mutating actions ---------------------------------------------------------------------

    def request_job_action(self, name: str) -> None:
        """Ask for confirmation, then run ``ACTIONS[name]`` on the selected job."""
        if self._read_only():
            self._notify("Read-only mode: job actions are disabled.", "warning")
            return
        job = self.selected_job()
        if job is None:
            self._notify("Select a job first.", "warning")
            return
        action = ACTIONS[name]
        job_id = str(job.id)
        dialog = ConfirmScreen(
            f"{action.verb} #{job_id}", f"{action.question}\n\n{self._describe(job)}",
            action_label=action.confirm or action.verb, target=f"{self.project_path} · job #{job_id}",
            typed=job_id if action.typed else None, danger=action.danger,
        )

        def decided(confirmed: bool | None) -> None:
            if confirmed:
                self._screen.run_worker(self._perform(name, job), group="job-action",
                                        exit_on_error=False, description=action.verb)

        self._screen.app.push_screen(dialog, decided)

    async def _perform(self, name: str, job: Job) -> None:
        action = ACTIONS[name]
        job_id = job.id
        method = getattr(self.client.jobs, action.method)
        context = audit_context(
            action=f"jobs.{name}", target=AuditTarget(project=self.project_path, job=job_id),
            confirmation=f"typed:{job_id}" if action.typed else "dialog")
        try:
            with context:
                result = await method(self.project_id, job_id)
        except errors.OutcomeUnknown as lost:
            # "the server answered 502 Bad Gateway" is not "no answer": both leave the outcome unknown.
            happened = lost.what_happened()
            self._notify(f"{happened[:1].upper()}{happened[1:]} for {action.verb.lower()} #{job_id}; "
                         "re-reading the job…", "warning")
            try:
                result = await self.client.jobs.get(self.project_id, job_id)
            except errors.ApiError as exc:
                self._notify(f"Job #{job_id}: state unknown ({exc.user_message()}). Refresh later.",
                             "error")
                return
            self._notify(f"Job #{job_id} is now {result.status}.", "warning")
            self.after_job_action(name, result)
            return
        except errors.ApiError as exc:
            self._notify(f"{action.verb} #{job_id} failed: {exc.user_message()}", "error")
            return
        if name == "retry" and result.id != job_id:
            self._notify(f"Job #{job_id} retried as job #{result.id} ({result.status}).")
        elif result.status == action.done:
            self._notify(f"Job #{job_id} {action.done}.")
        else:
            self._notify(f"Job #{job_id} {action.done}; status: {result.status}.")
        self.after_job_action(name, result)

    def action_cancel_job(self) -> None:
        """Cancel the selected job (confirmed)."""
        self.request_job_action("cancel")

    def action_retry_job(self) -> None:
        """Retry the selected job (confirmed); the new job is selected."""
        self.request_job_action("retry")

    def action_play_job(self) -> None:
        """Start the selected manual job (confirmed)."""
        self.request_job_action("play")

    def action_erase_job(self) -> None:
        """Erase the selected job's log and artifacts (type the job id)."""
        self.request_job_action("erase")

    def action_keep_artifacts(self) -> None:
        """Keep the selected job's artifacts (confirmed)."""
        self.request_job_action("keep")

    # -- read-only actions --------------------------------------------------------------------

    def action_alert_job(self) -> None:
        """``W``: alert when the job finishes or fails (a retry of it counts); again: stop."""
        job = self.selected_job()
        if job is None:
            return
        target = WatchTarget.for_job(self.project_id, self.project_path, job)
        on = console_app(self._screen.app).watching.toggle_alert(target)
        self._notify(f"{'Alert when' if on else 'No more alerts for'} job #{job.id} {job.name or ''}"
                     f"{' finishes or fails.' if on else '.'}")

    def action_bundle(self) -> None:
        """``B``: the incident bundle of the marked jobs, else of the selected one (reads only)."""
        from labdeck.ui.dialogs.bundle import request_bundle

        marked = self.marked_job_ids()
        job = self.selected_job()
        if not marked and job is None:
            self._notify("Pick a job first.", "warning")
            return
        request_bundle(self._screen, self.project_path, project=self.project_id,
                       job=None if marked or job is None else job.id, jobs=marked)

    def action_copy_url(self) -> None:
        """Copy the job's URL to the clipboard (OSC 52 through the terminal)."""
        job = self.selected_job()
        if job is None:
            return
        url = self.job_url(job)
        self._screen.app.copy_to_clipboard(url)
        self._notify(f"Copied {url}")

    def action_download_artifacts(self) -> None:
        """Ask where to save the archive (or one file of it), then download with progress."""
        job = self.selected_job()
        if job is None:
            return
        archive = job.artifacts_file
        if not archive:
            self._notify(f"Job #{job.id} has no artifacts.", "warning")
            return
        filename = archive.filename or "artifacts.zip"
        default = default_download_dir() / f"job-{job.id}-{Path(filename).name}"

        def chosen(answer: tuple[str, Path] | None) -> None:
            if answer is not None:
                inner, dest = answer
                if dest.exists():
                    self._notify(f"{dest} already exists; choose another path.", "warning")
                    return
                if not dest.parent.is_dir():
                    self._notify(f"Folder {dest.parent} does not exist.", "error")
                    return
                self._screen.run_worker(self._download(job, inner, dest), group="job-download",
                                        exit_on_error=False, description="Download artifacts")

        self._screen.app.push_screen(
            PathDialog(f"Download artifacts of job #{job.id}", default, ask_inner_path=True),
            chosen,
        )

    async def _download(self, job: Job, inner: str, dest: Path) -> None:
        job_id = job.id
        progress = DownloadProgressDialog(f"Downloading {inner or 'artifacts'} of job #{job_id}")
        await self._screen.app.push_screen(progress)
        try:
            if inner:
                await self.client.jobs.artifact_file(self.project_id, job_id, inner, dest,
                                                     progress.update_progress)
            else:
                await self.client.jobs.download_artifacts(self.project_id, job_id, dest,
                                                          progress.update_progress)
        except errors.ApiError as exc:
            self._notify(f"Download failed: {exc.user_message()}", "error")
        except OSError as exc:
            self._notify(f"Could not write {dest}: {exc.strerror}", "error")
        else:
            self._notify(f"Saved {dest}.")
        finally:
            progress.dismiss()
