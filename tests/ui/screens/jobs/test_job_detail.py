"""The job detail and "why is this job pending", against private simulators over real HTTP: the
stuck macOS job (its only runner offline for 9 days), a job waiting on a paused runner, a project
whose shared runners are disabled, a job dropped as stuck, a failed job's reason and runner, ``r``
after a runner changed, and the line the log viewer shows for a waiting job."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from labdeck.api import ApiClient
from labdeck.api.models import Job
from labdeck.base.secret import Secret
from labdeck.sim.server import SimServer
from labdeck.ui.app import LabdeckApp
from labdeck.ui.screens.jobs.detail import JobDetailScreen, PendingReasonLine, WhyPending, pending_headline
from labdeck.ui.screens.jobs.trace import TraceScreen
from tests.support.pilot import settle, wait_until
from tests.ui.conftest import SimConsole, gitlab_only

SimFactory = Callable[..., SimServer]
FEATURE_FLAGS = (6, "platform/feature-flags")
"""Its ``ios-build`` job (tags macos) waits: ``macos-builder`` was last seen 9 days ago."""
NOTIFICATIONS = (4, "platform/notifications")
"""Its ``gpu-train`` job (tags gpu) waits on the paused ``gpu-trainer``."""
SEARCH = (5, "platform/search")
"""Shared runners disabled; its one runner is paused and does not take untagged jobs."""
AUTH_SERVICE = (2, "platform/auth-service")


async def _job(server: SimServer, token: str, project_id: int, name: str, status: str) -> Job:
    async with ApiClient(server.base_url, Secret(token)) as client:
        jobs = await client.jobs.list(project_id).all()
    return next(job for job in jobs if job.name == name and job.status == status)


async def _open(app: LabdeckApp, pilot: Any, project: tuple[int, str], job: Job, *,
                explained: bool = True) -> JobDetailScreen:
    await settle(app, pilot)
    screen = JobDetailScreen(project[0], project[1], job)
    await app.push_screen(screen)
    await wait_until(pilot, lambda: screen.load_count > 0 and (screen.explain_count > 0 or not explained),
                     what="the job and its explanation")
    await settle(app, pilot)
    return screen


def _fields(screen: JobDetailScreen) -> dict[str, str]:
    return {str(row.key): str(row.cells[1]) for row in screen.table.rows()}


def _panel(screen: JobDetailScreen) -> str:
    panel = screen.query_one(WhyPending)
    return "\n".join(str(part.render()) for part in panel.query("Static")) if panel.has_class("-shown") else ""


async def test_the_stuck_macos_job_then_its_runner_paused(console: SimConsole,
                                                          tokens: dict[str, str]) -> None:
    server = console.server
    job = await _job(server, tokens["admin"], FEATURE_FLAGS[0], "ios-build", "pending")
    async with console.run(size=(80, 24)) as (app, pilot):
        screen = await _open(app, pilot, FEATURE_FLAGS, job)
        answer = screen.explanation
        assert answer is not None and answer.reason == "none_online"
        assert answer.headline == ("no online runner has tags [macos] — `macos-builder` (tags macos, xcode, ios) "
                                   "is offline since 9d")
        assert "offline since 9d" in _panel(screen) and "Why is it pending?" in _panel(screen)
        fields = _fields(screen)
        assert fields["tags"] == "macos" and fields["runner"] == "none yet" and fields["status"] == "pending"
        assert fields["queued"].endswith(" so far")
        assert job.pipeline is not None and fields["pipeline"].startswith(f"#{job.pipeline.id} · ")
        assert job.commit is not None and fields["commit"].startswith(str(job.commit.short_id))
        assert job.user is not None and fields["user"].startswith(job.user.username)
        assert fields["web_url"].endswith(f"/platform/feature-flags/-/jobs/{job.id}")

        # The runner is paused meanwhile; r works it out again.
        async with ApiClient(server.base_url, Secret(tokens["admin"])) as client:
            macos = next(r for r in await client.runners.project_runners(FEATURE_FLAGS[0]).all()
                         if r.description == "macos-builder")
            await client.runners.update(macos.id, active=False)
        count = screen.explain_count
        await pilot.press("r")
        await wait_until(pilot, lambda: screen.explain_count > count, what="the new explanation")
        assert screen.explanation is not None
        assert screen.explanation.headline.endswith("`macos-builder` (tags macos, xcode, ios) is paused")


async def test_a_job_waiting_on_the_paused_gpu_runner(console: SimConsole,
                                                      tokens: dict[str, str]) -> None:
    server = console.server
    job = await _job(server, tokens["admin"], NOTIFICATIONS[0], "gpu-train", "pending")
    async with console.run(size=(120, 40)) as (app, pilot):
        screen = await _open(app, pilot, NOTIFICATIONS, job)
        assert screen.explanation is not None
        assert screen.explanation.headline == "no online runner has tags [gpu] — `gpu-trainer` (tags gpu, cuda) is paused"
        assert "`gpu-trainer` (specific, tags gpu, cuda) is paused" in _panel(screen)


async def test_shared_runners_disabled(console: SimConsole, tokens: dict[str, str]) -> None:
    server = console.server
    job = await _job(server, tokens["admin"], SEARCH[0], "compile", "pending")
    async with console.run(size=(120, 40)) as (app, pilot):
        screen = await _open(app, pilot, SEARCH, job)
        assert screen.explanation is not None and screen.explanation.reason == "shared_disabled"
        assert screen.explanation.headline.startswith("shared runners disabled for this project — ")
        assert "`gpu-trainer` (specific, tags gpu, cuda) is paused; does not run untagged jobs" in _panel(screen)
        assert _fields(screen)["tags"] == "none (untagged job)"


@gitlab_only
async def test_a_job_dropped_as_stuck_says_what_stops_it_today(console: SimConsole,
                                                               tokens: dict[str, str]) -> None:
    server = console.server
    job = await _job(server, tokens["admin"], AUTH_SERVICE[0], "ios-build", "failed")
    assert job.failure_reason == "stuck_or_timeout_failure"
    async with console.run(size=(120, 40)) as (app, pilot):
        screen = await _open(app, pilot, AUTH_SERVICE, job)
        assert screen.explanation is not None
        assert screen.explanation.headline.startswith("dropped as stuck; today: no online runner has tags [macos]")
        assert _fields(screen)["failure_reason"] == "stuck_or_timeout_failure"


@gitlab_only
async def test_a_failed_job_shows_reason_and_runner_and_no_panel(console: SimConsole,
                                                                 tokens: dict[str, str]) -> None:
    server = console.server
    async with ApiClient(server.base_url, Secret(tokens["admin"])) as client:
        jobs = await client.jobs.list(7).all()
    job = next(job for job in jobs if job.status == "failed" and job.runner is not None)
    assert job.runner is not None
    async with console.run(size=(80, 24)) as (app, pilot):
        screen = await _open(app, pilot, (7, "platform/audit-log"), job, explained=False)
        fields = _fields(screen)
        assert fields["failure_reason"] == job.failure_reason == "script_failure"
        assert fields["runner"].startswith(f"{job.runner.description} (#{job.runner.id}) · online")
        assert fields["queued"] != "—" and fields["duration"] != "—"
        assert _panel(screen) == "" and screen.explain_count == 0


async def test_the_log_viewer_says_why_a_pending_job_waits(console: SimConsole,
                                                           tokens: dict[str, str]) -> None:
    server = console.server
    job = await _job(server, tokens["admin"], FEATURE_FLAGS[0], "ios-build", "pending")
    async with console.run(size=(80, 24)) as (app, pilot):
        await settle(app, pilot)
        viewer = TraceScreen(FEATURE_FLAGS[0], FEATURE_FLAGS[1], job)
        await app.push_screen(viewer)
        line = viewer.query_one(PendingReasonLine)
        await wait_until(pilot, lambda: line.headline is not None, what="the why-pending line")
        assert line.has_class("-shown") and "offline since 9d" in line.headline
        assert "why pending: no online runner has tags [macos]" in str(line.render())


async def test_pending_headline_only_for_waiting_jobs(sim_factory: SimFactory, tokens: dict[str, str]) -> None:
    server = sim_factory()
    async with ApiClient(server.base_url, Secret(tokens["admin"])) as client:
        jobs = await client.jobs.list(FEATURE_FLAGS[0]).all()
        waiting = next(job for job in jobs if job.name == "ios-build" and job.status == "pending")
        finished = next(job for job in jobs if job.status == "success")
        assert await pending_headline(client, FEATURE_FLAGS[0], finished) is None
        headline = await pending_headline(client, FEATURE_FLAGS[0], waiting)
    assert headline is not None and headline.endswith("`macos-builder` (tags macos, xcode, ios) is offline since 9d")
