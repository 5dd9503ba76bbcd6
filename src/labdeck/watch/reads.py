"""The reads the shared poller makes (a base of :class:`labdeck.watch.poller.BoardPoller`): a
project's newest jobs, pipelines alert targets follow off the first page, the activity check, the
watched-set listing and the admin running-now strip. Each notes its outcome in the poller's state;
none raises for server trouble."""

from __future__ import annotations

import logging
import random
from datetime import datetime
from typing import Any

from labdeck.api import errors
from labdeck.api.client import ApiClient
from labdeck.api.core import TOKEN_REFUSED
from labdeck.api.models import Job
from labdeck.api.parsers import list_parser
from labdeck.api.resources.graphql import LatestPipeline, NoGraphql
from labdeck.watch.activity import ActivityCheck
from labdeck.watch.batches import BatchRound, GraphqlBatches
from labdeck.watch.budget import PollStats, RequestBudget
from labdeck.watch.clock import Clock, ServerClock
from labdeck.watch.deep import DeepPipeline, complete
from labdeck.watch.deep_reads import DeepReads
from labdeck.watch.pipelines import as_partial, build_row, derive_pipelines, job_unfinished
from labdeck.watch.running import RunnerHints, read_running_now
from labdeck.watch.settings import PollerSettings
from labdeck.watch.snapshots import RunningNowSnapshot
from labdeck.watch.subscriptions import AlertSink, BoardSubscription, RunningNowSubscription, Subscription
from labdeck.watch.tracking import (
    COLD,
    ERROR,
    HOT,
    SLOW,
    ProjectTrack,
    classify,
    next_due,
    overview_round,
    set_lane,
    signature,
)
from labdeck.watch.watched import WatchedSet

log = logging.getLogger("labdeck.watch")


_REFUSED = (errors.NotFound, errors.Forbidden)
"""This project's own refusals. A 401 is the token's (every read gets it): :meth:`_transient`."""


FRESH_HOT = 120.0
"""Seconds a project stays at the full busy cadence after it turned busy (then it is capped)."""
RECENT = 3600.0
"""Seconds within which a project's pipeline moved for it to be checked by GraphQL every round."""
CHECK_SHARE = 0.5
"""At most this share of the budget goes to GraphQL change checks (their pace slows down to fit)."""


def _matches(track: ProjectTrack, latest: LatestPipeline) -> bool:
    """Whether a project's rows already show the pipeline GraphQL says is its latest, as it stands."""
    if latest.pipeline_id is None:
        return True
    row = next((row for row in track.rows if row.pipeline_id == latest.pipeline_id), None)
    if row is None:
        return False
    return row.server_status is None or row.server_status == latest.status


def trouble(exc: errors.ApiError) -> str:
    """A failure said short, the same way everywhere (``token refused (401)``, ``502 Bad Gateway
    (nginx)``, ``rate limited``): the status line and the board's header show it."""
    if isinstance(exc, errors.Unauthorized):
        return TOKEN_REFUSED
    if isinstance(exc, errors.RateLimited):
        return "rate limited"
    if isinstance(exc, errors.HttpError) and exc.status >= 500:
        message = exc.message
        return message if message.startswith(str(exc.status)) else f"HTTP {exc.status}: {message}"[:80]
    return exc.user_message()


