"""Building the snapshots subscribers receive, from the poller's per-project memory."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import datetime, timedelta

from labdeck.watch.pipelines import FAILED, MANUAL, PENDING, RUNNING, PipelineRow, sort_by_attention
from labdeck.watch.settings import PollerSettings
from labdeck.watch.snapshots import BoardSnapshot, ProjectsSnapshot, ProjectStatus, frozen_map
from labdeck.watch.tracking import ProjectTrack
from labdeck.watch.watched import WatchedProjects


def on_board(row: PipelineRow, server_now: datetime, window: timedelta) -> bool:
    """Whether a pipeline is worth a row: broken, running and pending ones always; manual ones
    when newest on their ref and recent; finished ones when recent."""
    if row.broken or row.status in (RUNNING, PENDING):
        return True
    moment = row.finished_at or row.created_at
    recent = moment is None or server_now - moment < window
    if row.status == MANUAL:
        return row.latest_for_ref and recent
    return recent


def board_rows(tracks: Iterable[ProjectTrack], server_now: datetime, settings: PollerSettings) -> list[PipelineRow]:
    """Every board row of ``tracks``, most urgent first, at most ``rows_per_project`` each."""
    window = timedelta(seconds=settings.recent_window)
    rows: list[PipelineRow] = []
    for track in tracks:
        mine = sort_by_attention(row for row in track.rows if on_board(row, server_now, window))
        rows.extend(mine[: settings.rows_per_project])
    return sort_by_attention(rows)


def statuses(ids: Iterable[int], tracks: Mapping[int, ProjectTrack], paths: Mapping[int, str]) -> dict[int, ProjectStatus]:
    """One :class:`ProjectStatus` per id (an empty "not read yet" status for a project not tracked yet)."""
    out: dict[int, ProjectStatus] = {}
    for pid in ids:
        track = tracks.get(pid)
        out[pid] = track.status() if track is not None else ProjectStatus(pid, paths.get(pid, str(pid)))
    return out


def board_snapshot(watched: WatchedProjects, tracks: Mapping[int, ProjectTrack], server_now: datetime,
                   settings: PollerSettings, generation: int) -> BoardSnapshot:
    """The board for ``watched``."""
    mine = [tracks[pid] for pid in watched.ids if pid in tracks]
    rows = board_rows(mine, server_now, settings)
    projects = statuses(watched.ids, tracks, watched.paths())
    broken = sum(1 for row in rows if row.status == FAILED and row.broken)
    loading = sum(1 for status in projects.values() if not status.loaded and status.error is None)
    return BoardSnapshot(rows=tuple(rows), projects=frozen_map(projects), broken=broken, loading=loading,
                         server_now=server_now, generation=generation, watched=watched)


def projects_snapshot(ids: Iterable[int], tracks: Mapping[int, ProjectTrack], paths: Mapping[int, str],
                      server_now: datetime, generation: int) -> ProjectsSnapshot:
    """The CI column for ``ids``."""
    return ProjectsSnapshot(projects=frozen_map(statuses(ids, tracks, paths)), server_now=server_now,
                            generation=generation)
