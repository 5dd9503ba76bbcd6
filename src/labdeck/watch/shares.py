"""The poller's fair shares of the request budget (:class:`FairShares`, a part of
:class:`labdeck.watch.poller.BoardPoller`): what the change check leaves, how often busy and
failing projects are read, the rotation's period over the quiet ones, and from these each board
row's age limit and the bound on how long any watched project waits for its next read (the board's
help says it)."""

from __future__ import annotations

from labdeck.watch.ages import LIVE_LIMIT, QUIET_LIMIT, RowAges
from labdeck.watch.due import DueIndex
from labdeck.watch.reads import PollerReads
from labdeck.watch.running import HINTED_BUSY
from labdeck.watch.tracking import SLOW
from labdeck.watch.work_plan import FAILING_EVERY, ROTATION_SHARE

ROTATION_SLACK = 1.05
"""The bound the help promises is the rotation's period and a twentieth: each request holds its
place in the minute's window for the time it was on its way too, and a read that failed is made
again, so the last projects of a round come round a few seconds late (802 projects: 9 s late on a
loaded machine, where the bare period left 3 s)."""


class FairShares(PollerReads):
    """The budget's shares, worked out once per step (``_memo``) from the lanes' counts."""

    _index: DueIndex

    def _live_count(self) -> int:
        return len(self._index.followed) if self._interest else 0

    def _alert_ids(self) -> frozenset[int]:
        return frozenset().union(*(sink.project_ids() for sink in self._sinks)) if self._sinks else frozenset()

    def spare_per_minute(self) -> float:
        """Requests a minute left once the change check (the activity check every ``interval``)
        is paid: shared by the rotation and the busy projects."""
        s = self.settings
        fixed = 60.0 / max(self.check_every(), 0.1) * self.check_cost()
        if self._runner_hints_on():
            hints = self.runner_hints
            fixed += 60.0 / hints.every(s.interval, s.requests_per_minute) * hints.cost()
        return max(1.0, s.requests_per_minute - fixed)

    def rotation_period(self, projects: int | None = None) -> float:
        """Seconds within which every watched project is read again, whatever busy projects take:
        ``sweep_period``, or longer when the budget's rotation share cannot read them all that
        often (802 projects at 60 a minute: about 33 minutes). ``projects``: for that many watched
        projects rather than those followed now (the help, before the board's first round)."""
        if projects is not None:
            return self._period_for(projects)
        cached = self._memo.get("period")
        if cached is None:
            cached = self._memo["period"] = self._period_for(self._live_count())
        return cached

    def _period_for(self, projects: int) -> float:
        # Half the spare budget at least; more when the busy projects need less than their half
        # (the runners' job lists follow them for a few requests).
        spare = self.spare_per_minute()
        share = max(spare * ROTATION_SHARE, spare - self._busy_demand())
        return max(self.settings.sweep_period, projects * 60.0 / share)

    def busy_interval(self) -> float:
        """The cadence of busy (hot) projects: ``interval``, or longer when there are so many that
        reading each that often (and each failing project every ``FAILING_EVERY``) would take more
        than their share of the budget."""
        return self._busy_every() * self._busy_factor()

    def _busy_every(self) -> float:
        """A busy project's own cadence before the cap: ``interval``, or :data:`HINTED_BUSY` while
        the runners' job lists say when its jobs start and stop and the budget needs what that
        saves (:meth:`_hints_stretch`)."""
        return max(self.settings.interval, HINTED_BUSY) if self._hints_stretch() >= 1 else self.settings.interval

    def failing_interval(self) -> float:
        """The cadence of projects with a broken pipeline (a retry elsewhere turns them green)."""
        return self._failing_every() * self._busy_factor()

    def _busy_factor(self) -> float:
        cached = self._memo.get("busy")
        if cached is None:
            cached = self._memo["busy"] = max(1.0, self._busy_demand() / self._busy_share())
        return cached

    def _busy_share(self) -> float:
        """Requests a minute the busy and failing projects may take: what the rotation leaves of
        the spare budget (it needs every watched project once per ``sweep_period``), at least
        half of it."""
        cached = self._memo.get("busy_share")
        if cached is None:
            spare = self.spare_per_minute()
            rotation = self._live_count() * 60.0 / max(1.0, self.settings.sweep_period)
            cached = self._memo["busy_share"] = max(spare * (1.0 - ROTATION_SHARE), spare - rotation)
        return cached

    def _hints_stretch(self) -> int:
        """How far the runners' job lists (they say when jobs start and stop) let the poller slow
        down: 0, busy and failing projects at their own cadence; 1, busy ones at the hinted pace;
        2, failing ones too. Only as far as the budget needs: a board of a dozen projects had its
        failed rows read every minute (``oldest 48s``) with the budget mostly unused."""
        cached = self._memo.get("stretch")
        if cached is None:
            cached = 0
            if self._runner_hints_on():
                interval, share = self.settings.interval, self._busy_share()
                own_failing = max(interval, FAILING_EVERY)
                if self._demand_at(interval, own_failing) > share:
                    cached = 1 if self._demand_at(max(interval, HINTED_BUSY), own_failing) <= share else 2
            self._memo["stretch"] = cached
        return int(cached)

    def _lanes(self) -> tuple[int, int]:
        """(busy, failing-and-not-busy) projects the board or an alert follows, once per step."""
        if "hot" not in self._memo:
            # Counted by the index as projects change lanes (not by looking at every one).
            index = self._index
            self._memo["hot"] = index.hot
            self._memo["failing"] = 0 if self.batches.available else index.failing
        return int(self._memo["hot"]), int(self._memo["failing"])

    def spare_reserve(self) -> float:
        """Tokens reads the poller did not plan (triage's) leave to the board: half the burst, or
        as many as its busy and failing projects, whose rows promise 30 s and which fall due
        together (read together at start-up, or after a wait); at most all of the burst but one.
        Half the burst left ten failing rows' reads, due at once, waiting up to 5 s."""
        hot, failing = self._lanes()
        burst = self.settings.burst
        return max(burst / 2, min(burst - 1.0, float(hot + failing)))

    def _hot_count(self) -> int:
        return self._lanes()[0]

    def _busy_demand(self) -> float:
        """Requests a minute the busy and failing projects would take at their own cadence."""
        return self._demand_at(self._busy_every(), self._failing_every())

    def _demand_at(self, busy_every: float, failing_every: float) -> float:
        """Requests a minute the busy and failing projects take, read every so many seconds."""
        hot, failing = self._lanes()
        return hot * 60.0 / busy_every + failing * 60.0 / failing_every

    def _failing_every(self) -> float:
        """A broken pipeline's project's own cadence: ``FAILING_EVERY``, or :data:`HINTED_BUSY`
        while the runners' job lists say when a job of it starts again (a retry from the web) and
        the budget needs what that saves (:meth:`_hints_stretch`)."""
        every = max(self.settings.interval, FAILING_EVERY)
        return max(every, HINTED_BUSY) if self._hints_stretch() >= 2 else every

    def row_ages(self) -> RowAges:
        """Each board row's age (its project's last successful read) and whether it is stale."""
        read_at = {pid: max(track.last_ok, track.confirmed_at or 0.0) if track.last_ok is not None else None
                   for pid, track in self.tracks.items()}
        s = self.settings
        live = max(LIVE_LIMIT, max(self.busy_interval(), self.failing_interval()) + s.interval)
        failed = max(LIVE_LIMIT, self.failing_interval() + s.interval) if not self.batches.available else live
        return RowAges(self._clock(), read_at, live, max(QUIET_LIMIT, self.read_bound()), frozenset(
            pid for pid, track in self.tracks.items() if track.lane == SLOW), s.slow_interval + s.interval,
            failed_limit=failed)

    def read_bound(self, projects: int | None = None) -> float:
        """Every watched project is read again within this many seconds (the board's help says it):
        the rotation's period, or on GitLab with GraphQL the time a round takes to come round to
        every project (the active ones every round, the others a batch a round). ``projects``: the
        bound for that many watched projects (default: those followed now)."""
        count = len(self._interest) if projects is None else projects
        bound = self.rotation_period(projects) * ROTATION_SLACK + self.settings.interval
        if self.batches.available:
            quiet = max(0, count - self.check_cost() * self.batches.batch)
            turns = 1 + -(-quiet // max(1, self.batches.batch))
            bound = min(bound, turns * self.check_every() + self.settings.interval)
        return bound