class PollerReads(DeepReads):
    """State and reads of the poller; :class:`~labdeck.watch.poller.BoardPoller` sets it all up."""

    client: ApiClient
    settings: PollerSettings
    stats: PollStats
    budget: RequestBudget
    server_clock: ServerClock
    activity: ActivityCheck
    batches: GraphqlBatches
    _memo: dict[str, float]
    _batch_turn: int
    """Figures worked out once per step (the fair shares look at every project)."""
    tracks: dict[int, ProjectTrack]
    _clock: Clock
    _rng: random.Random
    _subs: list[Subscription[Any]]
    _sinks: list[AlertSink]
    _interest: dict[int, str]
    _dirty: set[int]
    _to_send: set[int]
    _generation: int
    _next_activity: float
    _activity_busy: bool
    _activity_ok: float | None
    _activity_trouble: str | None
    """Why the last change check failed; None once one succeeded (kept, as a project's ``trouble``)."""
    _activity_round: float | None
    _live: bool
    _error: str | None
    _failures: int
    _held_back: set[int]
    """Reads that failed while the client's gate held reads back (0: the change check)."""
    _moved: set[int]
    _next_running: float
    _flavour: str | None
    """The server's dialect once the change check learned it (``gitlab`` or ``spec``)."""
    runner_hints: RunnerHints

    def rotation_period(self) -> float:
        """Seconds within which every watched project is read again (overridden by the poller)."""
        return self.settings.sweep_period

    def busy_interval(self) -> float:
        """The cadence busy projects are capped at (overridden by the poller)."""
        return self.settings.interval

    def failing_interval(self) -> float:
        """The cadence of projects with a broken pipeline (overridden by the poller)."""
        return self.settings.sweep_period

    def server_now(self) -> datetime:
        """The server's time now (see :class:`ServerClock`)."""
        return self.server_clock.now()

    def _progress(self) -> None:
        """Send what is read so far to the screens, mid-step (the poller does; throttled)."""

    def _next_generation(self) -> int:
        self._generation += 1
        return self._generation

    def _deliver(self, sub: Subscription[Any], snapshot: Any) -> None:
        try:
            sub.deliver(snapshot)
        except Exception:  # a subscriber's bug must not stop the poller
            log.exception("watch: %s subscriber failed", sub.kind)

    def _transient(self, exc: errors.ApiError, pid: int = 0) -> float:
        """A failure that is not the project's fault (the server's, the network's, the token's):
        note it and back off, exponential with jitter up to 60 s. What was read before stays
        (shown stale), never replaced by nothing. ``pid``: the project read (0: the change check)."""
        self.stats.errors += 1
        self._failures += 1
        self._error = trouble(exc)
        if self.client.retry_in is not None:
            # The client's gate holds every read back: this one goes again as soon as the server
            # answers the console again (:meth:`_catch_up`), not at the end of this back-off too.
            self._held_back.add(pid)
        if isinstance(exc, errors.RateLimited):
            return max(self.budget.paused(), exc.retry_after or 0.0) or self.settings.interval
        ceiling = min(60.0, self.settings.interval * 2 ** min(self._failures - 1, 6))
        return self._rng.uniform(ceiling / 2, ceiling)

    def _own_trouble(self) -> str | None:
        """The last failure, when it was this read's own (a wrong answer to it while other reads
        pass); None when the client's gate holds every read back: the server's trouble is the
        status line's already, and goes with the first good answer to any read."""
        return self._error if self.client.retry_in is None else None

    def _catch_up(self) -> None:
        """The client's gate lets reads through again (its wait is over, ``ctrl+r`` ended it, or the
        server answered another screen's read): what failed while it held reads back is due now.
        The first of them tests the server when none does yet (one probe at a time: the others
        wait for its answer), so the countdown on screen is when the board tries, and its trouble
        and stale rows go with the first good answers (issue 32: clear when it clears)."""
        ready = self.client.retry_in
        if not self._held_back or (ready or 0.0) > 0:
            return
        now = self._clock()
        if ready is not None:
            # The wait is over and nothing has answered yet: one read tests the server, the rest
            # keep their budget for when it answers.
            if not self.client.gate.probing:
                self._due_now(min(self._held_back), now)
            return
        for pid in list(self._held_back):
            self._due_now(pid, now)

    def _due_now(self, pid: int, now: float) -> None:
        """Project ``pid``'s read (0: the change check) is due ``now``; it leaves the held-back ones."""
        self._held_back.discard(pid)
        if pid == 0:
            self._next_activity = min(self._next_activity, now)
            return
        track = self.tracks.get(pid)
        if track is not None and track.next_due > now:
            track.next_due = now

    def _recovered(self) -> None:
        self._failures = 0
        self._error = None
        self.budget.succeeded()

    async def _read_project(self, track: ProjectTrack) -> None:
        s, pid = self.settings, track.project_id
        began = self._clock()
        track.known_at = None
        try:
            spared = await self._round_without_page(track)
            # Parsed before it is cached or counted as a good read (issue 32: a 304 never stands
            # for a body that did not parse; a read that did not parse is a failure, said).
            read = None if spared else await self.client.fetch_conditional(
                f"projects/{pid}/jobs", {"per_page": s.jobs_per_project}, model=list[Job])
        except _REFUSED as exc:
            self.stats.errors += 1
            now = self._clock()
            track.error, track.rows, track.page_rows, track.loaded = exc.user_message(), (), (), False
            set_lane(track, ERROR, now)
            track.next_due = next_due(track, now, s, self._rng)
            self._dirty.add(pid)
            return
        except errors.ApiError as exc:
            track.next_due = self._clock() + self._transient(exc, pid)
            track.trouble = self._own_trouble()
            return
        self._recovered()
        track.trouble = None
        now, server_now = self._clock(), self.server_now()
        if read is not None:
            changed = not (track.loaded and read.etag is not None and read.etag == track.etag)
            if changed:
                jobs = read.value if read.value is not None else list_parser(Job).validate_json(read.content or b"[]")
                self.stats.parsed += 1
                track.page_rows = tuple(derive_pipelines(pid, track.path, jobs, now=server_now,
                                                         page_full=len(jobs) >= s.jobs_per_project))
                # (changed_at is set by the activity check only: a push whose pipeline may not be
                # there yet. A status change needs no warm-up: unfinished jobs keep a project hot.)
                track.etag, track.loaded, track.error = read.etag, True, None
                # The page's rows on screen now (a partial pipeline's row says "…" meanwhile): its
                # deep reads can take several round trips more.
                self._recomplete(track)
                self._progress()
            await self._complete_partial(track)
        await self._read_followed_pipelines(track, server_now)
        lane = classify(track, now, server_now, s)
        if lane != track.lane:
            self._dirty.add(pid)  # snapshots show the lane ("hot", "cold" …)
        set_lane(track, lane, now)
        # Freshly busy projects (a push, a new job running) are read every interval: a failure
        # there comes soonest. Long-busy ones are capped so that they cannot starve the rest.
        # A push seen in a project already busy makes it fresh again where the runners' lists are
        # the change source: its new pipeline's first jobs may start and fail between two of their
        # readings, unseen. (GraphQL batches see every pipeline move: there, the fresh reads of six
        # busy projects only crowded out the moved ones.)
        fresh_from = track.hot_since or 0.0
        if not self.batches.available:
            fresh_from = max(fresh_from, track.changed_at or 0.0)
        settled_busy = track.hot_since is not None and now - fresh_from > FRESH_HOT
        track.next_due = next_due(track, now, s, self._rng, period=self.rotation_period(),
                                  busy=self.busy_interval() if settled_busy else None)
        track.failing = any(row.broken for row in track.rows)
        if track.failing and not track.overview and not self.batches.available:
            # A broken pipeline's row must stay true (a retry from the web, a new push on the ref),
            # also in a busy project read at the runners' lists' slower pace.
            track.next_due = min(track.next_due, now + self.failing_interval())
        if track.acted_at is not None and track.acted_at >= began:
            track.next_due = now  # the console acted while this read was under way: it may predate it
        track.last_ok = now if track.known_at is None else min(now, track.known_at)
        track.began_ok, track.known_at = began, None

    async def _read_followed_pipelines(self, track: ProjectTrack, server_now: datetime) -> None:
        """Pipelines an alert target follows that are not on the first page: read them directly."""
        wanted: set[int] = set()
        for sink in self._sinks:
            wanted |= sink.pipeline_ids(track.project_id)
        on_page = {row.pipeline_id for row in track.rows}
        for pipeline_id in list(track.extra_rows):
            if pipeline_id not in wanted or pipeline_id in on_page:
                del track.extra_rows[pipeline_id]
        for pipeline_id in sorted(wanted - on_page):
            try:
                read = await self.client.fetch_conditional(
                    f"projects/{track.project_id}/pipelines/{pipeline_id}/jobs", {"per_page": 100}, model=list[Job])
            except errors.ApiError:
                continue  # gone or unreadable: the target keeps its last state
            jobs = read.value if read.value is not None else list_parser(Job).validate_json(read.content or b"[]")
            self.stats.parsed += 1
            if not jobs:
                continue
            row = build_row(track.project_id, track.path, pipeline_id, jobs, server_now)
            if (read.headers.get("x-next-page") or "").isdigit():
                # More than a page of jobs: completed by scoped reads as a partial row is.
                row = as_partial(row)
                state = track.deep.setdefault(pipeline_id, DeepPipeline(pipeline_id))
                state.server_status = row.server_status
                try:
                    await self._refresh_failed(track, row, state, probe=False)
                    await self._refresh_running(track, row, state, force=False)
                except errors.ApiError:
                    pass  # what was learned stays
                row = complete(row, state)
            held = track.extra_rows.get(pipeline_id)
            if held is None or signature((held,)) != signature((row,)):
                track.extra_rows[pipeline_id] = row
                self._dirty.add(track.project_id)

    def _activity_scope(self) -> str | None:
        starred: set[int] = set()
        members: set[int] = set()
        for sub in self._subs:
            if isinstance(sub, BoardSubscription):
                starred |= sub.watched.starred_ids
                members |= sub.watched.member_ids
        wanted = set(self._interest)
        if wanted and wanted <= starred:
            return "starred"
        if wanted and wanted <= members:
            return "membership"
        return None

    def _activity_due(self) -> float:
        """When the activity check is next due: every ``interval`` while the board or an alert
        follows projects; with only the CI column, once per overview round, with its reads (what
        the check finds is read no sooner than that)."""
        if self._live or self._activity_round is None:
            return self._next_activity
        return max(self._next_activity, overview_round(self._activity_round + self.settings.overview_interval,
                                                       self.settings))

    async def _check_activity(self) -> None:
        """The change check: the activity list (pushes into projects quiet for an hour), and on
        GitLab, GraphQL batches over the projects active within the hour (where the activity list
        is blind: GitLab moves ``last_activity_at`` at most once an hour) plus a slice of the others."""
        self._activity_busy = True
        started = self._clock()
        batch: BatchRound | None = None
        try:
            dialect = await self.client.discover()  # one GET /version per client, then cached
            self._flavour = dialect.flavour
            graphql_refused: errors.Unauthorized | None = None
            asked_with = self.client  # a sign-in during the round is another token: not refused
            if dialect.flavour == "gitlab" and self.batches.available is not False:
                try:
                    batch = await self.batches.round(self._batch_ids(), self._interest)
                except NoGraphql:
                    batch = None  # learned once: the activity check alone from now on
                except errors.Unauthorized as exc:
                    graphql_refused = exc  # the token's, or GraphQL's alone: REST tells below
            result = await self.activity.run(self._activity_scope(), since=dialect.flavour == "gitlab")
            if graphql_refused is not None and self.client is asked_with:
                # REST took the token GraphQL refused (a scope or a proxy rule): REST checks alone
                # until a sign-in, rather than no change check at all.
                self.batches.refuse(f"GraphQL refused the token that REST accepts: {graphql_refused.user_message()}")
            await self._learn_pipelines_api(next(iter(self._interest), None))
        except errors.ApiError as exc:
            self._next_activity = self._clock() + self._transient(exc)
            self._activity_trouble = self._own_trouble()
            return
        finally:
            self._activity_busy = False
        self._recovered()
        self._activity_trouble = None
        now = self._clock()
        self._activity_ok, self._activity_round = now, started
        self._next_activity = now + self.check_every()
        if batch is not None:
            self._batch_hints(batch, started, now)
        self.stats.parsed += result.parsed
        for pid in result.moved:
            track = self.tracks.get(pid)
            if track is not None and pid in self._interest and track.loaded:
                # Due when the check started: the CI column reads it in this round, not the next.
                track.next_due, track.changed_at, track.moved_at = started, now, now
                track.moved_progress = False
                self._moved.add(pid)
                set_lane(track, HOT, now)
        if result.overflow:
            for track in self.tracks.values():
                if track.lane in (COLD, SLOW):
                    track.next_due = min(track.next_due, now + self.settings.interval * (1 + 5 * self._rng.random()))

    def _batch_ids(self) -> list[int]:
        """This round's GraphQL projects: those never seen, those whose latest pipeline moved within
        the hour or is unfinished, busy and failing ones, and one batch of the others in turn."""
        recent, rest = self._split_recent()
        size = max(1, self.batches.batch)
        slices = max(1, -(-len(rest) // size))
        self._batch_turn = (self._batch_turn + 1) % slices
        return recent + rest[self._batch_turn::slices]

    def _split_recent(self) -> tuple[list[int], list[int]]:
        server_now = self.server_now()
        recent: list[int] = []
        rest: list[int] = []
        for pid in sorted(self._interest):
            latest = self.batches.latest.get(pid)
            track = self.tracks.get(pid)
            if latest is None or (track is not None and (track.lane == HOT or track.failing)) or (
                    latest.status is not None and job_unfinished(latest.status)) or (
                    latest.updated_at is not None and (server_now - latest.updated_at).total_seconds() < RECENT):
                recent.append(pid)
            else:
                rest.append(pid)
        return recent, rest

    def check_every(self) -> float:
        """Seconds between change checks: ``interval``, or longer when a round (the activity page
        and the GraphQL batches) costs more than half the budget at that pace."""
        cost = self.check_cost()
        return max(self.settings.interval, cost * 60.0 / (self.settings.requests_per_minute * CHECK_SHARE))

    def check_cost(self) -> int:
        """Requests one change check costs (worked out once per step: it looks at every project)."""
        if not self.batches.available:
            return 1
        cached = self._memo.get("check_cost")
        if cached is None:
            cached = self._memo["check_cost"] = 1 + self.batches.requests_per_round(len(self._batch_ids_estimate()))
        return int(cached)

    def _batch_ids_estimate(self) -> list[int]:
        recent, rest = self._split_recent()
        return recent + rest[: max(1, self.batches.batch)]

    def _batch_hints(self, batch: BatchRound, started: float, now: float) -> None:
        """Read now the projects whose latest pipeline moved (or, seen for the first time, is not
        what their rows show); the others are confirmed as they are."""
        self.stats.parsed += 1
        for pid in batch.confirmed:
            track = self.tracks.get(pid)
            if track is None or pid not in self._interest or not track.loaded:
                continue
            latest = batch.latest[pid]
            track.batch_seen, track.batch_seen_at = latest, now
            moved = pid in batch.changed or (pid in batch.first and not _matches(track, latest))
            if moved:
                # Progress alone waits behind any move that may show a failure; one not read yet
                # stays urgent whatever moves after it.
                urgent_unread = pid in self._moved and not track.moved_progress and track.move_unread()
                track.moved_progress = pid in batch.progressed and not urgent_unread
                track.next_due, track.changed_at, track.moved_at = started, now, now
                self._moved.add(pid)
                set_lane(track, HOT, now)
            else:
                track.confirmed_at = now

    async def _list_watched(self, sub: BoardSubscription) -> None:
        failed = True
        try:
            if isinstance(sub.source, WatchedSet):
                failed = bool((await sub.source.resolve()).problems)
            else:
                failed = False
        finally:
            sub.listed_at = self._clock()
            sub.list_failed = failed
            self._to_send.add(id(sub))

    def _runner_hints_on(self) -> bool:
        """Whether the runners' job lists are a change source now: the board or an alert follows
        projects, the token may read them, no GraphQL says which pipelines moved, and reading them
        costs less than following the busy projects one by one every ``interval`` (one busy project
        is cheaper than reading every runner)."""
        if not (self._live and not self.runner_hints.refused and self._flavour is not None
                and (self._flavour != "gitlab" or self.batches.available is False)):
            return False
        s, hints = self.settings, self.runner_hints
        per_minute = 60.0 / hints.every(s.interval, s.requests_per_minute) * hints.cost()
        return self._hot_count() * 60.0 / s.interval > per_minute

    def _hot_count(self) -> int:
        """Busy projects the board or an alert follows (overridden by the poller)."""
        return 0

    async def _read_running_now(self) -> None:
        started_at = self._clock()
        self._next_running = started_at + self.settings.running_now_interval
        hints = self.runner_hints
        try:
            snapshot = await read_running_now(self.client, self.server_now(), self._next_generation())
        except errors.ApiError as exc:
            snapshot = RunningNowSnapshot(error=exc.user_message(), server_now=self.server_now(),
                                          generation=self._next_generation())
        now = self._clock()
        said = hints.refused
        started, stopped = hints.observe(snapshot)
        hints.next_due = now + hints.every(self.settings.interval, self.settings.requests_per_minute)
        if snapshot.refused:
            # Not an administrator: asked again only at the pace of refused reads (the token's
            # rights may change), and the strip is told once, not at every reading.
            self._next_running = started_at + max(self.settings.running_now_interval, self.settings.error_interval)
            if said:
                return
        for pid in started | stopped:
            track = self.tracks.get(pid)
            if track is None or pid not in self._interest or not track.loaded:
                continue
            # A job that started (a retry from elsewhere, the next stage) or stopped (it failed or
            # finished): read the project now rather than when its cadence comes round.
            track.next_due = min(track.next_due, started_at)
            track.moved_at, track.moved_progress = now, False
            self._moved.add(pid)
            if pid in started and track.lane != HOT:
                set_lane(track, HOT, now)
        for sub in self._subs:
            if isinstance(sub, RunningNowSubscription) and sub.active:
                self._deliver(sub, snapshot)
