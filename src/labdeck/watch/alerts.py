"""Alerts: ``W`` on a job, a pipeline or a project, and what fires when.

Rules (each fires once per transition, never on every poll, never for what was already so when
the watch started):

- job: when it finishes (``failed`` → a failure alert, else ``finished``). A job is followed by
  name within its pipeline, so a retry (a new job id) is the same target: retried and failing
  again fires again.
- pipeline: when it turns ``failed`` (as soon as a blocking job fails, even if others still run),
  else when it settles (nothing left that runs on its own) as ``finished``.
- project: when any pipeline of it turns ``failed`` that was not failed before (``new_failure``).

The baseline is the state passed with the target (the row or job the user pressed ``W`` on) or,
without one, the first reading after the watch started.

:class:`AlertEngine` is the poller's :class:`~labdeck.watch.subscriptions.AlertSink`; it lives on
the app, so alerts survive screen changes. :class:`AlertLog` keeps what fired for the session (the
``!`` screen) and, when given a state store, the last ``keep`` alerts across restarts (state file
key ``watch_alerts``, per instance). Delivery (toast, bell, desktop, title) is
:func:`terminal_output` with the channels of :class:`labdeck.base.config.AlertSettings`.
"""

from __future__ import annotations

import logging
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from typing import Any, Literal

from labdeck.api.client import instance_root
from labdeck.api.models import Job
from labdeck.base.statefile import StateStore
from labdeck.watch.pipelines import FAILED, FINISHED_JOB_STATUSES, PipelineRow, latest_tries
from labdeck.watch.terminal import (
    NotifyForm,
    bell,
    desktop_notification,
    sanitize,
    title_sequence,
    title_text,
)

log = logging.getLogger("labdeck.watch")
TargetKind = Literal["job", "pipeline", "project"]
Event = Literal["failed", "finished", "new_failure"]
LOG_KEY = "watch_alerts"
REMEMBERED_FAILURES = 100
"""Failed pipelines of a project target remembered once they have left the first page of jobs
(the newest by id: pipeline ids only grow)."""


@dataclass(frozen=True)
class WatchTarget:
    """What ``W`` was pressed on. ``status`` is its state at that moment (the baseline), if known."""

    kind: TargetKind
    project_id: int
    project_path: str
    pipeline_id: int | None = None
    job_name: str | None = None
    job_id: int | None = None
    status: str | None = field(default=None, compare=False)

    @classmethod
    def for_job(cls, project_id: int, project_path: str, job: Job) -> WatchTarget:
        pipeline = job.pipeline.id if job.pipeline is not None else None
        return cls("job", project_id, project_path, pipeline, job.name or f"#{job.id}", job.id, job.status or None)

    @classmethod
    def for_pipeline(cls, row: PipelineRow) -> WatchTarget:
        return cls("pipeline", row.project_id, row.project_path, row.pipeline_id, status=row.status)

    @classmethod
    def for_pipeline_id(cls, project_id: int, project_path: str, pipeline_id: int,
                        status: str | None = None) -> WatchTarget:
        """A pipeline known only by id (``status``: its state now, when known)."""
        return cls("pipeline", project_id, project_path, pipeline_id, status=status)

    @classmethod
    def for_project(cls, project_id: int, project_path: str) -> WatchTarget:
        return cls("project", project_id, project_path)

    @property
    def label(self) -> str:
        """``group/project``, ``group/project #45`` or ``group/project #45 unit-tests``."""
        if self.kind == "project":
            return self.project_path
        if self.kind == "pipeline":
            return f"{self.project_path} #{self.pipeline_id}"
        return f"{self.project_path} #{self.pipeline_id} {self.job_name}"


@dataclass(frozen=True)
class Alert:
    """One alert that fired. Text fields hold server text as is: sanitise (or escape markup)
    where it is shown; :func:`terminal_output` does for the terminal."""

    target: WatchTarget
    event: Event
    status: str
    title: str
    body: str
    at: datetime
    """Local time it fired (the log's "when")."""
    pipeline_id: int | None = None
    job_id: int | None = None

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["at"] = self.at.isoformat()
        return data

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Alert:
        target = WatchTarget(**{k: v for k, v in dict(data["target"]).items() if k != "status"})
        return cls(target, data["event"], str(data["status"]), str(data["title"]), str(data["body"]),
                   datetime.fromisoformat(str(data["at"])), data.get("pipeline_id"), data.get("job_id"))


