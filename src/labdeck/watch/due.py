"""Which read is next, without looking at every project at every step.

The poller's step used to rank every watched project (2.4 ms at 802 projects, more at 2,000, at
every wake-up). :class:`DueIndex` keeps them in heaps instead, updated only for the projects that
changed: a :class:`~labdeck.watch.tracking.ProjectTrack` tells it when a field the plan depends on
is set (``next_due``, ``lane``, ``in_flight``, ``last_ok``, ``loaded``, ``error``, ``failing``),
and the index re-files just those projects at the next step. The decisions are the plan's own,
in the same order (see :meth:`DueIndex.plan`):

- ``_future``: every project by ``next_due`` (the next wake-up is its top);
- ``_ready``: projects already due, by lane rank then ``next_due`` (moved there from ``_future``
  as time passes);
- ``_by_read``: projects the board follows, by ``last_ok`` (those the fair rotation's period has
  come round for are its prefix, whatever the period is this step);
- projects never read yet (start-up) and alert targets are few, or few for long: scanned.

Heap entries carry the project's version at filing; an older version is skipped when met, and the
heaps are rebuilt when stale entries outnumber the live ones. Ties keep the order in which the
subscriptions list the projects, as the sorted plan did.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable, Iterator, Mapping, Sequence
from datetime import datetime
from typing import Any

from labdeck.watch.settings import PollerSettings
from labdeck.watch.subscriptions import AlertSink, Subscription
from labdeck.watch.tracking import ERROR, HOT, ProjectTrack, overview_round
from labdeck.watch.work_plan import _OVERDUE, _Work, lane_rank

MakeWork = Callable[[ProjectTrack, tuple[float, ...], bool], _Work]
"""Turns a project and its rank (and whether it is a start-up read) into the plan's work item."""

_Entry = tuple[float, int, int, int]
"""(key, interest order, project id, version)."""
_Ready = tuple[float, float, int, int, int]
"""(lane rank, next due, interest order, project id, version)."""


