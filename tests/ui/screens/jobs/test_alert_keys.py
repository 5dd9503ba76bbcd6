"""`W` on a job, from the jobs table and from the log viewer, when nothing else is followed (the
board closed, the projects table hidden): the alert fires within seconds of the job ending, not at
the shared poller's next idle wake-up a minute later."""

from __future__ import annotations

from typing import Any

import pytest

from labdeck.base.config import BoardSettings
from labdeck.ui.screens.jobs.list import JobsScreen
from labdeck.ui.screens.jobs.trace import TraceScreen
from tests.support.pilot import settle, wait_until
from tests.support.sim_control import advance, project_id, push_pipeline
from tests.ui.conftest import SimConsole
from tests.ui.helpers import run_command

FAST = BoardSettings(interval=0.3, requests_per_minute=6000, max_in_flight=8)


@pytest.mark.parametrize("where", ["jobs table", "log viewer"])
async def test_w_on_a_job_alerts_when_it_fails(console: SimConsole,
                                               where: str) -> None:
    server = console.server
    pid = project_id(server, "platform/audit-log")
    created = push_pipeline(server, pid, [{"name": "slow-deploy-check", "duration": 60, "fail": True}])
    job_id = created["jobs"][0]["id"]
    async with console.run(board=FAST, size=(120, 40)) as (app, pilot):
        await settle(app, pilot)
        await run_command(app, pilot, "jobs platform/audit-log")
        screen = app.screen
        assert isinstance(screen, JobsScreen)
        await wait_until(pilot, lambda: screen.refresh_count > 0)
        selected = screen.selected_job()
        assert selected is not None and selected.id == job_id  # the newest job: the first row
        if where == "log viewer":
            await pilot.press("enter")
            await wait_until(pilot, lambda: isinstance(app.screen, TraceScreen))
        await pilot.press("W")
        await pilot.pause(0.5)
        advance(server, 120)
        log: Any = app.watching.log
        await wait_until(pilot, lambda: any("slow-deploy-check" in alert.body for alert in log.entries), limit=10.0)
        fired = next(alert for alert in log.entries if "slow-deploy-check" in alert.body)
        assert "failed" in fired.title
