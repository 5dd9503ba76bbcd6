"""The jobs of one pipeline by stage: side by side when the stages fit, else a list grouped by
stage (80 columns). A stage whose jobs do not fit the view's height is shown folded, as counts
(``test 1,199 ✓ 1 ✗ · 300 skipped``); ``enter`` on it lists its jobs.

:func:`stages_of` groups the newest try of each job by stage, in pipeline order; :func:`layout`
turns stages into lines of ``rich.text.Text`` (server strings made inert with ``clean``, never
markup) and says where each item is (a job by its id, a folded stage by its name). While the
pipeline's jobs are still being read (``partial``) no stage status is derived: headings say "…"
and counts say "so far".
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from rich.cells import cell_len
from rich.style import Style
from rich.text import Text
from textual.app import App

from labdeck.api.models import Job
from labdeck.base.durations import format_duration
from labdeck.ui.dialogs.form import clean, theme_colour
from labdeck.ui.screens.jobs.table import runner_label
from labdeck.ui.widgets.shortening import cut_head, keep_end
from labdeck.ui.widgets.status_colours import STATUS_THEME_KEYS
from labdeck.watch.pipelines import STATUS_ORDER, job_bucket, latest_tries

COLUMNS_FROM = 118
"""Cells of width from which stages are shown as columns (a 120-column terminal)."""
MIN_COLUMN = 24
"""Narrowest stage column; with more stages than fit, the list is used."""
SEPARATOR = " │ "
MIN_UNFOLDED = 3
"""A stage of this many jobs or fewer is never folded, however low the view."""
LIST_BUDGET = 300
"""Most lines the grouped list lays out: past it, the longest stages fold too (every cursor move
lays the whole list out again, and a key must be answered at once)."""

Item = int | str
"""What the cursor can be on: a job (its id) or a folded stage (its name)."""


@dataclass(frozen=True)
class StageCounts:
    """How many of a stage's jobs (newest tries) are in each state."""

    success: int = 0
    failed: int = 0
    """Failed jobs that fail the pipeline."""
    allowed: int = 0
    """Failed jobs allowed to fail: warnings, not failures."""
    running: int = 0
    pending: int = 0
    manual: int = 0
    canceled: int = 0
    skipped: int = 0

    def summary(self) -> str:
        """``1,199 ✓ 1 ✗`` then the other states where non-zero (``2 ⚠ · 3 running · 300 skipped``)."""
        parts = [f"{self.success:,} ✓ {self.failed:,} ✗"]
        if self.allowed:
            parts.append(f"{self.allowed:,} ⚠ allowed to fail")
        parts.extend(f"{count:,} {name}" for name, count in (
            ("running", self.running), ("pending", self.pending), ("manual", self.manual),
            ("canceled", self.canceled), ("skipped", self.skipped)) if count)
        return " · ".join(parts)


def count_jobs(jobs: Sequence[Job]) -> StageCounts:
    """The counts of ``jobs`` (already the newest try of each)."""
    tally = dict.fromkeys(("success", "failed", "allowed", "running", "pending", "manual", "canceled",
                           "skipped"), 0)
    for job in jobs:
        status = job.status or ""
        if status == "failed":
            tally["allowed" if job.allow_failure else "failed"] += 1
        elif status in ("running", "canceling"):
            tally["running"] += 1
        elif status in ("success", "manual", "canceled", "skipped"):
            tally[status] += 1
        else:  # pending, created, waiting … and unknown statuses: they will move on their own
            tally["pending"] += 1
    return StageCounts(**tally)


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

    @property
    def counts(self) -> StageCounts:
        """How many of its jobs are in each state."""
        return count_jobs(self.jobs)


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
    warning: Style = field(default_factory=Style)
    cursor: Style = field(default_factory=lambda: Style(reverse=True))


def palette_for(app: App[Any]) -> Palette:
    """The current theme's styles."""

    def colour(*names: str) -> Style:
        value = theme_colour(app, *names)
        return Style(color=value) if value else Style(dim=True)

    def status(name: str) -> Style:
        keys = STATUS_THEME_KEYS.get(name)
        return (colour(*keys) if keys else Style()) + Style(bold=name in ("failed", "running"))

    return Palette(status, colour("foreground-muted", "foreground"), colour("error"),
                   colour("accent") + Style(bold=True), colour("warning"))


