"""The one shared poller behind the board, the projects table's CI column, alerts and the admin
"running now" strip.

Every step it does, within the request budget and most urgent first: the first read of projects
never read (startup budget), listings of the watched set, projects of alert targets, the activity
check, projects with running or fresh jobs, stuck projects, the running-now strip, projects whose
last read failed, and the sweep of idle projects. Project reads are one conditional page of newest
jobs (``GET /projects/:id/jobs?per_page=40``): when its ETag is the one the poller already parsed,
nothing is parsed. See :mod:`labdeck.watch.tracking` for the lanes, :mod:`labdeck.watch.budget`
for the budget, 429 and ``RateLimit-*`` handling.

Running it (Textual): ``app.run_worker(poller.run(), group="poller", exclusive=True)``; stop with
``poller.stop()`` (or cancel the worker). Callbacks run on the loop that runs :meth:`run`.
"""

from __future__ import annotations

import asyncio
import functools
import heapq
import logging
import random
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any

from labdeck.api.client import ApiClient
from labdeck.watch.activity import ActivityCheck
from labdeck.watch.batches import GraphqlBatches
from labdeck.watch.budget import PollStats, RequestBudget
from labdeck.watch.clock import Clock, ServerClock, Sleep, WallClock, interruptible_sleep
from labdeck.watch.due import DueIndex, collect_interest, membership_key, same_membership
from labdeck.watch.publish import board_snapshot, projects_snapshot
from labdeck.watch.running import RunnerHints
from labdeck.watch.settings import PollerSettings
from labdeck.watch.shares import FairShares
from labdeck.watch.snapshots import BoardSnapshot, Freshness, ProjectsSnapshot, RunningNowSnapshot
from labdeck.watch.subscriptions import (
    AlertSink,
    BoardSubscription,
    ProjectsSubscription,
    RunningNowSubscription,
    Subscription,
)
from labdeck.watch.tap import WireTap
from labdeck.watch.tracking import HOT, ProjectTrack, set_lane
from labdeck.watch.watched import WatchedProject, WatchedProjects, WatchedSet
from labdeck.watch.work_plan import DETACHED, MOVED_RANK, PROGRESS_EVERY, PROGRESS_RANK, _Work

log = logging.getLogger("labdeck.watch")
HELD_LOOK = 1.0
"""Seconds between two looks at the client's gate while reads wait for it (a look sends nothing)."""


def _rank(item: _Work) -> tuple[float, ...]:
    return item.rank


