"""The poller's due index picks exactly what ranking every project at every step picked (the full
scan it replaces, kept here as the reference), however projects change between steps: which
project is read next, in which order, and when the poller wakes up next."""

from __future__ import annotations

import heapq
import random

from labdeck.watch.due import DueIndex
from labdeck.watch.settings import PollerSettings
from labdeck.watch.tracking import COLD, ERROR, HOT, SLOW, ProjectTrack, overview_round
from labdeck.watch.work_plan import _OVERDUE, _Work, lane_rank


def _reference(tracks: dict[int, ProjectTrack], interest: list[int], live: frozenset[int], alerts: frozenset[int],
               now: float, period: float, s: PollerSettings) -> tuple[list[tuple[tuple[float, ...], int]], float | None]:
    """The plan as the poller made it before the index: every project ranked, then sorted."""
    work: list[tuple[tuple[float, ...], int]] = []
    for pid in interest:
        track = tracks[pid]
        if track.in_flight:
            continue
        if track.last_ok is not None:
            if pid not in live:
                track.next_due = overview_round(max(track.next_due, track.last_ok + s.overview_interval), s)
                track.overview = True
            elif track.overview:
                track.overview = False
                if track.lane == HOT:
                    track.next_due = min(track.next_due, track.last_ok + s.interval)
        overdue = pid in live and track.last_ok is not None and now - track.last_ok >= period
        if track.next_due > now and not overdue:
            continue
        if not track.loaded and track.error is None:
            work.append(((0, 0 if pid in alerts else 1, 0.0, pid), pid))
        elif overdue and pid not in alerts:
            work.append(((_OVERDUE, track.last_ok or 0.0), pid))
        else:
            work.append(((2 if pid in alerts else lane_rank(track), track.next_due), pid))
    work.sort(key=lambda item: item[0])
    later = [tracks[pid].next_due for pid in interest if not tracks[pid].in_flight and tracks[pid].next_due > now]
    return [(rank, pid) for rank, pid in work], min(later, default=None)


def _planned(index: DueIndex, now: float, period: float, s: PollerSettings) -> tuple[list[tuple[tuple[float, ...], int]], float | None]:
    def make(track: ProjectTrack, rank: tuple[float, ...], startup: bool) -> _Work:
        async def run() -> None:
            return None
        return _Work(rank, "jobs", run, startup=startup, track=track)

    index.adjust(s)
    merged = heapq.merge(index.startup_due(now, period, {}, make, lambda: True), index.alerts_due(now, period, make),
                         index.overdue(now, period, make), index.ready(now, period, make), key=lambda item: item.rank)
    found = [(item.rank, item.track.project_id) for item in merged if item.track is not None]
    index.restore()
    return found, index.next_after(now)


def test_the_index_plans_what_the_full_scan_planned_as_projects_change() -> None:
    rng = random.Random(29)
    s = PollerSettings()
    index = DueIndex()
    interest = list(range(1, 301))
    tracks = {pid: ProjectTrack(pid, f"group/p{pid}", next_due=1000.0, watcher=index.touch) for pid in interest}
    tracks[999] = ProjectTrack(999, "hidden/kept", watcher=index.touch)  # wanted by a hidden screen only
    live = frozenset(interest[:240])  # the rest: only the projects table's CI column wants them
    alerts = frozenset({7, 250})
    index.rebuild(tracks, {pid: tracks[pid].path for pid in interest}, live, alerts)
    now = 1000.0
    for step in range(400):
        for pid in rng.sample(interest, 12):
            track = tracks[pid]
            change = rng.random()
            if change < 0.4:  # a read ended
                track.loaded, track.error = True, None
                track.lane = rng.choice([HOT, SLOW, COLD, COLD, COLD])
                track.last_ok = now - rng.choice([0.0, 5.0, 600.0, 2000.0])
                track.next_due = now + rng.choice([0.0, 10.0, 25.0, rng.uniform(0, 900)])
                track.failing = rng.random() < 0.2
            elif change < 0.55:  # the activity check, a runner, the console: read it now
                track.next_due = now - rng.uniform(0, 3)
            elif change < 0.65:
                track.in_flight = not track.in_flight
            elif change < 0.7:  # refused
                track.error, track.loaded, track.lane = "404", False, ERROR
                track.next_due = now + 300
            elif change < 0.75:  # a failed first read: still loading
                track.loaded, track.error, track.next_due = False, None, now + rng.uniform(0, 20)
        now += rng.choice([0.0, 0.05, 1.0, 7.5, 30.0])
        period = rng.choice([300.0, 900.0, 1980.0])
        planned, wake = _planned(index, now, period, s)
        before = {pid: tracks[pid].next_due for pid in interest}
        expected, expected_wake = _reference(tracks, interest, live, alerts, now, period, s)
        assert {pid: tracks[pid].next_due for pid in interest} == before, f"step {step}: a project was not re-paced"
        assert planned == expected, f"step {step}"
        assert wake == expected_wake, f"step {step}"
        # What the plan launched is in flight until its read ends.
        for _, pid in planned[:rng.choice([0, 1, 8])]:
            tracks[pid].in_flight = True
    hot = sum(1 for pid in live if tracks[pid].lane == HOT)
    index.flush()
    assert index.hot == hot


def test_a_broken_pipelines_project_due_at_its_cadence_is_not_background_work() -> None:
    """Its row promises 30 s: background work (the cold sweep) waits for a reserve of the bucket
    that steady reads never leave, and the failed rows went 105-135 s old on a spec server."""
    s = PollerSettings()
    index = DueIndex()
    tracks = {pid: ProjectTrack(pid, f"group/p{pid}", next_due=990.0, watcher=index.touch) for pid in (1, 2)}
    for pid, failing in ((1, True), (2, False)):
        tracks[pid].loaded, tracks[pid].lane, tracks[pid].last_ok, tracks[pid].failing = True, COLD, 980.0, failing
    index.rebuild(tracks, {pid: tracks[pid].path for pid in tracks}, frozenset(tracks), frozenset())
    planned, _ = _planned(index, 1000.0, 300.0, s)
    assert [pid for _, pid in planned] == [1, 2]
    ranks = {pid: rank for rank, pid in planned}

    async def run() -> None:
        return None

    assert not _Work(ranks[1], "jobs", run).background and _Work(ranks[2], "jobs", run).background
