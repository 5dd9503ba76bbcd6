"""The statuses of the followed jobs, read for all of them at once within the shared budget.

Each :class:`~labdeck.operations.follower.TraceFollower` asks for its job's status before every read
of the log; followed one by one that doubles the requests. Here one read of a pipeline's jobs
(``GET /projects/:id/pipelines/:pid/jobs``) answers for every followed job of that pipeline, every
``interval`` seconds, as one turn of the budget; the followers get the status from memory. A job
that has not started yet is not read at all: its follower waits here until it runs.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from labdeck.api import errors
from labdeck.operations.follower import FINISHED_STATUSES
from labdeck.operations.following.budget import ReadBudget

WAITING_STATUSES = frozenset({"created", "pending", "waiting_for_resource", "preparing", "manual",
                              "scheduled", ""})
"""Statuses of a job whose log has not begun."""


@dataclass(frozen=True)
class FollowedJob:
    """A job to follow: where it is, its name, and what is known of it when following starts."""

    project_id: int | str
    job_id: int
    name: str
    pipeline_id: int | None = None
    status: str = ""
    stage: str = ""


@dataclass(frozen=True)
class JobRecord:
    """What the followers need of a job record."""

    id: int
    status: str
    duration: float | None = None
    started_at: datetime | None = None
    finished_at: datetime | None = None


def record_of(job: Any) -> JobRecord:
    """The :class:`JobRecord` of an API job record (or a test double with ``id`` and ``status``)."""
    return JobRecord(int(job.id), str(getattr(job, "status", "") or ""), getattr(job, "duration", None),
                     getattr(job, "started_at", None), getattr(job, "finished_at", None))


class JobStatuses:
    """The latest record of every followed job; :meth:`run` keeps them fresh until all finished."""

    def __init__(self, client: Any, jobs: Sequence[FollowedJob], budget: ReadBudget, *,
                 interval: float = 5.0, sleep: Callable[[float], Awaitable[Any]] = asyncio.sleep,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self._client = client
        self.jobs = list(jobs)
        self.budget = budget
        self.interval = interval
        self._sleep = sleep
        self._clock = clock
        self.records: dict[int, JobRecord] = {job.job_id: JobRecord(job.job_id, job.status) for job in jobs}
        self.trouble = ""
        """Why the last read of the statuses failed ("" when it worked)."""
        self.requests = 0
        self.good_read_at: float | None = None
        """When (on ``clock``) a read of the statuses last answered in full (None before)."""
        self._changed = asyncio.Event()
        self._read_once = False

    def use_client(self, client: Any) -> None:
        """Read through ``client`` from now on."""
        self._client = client

    def status(self, job_id: int) -> str:
        """The job's latest known status."""
        return self.records[job_id].status

    @property
    def all_finished(self) -> bool:
        """Every followed job is in a finished status."""
        return all(record.status in FINISHED_STATUSES for record in self.records.values())

    async def refresh(self) -> None:
        """Read the statuses now (one request per pipeline; per job where the pipeline is unknown)."""
        groups: dict[tuple[int | str, int | None], list[FollowedJob]] = {}
        for job in self.jobs:
            if self.records[job.job_id].status in FINISHED_STATUSES and self._read_once:
                continue
            key = (job.project_id, job.pipeline_id if self._can_list() else None)
            groups.setdefault(key, []).append(job)
        try:
            for (project_id, pipeline_id), members in groups.items():
                if pipeline_id is not None:
                    await self._read_pipeline(project_id, pipeline_id, members)
                else:
                    for job in members:
                        async with self.budget.turn(("status", job.job_id)):
                            self.requests += 1
                            self._store(await self._client.jobs.get(project_id, job.job_id))
            self.trouble = ""
            self.good_read_at = self._clock()
        except errors.ApiError as exc:
            self.trouble = exc.user_message()
        self._read_once = True
        self._changed.set()
        self._changed = asyncio.Event()

    def _can_list(self) -> bool:
        return callable(getattr(self._client.jobs, "list", None))

    async def _read_pipeline(self, project_id: int | str, pipeline_id: int, members: list[FollowedJob]) -> None:
        async with self.budget.turn(("status", project_id, pipeline_id)):
            self.requests += 1
            listed = await self._client.jobs.list(project_id, pipeline_id=pipeline_id).all()
        wanted = {job.job_id for job in members}
        for job in listed:
            if int(job.id) in wanted:
                self._store(job)

    def _store(self, job: Any) -> None:
        record = record_of(job)
        if record.id in self.records:
            self.records[record.id] = record

    async def run(self) -> None:
        """Read the statuses every ``interval`` seconds until every job finished."""
        while True:
            began = self._clock()
            await self.refresh()
            if self.all_finished:
                return
            await self._sleep(max(0.0, self.interval - (self._clock() - began)))

    async def started(self, job_id: int) -> JobRecord:
        """The job's record once its log has begun (running or finished)."""
        while self.records[job_id].status in WAITING_STATUSES or not self._read_once:
            await self._changed.wait()
        return self.records[job_id]
