"""The jobs table: one row per job, optional group rows per pipeline and stage, and a highlight
on rows whose status changed since the previous refresh."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import ClassVar

from rich.style import Style
from rich.text import Text
from textual import events
from textual.binding import Binding, BindingType
from textual.widgets import DataTable
from textual.widgets.data_table import RowDoesNotExist

from labdeck.api.models.ci import Job, JobStatus
from labdeck.base.durations import format_duration
from labdeck.ui.console import console_app
from labdeck.ui.dialogs.form import clean, theme_colour
from labdeck.ui.formatting import relative_time
from labdeck.ui.formatting import size as format_size
from labdeck.ui.instances import instance_of, primary_triaging
from labdeck.ui.triaging import Triaging
from labdeck.ui.widgets.status_colours import STATUS_THEME_KEYS
from labdeck.watch.pipelines import latest_tries

ACTIVE_STATUSES = JobStatus.ACTIVE | {JobStatus.CREATED, JobStatus.SCHEDULED, "started"}
"""Statuses that can still change without anyone pressing a key (drives the fast refresh);
``started`` is what a play response says."""
FINISHED_STATUSES = JobStatus.FINISHED
ALL_SCOPES = JobStatus.SCOPES
"""The values the server accepts in ``scope[]``."""

GROUP_MODES = ("none", "pipeline", "stage")
"""Grouping cycle: flat list, by pipeline, by pipeline and stage."""

@dataclass(frozen=True)
class JobColumn:
    """One column of the jobs table; ``max_width`` cuts longer cells with an ellipsis."""

    key: str
    label: str
    max_width: int | None = None


COLUMNS: tuple[JobColumn, ...] = (
    JobColumn("id", "ID"),
    JobColumn("status", "Status"),
    JobColumn("duration", "Duration"),
    JobColumn("stage", "Stage", 14),
    JobColumn("name", "Name", 40),
    JobColumn("ref", "Ref", 20),
    JobColumn("pipeline", "Pipeline"),
    JobColumn("user", "User", 12),
    JobColumn("created", "Created"),
    JobColumn("runner", "Runner", 16),
    JobColumn("why", "Why", 18),
    JobColumn("reason", "Reason", 16),
    JobColumn("artifacts", "Artifacts", 10),
)
"""Every column, in order, on a terminal of :data:`FULL_FROM` columns or more. Start and finish
times are in the job's record (the log viewer's header shows the duration); the table shows ages."""

MEDIUM_COLUMNS: tuple[JobColumn, ...] = tuple(column for column in COLUMNS
                                              if column.key not in ("user", "artifacts", "reason"))
"""From :data:`MEDIUM_FROM` columns (120 included): all but the user (``/user:NAME`` still filters),
the failure reason (the Why column's verdict says more; the job's record has the reason)
and the artifacts (the job's record has them; ``d`` downloads)."""

NARROW_COLUMNS: tuple[JobColumn, ...] = (
    JobColumn("id", "ID"),
    JobColumn("status", "Status"),
    JobColumn("duration", "Duration"),
    JobColumn("stage", "Stage", 10),
    JobColumn("name", "Name", 22),
    JobColumn("ref", "Ref", 12),
    JobColumn("created", "Created"),
)
"""The essentials for a narrow terminal (80 columns)."""

FULL_FROM = 136
MEDIUM_FROM = 110


def columns_for(width: int) -> tuple[JobColumn, ...]:
    """The columns that fit a table ``width`` cells wide."""
    if width >= FULL_FROM:
        return COLUMNS
    return MEDIUM_COLUMNS if width >= MEDIUM_FROM else NARROW_COLUMNS




def pipeline_id(job: Job) -> int | None:
    """The id of the job's pipeline, if the response carried it (action responses omit it)."""
    return job.pipeline.id if job.pipeline is not None else None


def format_time(moment: datetime | None) -> str:
    """Compact UTC timestamp."""
    if moment is None:
        return "—"
    return moment.strftime("%m-%d %H:%M:%S")


def runner_label(job: Job) -> str:
    """The runner's description (or ``#id``) when the server says which runner took the job."""
    runner = job.runner
    if runner is None:
        return "—"
    return runner.description or runner.name or f"#{runner.id}"


def artifacts_label(job: Job, *, with_name: bool = True) -> str:
    """Archive name and size (only the size when ``with_name`` is False), or nothing when the job
    kept no artifacts."""
    archive = job.artifacts_file
    if not archive:
        return ""
    name = archive.filename or "archive"
    size = archive.size
    if not with_name:
        return format_size(size) if size is not None else "yes"
    return f"{name} ({format_size(size)})" if size is not None else str(name)


def user_label(job: Job) -> str:
    """The username of whoever started the job."""
    return (job.user.username if job.user is not None else None) or "—"


_FILTER_KEYS = ("status", "stage", "name", "ref", "user", "runner", "reason", "id")
"""``key:value`` words the ``/`` filter understands; a bare word may match any of them."""


def _filter_fields(job: Job) -> dict[str, str]:
    """The lower-cased texts of a job the ``/`` filter looks at."""
    return {
        "status": job.status.lower(),
        "stage": (job.stage or "").lower(),
        "name": (job.name or "").lower(),
        "ref": (job.ref or "").lower(),
        "user": user_label(job).lower(),
        "runner": runner_label(job).lower(),
        "reason": (job.failure_reason or "").lower(),
        "id": str(job.id),
    }


@dataclass(frozen=True)
class JobFilter:
    """Client-side filters; the status filter goes to the server as ``scope[]``.

    ``stage``/``name`` hold the ``stage:``/``name:`` words; ``words`` the other words, each of
    which must appear in one of status, stage, name, ref, user, runner or id (so ``/failed``
    lists the failed jobs); ``keyed`` the other ``key:value`` words (``ref:main``, ``user:ann``).
    """

    statuses: frozenset[str] = frozenset()
    stage: str = ""
    name: str = ""
    words: str = ""
    keyed: tuple[tuple[str, str], ...] = ()

    @classmethod
    def parse(cls, text: str, statuses: Iterable[str] = ()) -> JobFilter:
        """Read ``stage:test name:rspec ref:main failed`` (bare words match any field)."""
        stage_words: list[str] = []
        name_words: list[str] = []
        bare: list[str] = []
        keyed: list[tuple[str, str]] = []
        for word in text.split():
            key, sep, value = word.partition(":")
            key = key.lower()
            if sep and key == "stage":
                stage_words.append(value)
            elif sep and key == "name":
                name_words.append(value)
            elif sep and key in _FILTER_KEYS and value:
                keyed.append((key, value))
            else:
                bare.append(word)
        return cls(frozenset(statuses), " ".join(stage_words), " ".join(name_words), " ".join(bare),
                   tuple(keyed))

    def text(self) -> str:
        """The filter as typed (without statuses)."""
        parts = []
        if self.stage:
            parts.append(f"stage:{self.stage}")
        parts.extend(f"name:{word}" for word in self.name.split())
        parts.extend(f"{key}:{value}" for key, value in self.keyed)
        if self.words:
            parts.append(self.words)
        return " ".join(parts)

    def matches(self, job: Job) -> bool:
        """Whether the job passes the typed filters."""
        if not (self.stage or self.name or self.words or self.keyed):
            return True
        fields = _filter_fields(job)
        if self.stage and self.stage.lower() not in fields["stage"]:
            return False
        if not all(word.lower() in fields["name"] for word in self.name.split()):
            return False
        if not all(value.lower() in fields[key] for key, value in self.keyed):
            return False
        return all(any(word.lower() in text for text in fields.values()) for word in self.words.split())


@dataclass(frozen=True)
class JobGroup:
    """A header row: one pipeline (and one stage of it, when grouping by stage)."""

    pipeline_id: int | None
    pipeline_status: str
    """The server's status of the pipeline (embedded in the newest job listed), never derived
    from the jobs listed: a status filter or a cut list holds only some of them."""
    ref: str
    stage: str | None
    jobs: int | None = None
    """Jobs in the group, a retried job counted once (its newest try); None: count the rows."""
    failed: tuple[str, ...] = ()
    """Names of the blocking failures among them (newest tries, ``allow_failure`` left out)."""
    running: int = 0

    def cells(self, count: int) -> dict[str, str]:
        """Cell texts by column key."""
        head = f"▾ #{self.pipeline_id}" if self.pipeline_id is not None else "▾ —"
        total = self.jobs if self.jobs is not None else count
        parts = [f"{total:,} job" + ("" if total == 1 else "s")]
        if self.failed:
            more = f" +{len(self.failed) - 1:,} more" if len(self.failed) > 1 else ""
            parts.append(f"✗ {self.failed[0]}{more}")
        if self.running:
            parts.append(f"{self.running:,} running")
        return {"id": head, "status": self.pipeline_status, "stage": self.stage or "",
                "name": f"[{' · '.join(parts)}]", "ref": self.ref}

    def title(self) -> str:
        """One-line description (tests, help)."""
        parts = [f"pipeline #{self.pipeline_id}", self.ref, self.pipeline_status]
        if self.stage:
            parts.append(f"stage {self.stage}")
        return " · ".join(part for part in parts if part)


def group_jobs(jobs: Sequence[Job], mode: str) -> list[tuple[JobGroup | None, list[Job]]]:
    """Order jobs for display. Returns ``(group or None, jobs)`` pairs; stages keep the order in
    which their first job was created, as in a pipeline graph."""
    if mode == "none":
        return [(None, sorted(jobs, key=lambda job: -job.id))]
    by_pipeline: dict[int | None, list[Job]] = {}
    for job in jobs:
        by_pipeline.setdefault(pipeline_id(job), []).append(job)
    groups: list[tuple[JobGroup | None, list[Job]]] = []
    for pid in sorted(by_pipeline, key=lambda value: -(value or 0)):
        members = sorted(by_pipeline[pid], key=lambda job: job.id)
        # The newest job carries the server's latest word on the pipeline.
        pipeline = next((job.pipeline for job in reversed(members) if job.pipeline is not None), None)
        ref = (pipeline.ref if pipeline is not None else None) or members[0].ref or ""
        status = (pipeline.status if pipeline is not None else None) or ""
        if mode == "pipeline":
            groups.append((_group(pid, status, ref, None, members), members))
            continue
        stages: dict[str, list[Job]] = {}
        for job in members:
            stages.setdefault(job.stage or "—", []).append(job)
        for stage, stage_jobs in stages.items():
            groups.append((_group(pid, status, ref, stage, stage_jobs), stage_jobs))
    return groups


def _group(pid: int | None, status: str, ref: str, stage: str | None, members: list[Job]) -> JobGroup:
    """A header row summing up its jobs: each name once (newest try), its blocking failures, running."""
    latest, _ = latest_tries(members)
    failed = tuple(job.name or f"#{job.id}" for job in latest if job.status == "failed" and not job.allow_failure)
    running = sum(1 for job in latest if job.status in ("running", "canceling"))
    return JobGroup(pid, status, ref, stage, len(latest), failed, running)


def _fit(text: str, max_width: int | None) -> Text:
    """A cell of inert server text, cut with an ellipsis past ``max_width`` cells."""
    cell = Text(clean(text), no_wrap=True, overflow="ellipsis")
    if max_width is not None and cell.cell_len > max_width:
        cell.truncate(max_width, overflow="ellipsis")
    return cell


class JobTable(DataTable[Text]):
    """A row-cursor table of jobs. Row keys are job ids as strings; group rows are ``group:N``."""

    DEFAULT_CSS = """
    JobTable { height: 1fr; }
    """
    # The same keys, with the same binding ids, as every other table (ResourceTable): one keymap
    # entry remaps them everywhere.
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("up,k", "cursor_up", "Up", show=False, id="table.up"),
        Binding("down,j", "cursor_down", "Down", show=False, id="table.down"),
        Binding("pageup,ctrl+b", "page_up", "Page up", show=False, id="table.page-up"),
        Binding("pagedown,ctrl+f", "page_down", "Page down", show=False, id="table.page-down"),
        Binding("home,g", "scroll_top", "First row", show=False, id="table.first"),
        Binding("end,G", "scroll_bottom", "Last row", show=False, id="table.last"),
    ]

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id, cursor_type="row", zebra_stripes=False)
        self.jobs_by_key: dict[str, Job] = {}
        self.groups: dict[str, JobGroup] = {}
        """Header rows by row key."""
        self.columns_shown: tuple[JobColumn, ...] = ()
        self.marked: set[int] = set()
        """Jobs marked with ``space`` (bulk actions act on them); shown with a dot before the id."""
        self._last_show: tuple[list[Job], set[int], str] | None = None

    def on_mount(self) -> None:
        """Create the columns for the current width."""
        self._set_columns(columns_for(self.size.width or self.app.size.width))

    def on_resize(self, event: events.Resize) -> None:
        """Switch between the narrow and the wide column sets."""
        wanted = columns_for(event.size.width)
        if wanted != self.columns_shown:
            self._set_columns(wanted)
            if self._last_show is not None:
                jobs, changed, group_mode = self._last_show
                self.show_jobs(jobs, changed=changed, group_mode=group_mode)

    def _set_columns(self, columns: tuple[JobColumn, ...]) -> None:
        self.clear(columns=True)
        self.columns_shown = columns
        for column in columns:
            self.add_column(column.label, key=column.key)

    def _color(self, status: str) -> str | None:
        return theme_colour(self.app, *STATUS_THEME_KEYS.get(status, ()))

    def status_text(self, status: str) -> Text:
        """The status cell, coloured from the theme."""
        color = self._color(status)
        return Text(clean(status), style=Style(color=color, bold=status in ("failed", "running")) if color else "")

    def _now(self) -> datetime:
        return console_app(self.app).clock()

    def _triage_state(self) -> Triaging:
        """The verdicts of the screen's instance (a board row's pipeline on another instance)."""
        try:
            screen: object = self.screen
        except Exception:  # not mounted yet
            screen = None
        return primary_triaging(self.app, instance_of(screen))

    def _cell_texts(self, job: Job) -> dict[str, str]:
        pid = pipeline_id(job)
        return {
            "id": ("●" if job.id in self.marked else "") + str(job.id),
            "duration": format_duration(job.duration),
            "stage": job.stage or "",
            "name": job.name or "",
            "ref": job.ref or "",
            "pipeline": f"#{pid}" if pid is not None else "—",
            "user": user_label(job),
            "created": relative_time(job.created_at, self._now()),
            "runner": runner_label(job),
            "reason": (job.failure_reason or "").replace("_", " "),
            "why": self._triage_state().label(job),  # the triage verdict of a failed job; … until known
            "artifacts": artifacts_label(job, with_name=False),
        }

    def _cells(self, job: Job, changed: bool) -> list[Text]:
        texts = self._cell_texts(job)
        values = [
            self.status_text(job.status) if column.key == "status"
            else _fit(texts[column.key], column.max_width)
            for column in self.columns_shown
        ]
        if changed:
            highlight = theme_colour(self.app, "warning-muted", "warning") or "yellow"
            for cell in values:
                cell.stylize(Style(bgcolor=highlight, bold=True))
        return values

    def _group_cells(self, group: JobGroup, count: int, name_width: int) -> list[Text]:
        """``name_width``: the widest job name listed: the summary in the name cell is cut to it
        (the table must not grow wider than its jobs make it)."""
        accent = theme_colour(self.app, "accent")
        style = Style(bold=True, color=accent)
        texts = group.cells(count)
        cells = []
        for column in self.columns_shown:
            if column.key == "status":
                cell = self.status_text(group.pipeline_status)
                cell.stylize(Style(bold=True))
            else:
                width = column.max_width
                if column.key == "name":
                    width = min(width or name_width, max(name_width, 12))
                cell = _fit(texts.get(column.key, ""), width)
                cell.stylize(style)
            cells.append(cell)
        return cells

    def show_jobs(self, jobs: Sequence[Job], *, changed: set[int], group_mode: str) -> None:
        """Replace the rows, keeping the cursor on the same job when it is still listed."""
        self._last_show = (list(jobs), set(changed), group_mode)
        current = self.selected_key()
        self.clear(columns=False)
        self.jobs_by_key.clear()
        self.groups.clear()
        name_width = max((Text(clean(job.name or "")).cell_len for job in jobs), default=0)
        for index, (group, members) in enumerate(group_jobs(jobs, group_mode)):
            if group is not None:
                self.add_row(*self._group_cells(group, len(members), name_width), key=f"group:{index}")
                self.groups[f"group:{index}"] = group
            for job in members:
                key = str(job.id)
                self.jobs_by_key[key] = job
                self.add_row(*self._cells(job, job.id in changed), key=key)
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

    def selected_job(self) -> Job | None:
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