class BoardPoller(FairShares):
    """One poller per console session. See the module docstring; all times are the injected
    ``clock`` (monotonic seconds) except those shown to people, which are the server's."""

    def __init__(self, client: ApiClient, settings: PollerSettings | None = None, *,
                 clock: Clock = time.monotonic, sleep: Sleep = asyncio.sleep, wall: WallClock = time.time,
                 server_clock: ServerClock | None = None, rng: random.Random | None = None) -> None:
        self.client = client
        self.settings = s = settings or PollerSettings()
        self._clock, self._sleep = clock, sleep
        self.server_clock = server_clock or ServerClock(wall=wall)
        self.stats = PollStats()
        self.budget = RequestBudget(s.requests_per_minute, burst=s.burst, startup_per_minute=s.startup_per_minute,
                                    clock=clock, wall=wall)
        self.tap = WireTap(self.budget, self.server_clock, self.stats, wall=wall, sleep=sleep)
        self.tap.on_action = self.acted_on
        self.activity = ActivityCheck(client, per_page=s.activity_per_page, max_pages=s.activity_max_pages)
        self.batches = GraphqlBatches(client)
        self._memo: dict[str, float] = {}
        self._batch_turn = 0
        self.tracks: dict[int, ProjectTrack] = {}
        self._subs: list[Subscription[Any]] = []
        self._sinks: list[AlertSink] = []
        self._rng = rng or random.Random()
        self._wake = asyncio.Event()
        self._semaphore = asyncio.Semaphore(max(1, s.max_in_flight))
        self._dirty: set[int] = set()
        self._progress_at = float("-inf")
        """When the last snapshot went out in the middle of a step (``time.monotonic``)."""
        self._to_send: set[int] = set()
        self._interest: dict[int, str] = {}
        self._index = DueIndex()
        self._membership: list[tuple[object, ...]] = []
        """Who wanted which projects at the last step (re-filed only when it changes)."""
        self._startup_open = True
        """The step's first reads may still find a token (see :meth:`DueIndex.startup_due`)."""
        self._forget = False
        """A project no one wants any more was in flight: forgotten at a later step."""
        self._generation = 0
        self._next_activity = 0.0
        self._activity_busy = False
        self._runners_busy = False
        """The runners' reading runs beside the steps: not planned again until it ends."""
        self._activity_ok: float | None = None
        self._activity_trouble: str | None = None
        self._activity_round: float | None = None
        self._error: str | None = None
        self._failures = 0
        self._held_back: set[int] = set()
        self._moved: set[int] = set()
        """Projects a change source saw move since their last read (:meth:`_moved_first`)."""
        self._next_running = 0.0
        self._flavour: str | None = None
        self.runner_hints = RunnerHints()
        self._live = False
        self._stopping = False
        self._detach = False
        """In the live loop (:meth:`run`): :data:`DETACHED` work runs beside the steps."""
        self._detached: set[asyncio.Task[None]] = set()
        self._pipelines_api: bool | None = None
        self._pipelines_lock = asyncio.Lock()

    # --- subscriptions -----------------------------------------------------------------------------

    def subscribe_board(self, on_update: Callable[[BoardSnapshot], None], *,
                        watched: WatchedSet | WatchedProjects | Iterable[int], visible: bool = True) -> BoardSubscription:
        """The board: ``on_update(BoardSnapshot)`` on every change of the watched projects."""
        if not isinstance(watched, WatchedSet | WatchedProjects):
            watched = WatchedProjects(tuple(WatchedProject(int(pid), str(pid)) for pid in watched))
        return self._add(BoardSubscription(self, on_update, watched=watched, visible=visible))

    def subscribe_projects(self, on_update: Callable[[ProjectsSnapshot], None],
                           projects: Mapping[int, str] | Iterable[int], *, visible: bool = True) -> ProjectsSubscription:
        """The projects table's CI column for the visible rows (``set_projects`` as they change)."""
        return self._add(ProjectsSubscription(self, on_update, projects, visible=visible))

    def subscribe_running_now(self, on_update: Callable[[RunningNowSnapshot], None], *,
                              visible: bool = True) -> RunningNowSubscription:
        """The admin strip (every ``running_now_interval`` while visible; a token that may not read
        the runners was told so once, and is not asked again at once)."""
        if not self.runner_hints.refused:
            self._next_running = 0.0
        return self._add(RunningNowSubscription(self, on_update, visible=visible))

    def add_alerts(self, sink: AlertSink) -> None:
        """Read the projects of ``sink``'s targets whatever is visible, and tell it what changed."""
        if sink not in self._sinks:
            self._sinks.append(sink)
        self.wake()

    def _add(self, subscription: Any) -> Any:
        self._subs.append(subscription)
        self._to_send.add(id(subscription))
        self.wake()
        return subscription

    def _unsubscribe(self, subscription: Subscription[Any]) -> None:
        self._subs = [sub for sub in self._subs if sub is not subscription]

    def _resend(self, subscription: Subscription[Any]) -> None:
        self._to_send.add(id(subscription))

    # --- running ----------------------------------------------------------------------------------

    def wake(self) -> None:
        """Run a step now (a subscription changed)."""
        self._wake.set()

    def acted_on(self, project: int | str) -> None:
        """The console changed something in ``project`` (id or path): a retry, cancel, play or bulk
        action from any screen. Read it at once (a read under way is followed by another) and keep
        it hot while its pipelines run: the board row changes as the pipeline view does."""
        track = self.tracks.get(project) if isinstance(project, int) else next(
            (held for held in self.tracks.values() if held.path == project), None)
        if track is None:
            return
        now = self._clock()
        track.next_due, track.changed_at, track.acted_at, track.moved_at = now, now, now, now
        track.moved_progress = False
        self._moved.add(track.project_id)
        set_lane(track, HOT, now)
        self._dirty.add(track.project_id)
        self.wake()

    async def run(self) -> None:
        """Poll until :meth:`stop` (or cancellation). Never raises for server trouble: failures
        show in :meth:`freshness` and in the snapshots."""
        self._stopping = False
        self._detach = True
        try:
            while not self._stopping:
                try:
                    delay = await self.step()
                except Exception:  # a bug here must not end live monitoring for the session
                    log.exception("watch: poller step failed")
                    delay = self.settings.interval
                if self._stopping:
                    break
                await interruptible_sleep(self._sleep, delay, self._wake)
        finally:
            self._detach = False
            for task in list(self._detached):
                task.cancel()
            self.tap.uninstall()

    def stop(self) -> None:
        """Ask :meth:`run` to return after the current step."""
        self._stopping = True
        self._wake.set()

    def close(self) -> None:
        """Stop observing the client's responses (when :meth:`step` was driven by hand)."""
        self.tap.uninstall()

    def replace_client(self, client: ApiClient) -> None:
        """A new sign-in (the same instance, another token): every subscription and alert goes on
        with the new client, and everything the old one could not read is read again now (what
        was read stays on show meanwhile). Reads still under way on the old client end quietly."""
        self.tap.uninstall()
        self.client = client
        self.activity.use_engine(client)
        self.batches.use_engine(client)
        now = self._clock()
        for track in self.tracks.values():
            track.next_due = min(track.next_due, now)
            track.trouble = None  # the old token's (its rows keep their age until read again)
        self._next_activity = min(self._next_activity, now)
        self._activity_trouble = None
        self._error = None
        self._failures = 0
        self.runner_hints = RunnerHints()  # the new token may read the runners, or may not
        for sub in self._subs:
            self._to_send.add(id(sub))
        self.wake()

    @property
    def requests_made(self) -> int:
        """HTTP exchanges made by the poller so far."""
        return self.stats.requests

    @property
    def interval(self) -> float:
        """The base cadence in seconds (data older than twice this is stale)."""
        return self.settings.interval

    @property
    def last_complete_at(self) -> float | None:
        """Poller-clock time from which everything that changes on its own was read (None while
        loading); see :class:`Freshness`."""
        return self.freshness().last_complete_at

    @property
    def is_stale(self) -> bool:
        """True when the data is older than twice :attr:`interval` (the status line turns amber)."""
        return self.freshness().is_stale

    def freshness(self) -> Freshness:
        """For the status line: ``freshness().label`` ("data 4s"), ``.is_stale`` (amber)."""
        now = self._clock()
        tracks = [self.tracks[pid] for pid in self._interest if pid in self.tracks]
        loading = sum(1 for track in tracks if not track.loaded and track.error is None)
        last: float | None = None
        if self._interest and not loading and self._activity_ok is not None:
            stamps = [self._activity_ok] + [track.live_since() for track in tracks if track.lane == HOT]
            last = None if any(stamp is None for stamp in stamps) else min(s for s in stamps if s is not None)
        # A project whose last read failed keeps the trouble said, whatever other reads answered.
        error = self._error or self._activity_trouble or next((track.trouble for track in tracks if track.trouble), None)
        return Freshness(last, max(self.settings.interval, self.check_every()), now, loading, self.budget.paused(),
                         error)

    # --- one step ---------------------------------------------------------------------------------

    async def step(self) -> float:
        """Do the work that is due and affordable now; publish; return the seconds until the next
        step is useful. Tests drive the poller with this and an injected clock."""
        self.tap.install(self.client.http)
        self._catch_up()
        now = self._clock()
        self._memo.clear()
        self._follow_membership(now)
        self.budget.spare_reserve = self.spare_reserve()
        self.budget.check_room = self.check_cost() if self._interest else 0
        launched: list[_Work] = []
        startup_blocked = False
        steady_blocked: tuple[float, bool] | None = None
        """The reserve the first steady item that found the bucket too low needed, and whether it
        was urgent (:attr:`_Work.urgent`: it may take the places the others leave)."""
        limit = max(1, self.settings.max_in_flight) * 2
        reserve = self.settings.burst / 2
        for item in self._plan(now):
            if len(launched) >= limit:
                break
            if item.track is not None and item.track.in_flight:
                continue  # planned first as a moved project (:meth:`_moved_first`), and launched
            if item.startup:
                if not self.budget.try_take(startup=True):
                    # The other first reads would find the bucket as dry (same clock): not tried.
                    startup_blocked, self._startup_open = True, False
                    continue
            elif not self.budget.try_take(reserve=reserve if item.background else 0.0,
                                          urgent=item.urgent):
                # Every item after this one is steady too (start-up reads rank first): all wait.
                steady_blocked = (reserve if item.background else 0.0, item.urgent)
                break
            if item.track is not None:
                item.track.in_flight = True
            if self._detach and item.kind in DETACHED:
                self._launch_detached(item)
                continue
            launched.append(item)
        self._index.restore()
        if launched:
            await asyncio.gather(*(self._guarded(item, progress=True) for item in launched))
        self._publish()
        if launched:
            return 0.0
        # Whatever is due now and was not launched waits for its budget, and what falls due later
        # cannot go before the bucket holds a token either: sleep until then, not until "now" —
        # that would wake the poller 20 times a second while the budget is spent (300 watched
        # projects with running jobs), each wake planning every project again for nothing.
        waits = [max(self._next_wake(self._clock()), self.budget.wait_time())]
        if steady_blocked is not None:
            waits.append(self.budget.wait_time(reserve=steady_blocked[0], urgent=steady_blocked[1]))
        if startup_blocked:
            waits.append(self.budget.wait_time(startup=True))
        if self._held_back:
            # When the gate's wait ends, or sooner: another screen's read may open it.
            ready = self.client.retry_in
            waits.append(min(HELD_LOOK, ready) if ready else HELD_LOOK)
        return max(0.05, min(waits))

    def _follow_membership(self, now: float) -> None:
        """Who wants which projects: worked out again (and every project re-filed) only when a
        subscription, its projects or an alert target changed, not at every step."""
        key = membership_key(self._subs, self._sinks)
        if same_membership(key, self._membership):
            if self._forget:
                self._forget_tracks()
            return
        self._membership = key
        self._interest = collect_interest(self._subs, self._sinks)
        self._sync_tracks(now)
        alert_ids = self._alert_ids()
        self._index.rebuild(self.tracks, self._interest, self._live_ids(alert_ids), alert_ids)

    def _sync_tracks(self, now: float) -> None:
        for pid, path in self._interest.items():
            track = self.tracks.get(pid)
            if track is None:
                self.tracks[pid] = ProjectTrack(pid, path, next_due=now, watcher=self._index.touch)
            elif path != str(pid) and track.path != path:
                track.path = path
        self._forget_tracks()

    def _forget_tracks(self) -> None:
        self._forget = False
        if len(self.tracks) > len(self._interest):
            # Forget projects no subscription (hidden ones included) and no alert needs any more:
            # a projects table scrolled through thousands of rows must not keep them all.
            wanted = set(self._interest)
            for sub in self._subs:
                wanted |= sub.project_ids()
            for pid in [pid for pid in self.tracks if pid not in wanted]:
                track = self.tracks[pid]
                if track.in_flight:
                    self._forget = True
                else:
                    for pipeline_id in list(track.deep):
                        self._forget_deep(track, pipeline_id)  # and its pages' bodies in the ETag cache
                    del self.tracks[pid]

    def _plan(self, now: float) -> Iterator[_Work]:
        """The work due now, most urgent first (lazily: the step stops at its cap or when the
        budget runs out, and what it did not look at stays filed)."""
        s = self.settings
        index = self._index
        index.adjust(s, failing_every=None if self.batches.available else self.failing_interval())
        work: list[_Work] = []
        for sub in self._subs:
            if (isinstance(sub, BoardSubscription) and sub.active and isinstance(sub.source, WatchedSet)
                    and now >= sub.listing_due(now, s.watched_refresh, s.interval)):
                opening = sub.listed_at is None  # opens the board: first, on the start-up allowance
                work.append(_Work((0, -1) if opening else (1, sub.listed_at or 0.0), "watched",
                                  functools.partial(self._list_watched, sub), startup=opening))
        period = self.rotation_period()
        self._live = bool(index.live)
        work.extend(index.alerts_due(now, period, self._work_for))
        activity_due = self._activity_due()
        if self._interest and not self._activity_busy and now >= activity_due:
            work.append(_Work((3, activity_due), "activity", self._check_activity))
        strip = any(isinstance(sub, RunningNowSubscription) and sub.active for sub in self._subs)
        hints_due = self._runner_hints_on() and now >= self.runner_hints.next_due
        if not self._runners_busy and (hints_due or (strip and now >= self._next_running)):
            # One reading serves both the strip and the change hints (where there is no GraphQL).
            runners_rank: tuple[float, ...] = (3, self.runner_hints.next_due) if hints_due else (6, self._next_running)
            work.append(_Work(runners_rank, "runners", self._read_running_now))
        work.sort(key=_rank)
        self._startup_open = True
        first = index.startup_due(now, period, self.activity.known, self._work_for, lambda: self._startup_open)
        return heapq.merge(first, work, self._moved_first(now), index.overdue(now, period, self._work_for),
                           index.ready(now, period, self._work_for), key=_rank)

    def _moved_first(self, now: float) -> list[_Work]:
        """Reads of the projects a change source saw move since their last read (a push, a job that
        stopped, a pipeline a GraphQL batch saw change, the console's own action), before every
        other project's read: a busy project whose new pipeline a batch had seen waited 6 s behind
        reads of projects that were merely due, and its failure reached the board 30 s late."""
        work: list[_Work] = []
        for pid in list(self._moved):
            track = self.tracks.get(pid)
            if track is None or pid not in self._interest or not track.move_unread():
                self._moved.discard(pid)  # read since (or no longer followed)
                continue
            if track.in_flight or not track.loaded or track.next_due > now:
                continue
            rank = PROGRESS_RANK if track.moved_progress else MOVED_RANK
            work.append(self._work_for(track, (rank, track.moved_at or now), False))
        work.sort(key=_rank)
        return work

    def _work_for(self, track: ProjectTrack, rank: tuple[float, ...], startup: bool) -> _Work:
        return _Work(rank, "jobs", functools.partial(self._read_project, track), startup=startup, track=track)

    def _live_ids(self, alert_ids: frozenset[int]) -> frozenset[int]:
        """Projects the board or an alert follows (read at the live cadence)."""
        ids = set(alert_ids)
        for sub in self._subs:
            if isinstance(sub, BoardSubscription) and sub.active:
                ids |= sub.project_ids()
        return frozenset(ids)

    def _next_wake(self, now: float) -> float:
        """Seconds until the next work falls due. Work already due is left out: :meth:`step`
        launched it, or it waits for the budget (and :meth:`step` adds that wait)."""
        times: list[float] = []
        first = self._index.next_after(now)
        if first is not None:
            times.append(first)
        if self._interest and not self._activity_busy:
            times.append(self._activity_due())
        for sub in self._subs:
            if isinstance(sub, BoardSubscription) and sub.active and isinstance(sub.source, WatchedSet):
                times.append(sub.listing_due(now, self.settings.watched_refresh, self.settings.interval))
            elif isinstance(sub, RunningNowSubscription) and sub.active:
                times.append(self._next_running)
        if self._runner_hints_on() and not self._runners_busy:
            times.append(self.runner_hints.next_due)
        return min((moment for moment in times if moment > now), default=now + 60.0) - now

    def _launch_detached(self, item: _Work) -> None:
        """Run ``item`` beside the steps; it is not planned again meanwhile, and its end wakes the
        loop (what it learned is published by the next step)."""
        if item.kind == "activity":
            self._activity_busy = True
        elif item.kind == "runners":
            self._runners_busy = True
            self._next_running = self._clock() + self.settings.running_now_interval

        async def run() -> None:
            try:
                await self._guarded(item)
            finally:
                if item.kind == "activity":
                    self._activity_busy = False
                elif item.kind == "runners":
                    self._runners_busy = False
                self.wake()

        task = asyncio.get_running_loop().create_task(run())
        self._detached.add(task)
        task.add_done_callback(self._detached.discard)

    async def _guarded(self, item: _Work, *, progress: bool = False) -> None:
        await self._guarded_run(item)
        if progress:
            self._progress()

    def _progress(self) -> None:
        """In the middle of a step: what the reads finished so far goes to the screens (not to the
        alerts, which see the step's end), at most every ``PROGRESS_EVERY``."""
        now = time.monotonic()
        if not self._dirty or now - self._progress_at < PROGRESS_EVERY:
            return
        self._progress_at = now
        self._publish(sinks=False)

    async def _guarded_run(self, item: _Work) -> None:
        client = self.client
        async with self._semaphore:
            with self.tap.attributed(item.kind, startup=item.startup, urgent=item.urgent) as attribution:
                try:
                    await item.run()
                except Exception as exc:  # never let one read stop the board
                    if self.client is not client:
                        # The client was replaced (a new sign-in) and the old one closed under this
                        # read: not a failure of the server; read again with the new one at once.
                        log.debug("watch: %s read ended with the old client", item.kind)
                        if item.track is not None:
                            item.track.next_due = self._clock()
                        return
                    log.warning("watch: %s read failed: %s", item.kind, type(exc).__name__)
                    self._error = f"{item.kind}: {type(exc).__name__}"
                    # Not again at once: a body that cannot be read will not read better in a second.
                    later = self._clock() + self.settings.slow_interval
                    if item.track is not None:
                        item.track.next_due = later
                    elif item.kind == "activity":
                        self._next_activity = later
                finally:
                    if item.track is not None:
                        item.track.in_flight = False
            # Extra pages and pipeline reads cost budget too (the token covered one request).
            self.budget.charge(attribution.requests - 1, startup=item.startup)

    # --- publishing -------------------------------------------------------------------------------

    def _publish(self, *, sinks: bool = True) -> None:
        dirty, self._dirty = self._dirty, set()
        resend, self._to_send = self._to_send, set()
        if not dirty and not resend and not (self._sinks and sinks):
            return
        server_now = self.server_now()
        for sink in self._sinks if sinks else ():
            # Every read project of every target, every step: a new target gets its baseline at
            # once, and the engine fires on transitions only (cheap: a few targets, a few rows).
            for pid in sink.project_ids():
                track = self.tracks.get(pid)
                if track is not None and track.loaded:
                    try:
                        sink.observe(pid, track.all_rows(), server_now)
                    except Exception:
                        log.exception("watch: alert engine failed")
        for sub in list(self._subs):
            if not sub.active or (id(sub) not in resend and not dirty & sub.project_ids()):
                continue
            if isinstance(sub, BoardSubscription):
                self._deliver(sub, board_snapshot(sub.watched, self.tracks, server_now, self.settings,
                                                  self._next_generation()))
            elif isinstance(sub, ProjectsSubscription):
                self._deliver(sub, projects_snapshot(sub.project_ids(), self.tracks, sub.project_paths(),
                                                     server_now, self._next_generation()))
            elif isinstance(sub, RunningNowSubscription) and sub.last is not None:
                self._deliver(sub, sub.last)  # visible again: the last strip until the next reading
