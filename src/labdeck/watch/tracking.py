"""What the poller remembers per project, and how often each project is read.

Lanes (see :class:`~labdeck.watch.settings.PollerSettings` for the intervals):

- ``initial``: never read; read first, from the startup budget.
- ``hot``: a job is running (or preparing/canceling), a job is pending or created for less than
  ``stuck_after`` (server time), or the activity check saw it move less than ``warm_for`` ago: read every
  ``interval``. These are the projects where a failure can appear any second.
- ``slow``: unfinished jobs, but all of them have waited longer than ``stuck_after`` (a job stuck
  on an offline runner): read every ``slow_interval``; when one starts running the project turns
  hot at the next read.
- ``cold``: nothing will change on its own (finished and manual jobs only): read by the sweep once
  per ``sweep_period``, or at once when the activity check (or the admin running-now strip) shows
  it moved.
- ``error``: the last read was refused (403/404): retried after ``error_interval``.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from labdeck.api.resources.graphql import LatestPipeline
from labdeck.watch.deep import DeepPipeline
from labdeck.watch.pipelines import RUNNING_JOB_STATUSES, PipelineRow, job_unfinished, newest_pipeline
from labdeck.watch.settings import PollerSettings
from labdeck.watch.snapshots import ProjectStatus

INITIAL, HOT, SLOW, COLD, ERROR = "initial", "hot", "slow", "cold", "error"
PLANNED = frozenset({"next_due", "lane", "in_flight", "last_ok", "loaded", "error", "failing"})
"""Fields of :class:`ProjectTrack` that decide when and how urgently the poller reads it."""
RUNNING_PIPELINE = frozenset({"running", "canceling", "preparing"})
"""Server statuses of a pipeline with a job that holds a runner."""


def signature(rows: tuple[PipelineRow, ...]) -> tuple[tuple[object, ...], ...]:
    """What makes two readings of a project different for a subscriber: pipelines, derived
    statuses, each job's id and status (not durations that grow while a job runs), and what a
    partial row knows (failures, running count, times)."""
    return tuple((row.pipeline_id, row.status, tuple((job.id, job.status) for job in row.jobs), row.partial,
                  row.server_status, row.failed_known, row.failed_total, row.running_known, row.running,
                  row.timing_known, row.started_at, row.finished_at) for row in rows)


@dataclass
class ProjectTrack:
    """The poller's memory of one project (mutable; only the poller touches it)."""

    project_id: int
    path: str
    rows: tuple[PipelineRow, ...] = ()
    etag: str | None = None
    """ETag of the jobs page the rows were parsed from (an equal ETag: nothing to parse)."""
    loaded: bool = False
    lane: str = INITIAL
    next_due: float = 0.0
    last_ok: float | None = None
    began_ok: float | None = None
    """When the last read that succeeded began: a move seen before that moment was read (its
    ``last_ok`` may be older than the move, when a GraphQL batch vouched for what it spared)."""
    hot_since: float | None = None
    changed_at: float | None = None
    moved_at: float | None = None
    """When a change source (the activity list, a GraphQL batch, the runners' job lists, the
    console's own action) last saw it move: until a read answers after that, its read is urgent."""
    batch_seen: LatestPipeline | None = None
    """Its latest pipeline as the last GraphQL batch that answered for it stated it."""
    batch_seen_at: float | None = None
    """When that batch answered (the poller's clock)."""
    known_at: float | None = None
    """Within a read: the oldest moment what it spared is known as of (a GraphQL batch's answer,
    or an earlier probe); the read counts as made then, not now (None: everything was read)."""
    moved_progress: bool = False
    """The move was only progress (a GraphQL batch saw the running count move, nothing else): its
    read ranks after the moves that may show a failure (see :data:`~labdeck.watch.work_plan.PROGRESS_RANK`)."""
    error: str | None = None
    trouble: str | None = None
    """Why its last read failed for a passing reason (the server's, a proxy's answer); None once
    one succeeded. The board's status line says it: a read of another project answered 304 does
    not make this one's rows fresh (issue 32)."""
    in_flight: bool = False
    overview: bool = False
    """``next_due`` is at the CI column's overview pace (only the projects table shows it)."""
    extra_pipelines: set[int] = field(default_factory=set)
    """Pipelines an alert target needs that may have left the first page of jobs."""
    extra_rows: dict[int, PipelineRow] = field(default_factory=dict)
    page_rows: tuple[PipelineRow, ...] = ()
    """Rows as derived from the page of newest jobs (``rows`` are these, partial ones completed)."""
    deep: dict[int, DeepPipeline] = field(default_factory=dict)
    """What was read beyond the page about its partial pipelines (:mod:`labdeck.watch.deep`)."""
    rounds: int = 0
    """Rounds since the page of newest jobs was last read (deep probes in between)."""
    list_etag: str | None = None
    """ETag of the last pipelines listing parsed (GitLab's pipelines API)."""
    list_url: str | None = None
    """The URL the listing was last read at (a move of :attr:`watermark` makes a new one)."""
    watermark: datetime | None = None
    """Newest ``updated_at`` the pipelines listing showed (its next ``updated_after``)."""
    confirmed_at: float | None = None
    """When a GraphQL round last confirmed its latest pipeline unchanged (rows' age counts from
    the later of this and ``last_ok``)."""
    failing: bool = False
    """A pipeline of it is broken (failed, newest on its ref): read every few rounds."""
    acted_at: float | None = None
    """When the console last changed something here (a retry …): a read that started before it
    is followed by another at once."""
    watcher: Callable[[ProjectTrack], None] | None = field(default=None, repr=False, compare=False)
    """Told when a field the poller's plan depends on is set (:data:`PLANNED`): its index
    (:class:`~labdeck.watch.due.DueIndex`) re-files just this project instead of ranking all."""

    def __setattr__(self, name: str, value: object) -> None:
        object.__setattr__(self, name, value)
        if name in PLANNED:
            watcher = self.__dict__.get("watcher")
            if watcher is not None:
                watcher(self)

    def move_unread(self) -> bool:
        """Whether a change source saw it move and no read has begun since."""
        return self.moved_at is not None and (self.began_ok is None or self.began_ok < self.moved_at)

    def deep_unfinished(self, limit: int) -> list[PipelineRow]:
        """Partial pipelines among the newest ``limit`` that will still change on their own."""
        newest = sorted(self.rows, key=lambda row: row.pipeline_id, reverse=True)[:limit]
        return [row for row in newest if row.partial and row.unfinished]

    def status(self) -> ProjectStatus:
        """The immutable view for snapshots (kept while nothing in it changed: a snapshot of the
        board asks every watched project's, and most have not changed since the last one)."""
        held: tuple[ProjectStatus, tuple[PipelineRow, ...]] | None = self.__dict__.get("_status")
        if held is not None:
            status, rows = held  # rows are replaced, never changed in place: compared by identity
            if (rows is self.rows and status.path == self.path and status.loaded == self.loaded
                    and status.lane == self.lane and status.error == self.error and status.polled_at == self.last_ok):
                return status
        status = ProjectStatus(self.project_id, self.path, newest_pipeline(self.rows), self.loaded, self.lane,
                               self.error, self.last_ok)
        object.__setattr__(self, "_status", (status, self.rows))
        return status

    def all_rows(self) -> tuple[PipelineRow, ...]:
        """Rows of the first page plus those of pipelines fetched for alert targets."""
        if not self.extra_rows:
            return self.rows
        seen = {row.pipeline_id for row in self.rows}
        return self.rows + tuple(row for pid, row in self.extra_rows.items() if pid not in seen)

    def live_since(self) -> float | None:
        """For freshness: when this hot project's data was last current (never before it turned hot)."""
        if self.last_ok is None:
            return None
        if self.hot_since is not None and self.hot_since > self.last_ok:
            return self.hot_since
        return self.last_ok


