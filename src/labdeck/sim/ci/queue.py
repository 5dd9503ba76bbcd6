"""The job queue of the CI store: which pending job a runner picks next, and when a pending job is
dropped as stuck, without a pass over every pending job per event.

Thirty projects running 1,500-job pipelines leave tens of thousands of jobs pending at once. They
are grouped by what decides which runners may pick them (project, tags, ref, tag); each group keeps
heaps of its pending jobs, and the runners able to pick the group's jobs are computed again only
when a runner or the project changed. The order is the engine's: a pending job is ready
``1 + (id * 7 + seed) % 5`` seconds after it was queued (or now, if that is past), the earliest ready
job with a free runner goes first, the lowest id among equals; a runner is the least busy one able
to take it (lowest id among equals). Entries are checked when read (a job that left ``pending`` or
was queued again is skipped), so the store only reports status and ``queued_at`` changes.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable, Iterator
from datetime import datetime, timedelta
from typing import Protocol

from labdeck.sim.ci.lifecycle import OUTDATED_PENDING_TIMEOUT, STUCK_REASON, STUCK_TIMEOUT
from labdeck.sim.ci.model import Job, Runner
from labdeck.sim.core.state import Project, SimState

Event = tuple[datetime, int, int, Callable[[], None]]
"""``(at, rank, order, action)``: the earliest (at, rank, order) goes first."""
_Key = tuple[int, tuple[str, ...], str, bool]
_RUNNING = frozenset({"running", "canceling"})
_TIMED = frozenset({"scheduled", "preparing", "canceling"})


class QueueStore(Protocol):
    """What the queue needs of the CI store."""

    state: SimState
    seed: int
    active: set[int]

    @property
    def jobs(self) -> dict[int, Job]:
        """Every job by id."""

    @property
    def runners(self) -> dict[int, Runner]:
        """Every runner by id."""

    def can_run(self, runner: Runner, job: Job, project: Project) -> bool:
        """Whether ``runner`` would pick ``job``."""

    def run(self, job: Job, runner: Runner, at: datetime) -> None:
        """pending → running on ``runner``."""

    def drop(self, job: Job, at: datetime, reason: str) -> None:
        """→ failed with ``reason``."""


class _Group:
    """The pending jobs of one (project, tags, ref, tag)."""

    __slots__ = ("by_queue", "by_base", "due", "fingerprint", "eligible")

    def __init__(self) -> None:
        self.by_queue: list[tuple[datetime, int]] = []  # (queued_at, id): the oldest, for stuck jobs
        self.by_base: list[tuple[datetime, int, datetime]] = []  # (ready, id, queued_at), not yet due
        self.due: list[tuple[int, datetime]] = []  # (id, queued_at): ready now, lowest id first
        self.fingerprint: object = None
        self.eligible: list[Runner] = []


class RunQueue:
    """Running, timed and pending jobs of the CI store, indexed by status."""

    def __init__(self) -> None:
        self.timed: set[int] = set()  # scheduled, preparing, canceling: an event at a known time
        self._fresh: set[int] = set()  # pending (again) since the last look
        self._groups: dict[_Key, _Group] = {}
        self._moved_running: set[int] = set()  # entered or left running/canceling since the last look
        self._holding: dict[int, int] = {}  # job id → the runner whose slot it holds
        self._busy: dict[int, int] = {}  # runner id → jobs running (or canceling) on it
        self._finishing: list[tuple[datetime, int, datetime]] = []  # (done, id, started_at) of running jobs

    def moved(self, job: Job, name: str, old: object) -> None:
        """``job``'s ``status`` or ``queued_at`` changed from ``old``."""
        if name == "status":
            if job.status in _TIMED:
                self.timed.add(job.id)
            elif old in _TIMED:
                self.timed.discard(job.id)
            if job.status in _RUNNING or old in _RUNNING:
                self._moved_running.add(job.id)
        if job.status == "pending":
            self._fresh.add(job.id)

    def replanned(self, job_id: int) -> None:
        """A running job's ``planned_duration`` changed (the control surface making it end now):
        index its finish time again."""
        self._moved_running.add(job_id)

    def busy(self, ci: QueueStore) -> dict[int, int]:
        """Jobs running (or canceling) per runner id, among the jobs with events ahead."""
        for job_id in self._moved_running:
            runner_id = self._holding.pop(job_id, None)
            if runner_id is not None:
                self._busy[runner_id] -= 1
            job = ci.jobs.get(job_id)
            if job is None or job.status not in _RUNNING or job_id not in ci.active:
                continue
            runner_id = job.runner_id or 0
            self._holding[job_id] = runner_id
            self._busy[runner_id] = self._busy.get(runner_id, 0) + 1
            if job.status == "running" and job.planned_duration is not None and job.started_at is not None:
                done = job.started_at + timedelta(seconds=job.planned_duration)
                heapq.heappush(self._finishing, (done, job_id, job.started_at))
        self._moved_running.clear()
        return self._busy

    def next_finish(self, ci: QueueStore) -> tuple[datetime, Job] | None:
        """The running job that finishes first (the lowest id among equals); call :meth:`busy` first."""
        while self._finishing:
            done, job_id, started_at = self._finishing[0]
            job = ci.jobs.get(job_id)
            if job is not None and job.status == "running" and job.started_at == started_at \
                    and job_id in ci.active and job.planned_duration is not None \
                    and job.started_at + timedelta(seconds=job.planned_duration) == done:
                return done, job
            heapq.heappop(self._finishing)
        return None

    def events(self, ci: QueueStore, cursor: datetime, now: datetime, busy: dict[int, int], *,
               gitlab: bool) -> Iterator[Event]:
        """For each group: the next pick (when a runner able to take its jobs is free) and, in the
        gitlab dialect, the next stuck job dropped (only those due by ``now``)."""
        self._absorb(ci)
        runners = _runner_fingerprint(ci)
        idle = {runner.id for runner in ci.runners.values() if busy.get(runner.id, 0) < runner.concurrent}
        for key in list(self._groups):
            group = self._groups[key]
            oldest = _first_queued(ci, group)
            if oldest is None:
                del self._groups[key]
                continue
            eligible = self._eligible(ci, key, group, runners, oldest)
            if gitlab and oldest.queued_at is not None:
                at = oldest.queued_at + (OUTDATED_PENDING_TIMEOUT if eligible else STUCK_TIMEOUT)
                if at <= now:
                    yield at, 3, oldest.id, lambda job=oldest, at=at: ci.drop(job, at, STUCK_REASON)  # type: ignore[misc]
            free = [runner for runner in eligible if runner.id in idle]
            if not free:
                continue
            runner = min(free, key=lambda r: (busy.get(r.id, 0), r.id))
            ready, job = _first_ready(ci, group, cursor)
            yield ready, 2, job.id, lambda job=job, runner=runner, ready=ready: ci.run(job, runner, ready)  # type: ignore[misc]

    def _absorb(self, ci: QueueStore) -> None:
        for job_id in self._fresh:
            job = ci.jobs.get(job_id)
            if job is None or job.status != "pending" or job.queued_at is None:
                continue
            key = (job.project_id, tuple(job.tags), job.ref, job.tag)
            group = self._groups.get(key)
            if group is None:
                group = self._groups[key] = _Group()
            base = job.queued_at + timedelta(seconds=1 + (job.id * 7 + ci.seed) % 5)
            heapq.heappush(group.by_queue, (job.queued_at, job.id))
            heapq.heappush(group.by_base, (base, job.id, job.queued_at))
        self._fresh.clear()

    def _eligible(self, ci: QueueStore, key: _Key, group: _Group, runners: object, sample: Job) -> list[Runner]:
        """The runners able to pick the group's jobs (busy or not), computed again when a runner,
        the project's shared-runner setting or its protected branches changed."""
        project = ci.state.projects.get(key[0])
        if project is None:
            return []
        fingerprint = (runners, project.settings.get("shared_runners_enabled", True),
                       (project.id, sample.ref) in ci.state.protected_branches)
        if fingerprint != group.fingerprint:
            group.fingerprint = fingerprint
            group.eligible = [runner for runner in ci.runners.values() if ci.can_run(runner, sample, project)]
        return group.eligible


