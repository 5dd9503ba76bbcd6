"""The jobs table: one row per job, optional group rows per pipeline and stage, and a highlight
on rows whose status changed since the previous refresh."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from rich.style import Style
from rich.text import Text
from textual.app import App
from textual.color import Color, ColorParseError
from textual.widgets import DataTable
from textual.widgets.data_table import RowDoesNotExist

from labdeck.api.models.ci import JobStatus
from labdeck.ui.formatting import size as format_size

ACTIVE_STATUSES = JobStatus.ACTIVE | {JobStatus.CREATED, JobStatus.SCHEDULED, "started"}
"""Statuses that can still change without anyone pressing a key (drives the fast refresh);
``started`` is what a play response says."""
FINISHED_STATUSES = JobStatus.FINISHED
ALL_SCOPES = JobStatus.SCOPES
"""The values the server accepts in ``scope[]``."""

GROUP_MODES = ("none", "pipeline", "stage")
"""Grouping cycle: flat list, by pipeline, by pipeline and stage."""

COLUMNS: tuple[tuple[str, str], ...] = (
    ("id", "ID"),
    ("status", "Status"),
    ("stage", "Stage"),
    ("name", "Name"),
    ("ref", "Ref"),
    ("pipeline", "Pipeline"),
    ("user", "User"),
    ("created", "Created"),
    ("started", "Started"),
    ("finished", "Finished"),
    ("duration", "Duration"),
    ("runner", "Runner"),
    ("artifacts", "Artifacts"),
)

_STATUS_THEME_KEYS = {
    "success": ("job-success", "success"),
    "failed": ("job-failed", "error"),
    "running": ("job-running", "primary"),
    "pending": ("job-pending", "warning"),
    "created": ("job-pending", "warning"),
    "preparing": ("job-pending", "warning"),
    "waiting_for_resource": ("job-pending", "warning"),
    "canceled": ("job-canceled", "text-muted"),
    "skipped": ("job-skipped", "text-muted"),
    "manual": ("job-manual", "accent"),
}


def theme_color(app: App[Any], *names: str) -> str | None:
    """The first of the theme variables ``names`` that is a plain colour, as ``#rrggbb``.
    (Some variables are expressions such as ``auto 60%`` that only CSS understands.)"""
    variables = app.theme_variables
    for name in names:
        value = variables.get(name)
        if not value:
            continue
        try:
            return Color.parse(value).hex6
        except ColorParseError:
            continue
    return None


def field(obj: Any, name: str, default: Any = None) -> Any:
    """Read an attribute of an API model (or a key of a dict) without failing on absent fields:
    the server omits some fields in some responses (``pipeline`` in action responses)."""
    if obj is None:
        return default
    if isinstance(obj, dict):
        return obj.get(name, default)
    return getattr(obj, name, default)


def pipeline_id(job: Any) -> int | None:
    """The id of the job's pipeline, if the response carried it."""
    value = field(field(job, "pipeline"), "id")
    return int(value) if isinstance(value, int) else None


def format_time(moment: datetime | None) -> str:
    """Compact UTC timestamp (no relative times: the table must not depend on the local clock)."""
    if moment is None:
        return "—"
    return moment.strftime("%m-%d %H:%M:%S")


def format_duration(seconds: float | None) -> str:
    """``1h02m``, ``3m05s``, ``12s``; an em dash when unknown."""
    if seconds is None:
        return "—"
    total = int(seconds)
    hours, rest = divmod(total, 3600)
    minutes, secs = divmod(rest, 60)
    if hours:
        return f"{hours}h{minutes:02d}m"
    if minutes:
        return f"{minutes}m{secs:02d}s"
    return f"{secs}s"


def runner_label(job: Any) -> str:
    """The runner's description (or ``#id``) when the server says which runner took the job."""
    runner = field(job, "runner")
    if runner is None:
        return "—"
    description = field(runner, "description") or field(runner, "name")
    if description:
        return str(description)
    runner_id = field(runner, "id")
    return f"#{runner_id}" if runner_id is not None else "—"


