"""The admin "running now" strip: every running job on the instance, from the runners' side.

``GET /runners/all`` (admin only), then ``GET /runners/:id/jobs?status=running`` for each runner
that is online. It costs 1 + (online runners) requests, so it has its own, slower cadence
(``running_now_interval``) and runs only while a visible subscription wants it. It also tells the
poller about running jobs in watched projects it believed idle (a pipeline pushed within GitLab's
one-hour activity gap shows up here before the sweep reaches it).
"""

from __future__ import annotations

from datetime import datetime

from labdeck.api import errors
from labdeck.api.client import ApiClient
from labdeck.watch.snapshots import RunningJob, RunningNowSnapshot


async def read_running_now(client: ApiClient, server_now: datetime, generation: int) -> RunningNowSnapshot:
    """One reading of the strip. A 403 (not an admin) gives an empty snapshot with ``error`` set;
    other failures raise :class:`labdeck.api.errors.ApiError`."""
    try:
        runners = await client.runners.list_all().all()
    except (errors.Forbidden, errors.Unauthorized) as exc:
        return RunningNowSnapshot(error=exc.user_message(), server_now=server_now, generation=generation)
    online = [runner for runner in runners if runner.online]
    jobs: list[RunningJob] = []
    for runner in online:
        try:
            running = await client.runners.jobs(runner.id, status="running").first_page()
        except (errors.NotFound, errors.Forbidden):
            continue  # removed meanwhile, or not ours to read: the others still count
        label = runner.description or runner.name or f"#{runner.id}"
        jobs.extend(RunningJob(runner.id, label, job) for job in running)
    jobs.sort(key=lambda item: item.job.started_at or server_now)
    return RunningNowSnapshot(jobs=tuple(jobs), runners_online=len(online), runners_total=len(runners),
                              server_now=server_now, generation=generation)
