"""The board's "running now" strip (administrators): the text of one reading of every runner's jobs,
and the board's short ages."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from rich.text import Text
from textual.widgets import Static

from labdeck.ui.dialogs.form import clean
from labdeck.watch import RunningNowSnapshot

SHOWN_JOBS = 6
"""Jobs named after the counts (the line is cut at the window's edge anyway)."""


def strip_text(snapshot: RunningNowSnapshot, stale_for: timedelta | None) -> Text:
    """`` running now: 7 jobs on 7/10 online runners · build-box-01: platform/api integration …``.

    ``stale_for``: None while the reading is current; else how long ago it was read (the server in
    trouble, or the last reading failed): ``running 44s ago (stale): …``, so that a hung server's
    last jobs are not read as running now."""
    count = len(snapshot.jobs)
    when = "now" if stale_for is None else f"{short_age(stale_for)} ago (stale)"
    text = Text(f" running {when}: {count} job{'s' if count != 1 else ''} on "
                f"{snapshot.runners_online}/{snapshot.runners_total} online runners", no_wrap=True,
                overflow="ellipsis")
    for job in snapshot.jobs[:SHOWN_JOBS]:
        project = job.job.project.path_with_namespace if job.job.project is not None else "?"
        text.append(f" · {clean(job.runner)}: {clean(project)} {clean(job.job.name or '')}")
    return text


def short_age(delta: timedelta | None) -> str:
    """``45s``, ``12m``, ``3h``, ``2d``; ``—`` when unknown (the board's ages, never negative)."""
    if delta is None:
        return "—"
    seconds = max(0, int(delta.total_seconds()))
    for size, unit in ((86400, "d"), (3600, "h"), (60, "m")):
        if seconds >= size:
            return f"{seconds // size}{unit}"
    return f"{seconds}s"


class RunningNowStrip(Static):
    """One line under the board's header: the last good reading of the runners' jobs, said stale
    (with its age) while the server is in trouble or the reading after it failed."""

    DEFAULT_CSS = """
    RunningNowStrip { height: 1; width: 100%; text-wrap: nowrap; text-overflow: ellipsis; color: $ld-text-muted; }
    RunningNowStrip.-stale { color: $ld-text-warning; }
    """

    def __init__(self, **fields: Any) -> None:
        super().__init__("", markup=False, **fields)
        self.display = False  # until a reading answers
        self.reading: RunningNowSnapshot | None = None
        self.failed = False
        """The reading after :attr:`reading` failed in passing (a 502, a timeout)."""
        self._shown = ""

    def take(self, snapshot: RunningNowSnapshot) -> bool:
        """A new reading; False (and hidden) when there is nothing to show: the token may not read
        the runners, or no reading ever answered."""
        if snapshot.error is not None and (snapshot.refused or self.reading is None):
            self.reading = None
            self.display = False
            return False
        self.failed = snapshot.error is not None
        if not self.failed:
            self.reading = snapshot
        return True

    def show(self, now: datetime, server_in_trouble: bool) -> None:
        """Draw the last good reading at the server's time ``now`` (only when the text changes)."""
        reading = self.reading
        if reading is None:
            return
        stale = self.failed or server_in_trouble
        text = strip_text(reading, now - reading.server_now if stale and reading.server_now is not None else None)
        self.set_class(stale, "-stale")
        self.display = True
        if text.plain != self._shown:
            self._shown = text.plain
            self.update(text)