class DueIndex:
    """The poller's projects, filed by when and how urgently each is read next."""

    def __init__(self) -> None:
        self.touched: set[int] = set()
        """Projects changed since they were last filed (the tracks' watcher adds to it)."""
        self._adjust: set[int] = set()
        """Filed since the last plan: the CI column's overview pace is applied to them there."""
        self._tracks: Mapping[int, ProjectTrack] = {}
        self._order: dict[int, int] = {}
        self._ver: dict[int, int] = {}
        self._future: list[_Entry] = []
        self._ready: list[_Ready] = []
        self._by_read: list[_Entry] = []
        self._popped_read: list[_Entry] = []
        self._popped_ready: list[_Ready] = []
        self.startup: set[int] = set()
        """Projects never read (no refusal either): the start-up budget's reads."""
        self.live: frozenset[int] = frozenset()
        """Projects the board or an alert follows."""
        self.alerts: frozenset[int] = frozenset()
        self.followed: frozenset[int] = frozenset()
        """Followed projects among those wanted now (live ∩ interest)."""
        self.hot = 0
        """Followed projects in the hot lane."""
        self.failing = 0
        """Followed projects with a broken pipeline, not hot."""
        self._counted: dict[int, tuple[bool, bool]] = {}

    def touch(self, track: ProjectTrack) -> None:
        """The tracks' watcher: ``track`` changed in a way the plan depends on."""
        self.touched.add(track.project_id)

    def rebuild(self, tracks: Mapping[int, ProjectTrack], interest: Mapping[int, str], live: frozenset[int],
                alerts: frozenset[int]) -> None:
        """File every wanted project again (the projects wanted, or who follows them, changed)."""
        self._tracks = tracks
        self._order = {pid: index for index, pid in enumerate(interest)}
        self.live, self.alerts = live, alerts
        self.followed = frozenset(live & interest.keys())
        self._future, self._ready, self._by_read = [], [], []
        self._ver = {}
        self.startup = set()
        self._counted = {}
        self.hot = self.failing = 0
        self.touched = set(interest)
        self.flush()

    def flush(self) -> None:
        """File the projects that changed since they were last filed."""
        touched, self.touched = self.touched, set()
        tracks, order_of, ver_of, counted = self._tracks, self._order, self._ver, self._counted
        for pid in touched:
            ver = ver_of[pid] = ver_of.get(pid, 0) + 1
            held = counted.pop(pid, None)
            if held is not None:
                self.hot -= held[0]
                self.failing -= held[1]
            track = tracks.get(pid)
            order = order_of.get(pid)
            if track is None or order is None:
                self.startup.discard(pid)
                continue
            if pid in self.followed:
                hot = track.lane == HOT
                failing = not hot and track.failing
                counted[pid] = (hot, failing)
                self.hot += hot
                self.failing += failing
            self._adjust.add(pid)
            if track.in_flight:
                self.startup.discard(pid)
                continue
            heapq.heappush(self._future, (track.next_due, order, pid, ver))
            if not track.loaded and track.error is None:
                self.startup.add(pid)
                continue
            self.startup.discard(pid)
            if pid in self.live and pid not in self.alerts and track.last_ok is not None:
                heapq.heappush(self._by_read, (track.last_ok, order, pid, ver))
        if len(self._future) + len(self._ready) + len(self._by_read) > 6 * len(order_of) + 64:
            self._compact()

    def _compact(self) -> None:
        ver_of = self._ver
        self._future = [entry for entry in self._future if ver_of.get(entry[2]) == entry[3]]
        self._by_read = [entry for entry in self._by_read if ver_of.get(entry[2]) == entry[3]]
        self._ready = [entry for entry in self._ready if ver_of.get(entry[3]) == entry[4]]
        heapq.heapify(self._future)
        heapq.heapify(self._by_read)
        heapq.heapify(self._ready)

    def adjust(self, settings: PollerSettings, *, failing_every: float | None = None) -> None:
        """The CI column's pace for projects only it wants (an overview, read in the overview
        round), the lane's cadence again for those the board follows now: busy ones every
        ``interval``, broken ones every ``failing_every`` (None: GraphQL batches confirm them).
        Idempotent: applied to the projects filed since the last plan (all of them after
        :meth:`rebuild`)."""
        self.flush()
        pending, self._adjust = self._adjust, set()
        for pid in pending:
            track = self._tracks.get(pid)
            if track is None or pid not in self._order or track.in_flight or track.last_ok is None:
                continue  # (one in flight is filed again, and so adjusted, when its read ends)
            if pid not in self.live:
                due = overview_round(max(track.next_due, track.last_ok + settings.overview_interval), settings)
                if due != track.next_due:
                    track.next_due = due
                track.overview = True
            elif track.overview:
                track.overview = False
                # The overview's next read can be minutes away (a broken project's, at the sweep's
                # pace): its row would be older than its class allows until then (``oldest 4m``).
                if track.lane == HOT:
                    every: float | None = settings.interval
                elif track.failing and track.lane != ERROR:
                    every = failing_every
                else:
                    every = None
                if every is not None and track.last_ok + every < track.next_due:
                    track.next_due = track.last_ok + every
        self.flush()
        self._adjust.clear()  # what adjusting re-filed is adjusted already

    def _release(self, now: float) -> None:
        """Move what fell due by ``now`` from ``_future`` to ``_ready`` (start-up reads and alert
        targets are scanned instead)."""
        future, ver_of = self._future, self._ver
        while future and future[0][0] <= now:
            due, order, pid, ver = heapq.heappop(future)
            if ver_of.get(pid) != ver or pid in self.startup or pid in self.alerts:
                continue
            lane = lane_rank(self._tracks[pid])
            heapq.heappush(self._ready, (lane, due, order, pid, ver))

    def next_after(self, now: float) -> float | None:
        """The earliest ``next_due`` after ``now`` of a project not being read (None: none)."""
        self.flush()
        self._release(now)
        future, ver_of = self._future, self._ver
        while future and ver_of.get(future[0][2]) != future[0][3]:
            heapq.heappop(future)
        return future[0][0] if future else None

    def startup_due(self, now: float, period: float, known: Mapping[int, datetime], make: MakeWork,
                    still: Callable[[], bool]) -> Iterator[_Work]:
        """First reads due now, most urgent first (alert targets, then the projects most recently
        active); stops once ``still()`` is false (the start-up bucket ran dry: the rest would find
        it dry too). Made lazily: 2,000 projects loading are 2,000 candidates a step."""
        keys: list[tuple[float, float, float, int]] = []
        live, alerts, tracks = self.live, self.alerts, self._tracks
        for pid in self.startup:
            track = tracks[pid]
            if track.in_flight:
                continue
            overdue = pid in live and track.last_ok is not None and now - track.last_ok >= period
            if track.next_due > now and not overdue:
                continue
            recent = known.get(pid)
            keys.append((0, 0 if pid in alerts else 1, -(recent.timestamp() if recent else 0.0), pid))
        heapq.heapify(keys)
        while keys and still():
            rank = heapq.heappop(keys)
            yield make(tracks[rank[3]], rank, True)

    def alerts_due(self, now: float, period: float, make: MakeWork) -> list[_Work]:
        """Alert targets (read) due now, in interest order."""
        found: list[tuple[int, _Work]] = []
        for pid in self.alerts:
            alert = self._tracks.get(pid)
            if alert is None or pid not in self._order or pid in self.startup or alert.in_flight:
                continue
            overdue = alert.last_ok is not None and now - alert.last_ok >= period
            if alert.next_due > now and not overdue:
                continue
            found.append((self._order[pid], make(alert, (2, alert.next_due), False)))
        found.sort(key=lambda item: item[0])
        return [item for _, item in found]

    def overdue(self, now: float, period: float, make: MakeWork) -> Iterator[_Work]:
        """Followed projects the rotation's period has come round for, longest unread first."""
        heap, ver_of = self._by_read, self._ver
        while heap:
            entry = heap[0]
            if ver_of.get(entry[2]) != entry[3]:
                heapq.heappop(heap)
                continue
            if not now - entry[0] >= period:
                return
            heapq.heappop(heap)
            self._popped_read.append(entry)
            yield make(self._tracks[entry[2]], (_OVERDUE, entry[0]), False)

    def ready(self, now: float, period: float, make: MakeWork) -> Iterator[_Work]:
        """Projects due now by lane, then by how long they have been due (overdue ones are in
        :meth:`overdue` already)."""
        self._release(now)
        heap, ver_of, tracks, live = self._ready, self._ver, self._tracks, self.live
        while heap:
            entry = heapq.heappop(heap)
            pid = entry[3]
            if ver_of.get(pid) != entry[4]:
                continue
            self._popped_ready.append(entry)
            track = tracks[pid]
            if track.in_flight or (pid in live and track.last_ok is not None and now - track.last_ok >= period):
                continue
            yield make(track, (entry[0], entry[1]), False)

    def restore(self) -> None:
        """Put back what the plan looked at (what it launched is filed again once in flight)."""
        for entry in self._popped_read:
            heapq.heappush(self._by_read, entry)
        for ready in self._popped_ready:
            heapq.heappush(self._ready, ready)
        self._popped_read, self._popped_ready = [], []


