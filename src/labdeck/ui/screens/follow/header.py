"""The merged view's header: every job with its status and its count of error lines, then what the
view does (following or paused with the lines that arrived since, the filter, the job shown alone).
Server strings go in as ``rich.text.Text`` (never markup)."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from rich.style import Style
from rich.text import Text
from textual.widgets import Static

from labdeck.operations.following.merged import MergedLog
from labdeck.operations.following.multi import JobState
from labdeck.ui.screens.follow.view import JOB_COLOURS

STATUS_MARKS = {"success": "✓", "failed": "✗", "canceled": "⊘", "skipped": "»", "running": "●",
                "manual": "▶"}
"""A job's status in one character (waiting ones: ``…``)."""


def job_mark(status: str) -> str:
    """``✓`` ``✗`` ``●`` … for a status (``…`` while the job has not started)."""
    return STATUS_MARKS.get(status, "…")


class FollowHeader(Static):
    """``1 deploy-eu ✗ 3 err · 2 deploy-us ● · …`` then ``following · 12,345 lines``."""

    DEFAULT_CSS = """
    FollowHeader { height: auto; max-height: 4; padding: 0 1; background: $panel; }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._shown: tuple[str, str, int] | None = None
        self._height = -1

    def show(self, log: MergedLog, states: Sequence[JobState], *, style: Callable[[str], Style],
             following: bool, pending: int, term: str, solo: int | None, trouble: str) -> None:
        """Redraw from the jobs' states and the view's mode."""
        text = Text(overflow="fold")
        for number, (lines, state) in enumerate(zip(log.jobs, states, strict=True)):
            if number:
                text.append(" · ", style=style("bar"))
            key = f"{number + 1} " if number < 9 else ""
            text.append(key, style=style("bar"))
            text.append(lines.label, style=style(f"job-{number % JOB_COLOURS}"))
            mark = job_mark(state.status)
            text.append(f" {mark}", style=style("failed" if state.status == "failed" else "passed"
                                                 if state.status == "success" else "bar"))
            if state.status not in STATUS_MARKS:
                text.append(" waiting", style=style("bar"))
            if lines.error_count:
                text.append(f" {lines.error_count} err", style=style("failed"))
            if state.trouble:
                text.append(" retrying", style=style("bar"))
        text.append("\n")
        mode = "following" if following else f"paused · {pending:,} new line{'s' if pending != 1 else ''} (f follows)"
        parts = [mode, f"{log.total:,} lines", f"{log.error_total} error line{'s' if log.error_total != 1 else ''}"]
        if solo is not None:
            parts.append(f"only {log.labels[solo]} (same key: all)")
        if term:
            parts.append(f"/{term}")
        if log.dropped:
            parts.append(f"{log.dropped:,} older lines left this view (enter: the job's full log)")
        if trouble:
            parts.append(trouble)
        text.append(" · ".join(parts), style=style("bar"))
        self._show(text)

    def _show(self, text: Text) -> None:
        """Show ``text``; a layout pass of the screen only when the header's height changes.

        The line count changes at every frame while lines arrive: a layout pass each time would
        repaint the whole screen (every widget), and keys wait behind it."""
        width = self.content_region.width
        key = (text.plain, self.app.theme, width)
        if key == self._shown:
            return
        self._shown = key
        self.update(text, layout=False)
        height = self.get_content_height(self.size, self.size, width) if width > 0 else -1
        if height != self._height or height < 0:
            self.refresh(layout=True)
        self._height = height