def artifacts_label(job: Any) -> str:
    """Archive name and size, or nothing when the job kept no artifacts."""
    archive = field(job, "artifacts_file")
    if not archive:
        return ""
    name = field(archive, "filename") or "archive"
    size = field(archive, "size")
    return f"{name} ({format_size(size)})" if size is not None else str(name)


def user_label(job: Any) -> str:
    """The username of whoever started the job."""
    return str(field(field(job, "user"), "username") or "—")


@dataclass(frozen=True)
class JobFilter:
    """Client-side filters; the status filter goes to the server as ``scope[]``."""

    statuses: frozenset[str] = frozenset()
    stage: str = ""
    name: str = ""

    @classmethod
    def parse(cls, text: str, statuses: Iterable[str] = ()) -> JobFilter:
        """Read ``stage:test name:rspec`` or bare words (which match the name)."""
        stage_words: list[str] = []
        name_words: list[str] = []
        for word in text.split():
            key, sep, value = word.partition(":")
            if sep and key.lower() == "stage":
                stage_words.append(value)
            elif sep and key.lower() == "name":
                name_words.append(value)
            else:
                name_words.append(word)
        return cls(frozenset(statuses), " ".join(stage_words), " ".join(name_words))

    def text(self) -> str:
        """The filter as typed (without statuses)."""
        parts = []
        if self.stage:
            parts.append(f"stage:{self.stage}")
        if self.name:
            parts.append(self.name)
        return " ".join(parts)

    def matches(self, job: Any) -> bool:
        """Whether the job passes the stage and name filters."""
        stage = str(field(job, "stage") or "").lower()
        name = str(field(job, "name") or "").lower()
        if self.stage and self.stage.lower() not in stage:
            return False
        return all(word.lower() in name for word in self.name.split())


@dataclass(frozen=True)
class JobGroup:
    """A header row: one pipeline (and one stage of it, when grouping by stage)."""

    pipeline_id: int | None
    pipeline_status: str
    ref: str
    stage: str | None

    def cells(self, count: int) -> list[str]:
        """Cell texts laid over the table's first columns."""
        head = f"▾ #{self.pipeline_id}" if self.pipeline_id is not None else "▾ —"
        jobs = f"{count} job" + ("" if count == 1 else "s")
        return [head, self.pipeline_status, self.stage or "", f"[{jobs}]", self.ref]

    def title(self) -> str:
        """One-line description (tests, help)."""
        parts = [f"pipeline #{self.pipeline_id}", self.ref, self.pipeline_status]
        if self.stage:
            parts.append(f"stage {self.stage}")
        return " · ".join(part for part in parts if part)


def group_jobs(jobs: Sequence[Any], mode: str) -> list[tuple[JobGroup | None, list[Any]]]:
    """Order jobs for display. Returns ``(group or None, jobs)`` pairs; stages keep the order in
    which their first job was created, as in a pipeline graph."""
    if mode == "none":
        return [(None, sorted(jobs, key=lambda job: -int(field(job, "id", 0))))]
    by_pipeline: dict[int | None, list[Any]] = {}
    for job in jobs:
        by_pipeline.setdefault(pipeline_id(job), []).append(job)
    groups: list[tuple[JobGroup | None, list[Any]]] = []
    for pid in sorted(by_pipeline, key=lambda value: -(value or 0)):
        members = sorted(by_pipeline[pid], key=lambda job: int(field(job, "id", 0)))
        pipeline = field(members[0], "pipeline")
        ref = str(field(pipeline, "ref") or field(members[0], "ref") or "")
        status = str(field(pipeline, "status") or "")
        if mode == "pipeline":
            groups.append((JobGroup(pid, status, ref, None), members))
            continue
        stages: dict[str, list[Any]] = {}
        for job in members:
            stages.setdefault(str(field(job, "stage") or "—"), []).append(job)
        for stage, stage_jobs in stages.items():
            groups.append((JobGroup(pid, status, ref, stage), stage_jobs))
    return groups