def job_status_text(job: Job, palette: Palette) -> Text:
    """A job's status; a failure allowed by ``allow_failure`` is a warning (``⚠ failed``)."""
    status = job.status or "?"
    if status == "failed" and job.allow_failure:
        return Text("⚠ failed", style=palette.warning)
    return Text(clean(status), style=palette.status(status))


def job_status_cell(job: Job, width: int, palette: Palette) -> Text:
    """:func:`job_status_text` cut or padded to ``width`` cells."""
    cell = job_status_text(job, palette)
    cell.truncate(max(width, 0), overflow="ellipsis", pad=True)
    return cell


@dataclass
class Layout:
    """Lines to show and where each item is: ``spans[item] = (first line, line count)``;
    ``items[i]``: the items of stage ``i`` in cursor order (one, its name, for a folded stage)."""

    lines: list[Text]
    spans: dict[Item, tuple[int, int]]
    columns: bool
    items: list[list[Item]] = field(default_factory=list)
    folded: frozenset[str] = frozenset()


def _cell(text: str, width: int, style: Style | str = "") -> Text:
    cell = Text(clean(text), style=style, no_wrap=True, overflow="ellipsis")
    cell.truncate(max(width, 0), overflow="ellipsis", pad=True)
    return cell


def fits_columns(stages: Sequence[Stage], width: int) -> bool:
    """Whether the stages fit side by side in ``width`` cells."""
    count = len(stages)
    return width >= COLUMNS_FROM and count > 0 and count * MIN_COLUMN + (count - 1) * len(SEPARATOR) <= width


def _reason(job: Job, why: Mapping[int, str]) -> str:
    """The failure reason, and the triage verdict when known (``script failure · broken since #12``)."""
    verdict = why.get(job.id, "")
    return " · ".join(part for part in (job.failure_reason or "", f"why: {verdict}" if verdict else "") if part)


_SINCE = re.compile(r"^(?P<verdict>\S+) since (?P<number>#\d+)(?P<rest>.*)$")


def reason_line(job: Job, why: Mapping[int, str], width: int, prefix: str = "  ⚠ ") -> str:
    """The job's ``⚠`` line in ``width`` cells: decoration goes first (``why:``, then ``since``,
    then the failure reason's words), never the pipeline number or a count
    (``⚠ script failure · why: broken since #127`` → ``⚠ script fa… · broken #127`` → ``⚠ brok… #127``)."""
    full = f"{prefix}{_reason(job, why)}"
    verdict = why.get(job.id, "")
    if cell_len(full) <= width or not verdict:
        return full
    match = _SINCE.match(verdict)
    short = f"{match['verdict']} {match['number']}{match['rest']}" if match else verdict
    reason = job.failure_reason or ""
    for text in (f"{prefix}{reason} · {verdict}" if reason else f"{prefix}{verdict}",
                 f"{prefix}{reason} · {short}" if reason else f"{prefix}{short}"):
        if cell_len(text) <= width:
            return text
    if reason and width - cell_len(f" · {short}") >= cell_len(prefix) + 3:
        return cut_head(f"{prefix}{reason}", f" · {short}", width)
    end = short.rsplit(" ", 1)[-1]
    return keep_end(f"{prefix}{short}", end, width)


def _job_block(job: Job, width: int, palette: Palette, marked: bool, why: Mapping[int, str] = {}) -> list[Text]:
    """A job in a stage column: name and status, then duration and runner, then the failure reason."""
    first = Text(no_wrap=True)
    first.append("● " if marked else "  ", style=palette.mark)
    first.append_text(_cell(job.name or f"#{job.id}", width - 2 - 11, Style(bold=True)))
    first.append(" ")
    first.append_text(job_status_cell(job, 10, palette))
    second = _cell(f"  {format_duration(job.duration)} · {runner_label(job)}", width, palette.muted)
    block = [first, second]
    if job.failure_reason or why.get(job.id):
        block.append(_cell(reason_line(job, why, width), width, palette.error))
    return block