class AlertLog:
    """What fired, newest last. Persisted only when ``store`` is given (see the module docstring)."""

    def __init__(self, *, keep: int = 200, store: StateStore | None = None, instance_url: str | None = None) -> None:
        self.keep = keep
        self._entries: deque[Alert] = deque(maxlen=keep)
        self._store = store
        self._instance = instance_root(instance_url) if instance_url else None
        self.unseen = 0
        """Alerts fired since :meth:`mark_seen` (the ``!`` badge)."""
        if store is not None and self._instance is not None:
            saved = store.load().get(LOG_KEY)
            for item in (saved.get(self._instance) if isinstance(saved, dict) else None) or []:
                try:
                    self._entries.append(Alert.from_json(item))
                except (KeyError, TypeError, ValueError):
                    continue  # an entry from another version: skip it, keep the rest

    def add(self, alert: Alert) -> None:
        self._entries.append(alert)
        self.unseen += 1
        if self._store is not None and self._instance is not None:
            data = self._store.load()
            saved = data.get(LOG_KEY) if isinstance(data.get(LOG_KEY), dict) else {}
            assert isinstance(saved, dict)
            saved[self._instance] = [entry.to_json() for entry in self._entries]
            data[LOG_KEY] = saved
            self._store.save(data)

    @property
    def entries(self) -> tuple[Alert, ...]:
        """Oldest first."""
        return tuple(self._entries)

    def mark_seen(self) -> None:
        self.unseen = 0


@dataclass
class _State:
    """What a target last looked like (None: no baseline yet)."""

    status: str | None = None
    settled: bool | None = None
    failed_pipelines: set[int] | None = None
    job_id: int | None = None
    """The job followed (job targets) or the newest job id of the pipeline (pipeline targets)."""


def _job_state(target: WatchTarget, rows: Sequence[PipelineRow]) -> Job | None:
    row = next((row for row in rows if row.pipeline_id == target.pipeline_id), None)
    if row is None:
        return None
    named = [job for job in row.jobs if (job.name or f"#{job.id}") == target.job_name]
    latest, _ = latest_tries(named)
    return latest[-1] if latest else None


class AlertEngine:
    """Watch targets and fire :class:`Alert` s from the poller's readings.

    ``on_alert(alert)`` is called for each alert (after it is logged): show the toast and write
    :func:`terminal_output` there. It runs on the poller's loop.
    """

    def __init__(self, log: AlertLog | None = None, on_alert: Callable[[Alert], None] | None = None, *,
                 now: Callable[[], datetime] = lambda: datetime.now(UTC)) -> None:
        self.log = log or AlertLog()
        self.on_alert = on_alert
        self._now = now
        self._targets: dict[WatchTarget, _State] = {}
        self._failing: set[WatchTarget] = set()

    # --- targets ----------------------------------------------------------------------------------

    @property
    def targets(self) -> tuple[WatchTarget, ...]:
        return tuple(self._targets)

    def is_watched(self, target: WatchTarget) -> bool:
        return target in self._targets

    def watch(self, target: WatchTarget, rows: Sequence[PipelineRow] | None = None) -> bool:
        """Start watching; ``rows``: the project's current rows, if the caller has them (baseline).
        False when already watched."""
        if target in self._targets:
            return False
        state = _State()
        if target.kind != "project" and target.status:
            state.status = target.status
            # A pipeline waiting only for manual jobs is settled; a manual job is not finished.
            state.settled = target.status in FINISHED_JOB_STATUSES or (
                target.kind == "pipeline" and target.status == "manual")
            state.job_id = target.job_id
        self._targets[target] = state
        if rows is not None:
            self._evaluate(target, state, rows, fire=False)
        return True

    def unwatch(self, target: WatchTarget) -> bool:
        self._failing.discard(target)
        return self._targets.pop(target, None) is not None

    def toggle(self, target: WatchTarget, rows: Sequence[PipelineRow] | None = None) -> bool:
        """``W``: watch when not watched, else stop; True when now watched."""
        if self.unwatch(target):
            return False
        return self.watch(target, rows)

    def failing(self) -> int:
        """Targets failing now (the title's count)."""
        return len(self._failing)

    # --- AlertSink --------------------------------------------------------------------------------

    def project_ids(self) -> frozenset[int]:
        return frozenset(target.project_id for target in self._targets)

    def pipeline_ids(self, project_id: int) -> frozenset[int]:
        return frozenset(t.pipeline_id for t in self._targets
                         if t.project_id == project_id and t.pipeline_id is not None)

    def project_path(self, project_id: int) -> str | None:
        return next((t.project_path for t in self._targets if t.project_id == project_id), None)

    def observe(self, project_id: int, rows: Sequence[PipelineRow], server_now: datetime) -> None:
        for target, state in list(self._targets.items()):
            if target.project_id == project_id:
                self._evaluate(target, state, rows, fire=True)

    # --- rules ------------------------------------------------------------------------------------

    def _evaluate(self, target: WatchTarget, state: _State, rows: Sequence[PipelineRow], *, fire: bool) -> None:
        if target.kind == "project":
            self._project(target, state, rows, fire)
            return
        if target.kind == "pipeline":
            row = next((row for row in rows if row.pipeline_id == target.pipeline_id), None)
            if row is None:
                return
            status, settled, detail = row.status, not row.unfinished, row
            job_id = None
        else:
            job = _job_state(target, rows)
            if job is None:
                return
            status, settled, detail = job.status, job.status in FINISHED_JOB_STATUSES, None
            job_id = job.id
        first = state.status is None
        was_failed, was_settled = state.status == FAILED, bool(state.settled)
        newest = max((job.id for job in detail.jobs), default=0) if detail is not None else job_id
        new_job = state.job_id is not None and newest != state.job_id
        retried = new_job and target.kind == "job"  # the followed job was retried: a new try
        if state.status in FINISHED_JOB_STATUSES and not settled and not new_job and state.job_id is not None:
            # Finished, then unfinished again without a new job (only a retry does that; a played
            # manual job is not "finished"): a reading older than the state the watch started from
            # (the jobs screen can be fresher than the poller). Not news; the state stays.
            return
        state.status, state.settled, state.job_id = status, settled, newest
        if status == FAILED:
            self._failing.add(target)
        else:
            self._failing.discard(target)
        if first or not fire:
            return
        if status == FAILED and (not was_failed or retried):
            self._fire(target, "failed", status, detail, job_id)
        elif settled and status != FAILED and (not was_settled or retried):
            self._fire(target, "finished", status, detail, job_id)

    def _project(self, target: WatchTarget, state: _State, rows: Sequence[PipelineRow], fire: bool) -> None:
        failed = {row.pipeline_id: row for row in rows if row.status == FAILED}
        known = {row.pipeline_id for row in rows}
        if state.failed_pipelines is None or not fire:
            state.failed_pipelines = set(failed)
        else:
            for pipeline_id, row in sorted(failed.items()):
                if pipeline_id not in state.failed_pipelines:
                    self._fire(target, "new_failure", FAILED, row, None)
            # A pipeline that recovered (retried) may fail again. Those that left the page are
            # remembered (no second alert if one comes back), the newest few only: a project
            # watched for a week would otherwise keep every pipeline that ever failed there.
            left = sorted(pid for pid in state.failed_pipelines if pid not in known)
            state.failed_pipelines = set(failed) | set(left[-REMEMBERED_FAILURES:])
        if any(row.broken for row in rows):
            self._failing.add(target)
        else:
            self._failing.discard(target)

    def _fire(self, target: WatchTarget, event: Event, status: str, row: PipelineRow | None, job_id: int | None) -> None:
        title, body = describe(target, event, status, row)
        alert = Alert(target, event, status, title, body, self._now(),
                      row.pipeline_id if row is not None else target.pipeline_id, job_id)
        self.log.add(alert)
        if self.on_alert is not None:
            try:
                self.on_alert(alert)
            except Exception:  # the UI's problem must not lose the next alert
                log.exception("watch: alert delivery failed")