def membership_key(subs: Sequence[Subscription[Any]], sinks: Sequence[AlertSink]) -> list[tuple[object, ...]]:
    """Who wants which projects, cheaply compared (:func:`same_membership`): a subscription's
    projects object is replaced, never changed in place, so it is compared by identity (held in
    the key, so that its id cannot be reused); alert targets are few, compared by value."""
    key: list[tuple[object, ...]] = [(sub, sub.active, sub.membership(), False) for sub in subs]
    for sink in sinks:
        ids = sink.project_ids()
        key.append((sink, ids, tuple(sorted((pid, sink.project_path(pid)) for pid in ids)), True))
    return key


def same_membership(new: list[tuple[object, ...]], old: list[tuple[object, ...]]) -> bool:
    """Whether two :func:`membership_key` results say the same projects are wanted by the same."""
    return len(new) == len(old) and all(
        now[0] is was[0] and now[1] == was[1] and (now[2] is was[2] or (bool(now[3]) and now[2] == was[2]))
        for now, was in zip(new, old, strict=True))


def collect_interest(subs: Sequence[Subscription[Any]], sinks: Sequence[AlertSink]) -> dict[int, str]:
    """Project id → path of every project a visible subscription or an alert target wants, in
    their order (ties in the plan keep it)."""
    paths: dict[int, str] = {}
    for sub in subs:
        if sub.active:
            paths.update(sub.project_paths())
    for sink in sinks:
        for pid in sink.project_ids():
            paths.setdefault(pid, sink.project_path(pid) or str(pid))
    return paths
