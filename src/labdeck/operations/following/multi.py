"""Follow many jobs at once: one follower per job, one budget, one merged log.

:class:`MultiFollower` starts a :class:`~labdeck.operations.follower.TraceFollower` per job (Range
reads, no byte read twice, one last read after the job ends, then no more) whose requests all take
turns of one :class:`~labdeck.operations.following.budget.ReadBudget`: twelve running jobs cost at
most ``rate`` requests a second in all (two by default), statuses included. What arrives goes into
a :class:`~labdeck.operations.following.merged.MergedLog`; a job that ends adds one line saying how
(``✗ failed after 4m12s``). ``on_change`` is called after every change (the view redraws, the
command prints).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any

from labdeck.base.durations import format_duration
from labdeck.operations.follower import FINISHED_STATUSES, TraceEvent, TraceFollower
from labdeck.operations.following.budget import ReadBudget
from labdeck.operations.following.gate import GatedClient, gated
from labdeck.operations.following.merged import WINDOW, MergedLog
from labdeck.operations.following.statuses import WAITING_STATUSES, FollowedJob, JobRecord, JobStatuses

FEED_PIECE = 8 * 1024
"""Characters indexed before the event loop gets a turn (keys stay quick while a big read lands)."""
LABEL_WIDTH = 20
"""Longest job label in the prefix."""
END_MARKS = {"success": "✓ passed", "failed": "✗ failed", "canceled": "⊘ canceled", "skipped": "» skipped"}
RUNNING_FACTOR = 2
QUIET_AFTER = 2.0
"""Seconds a growing log may be still before its job's status is read out of turn."""
"""Statuses are read this many times less often once every job has started."""
STATUS_WORST = ("failed", "canceled", "skipped", "success")
"""Finished statuses, worst first."""


def short_labels(jobs: Sequence[FollowedJob]) -> list[str]:
    """A short, distinct label per job: its name (cut), with its id where names repeat."""
    names = [job.name[:LABEL_WIDTH] or f"#{job.job_id}" for job in jobs]
    return [f"{name[:LABEL_WIDTH - 8]}#{job.job_id}" if names.count(name) > 1 else name
            for name, job in zip(names, jobs, strict=True)]


def end_line(record: JobRecord) -> str:
    """How a job ended: ``✗ failed after 4m12s``, ``✓ passed after 58s``."""
    mark = END_MARKS.get(record.status, f"· {record.status}")
    duration = record.duration
    if duration is None and record.started_at is not None and record.finished_at is not None:
        duration = (record.finished_at - record.started_at).total_seconds()
    return f"{mark} after {format_duration(duration)}" if duration is not None else mark


@dataclass
class JobState:
    """What the header says of one job."""

    status: str = ""
    trouble: str = ""
    """The last read's failure while it is retried ("" once reads work again)."""
    ended: bool = False
    last_data: float | None = None
    """When bytes of its log last arrived (the follower's clock)."""


