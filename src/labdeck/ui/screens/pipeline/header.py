"""The two header lines of the pipeline view: its derived status once every job is read, and
while the pages are still arriving, how many are in and what is known so far (never a status)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from rich.style import Style
from rich.text import Text
from textual.widgets import Static

from labdeck.api.models import Job
from labdeck.base.durations import format_duration
from labdeck.ui.dialogs.form import clean
from labdeck.ui.screens.pipeline.columns import palette_for
from labdeck.ui.widgets.shortening import keep_end
from labdeck.watch.pipelines import PipelineRow, latest_tries


def _span(seconds: float | None) -> str:
    return format_duration(seconds)


def loading_words(read: int, total: int | None) -> str:
    """``loading 300 of 1,500 jobs…`` (``loading 300 jobs…`` when the server gives no total)."""
    if total is not None and total >= read:
        return f"loading {read:,} of {total:,} jobs…"
    return f"loading {read:,} jobs…"


def failed_names(names: Sequence[str], shown: int = 3) -> str:
    """``unit-0001, unit-0002, unit-0003 +37 more``."""
    more = f" +{len(names) - shown:,} more" if len(names) > shown else ""
    return ", ".join(names[:shown]) + more


class PipelineHeader(Static):
    """Two lines: status, pipeline, ref @ sha, who; then age, duration and counts. While the jobs
    are still being read: how many, and what is known so far, never a derived status."""

    DEFAULT_CSS = """
    PipelineHeader { height: 2; padding: 0 1; background: $panel; }
    """

    def show(self, row: PipelineRow | None, now: datetime, *, marked: int, shown: int) -> None:
        """Redraw from the derived row at the server time ``now``."""
        palette = palette_for(self.app)
        if row is None:
            self.update(Text("loading the pipeline's jobs…", style=palette.muted))
            return
        first = Text(no_wrap=True, overflow="ellipsis")
        first.append(f"● {clean(row.status)}", style=palette.status(row.status))
        first.append(f"  pipeline #{row.pipeline_id} · ", style=Style(bold=True))
        first.append(clean(row.ref or "—"), style=Style(bold=True))
        first.append(f" @ {clean((row.sha or '')[:8] or '—')} · by {clean(row.triggered_by or '—')}")
        age, duration = row.age_at(now), row.duration_at(now)
        second = Text(no_wrap=True, overflow="ellipsis", style=palette.muted)
        second.append(f"created {_span(age.total_seconds() if age else None)} ago · "
                      f"{'ran' if row.finished_at else 'running for'} "
                      f"{_span(duration.total_seconds() if duration else None)}")
        total = len(row.jobs)
        second.append(f" · {total:,} job{'' if total == 1 else 's'}")
        if shown != total:
            second.append(f" ({shown:,} shown)")
        # The failed jobs before what only decorates: at 80 columns the line is cut at its end.
        if row.failed_jobs:
            second.append(" · failed: " + clean(self._names_that_fit(second, row.failed_jobs)), style=palette.error)
        if row.retries:
            second.append(f" · {row.retries:,} older tr{'y' if row.retries == 1 else 'ies'} hidden")
        if marked:
            second.append(f" · {marked} marked", style=palette.mark)
        if row.allowed_failures:
            second.append(f" · ⚠ {len(row.allowed_failures):,} allowed to fail", style=palette.warning)
        self.update(Text("\n").join([first, second]))

    def _names_that_fit(self, line: Text, names: Sequence[str], lead: str = " · failed: ") -> str:
        """As many of ``names`` as fit after ``line`` (at least one), then ``+N more``."""
        room = (self.size.width or self.app.size.width) - 2 - line.cell_len - len(lead)
        for shown in (3, 2, 1):
            text = failed_names(names, shown)
            if len(text) <= room:
                return text
        if len(names) == 1:
            return names[0]  # cut at its end by the line
        # Not even one name and its count: the name is cut, the count stays (``unit-0… +39``).
        text = failed_names(names, 1).removesuffix(" more")
        return keep_end(text, text.rsplit(" ", 1)[1], max(room, 8))

    def show_partial(self, pipeline_id: int, jobs: Sequence[Job], *, read: int, total: int | None,
                     failed: bool, marked: int) -> None:
        """While the jobs are still being read: what is read so far, and no status."""
        palette = palette_for(self.app)
        known = next((job for job in jobs if job.pipeline is not None), None)
        ref = (known.pipeline.ref if known is not None and known.pipeline is not None else None) or "—"
        sha = (known.pipeline.sha if known is not None and known.pipeline is not None else None) or ""
        first = Text(no_wrap=True, overflow="ellipsis")
        first.append("◌ …", style=palette.muted)
        first.append(f"  pipeline #{pipeline_id} · ", style=Style(bold=True))
        first.append(clean(ref), style=Style(bold=True))
        first.append(f" @ {clean(sha[:8] or '—')}")
        second = Text(no_wrap=True, overflow="ellipsis", style=palette.muted)
        if failed:
            second.append(f"partial: read {read:,}{f' of {total:,}' if total else ''} jobs; the rest could not "
                          "be read (trying again)", style=palette.error)
        elif read == 0:
            second.append(f"reading the pipeline's jobs; meanwhile the {len(jobs):,} the board knew "
                          "(status when all are in)")
        else:
            second.append(loading_words(read, total) + " status when all are in")
        latest, _ = latest_tries(jobs)
        failing = [job.name or f"#{job.id}" for job in latest if job.status == "failed" and not job.allow_failure]
        if failing:
            second.append(" · failed so far: " + clean(self._names_that_fit(second, failing, " · failed so far: ")),
                          style=palette.error)
        if marked:
            second.append(f" · {marked} marked", style=palette.mark)
        self.update(Text("\n").join([first, second]))