_MARK = {"failed": "✗", "success": "✓", "canceled": "⊘", "skipped": "»", "manual": "▶"}


def describe(target: WatchTarget, event: Event, status: str, row: PipelineRow | None) -> tuple[str, str]:
    """Title and body of an alert (plain text; server text unsanitised)."""
    mark = _MARK.get(status, "•")
    word = {"failed": "failed", "success": "passed", "canceled": "canceled", "skipped": "skipped",
            "manual": "waits for a manual job"}.get(status, status)
    if event == "new_failure" and row is not None:
        failed = ", ".join(row.failed_jobs[:3])
        return f"✗ new failure in {target.project_path}", f"#{row.pipeline_id} {row.ref or ''} · {failed}".strip()
    if target.kind == "pipeline":
        jobs = f" · {', '.join(row.failed_jobs[:3])}" if row is not None and row.failed_jobs else ""
        return f"{mark} pipeline {word}", f"{target.label}{jobs}"
    return f"{mark} job {word}", target.label


@dataclass(frozen=True)
class AlertChannels:
    """Which alert channels are on (see :meth:`labdeck.base.config.AlertSettings.channels`)."""

    toast: bool = False
    bell: bool = False
    desktop: bool = False
    title: bool = False
    notify: NotifyForm = "auto"

    @classmethod
    def from_settings(cls, settings: Any, *, interactive: bool) -> AlertChannels:
        """From :class:`labdeck.base.config.AlertSettings`. ``interactive``: a person's terminal (False
        under ``App.run_test()``, in screenshots and when headless): then only channels set to
        ``true`` in the config are on, so tests and snapshots stay silent unless they ask."""
        notify: NotifyForm = "auto"
        if settings.notify in ("osc9", "osc777", "both"):
            notify = settings.notify
        return cls(toast=settings.enabled("toast", interactive=interactive),
                   bell=settings.enabled("bell", interactive=interactive),
                   desktop=settings.enabled("desktop", interactive=interactive),
                   title=settings.enabled("title", interactive=interactive), notify=notify)


def terminal_output(alert: Alert, channels: AlertChannels, env: Mapping[str, str]) -> str:
    """The exact string to write to the terminal for ``alert`` (empty when no channel wants one):
    BEL, then the desktop notification (tmux-wrapped inside tmux). All server text is sanitised."""
    out = bell() if channels.bell else ""
    if channels.desktop:
        out += desktop_notification(sanitize(alert.title, 80), sanitize(alert.body), env, channels.notify)
    return out


def title_output(failed: int, channels: AlertChannels, app: str = "labdeck") -> str:
    """The title sequence for ``failed`` failing targets ("" when the title channel is off)."""
    return title_sequence(title_text(failed, app)) if channels.title else ""
