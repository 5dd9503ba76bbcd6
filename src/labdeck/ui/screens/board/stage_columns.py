"""The jobs of one pipeline by stage: side by side when the stages fit, else a list grouped by
stage (80 columns), with a cursor on one job and marks.

:func:`stages_of` groups the newest try of each job by stage, in pipeline order; :func:`layout`
turns stages into lines of ``rich.text.Text`` (server strings made inert with ``clean``, never
markup) and says where each job is; :class:`StageView` shows them and moves the cursor.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

from rich.style import Style
from rich.text import Text
from textual import events
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.widgets import Static

from labdeck.api.models import Job
from labdeck.ui.screens.jobs.table import format_duration, runner_label
from labdeck.ui.widgets.form import clean, theme_colour
from labdeck.ui.widgets.status_colours import STATUS_THEME_KEYS
from labdeck.watch.pipelines import STATUS_ORDER, job_bucket, latest_tries

COLUMNS_FROM = 118
"""Cells of width from which stages are shown as columns (a 120-column terminal)."""
MIN_COLUMN = 24
"""Narrowest stage column; with more stages than fit, the list is used."""
SEPARATOR = " │ "


@dataclass(frozen=True)
class Stage:
    """One stage: its name, its jobs (newest try of each, by id) and their derived status."""

    name: str
    jobs: tuple[Job, ...]

    @property
    def status(self) -> str:
        """The most urgent derived status of its jobs (as a pipeline's is derived)."""
        buckets = {job_bucket(job) for job in self.jobs}
        return next((status for status in STATUS_ORDER if status in buckets), "skipped")


def stages_of(jobs: Sequence[Job]) -> list[Stage]:
    """Stages in pipeline order (the order their first job was created, older tries included)."""
    first_id: dict[str, int] = {}
    for job in jobs:
        name = job.stage or "—"
        first_id[name] = min(first_id.get(name, job.id), job.id)
    latest, _ = latest_tries(jobs)
    members: dict[str, list[Job]] = {name: [] for name in sorted(first_id, key=lambda name: first_id[name])}
    for job in latest:
        members[job.stage or "—"].append(job)
    return [Stage(name, tuple(found)) for name, found in members.items() if found]


def job_matches(job: Job, needle: str) -> bool:
    """The ``/`` filter: a substring of name, stage, status, runner or failure reason (``!`` inverts)."""
    invert = needle.startswith("!")
    needle = (needle[1:] if invert else needle).lower()
    if not needle:
        return True
    fields = (job.name, job.stage, job.status, runner_label(job), job.failure_reason, str(job.id))
    found = any(needle in (value or "").lower() for value in fields)
    return found != invert


@dataclass(frozen=True)
class Palette:
    """The styles a layout uses, from the theme (never hard-coded colours)."""

    status: Callable[[str], Style]
    muted: Style
    error: Style
    mark: Style
    cursor: Style = field(default_factory=lambda: Style(reverse=True))


def palette_for(app: App[Any]) -> Palette:
    """The current theme's styles."""

    def colour(*names: str) -> Style:
        value = theme_colour(app, *names)
        return Style(color=value) if value else Style(dim=True)

    def status(name: str) -> Style:
        keys = STATUS_THEME_KEYS.get(name)
        return (colour(*keys) if keys else Style()) + Style(bold=name in ("failed", "running"))

    return Palette(status, colour("foreground-muted", "foreground"), colour("error"), colour("accent") + Style(bold=True))


@dataclass
class Layout:
    """Lines to show and where each job is: ``spans[job id] = (first line, line count)``."""

    lines: list[Text]
    spans: dict[int, tuple[int, int]]
    columns: bool


def _cell(text: str, width: int, style: Style | str = "") -> Text:
    cell = Text(clean(text), style=style, no_wrap=True, overflow="ellipsis")
    cell.truncate(max(width, 0), overflow="ellipsis", pad=True)
    return cell


def fits_columns(stages: Sequence[Stage], width: int) -> bool:
    """Whether the stages fit side by side in ``width`` cells."""
    count = len(stages)
    return width >= COLUMNS_FROM and count > 0 and count * MIN_COLUMN + (count - 1) * len(SEPARATOR) <= width


def _job_block(job: Job, width: int, palette: Palette, marked: bool) -> list[Text]:
    """A job in a stage column: name and status, then duration and runner, then the failure reason."""
    status = job.status or "?"
    first = Text(no_wrap=True)
    first.append("● " if marked else "  ", style=palette.mark)
    first.append_text(_cell(job.name or f"#{job.id}", width - 2 - 11, Style(bold=True)))
    first.append(" ")
    status_cell = _cell(status, 10, palette.status(status))
    first.append_text(status_cell)
    second = _cell(f"  {format_duration(job.duration)} · {runner_label(job)}", width, palette.muted)
    block = [first, second]
    if job.failure_reason:
        block.append(_cell(f"  ⚠ {job.failure_reason}", width, palette.error))
    return block


def _columns(stages: Sequence[Stage], width: int, palette: Palette, cursor: int | None,
             marked: Collection[int]) -> Layout:
    count = len(stages)
    column = (width - (count - 1) * len(SEPARATOR)) // count
    blocks: list[list[Text]] = []
    spans: dict[int, tuple[int, int]] = {}
    for stage in stages:
        heading = Text(no_wrap=True)
        heading.append_text(_cell(f"{stage.name} ({len(stage.jobs)})", column - 10, Style(bold=True, underline=True)))
        heading.append_text(_cell(stage.status, 10, palette.status(stage.status)))
        lines = [heading]
        for job in stage.jobs:
            block = _job_block(job, column, palette, job.id in marked)
            if job.id == cursor:
                for line in block:
                    line.stylize(palette.cursor)
            spans[job.id] = (len(lines), len(block))
            lines.extend(block)
        blocks.append(lines)
    height = max(len(lines) for lines in blocks)
    rows: list[Text] = []
    for index in range(height):
        row = Text(no_wrap=True)
        for number, lines in enumerate(blocks):
            if number:
                row.append(SEPARATOR, style=palette.muted)
            row.append_text(lines[index] if index < len(lines) else _cell("", column))
        rows.append(row)
    return Layout(rows, spans, True)


def _list(stages: Sequence[Stage], width: int, palette: Palette, cursor: int | None,
          marked: Collection[int]) -> Layout:
    rest = max(width - 4 - 10 - 8, 20)
    name_w = min(28, max(12, rest * 35 // 100))
    runner_w = min(20, max(8, (rest - name_w) * 45 // 100))
    reason_w = rest - name_w - runner_w - 1
    lines: list[Text] = []
    spans: dict[int, tuple[int, int]] = {}
    for stage in stages:
        heading = Text(no_wrap=True, overflow="ellipsis")
        heading.append(f"▾ {clean(stage.name)}", style=Style(bold=True, underline=True))
        heading.append(" · ")
        heading.append(clean(stage.status), style=palette.status(stage.status))
        heading.append(f" · {len(stage.jobs)} job{'' if len(stage.jobs) == 1 else 's'}", style=palette.muted)
        lines.append(heading)
        for job in stage.jobs:
            status = job.status or "?"
            line = Text(no_wrap=True)
            line.append("  ● " if job.id in marked else "    ", style=palette.mark)
            line.append_text(_cell(job.name or f"#{job.id}", name_w, Style(bold=True)))
            line.append(" ")
            line.append_text(_cell(status, 9, palette.status(status)))
            line.append_text(_cell(format_duration(job.duration), 7, palette.muted))
            line.append(" ")
            line.append_text(_cell(runner_label(job), runner_w, palette.muted))
            line.append(" ")
            line.append_text(_cell(job.failure_reason or "", reason_w, palette.error))
            if job.id == cursor:
                line.stylize(palette.cursor)
            spans[job.id] = (len(lines), 1)
            lines.append(line)
    return Layout(lines, spans, False)


def layout(stages: Sequence[Stage], width: int, palette: Palette, *, cursor: int | None = None,
           marked: Collection[int] = ()) -> Layout:
    """Columns when the stages fit ``width``, else the grouped list."""
    if not stages:
        return Layout([Text("No jobs to show.", style=palette.muted)], {}, False)
    if fits_columns(stages, width):
        return _columns(stages, width, palette, cursor, marked)
    return _list(stages, width, palette, cursor, marked)


class StageView(VerticalScroll, can_focus=True):
    """The stages of one pipeline with a job cursor (``h``/``l`` stages, ``j``/``k`` jobs)."""

    BINDING_GROUP_TITLE = "Pipeline"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("up,k", "move(0, -1)", "Up", show=False, id="pipeline.up"),
        Binding("down,j", "move(0, 1)", "Down", show=False, id="pipeline.down"),
        Binding("left,h", "move(-1, 0)", "Previous stage", show=False, id="pipeline.left"),
        Binding("right,l", "move(1, 0)", "Next stage", show=False, id="pipeline.right"),
        Binding("home,g", "edge(-1)", "First job", show=False, id="pipeline.first"),
        Binding("end,G", "edge(1)", "Last job", show=False, id="pipeline.last"),
    ]
    DEFAULT_CSS = """
    StageView { height: 1fr; scrollbar-size-vertical: 1; }
    StageView > Static { width: 100%; height: auto; }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.stages: list[Stage] = []
        """The stages shown (after the filter)."""
        self.cursor: int | None = None
        """Id of the job under the cursor."""
        self.marked: set[int] = set()
        self.current: Layout | None = None

    def compose(self) -> ComposeResult:
        yield Static("", id="stage-lines")

    # --- content -------------------------------------------------------------------------------

    def show(self, stages: Sequence[Stage]) -> None:
        """Show ``stages``; the cursor stays on the same job, or on the newest try of its name."""
        previous = self.cursor_job
        self.stages = list(stages)
        jobs = [job for stage in self.stages for job in stage.jobs]
        ids = {job.id for job in jobs}
        if previous is None or previous.id not in ids:
            same_name = [job for job in jobs if previous is not None and job.name == previous.name]
            self.cursor = same_name[0].id if same_name else (jobs[0].id if jobs else None)
        self.redraw()

    @property
    def cursor_job(self) -> Job | None:
        """The job under the cursor."""
        for stage in self.stages:
            for job in stage.jobs:
                if job.id == self.cursor:
                    return job
        return None

    @property
    def cursor_stage(self) -> Stage | None:
        """The stage of the job under the cursor."""
        return next((stage for stage in self.stages if any(job.id == self.cursor for job in stage.jobs)), None)

    def redraw(self) -> None:
        """Lay the stages out again (width, cursor, marks or theme changed)."""
        if not self.is_mounted:
            return
        width = self.scrollable_content_region.width or self.size.width or self.app.size.width
        self.current = layout(self.stages, width, palette_for(self.app), cursor=self.cursor, marked=self.marked)
        self.query_one("#stage-lines", Static).update(Text("\n").join(self.current.lines))
        self.call_after_refresh(self._scroll_to_cursor)

    def _scroll_to_cursor(self) -> None:
        if self.current is None or self.cursor not in self.current.spans:
            return
        first, count = self.current.spans[self.cursor]
        height = self.scrollable_content_region.height
        if first - 1 < self.scroll_y:
            self.scroll_to(y=max(first - 1, 0), animate=False)  # the stage heading stays in view
        elif first + count > self.scroll_y + height:
            self.scroll_to(y=first + count - height, animate=False)

    def on_resize(self, event: events.Resize) -> None:
        """Columns or list, whichever fits the new width."""
        self.redraw()

    # --- cursor --------------------------------------------------------------------------------

    def _position(self) -> tuple[int, int]:
        for number, stage in enumerate(self.stages):
            for index, job in enumerate(stage.jobs):
                if job.id == self.cursor:
                    return number, index
        return 0, 0

    def action_move(self, stages: int, jobs: int) -> None:
        """Move between stages (``stages``) or jobs (``jobs``): in a column in the column layout,
        through the whole list otherwise."""
        if not self.stages:
            return
        number, index = self._position()
        columns = self.current is not None and self.current.columns
        if stages:
            number = max(0, min(len(self.stages) - 1, number + stages))
            index = min(index, len(self.stages[number].jobs) - 1) if columns else 0
        elif columns:
            index = max(0, min(len(self.stages[number].jobs) - 1, index + jobs))
        else:
            flat = [job.id for stage in self.stages for job in stage.jobs]
            position = flat.index(self.cursor) if self.cursor in flat else 0
            self.cursor = flat[max(0, min(len(flat) - 1, position + jobs))]
            self.redraw()
            return
        self.cursor = self.stages[number].jobs[index].id
        self.redraw()

    def action_edge(self, direction: int) -> None:
        """First (``-1``) or last (``1``) job."""
        flat = [job.id for stage in self.stages for job in stage.jobs]
        if flat:
            self.cursor = flat[0] if direction < 0 else flat[-1]
            self.redraw()

    def toggle_mark(self) -> bool:
        """Mark or unmark the job under the cursor; True when it is now marked."""
        if self.cursor is None:
            return False
        now_marked = self.cursor not in self.marked
        if now_marked:
            self.marked.add(self.cursor)
        else:
            self.marked.discard(self.cursor)
        self.redraw()
        return now_marked
