"""A client for one job's :class:`~labdeck.operations.follower.TraceFollower` that reads through the
shared budget and takes the job's status from :class:`JobStatuses` (no request of its own)."""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any

from labdeck.operations.following.budget import ReadBudget
from labdeck.operations.following.statuses import JobRecord, JobStatuses


class _GatedJobs:
    """``client.jobs`` as the follower uses it: ``get`` from memory, ``trace`` in the budget."""

    def __init__(self, jobs: Any, budget: ReadBudget, key: Hashable, statuses: JobStatuses) -> None:
        self._jobs = jobs
        self._budget = budget
        self._key = key
        self._statuses = statuses

    async def get(self, project_id: int | str, job_id: int) -> JobRecord:
        """The job's latest status; waits while the job has not started (its log is empty)."""
        return await self._statuses.started(job_id)

    async def trace(self, project_id: int | str, job_id: int, *, offset: int = 0,
                    etag: str | None = None) -> Any:
        """One read of the trace, in the job's turn."""
        async with self._budget.turn(self._key):
            return await self._jobs.trace(project_id, job_id, offset=offset, etag=etag)


class GatedClient:
    """A client double for a follower of test doubles (``jobs.trace`` only)."""

    def __init__(self, client: Any, budget: ReadBudget, key: Hashable, statuses: JobStatuses) -> None:
        self.jobs = _GatedJobs(client.jobs, budget, key, statuses)


class GatedStreamingClient(GatedClient):
    """For a real :class:`~labdeck.api.ApiClient`: the follower streams the trace through
    :meth:`send`, which takes the job's turn for the request (the body is then read within it)."""

    def __init__(self, client: Any, budget: ReadBudget, key: Hashable, statuses: JobStatuses) -> None:
        super().__init__(client, budget, key, statuses)
        self._client = client
        self._budget = budget
        self._key = key

    async def send(self, method: str, path: str, **options: Any) -> Any:
        """Send one request in the job's turn."""
        async with self._budget.turn(self._key):
            return await self._client.send(method, path, **options)

    def check(self, response: Any) -> None:
        """Raise as the real client does for an error status."""
        self._client.check(response)


def gated(client: Any, budget: ReadBudget, key: Hashable, statuses: JobStatuses) -> GatedClient:
    """The gated client for ``client`` (streaming when it can stream)."""
    if callable(getattr(client, "send", None)) and callable(getattr(client, "check", None)):
        return GatedStreamingClient(client, budget, key, statuses)
    return GatedClient(client, budget, key, statuses)