def _runner_fingerprint(ci: QueueStore) -> object:
    return tuple((r.id, r.active, r.connected, r.contacted_at is None, r.is_shared, r.run_untagged, r.access_level,
                  tuple(r.tags), tuple(r.project_ids)) for r in ci.runners.values())


def _pending(ci: QueueStore, job_id: int, queued_at: datetime) -> Job | None:
    """The job, if it is still pending since ``queued_at`` (and has events ahead)."""
    job = ci.jobs.get(job_id)
    if job is None or job.status != "pending" or job.queued_at != queued_at or job_id not in ci.active:
        return None
    return job


def _first_queued(ci: QueueStore, group: _Group) -> Job | None:
    while group.by_queue:
        queued_at, job_id = group.by_queue[0]
        job = _pending(ci, job_id, queued_at)
        if job is not None:
            return job
        heapq.heappop(group.by_queue)
    return None


def _first_ready(ci: QueueStore, group: _Group, cursor: datetime) -> tuple[datetime, Job]:
    """The job picked first (the group has one: :func:`_first_queued` found it)."""
    while group.by_base and group.by_base[0][0] <= cursor:
        _, job_id, queued_at = heapq.heappop(group.by_base)
        if _pending(ci, job_id, queued_at) is not None:
            heapq.heappush(group.due, (job_id, queued_at))
    while group.due:
        job_id, queued_at = group.due[0]
        job = _pending(ci, job_id, queued_at)
        if job is not None:
            return cursor, job
        heapq.heappop(group.due)
    while True:
        base, job_id, queued_at = group.by_base[0]
        job = _pending(ci, job_id, queued_at)
        if job is not None:
            return base, job
        heapq.heappop(group.by_base)