def _block_height(job: Job, why: Mapping[int, str]) -> int:
    return 3 if job.failure_reason or why.get(job.id) else 2


def stage_status_label(stage: Stage, partial: bool) -> str:
    """The stage's derived status, or ``…`` while the pipeline's jobs are still being read."""
    return "…" if partial else stage.status


def _counts_text(stage: Stage, palette: Palette) -> Text:
    """``test 1,199 ✓ 1 ✗``."""
    counts = stage.counts
    text = Text(no_wrap=True, overflow="ellipsis")
    text.append(clean(stage.name), style=Style(bold=True))
    text.append(f" {counts.success:,} ✓ ", style=palette.status("success"))
    text.append(f"{counts.failed:,} ✗", style=palette.error if counts.failed else palette.muted)
    return text


def _other_counts(stage: Stage) -> str:
    """``2 ⚠ allowed to fail · 300 skipped``: the states other than passed and failed."""
    extra = stage.counts.summary().split(" · ", 1)[1:]
    return extra[0] if extra else ""


def _folded_block(stage: Stage, width: int, palette: Palette, partial: bool) -> list[Text]:
    first = Text(no_wrap=True, overflow="ellipsis")
    first.append("▸ ", style=palette.mark)
    first.append_text(_counts_text(stage, palette))
    other = _other_counts(stage)
    if partial and not other:
        first.append(" so far", style=palette.muted)
    first.truncate(width, overflow="ellipsis", pad=True)
    block = [first]
    if other:
        block.append(_cell(f"  {other}{' so far' if partial else ''}", width, palette.muted))
    block.append(_cell(f"  enter: its {len(stage.jobs):,} jobs", width, palette.muted))
    return block


def _columns(stages: Sequence[Stage], width: int, height: int, palette: Palette, cursor: Item | None,
             marked: Collection[int], partial: bool, why: Mapping[int, str]) -> Layout:
    count = len(stages)
    column = (width - (count - 1) * len(SEPARATOR)) // count
    blocks: list[list[Text]] = []
    spans: dict[Item, tuple[int, int]] = {}
    items: list[list[Item]] = []
    folded: set[str] = set()
    for stage in stages:
        heading = Text(no_wrap=True)
        heading.append_text(_cell(f"{stage.name} ({len(stage.jobs):,})", column - 10,
                                  Style(bold=True, underline=True)))
        label = stage_status_label(stage, partial)
        heading.append_text(_cell(label, 10, palette.status(label)))
        lines = [heading]
        if len(stage.jobs) > MIN_UNFOLDED and 1 + sum(_block_height(job, why) for job in stage.jobs) > height:
            folded.add(stage.name)
            block = _folded_block(stage, column, palette, partial)
            if stage.name == cursor:
                for line in block:
                    line.stylize(palette.cursor)
            spans[stage.name] = (1, len(block))
            items.append([stage.name])
            lines.extend(block)
            blocks.append(lines)
            continue
        for job in stage.jobs:
            block = _job_block(job, column, palette, job.id in marked, why)
            if job.id == cursor:
                for line in block:
                    line.stylize(palette.cursor)
            spans[job.id] = (len(lines), len(block))
            lines.extend(block)
        items.append([job.id for job in stage.jobs])
        blocks.append(lines)
    rows: list[Text] = []
    for index in range(max(len(lines) for lines in blocks)):
        row = Text(no_wrap=True)
        for number, lines in enumerate(blocks):
            if number:
                row.append(SEPARATOR, style=palette.muted)
            row.append_text(lines[index] if index < len(lines) else _cell("", column))
        rows.append(row)
    return Layout(rows, spans, True, items, frozenset(folded))


