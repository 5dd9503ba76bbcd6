"""The merged view (``F``) in UI tests: a deploy stage whose logs hold what the test appends,
opening the view on it, and what the view shows."""

from __future__ import annotations

from typing import Any

import pytest

from labdeck.sim.server import SimServer
from labdeck.ui.app import LabdeckApp
from labdeck.ui.screens.follow.screen import FollowScreen
from labdeck.ui.screens.follow.view import FollowView
from tests.support.pilot import wait_until
from tests.ui.jobs_support import advance, control, create_pipeline
from tests.ui.pipeline_support import open_pipeline

REGIONS = ("eu", "us", "ap")


def read_fast(monkeypatch: pytest.MonkeyPatch) -> None:
    """Reads every few tens of milliseconds (the budget's own tests check the real pace)."""
    monkeypatch.setattr(FollowScreen, "rate", 100.0)
    monkeypatch.setattr(FollowScreen, "status_interval", 0.05)
    monkeypatch.setattr(FollowScreen, "min_interval", 0.02)
    monkeypatch.setattr(FollowScreen, "max_interval", 0.1)


async def deploy_stage(server: SimServer) -> dict[str, Any]:
    """A pipeline whose ``deploy`` stage holds three jobs whose logs hold what the test appends
    (the runners take them all at once)."""
    for runner_id in list(server.state.runners):
        await control(server, "PUT", f"/runners/{runner_id}", json={"concurrent": 20})
    pipeline = await create_pipeline(server, [{"name": "deploy", "jobs": [
        {"name": f"deploy-{region}", "generate_trace": False, "duration": 600, "fail": region == "eu"}
        for region in REGIONS]}])
    await advance(server, 5)
    return pipeline


def rows(view: FollowView) -> list[str]:
    """Every row of the view as text (``deploy-eu │ …``), top to bottom."""
    return [view.line_text(view.merged.entry(seq)).plain for seq in
            (view.seq_at(row) for row in range(view.row_count)) if seq is not None]


async def open_follow_view(app: LabdeckApp, pilot: Any, pipeline: dict[str, Any]) -> FollowScreen:
    """Open the pipeline and press ``F`` on its first stage."""
    screen = await open_pipeline(app, pilot, pipeline["id"])
    await pilot.press("F")
    await wait_until(pilot, lambda: isinstance(app.screen, FollowScreen), what="the merged view")
    follow = app.screen
    assert isinstance(follow, FollowScreen)
    assert screen is not follow
    return follow


def job_id(pipeline: dict[str, Any], region: str) -> int:
    """The id of ``deploy-<region>``."""
    return next(job["id"] for job in pipeline["jobs"] if job["name"] == f"deploy-{region}")