class JobTable(DataTable[Any]):
    """A row-cursor table of jobs. Row keys are job ids as strings; group rows are ``group:N``."""

    DEFAULT_CSS = """
    JobTable { height: 1fr; }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id, cursor_type="row", zebra_stripes=False)
        self.jobs_by_key: dict[str, Any] = {}
        self.groups: dict[str, JobGroup] = {}
        """Header rows by row key."""

    def on_mount(self) -> None:
        """Create the columns once."""
        for key, label in COLUMNS:
            self.add_column(label, key=key)

    def _color(self, status: str) -> str | None:
        return theme_color(self.app, *_STATUS_THEME_KEYS.get(status, ()))

    def status_text(self, status: str) -> Text:
        """The status cell, coloured from the theme."""
        color = self._color(status)
        return Text(status, style=Style(color=color, bold=status in ("failed", "running")) if color else "")

    def _cells(self, job: Any, changed: bool) -> list[Text]:
        status = str(field(job, "status") or "")
        pid = pipeline_id(job)
        values = [
            Text(str(field(job, "id", ""))),
            self.status_text(status),
            Text(str(field(job, "stage") or "")),
            Text(str(field(job, "name") or "")),
            Text(str(field(job, "ref") or "")),
            Text(f"#{pid}" if pid is not None else "—"),
            Text(user_label(job)),
            Text(format_time(field(job, "created_at"))),
            Text(format_time(field(job, "started_at"))),
            Text(format_time(field(job, "finished_at"))),
            Text(format_duration(field(job, "duration"))),
            Text(runner_label(job)),
            Text(artifacts_label(job)),
        ]
        if changed:
            highlight = theme_color(self.app, "warning-muted", "warning") or "yellow"
            for cell in values:
                cell.stylize(Style(bgcolor=highlight, bold=True))
        return values

    def _group_cells(self, group: JobGroup, count: int) -> list[Text]:
        accent = theme_color(self.app, "accent")
        style = Style(bold=True, color=accent)
        cells = [Text(value, style=style) for value in group.cells(count)]
        cells[1] = self.status_text(group.pipeline_status)
        cells[1].stylize(Style(bold=True))
        return cells + [Text("")] * (len(COLUMNS) - len(cells))

    def show_jobs(self, jobs: Sequence[Any], *, changed: set[int], group_mode: str) -> None:
        """Replace the rows, keeping the cursor on the same job when it is still listed."""
        current = self.selected_key()
        self.clear(columns=False)
        self.jobs_by_key.clear()
        self.groups.clear()
        for index, (group, members) in enumerate(group_jobs(jobs, group_mode)):
            if group is not None:
                self.add_row(*self._group_cells(group, len(members)), key=f"group:{index}")
                self.groups[f"group:{index}"] = group
            for job in members:
                key = str(field(job, "id"))
                self.jobs_by_key[key] = job
                self.add_row(*self._cells(job, int(field(job, "id", 0)) in changed), key=key)
        if current is not None:
            self.select_job(current)
        elif self.jobs_by_key:
            self.select_job(next(iter(self.jobs_by_key)))

    def selected_key(self) -> str | None:
        """The key of the row under the cursor."""
        if self.row_count == 0:
            return None
        try:
            row_key, _ = self.coordinate_to_cell_key(self.cursor_coordinate)
        except Exception:  # the cursor may point past the end right after a clear
            return None
        return row_key.value

    def selected_job(self) -> Any | None:
        """The job under the cursor (None on a group row or an empty table)."""
        key = self.selected_key()
        return self.jobs_by_key.get(key) if key is not None else None

    def select_job(self, key: str | int) -> bool:
        """Move the cursor to a job; False when it is not listed."""
        try:
            index = self.get_row_index(str(key))
        except RowDoesNotExist:
            return False
        self.move_cursor(row=index, animate=False, scroll=True)
        return True