def _list_folds(stages: Sequence[Stage], height: int) -> set[str]:
    """The stages the grouped list folds: those longer than the view, then the longest others
    until the list is within :data:`LIST_BUDGET` lines."""
    folds = {stage.name for stage in stages if len(stage.jobs) > max(height - 2, MIN_UNFOLDED)}
    lines = sum(2 if stage.name in folds else 1 + len(stage.jobs) for stage in stages)
    for stage in sorted(stages, key=lambda stage: -len(stage.jobs)):
        if lines <= LIST_BUDGET:
            break
        if stage.name not in folds and len(stage.jobs) > MIN_UNFOLDED:
            folds.add(stage.name)
            lines -= len(stage.jobs) - 1
    return folds


def _list(stages: Sequence[Stage], width: int, height: int, palette: Palette, cursor: Item | None,
          marked: Collection[int], partial: bool, why: Mapping[int, str]) -> Layout:
    rest = max(width - 4 - 10 - 8, 20)
    name_w = min(28, max(12, rest * 35 // 100))
    runner_w = min(20, max(8, (rest - name_w) * 45 // 100))
    reason_w = rest - name_w - runner_w - 1
    lines: list[Text] = []
    spans: dict[Item, tuple[int, int]] = {}
    items: list[list[Item]] = []
    folded: set[str] = set()
    folded_names = _list_folds(stages, height)
    for stage in stages:
        fold = stage.name in folded_names
        heading = Text(no_wrap=True, overflow="ellipsis")
        heading.append(f"{'▸' if fold else '▾'} {clean(stage.name)}", style=Style(bold=True, underline=True))
        heading.append(" · ")
        label = stage_status_label(stage, partial)
        heading.append(label, style=palette.status(label))
        total = len(stage.jobs)
        heading.append(f" · {total:,} job{'' if total == 1 else 's'}{' so far' if partial else ''}",
                       style=palette.muted)
        lines.append(heading)
        if fold:
            folded.add(stage.name)
            line = Text(no_wrap=True, overflow="ellipsis")
            line.append("    ")
            line.append_text(_folded_line(stage, palette, partial))
            line.truncate(width, overflow="ellipsis", pad=True)
            if stage.name == cursor:
                line.stylize(palette.cursor)
            spans[stage.name] = (len(lines), 1)
            items.append([stage.name])
            lines.append(line)
            continue
        for job in stage.jobs:
            line = Text(no_wrap=True)
            line.append("  ● " if job.id in marked else "    ", style=palette.mark)
            line.append_text(_cell(job.name or f"#{job.id}", name_w, Style(bold=True)))
            line.append(" ")
            line.append_text(job_status_cell(job, 9, palette))
            line.append_text(_cell(format_duration(job.duration), 7, palette.muted))
            line.append(" ")
            line.append_text(_cell(runner_label(job), runner_w, palette.muted))
            line.append(" ")
            line.append_text(_cell(reason_line(job, why, reason_w, prefix=""), reason_w, palette.error))
            if job.id == cursor:
                line.stylize(palette.cursor)
            spans[job.id] = (len(lines), 1)
            lines.append(line)
        items.append([job.id for job in stage.jobs])
    return Layout(lines, spans, False, items, frozenset(folded))


def _folded_line(stage: Stage, palette: Palette, partial: bool) -> Text:
    """``test 1,199 ✓ 1 ✗ · 300 skipped (enter: its jobs)`` for the grouped list."""
    line = _counts_text(stage, palette)
    other = _other_counts(stage)
    if other:
        line.append(f" · {other}", style=palette.muted)
    if partial:
        line.append(" so far", style=palette.muted)
    line.append("  (enter: its jobs)", style=palette.muted)
    return line


def layout(stages: Sequence[Stage], width: int, palette: Palette, *, cursor: Item | None = None,
           marked: Collection[int] = (), height: int = 1_000_000, partial: bool = False,
           why: Mapping[int, str] = {}) -> Layout:
    """Columns when the stages fit ``width``, else the grouped list; stages too long for ``height``
    lines are folded into counts. ``why``: failed job id → its triage verdict label."""
    if not stages:
        text = "Reading the pipeline's jobs…" if partial else "No jobs to show."
        return Layout([Text(text, style=palette.muted)], {}, False)
    if fits_columns(stages, width):
        return _columns(stages, width, height, palette, cursor, marked, partial, why)
    return _list(stages, width, height, palette, cursor, marked, partial, why)
