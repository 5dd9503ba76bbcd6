"""One-line headers of the jobs list and of the trace viewer. Server strings go in as
``rich.text.Text`` (never markup)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

from rich.style import Style
from rich.text import Text
from textual.widgets import Static

from labdeck.api.models import Job
from labdeck.base.durations import format_duration
from labdeck.ui.dialogs.form import clean, theme_colour
from labdeck.ui.screens.jobs.table import (
    ACTIVE_STATUSES,
    JobFilter,
    runner_label,
)


def _muted(widget: Static) -> str:
    return theme_colour(widget.app, "foreground-muted", "foreground") or "grey50"


class JobsHeader(Static):
    """``3 running · 1 failed · 12 success │ status=failed,running │ grouped by pipeline``."""

    DEFAULT_CSS = """
    JobsHeader { height: 1; padding: 0 1; }
    """

    def show(self, *, jobs: Sequence[Job], job_filter: JobFilter, group_mode: str) -> None:
        """Redraw from the jobs shown and the filters."""
        text = Text(no_wrap=True, overflow="ellipsis")
        counts = Counter(job.status for job in jobs)
        order = ["running", "pending", "created", "manual", "failed", "success", "canceled", "skipped"]
        ranked = sorted(counts.items(), key=lambda item: (order.index(item[0]) if item[0] in order else 99, item[0]))
        for index, (status, count) in enumerate(ranked):
            if index:
                text.append(" · ")
            color = theme_colour(self.app, f"job-{status}") if status else None
            text.append(f"{count} {clean(status)}", style=Style(color=color, bold=status in ACTIVE_STATUSES))
        if not ranked:
            text.append("no jobs", style=Style(color=_muted(self)))
        muted = Style(color=_muted(self))
        if job_filter.statuses:
            text.append(" │ status=" + clean(",".join(sorted(job_filter.statuses))), style=muted)
        if group_mode != "none":
            text.append(" │ grouped by " + ("pipeline" if group_mode == "pipeline" else "pipeline and stage"),
                        style=muted)
        self.update(text)


class TraceHeader(Static):
    """``● live · +12 new (G) │ /word 3/40 │ job #N name · status · 3m05s · runner │ wrap raw │ note``:
    what changes while reading comes first. Where the row is too narrow for where ``e`` went (``cause
    1/2 · new since green``, the start of the note), the runner goes first, then the failure reason, then the duration: the
    note says where ``e`` went, the job's own facts are one key away (``i``). While reads fail the
    first words say so (``◌ not updating: server errors (502)``), never ``● live``."""

    DEFAULT_CSS = """
    TraceHeader { height: 1; background: $panel; padding: 0 1; }
    """

    _shown: Text | None = None
    _asked: dict[str, Any] | None = None

    def show(self, *, job: Job, live: bool, following: bool, pending_lines: int,
             wrap: bool, raw: bool, note: str = "", search: str = "", duration: float | None = None,
             stalled: str = "", keep: str = "") -> None:
        """Redraw from the job record and the viewer's state (``duration`` overrides the job's;
        ``stalled``: why reads of a live log fail now, said in place of ``● live``; ``keep``: the
        start of ``note`` that must be seen, for which the job's lesser facts give way)."""
        self._asked = {"job": job, "live": live, "following": following, "pending_lines": pending_lines, "wrap": wrap,
                       "raw": raw, "note": note, "search": search, "duration": duration, "stalled": stalled,
                       "keep": keep}
        room = self.content_size.width
        after_kept = Text(note[len(keep):]).cell_len if keep and note.startswith(keep) else None
        for left_out in range(len(_DROPPED_FIRST) + 1):
            text = self._text(left_out=_DROPPED_FIRST[:left_out], **self._asked)
            if after_kept is None or not room or text.cell_len - after_kept <= room:
                break
        if text == self._shown:
            return  # the log viewer asks after every read: most of the time nothing changed
        self._shown = text
        # One row high whatever it says (CSS height: 1): no layout pass for the screen.
        self.update(text, layout=False)

    def on_resize(self) -> None:
        """A new width may leave room for what was left out, or none for the note."""
        if self._asked is not None:
            self.show(**self._asked)

    def _text(self, *, job: Job, live: bool, following: bool, pending_lines: int, wrap: bool, raw: bool,
              note: str, search: str, duration: float | None, stalled: str, keep: str,
              left_out: Sequence[str]) -> Text:
        app = self.app
        muted = Style(color=_muted(self))
        status = job.status or "?"
        text = Text(no_wrap=True, overflow="ellipsis")
        if live and stalled:
            text.append(f"◌ not updating: {clean(stalled)}", style=Style(color=theme_colour(app, "warning"), bold=True))
            if not following:
                text.append(" · paused", style=Style(color=theme_colour(app, "warning")))
        elif live:
            if following:
                text.append("● live", style=Style(color=theme_colour(app, "success"), bold=True))
            else:
                text.append("❚❚ paused", style=Style(color=theme_colour(app, "warning"), bold=True))
        elif status in ACTIVE_STATUSES:
            text.append("… waiting", style=muted)
        else:
            text.append("■ ended", style=muted)
        if pending_lines:
            text.append(f" · +{pending_lines:,} new (G)", style=Style(color=theme_colour(app, "accent"), bold=True))
        if search:
            text.append(f" │ {clean(search)}", style=Style(color=theme_colour(app, "accent")))
        text.append(" │ ")
        text.append(f"job #{job.id} ", style="bold")
        text.append(clean(job.name or ""), style="bold")
        color = {
            "success": theme_colour(app, "success"),
            "failed": theme_colour(app, "error"),
            "running": theme_colour(app, "primary"),
            "canceled": _muted(self),
        }.get(status) or theme_colour(app, "warning")
        text.append(" · ")
        text.append(clean(status), style=Style(color=color, bold=True))
        if job.failure_reason and "reason" not in left_out:
            text.append(f" ({clean(job.failure_reason)})", style=Style(color=color))
        if "duration" not in left_out:
            shown = duration if duration is not None else job.duration
            text.append(f" · {format_duration(shown)}")
        if "runner" not in left_out:
            text.append(f" · {clean(runner_label(job))}")
        flags = [name for name, on in (("wrap", wrap), ("raw", raw)) if on]
        if flags:
            text.append(" │ " + " ".join(flags), style=muted)
        if note:
            text.append(f" │ {note}", style=muted)
        return text


_DROPPED_FIRST = ("runner", "reason", "duration")
"""What the trace header leaves out, in this order, when its note would not fit."""