def classify(track: ProjectTrack, now: float, server_now: datetime, settings: PollerSettings) -> str:
    """The lane a project belongs in after a read (see the module docstring)."""
    if track.error is not None:
        return ERROR
    if not track.loaded:
        return INITIAL
    if track.changed_at is not None and now - track.changed_at < settings.warm_for:
        return HOT
    rows = track.all_rows()
    if any(row.partial and row.server_status in RUNNING_PIPELINE for row in rows):
        return HOT  # a big pipeline whose running jobs are beyond the page
    unfinished = [job for row in rows for job in row.jobs if job_unfinished(job.status)]
    if not unfinished and not any(row.unfinished for row in rows):
        return COLD
    if any(job.status in RUNNING_JOB_STATUSES for job in unfinished):
        return HOT
    stuck = timedelta(seconds=settings.stuck_after)
    if any(job.created_at is None or server_now - job.created_at < stuck for job in unfinished):
        return HOT
    return SLOW


def next_due(track: ProjectTrack, now: float, settings: PollerSettings, rng: random.Random, *,
             period: float | None = None, busy: float | None = None) -> float:
    """When a project in its lane is read next. ``period``: the fair rotation's period (every
    project is read at least that often; default ``sweep_period``); ``busy``: the cadence busy
    (hot) projects are capped at so that they leave the rotation its share (default ``interval``)."""
    lane = track.lane
    if lane == HOT:
        return now + max(settings.interval, busy or 0.0)
    if lane == SLOW:
        return now + settings.slow_interval
    if lane == ERROR:
        return now + settings.error_interval
    if lane == COLD:
        cycle = period or settings.sweep_period
        if track.last_ok is None:
            # After the first read: spread over a whole period, so the sweep runs at its steady
            # rate from the start instead of re-reading the start-up pass all at once later.
            return now + cycle * rng.random()
        # Never past the period: the bound shown in the board's help is a promise.
        return now + cycle * (0.85 + 0.15 * rng.random())
    return now


ROUND_SLACK = 0.25
"""The share of ``overview_interval`` by which a moment may pass an overview round and still belong
to it (a wake-up a little late, reads answered one after the other on a slow server): a project
read late in its round is due in the next round, not the one after."""


def overview_round(moment: float, settings: PollerSettings) -> float:
    """The overview round of ``moment`` (the first at or after it, give or take a :data:`ROUND_SLACK` of the period):
    rounds fall on whole multiples of ``overview_interval`` of the poller's clock, so that the reads
    only the CI column wants (and its activity check) go out together, one wake-up per round, not
    each at its own second."""
    period = settings.overview_interval
    slack = max(1.0, ROUND_SLACK * period)
    return math.ceil((moment - slack) / period) * period if period > slack else moment


def set_lane(track: ProjectTrack, lane: str, now: float) -> None:
    """Move a project to ``lane``, noting when it turned hot (freshness counts from then)."""
    if lane == HOT and track.lane != HOT:
        track.hot_since = now
    track.lane = lane
