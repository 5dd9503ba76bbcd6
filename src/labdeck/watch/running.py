"""The admin "running now" strip: every running job on the instance, from the runners' side.

``GET /runners/all`` (admin only), then ``GET /runners/:id/jobs?status=running`` for each runner
that is online. It costs 1 + (online runners) requests, so it has its own, slower cadence
(``running_now_interval``) and runs only while a visible subscription wants it. It also tells the
poller about running jobs in watched projects it believed idle (a pipeline pushed within GitLab's
one-hour activity gap shows up here before the sweep reaches it).

Where no GraphQL tells which pipelines moved (spec servers, or GraphQL refused), the same reading is
a change source of its own (:class:`RunnerHints`), at a pace that fits a share of the budget, while
the token may read it: a job running in a project the poller believed idle, or a job that stopped
running (it failed, or finished), has that project read at once.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from labdeck.api import errors
from labdeck.api.client import ApiClient
from labdeck.api.models import RunnerJob
from labdeck.api.parsers import list_parser
from labdeck.watch.snapshots import RunningJob, RunningNowSnapshot


async def read_running_now(client: ApiClient, server_now: datetime, generation: int) -> RunningNowSnapshot:
    """One reading of the strip. A 403 (not an admin) gives an empty snapshot with ``error`` set;
    other failures raise :class:`labdeck.api.errors.ApiError`."""
    try:
        # Conditional: an idle instance answers 304s (no list rebuilt); the same body either way.
        runners = await client.runners.list_all(conditional=True).all()
    except (errors.Forbidden, errors.Unauthorized) as exc:
        return RunningNowSnapshot(error=exc.user_message(), server_now=server_now, generation=generation,
                                  refused=isinstance(exc, errors.Forbidden))
    online = [runner for runner in runners if runner.online]
    jobs: list[RunningJob] = []
    for runner in online:
        try:
            read = await client.fetch_conditional(f"runners/{int(runner.id)}/jobs",
                                                  {"status": "running", "per_page": 100}, model=list[RunnerJob])
            running = read.value if read.value is not None else \
                list_parser(RunnerJob).validate_json(read.content or b"[]")
        except (errors.NotFound, errors.Forbidden):
            continue  # removed meanwhile, or not ours to read: the others still count
        label = runner.description or runner.name or f"#{runner.id}"
        jobs.extend(RunningJob(runner.id, label, job) for job in running)
    jobs.sort(key=lambda item: item.job.started_at or server_now)
    return RunningNowSnapshot(jobs=tuple(jobs), runners_online=len(online), runners_total=len(runners),
                              server_now=server_now, generation=generation)


RUNNER_SHARE = 0.2
"""At most this share of the budget goes to the runners' job lists as a change source."""
HINTED_BUSY = 60.0
"""Seconds between reads of a long-busy project while the runners' job lists say when its jobs
start and stop (each start or stop has it read at once): the budget they would take every
``interval`` goes to the rotation instead."""


@dataclass
class RunnerHints:
    """The runners' running jobs as a change source: which projects to read now, from two readings."""

    refused: bool = False
    """The token may not read them (403: not an admin): learned at the first refusal, unlearned
    only by a reading that succeeds (asked again every ``error_interval``) or a new client."""
    online: int = 1
    """Online runners at the last reading (a reading costs one request more than this)."""
    next_due: float = 0.0
    _running: dict[int, frozenset[int]] = field(default_factory=dict)
    _seen: bool = False

    def cost(self) -> int:
        """Requests one reading costs (``/runners/all``, then one per online runner)."""
        return 1 + self.online

    def every(self, interval: float, requests_per_minute: float) -> float:
        """Seconds between readings: ``interval``, or longer when that would take more than
        :data:`RUNNER_SHARE` of the budget."""
        return max(interval, self.cost() * 60.0 / max(1.0, requests_per_minute * RUNNER_SHARE))

    def observe(self, snapshot: RunningNowSnapshot) -> tuple[set[int], set[int]]:
        """``(started, stopped)``: projects with a job running that was not at the last reading, and
        projects a job of which stopped running since (the first reading only learns)."""
        if snapshot.error is not None:
            self.refused = self.refused or snapshot.refused
            return set(), set()
        self.refused = False  # asked again after a refusal, and allowed now
        self.online = snapshot.runners_online
        running: dict[int, set[int]] = {}
        for item in snapshot.jobs:
            if item.project_id is not None:
                running.setdefault(item.project_id, set()).add(item.job.id)
        now = {pid: frozenset(jobs) for pid, jobs in running.items()}
        before, self._running = self._running, now
        if not self._seen:
            self._seen = True
            return set(now), set()
        started = {pid for pid, jobs in now.items() if jobs - before.get(pid, frozenset())}
        stopped = {pid for pid, jobs in before.items() if jobs - now.get(pid, frozenset())}
        return started, stopped
