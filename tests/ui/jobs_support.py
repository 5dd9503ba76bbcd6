"""Helpers for the jobs and trace-viewer tests: the simulator's control surface over real HTTP, and
opening the jobs screen."""

from __future__ import annotations

from typing import Any

import httpx

from labdeck.sim.dataset.build import DEMO_TOKENS
from labdeck.sim.server import SimServer
from labdeck.ui.app import LabdeckApp
from labdeck.ui.screens.jobs.header import TraceHeader
from labdeck.ui.screens.jobs.list import JobsScreen
from labdeck.ui.screens.jobs.table import JobTable
from labdeck.ui.screens.jobs.trace import TraceScreen
from labdeck.ui.widgets.trace.view import TraceView
from tests.support.pilot import settle, wait_until

PROJECT_ID = 7
PROJECT_PATH = "platform/audit-log"


async def control(server: SimServer, method: str, path: str, **kwargs: Any) -> Any:
    """Call the simulator's control surface (``/-/sim``) as the admin."""
    async with httpx.AsyncClient(base_url=server.base_url,
                                 headers={"PRIVATE-TOKEN": DEMO_TOKENS["admin"]}) as http:
        response = await http.request(method, f"/-/sim{path}", **kwargs)
        response.raise_for_status()
        return response.json()


async def create_pipeline(server: SimServer, stages: list[dict[str, Any]], *, project_id: int = PROJECT_ID,
                          ref: str = "main") -> dict[str, Any]:
    """A pipeline made of ``stages`` (control-surface JSON); returns it with its jobs."""
    result: dict[str, Any] = await control(server, "POST", f"/projects/{project_id}/pipelines",
                                           json={"ref": ref, "stages": stages})
    return result


async def advance(server: SimServer, seconds: float) -> None:
    """Move simulated time forward through the control surface."""
    await control(server, "POST", f"/clock/advance?seconds={seconds}")


async def append_trace(server: SimServer, job_id: int, data: bytes, *, project_id: int = PROJECT_ID) -> None:
    """Append raw bytes to a job's log."""
    await control(server, "POST", f"/projects/{project_id}/jobs/{job_id}/trace", content=data)


def server_job(server: SimServer, job_id: int) -> Any:
    """The simulator's own record of a job."""
    return server.state.jobs[job_id]


async def open_jobs(app: LabdeckApp, pilot: Any, *, project_id: int = PROJECT_ID,
                    project_path: str = PROJECT_PATH, pipeline_id: int | None = None,
                    interval: float = 0.1) -> JobsScreen:
    """Push the jobs screen with a fast refresh and wait for its first load."""
    screen = JobsScreen(project_id, project_path, pipeline_id=pipeline_id)
    screen.active_interval = interval
    screen.idle_interval = interval
    await app.push_screen(screen)
    await wait_until(pilot, lambda: screen.refresh_count > 0, what="the first job list")
    return screen


def row_status(screen: JobsScreen, job_id: int) -> str | None:
    """The status shown in the job's row (None when the row is not listed)."""
    table = screen.query_one(JobTable)
    try:
        row = table.get_row(str(job_id))
    except Exception:
        return None
    return str(row[1])


def listed_ids(screen: JobsScreen) -> list[int]:
    """Job ids in table order (group rows left out)."""
    table = screen.query_one(JobTable)
    return [int(key.value) for key in table.rows if key.value and not key.value.startswith("group:")]


def record_notifications(app: LabdeckApp) -> list[str]:
    """Collect the texts of toasts shown from now on (the toasts still appear)."""
    seen: list[str] = []
    original = app.notify

    def notify(message: str, **kwargs: Any) -> None:
        seen.append(str(message))
        original(message, **kwargs)

    app.notify = notify  # type: ignore[method-assign]
    return seen


RUNNING_FOREVER = [{"name": "build", "jobs": [{"name": "tail-me", "duration": None, "generate_trace": False}]}]


async def open_trace(app: LabdeckApp, pilot: Any, job_id: int) -> TraceScreen:
    """Push the viewer for a job with fast polling."""
    job = await app.client.jobs.get(7, job_id)
    screen = TraceScreen(7, PROJECT_PATH, job)
    screen.follow_min_interval = 0.05
    screen.follow_max_interval = 0.1
    await app.push_screen(screen)
    return screen


def shown_text(view: TraceView) -> list[str]:
    """The rows on screen as plain text."""
    return [view.strip_text(y) for y in range(view.scrollable_content_region.height)]


def header_text(screen: TraceScreen) -> str:
    return str(screen.query_one(TraceHeader).render())


async def running_job(server: SimServer) -> int:
    pipeline = await create_pipeline(server, RUNNING_FOREVER)
    await advance(server, 5)
    job_id: int = pipeline["jobs"][0]["id"]
    return job_id


async def follow_quiet_job(app: LabdeckApp, pilot: Any, server: SimServer, *,
                           max_interval: float = 0.2) -> tuple[TraceScreen, int]:
    """Open the log viewer on a new job that runs until stopped and writes only what the test
    appends; returns once its first lines are shown."""
    pipeline = await create_pipeline(server, [{"name": "build", "jobs": [{"name": "tail-me", "duration": None,
                                                                          "generate_trace": False}]}])
    await advance(server, 5)
    job_id = int(pipeline["jobs"][0]["id"])
    await settle(app, pilot)
    screen = TraceScreen(7, PROJECT_PATH, await app.client.jobs.get(7, job_id))
    screen.follow_min_interval, screen.follow_max_interval = 0.05, max_interval
    await app.push_screen(screen)
    await append_trace(server, job_id, b"first lines\n")
    await wait_until(pilot, lambda: "first lines" in "\n".join(shown_text(screen.view)), what="first lines")
    return screen, job_id