class MultiFollower:
    """Follow ``jobs`` until each has finished; :attr:`log` holds what arrived."""

    def __init__(self, client: Any, jobs: Sequence[FollowedJob], *, rate: float = 2.0,
                 window: int = WINDOW, min_interval: float = 1.0, max_interval: float = 30.0,
                 status_interval: float = 5.0, on_change: Callable[[], None] | None = None,
                 budget: ReadBudget | None = None, clock: Callable[[], float] = time.monotonic,
                 sleep: Callable[[float], Awaitable[Any]] = asyncio.sleep) -> None:
        self.jobs = list(jobs)
        self.labels = short_labels(self.jobs)
        self.budget = budget or ReadBudget(rate, clock=clock, sleep=sleep)
        self.statuses = JobStatuses(client, self.jobs, self.budget, interval=status_interval,
                                    sleep=sleep, clock=clock)
        self.log = MergedLog(self.labels, window=window)
        self.states = [JobState(job.status) for job in self.jobs]
        self.on_change = on_change or (lambda: None)
        self._clock = clock
        self._sleep = sleep
        self._min_interval = min_interval
        self._max_interval = max_interval
        self._clients: list[GatedClient] = []
        self.followers: list[TraceFollower] = []
        for job in self.jobs:
            gate = gated(client, self.budget, ("trace", job.job_id), self.statuses)
            self._clients.append(gate)
            self.followers.append(TraceFollower(gate, job.project_id, job.job_id, min_interval=min_interval,
                                                max_interval=max_interval, sleep=sleep, clock=clock))

    def use_client(self, client: Any) -> None:
        """A new sign-in: every job goes on with ``client`` from where it is."""
        self.statuses.use_client(client)
        for job, follower in zip(self.jobs, self.followers, strict=True):
            if not follower_done(follower):
                follower.use_client(gated(client, self.budget, ("trace", job.job_id), self.statuses))

    @property
    def finished(self) -> bool:
        """Every job ended and its log was read to the end."""
        return all(state.ended for state in self.states)

    def worst_status(self) -> str:
        """The worst finished status among the jobs (``failed`` before ``canceled`` …)."""
        statuses = {state.status for state in self.states}
        return next((status for status in STATUS_WORST if status in statuses), "")

    def since_good_read(self) -> float | None:
        """Seconds since the data of the least fresh job still followed was last read with an
        answer (a 304 included; its status for a job not started): the view's data age, which a
        job whose reads fail makes grow even while the others answer. Once every job ended, since
        the last answer of any. None before any read answered."""
        now = self._clock()
        statuses = self.statuses.good_read_at
        ages: list[float | None] = []
        for state, follower in zip(self.states, self.followers, strict=True):
            if state.ended:
                continue
            since = follower.since_good_read()
            ages.append(since if since is not None else None if statuses is None else now - statuses)
        if ages:
            return None if None in ages else max(0.0, *(age for age in ages if age is not None))
        answered = [age for age in (follower.since_good_read() for follower in self.followers) if age is not None]
        return min(answered) if answered else None if statuses is None else max(0.0, now - statuses)

    @property
    def requests(self) -> int:
        """Requests made so far (logs and statuses)."""
        return self.statuses.requests + sum(f.stats.trace_requests for f in self.followers)

    @property
    def payload_bytes(self) -> int:
        """Log bytes received so far."""
        return sum(follower.stats.payload_bytes for follower in self.followers)

    async def run(self) -> None:
        """Follow every job until all ended (cancel the task to stop earlier)."""
        await self.statuses.refresh()
        self._note_statuses()
        watcher = asyncio.get_running_loop().create_task(self._watch_statuses(), name="follow-statuses")
        try:
            await asyncio.gather(*(self._follow(number) for number in range(len(self.jobs))))
        finally:
            watcher.cancel()
            self.budget.close()

    async def _watch_statuses(self) -> None:
        last_read = self._clock()
        while not self.statuses.all_finished:
            # A job about to start is looked for every interval; once all run, every other one:
            # a read of the pipeline's jobs costs as much as seconds of a busy log. A log that
            # stops growing is the sign a job may have ended: its status is read then, so that the
            # end line (and the command's exit) does not wait for the next turn.
            waiting = any(self.statuses.status(job.job_id) in WAITING_STATUSES for job in self.jobs)
            every = self.statuses.interval * (1 if waiting else RUNNING_FACTOR)
            await self._sleep(min(every, QUIET_AFTER))
            now = self._clock()
            if now - last_read < every - 1e-6 and not self._fell_quiet(now, since=last_read):
                continue
            last_read = now
            await self.statuses.refresh()
            self._note_statuses()

    def _fell_quiet(self, now: float, *, since: float) -> bool:
        """A job's log grew after the last status read and has been still for ``QUIET_AFTER``."""
        return any(not state.ended and state.last_data is not None and since < state.last_data <= now - QUIET_AFTER
                   for state in self.states)

    def _note_statuses(self) -> None:
        changed = False
        for job, state, follower in zip(self.jobs, self.states, self.followers, strict=True):
            status = self.statuses.status(job.job_id)
            if status and status != state.status and not state.ended:
                state.status = status
                changed = True
                # Its log may have been quiet long enough for its reads to be 30 s apart: a job that
                # starts shows its first lines, and one that ends its end line, now.
                follower.wake()
        if changed:
            self.on_change()

    async def _follow(self, number: int) -> None:
        follower = self.followers[number]
        async for event in follower:
            await self._handle(number, event)
        self._end(number)

    async def _handle(self, number: int, event: TraceEvent) -> None:
        state = self.states[number]
        if event.kind == "data":
            state.trouble = ""
            state.last_data = self._clock()
            data = event.data
            for start in range(0, len(data), FEED_PIECE):
                if self.log.feed(number, data[start:start + FEED_PIECE]):
                    self.on_change()
                if start + FEED_PIECE < len(data):
                    await asyncio.sleep(0)
        elif event.kind == "reset":
            self.log.restart(number, f"— {event.message} —")
        elif event.kind == "status":
            state.status = event.status or state.status
        elif event.kind == "error":
            state.trouble = event.message
        elif event.kind == "end" and event.status not in FINISHED_STATUSES:
            self.log.note(number, f"stopped: {state.trouble or event.message}", "error")
        self.on_change()

    def _end(self, number: int) -> None:
        state = self.states[number]
        self.log.finish(number)
        record = self.statuses.records[self.jobs[number].job_id]
        if record.status in FINISHED_STATUSES:
            state.status = record.status
            self.log.note(number, end_line(record), "end")
        state.ended = True
        self.on_change()


def follower_done(follower: TraceFollower) -> bool:
    """Whether ``follower`` already read its job's log to the end."""
    return follower.status in FINISHED_STATUSES and follower.stats.trace_requests > 0
