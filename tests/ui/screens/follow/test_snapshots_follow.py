"""SVG snapshots of the merged view (``F``) at 80x24 and 120x40: a finished test stage of three jobs
(one failed) followed to its end, with the header, the end lines and the status line every section
has. Private simulator, seed 42, manual clock, a fixed instance name."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from labdeck.ui.app import LabdeckApp
from labdeck.ui.screens.follow.screen import FollowScreen
from labdeck.ui.widgets.status_line import StatusLine
from tests.support.pilot import settle, wait_until

SIZES = [pytest.param((80, 24), id="80x24"), pytest.param((120, 40), id="120x40")]
PROJECT_ID, PROJECT_PATH, PIPELINE_ID = 9, "platform/infra/terraform-modules", 35
"""Pipeline #35's test stage (seed 42): unit-tests failed, lint and integration passed."""


async def _follow_the_test_stage(pilot: Any) -> None:
    app = pilot.app
    await settle(app, pilot, rounds=3)
    jobs = [job for job in await app.client.jobs.list(PROJECT_ID, pipeline_id=PIPELINE_ID).all()
            if job.stage == "test"]
    assert sorted(job.status for job in jobs) == ["failed", "success", "success"]
    # Oldest first, as the pipeline view lists a stage: the jobs are read one after the other (two
    # turns a second), so the lines arrive in this order every time.
    await app.push_screen(FollowScreen(PROJECT_ID, PROJECT_PATH, sorted(jobs, key=lambda job: job.id),
                                       title="test"))
    screen = app.screen
    assert isinstance(screen, FollowScreen)
    await wait_until(pilot, lambda: screen.follower.finished, limit=20, what="every job read to its end")
    await wait_until(pilot, lambda: all(status._shown.get("age") == "data <10s" and status._shown.get("mode")
                                        for status in StatusLine.on_screen(screen)), what="the status line")
    await pilot.pause(0.5)  # the last frame (drawn every 0.2 s) and the header with it
    await settle(app, pilot, rounds=3)
    await pilot.wait_for_scheduled_animations()
    await pilot.pause()


@pytest.mark.parametrize("size", SIZES)
def test_follow_a_finished_stage(snap_compare: Any, snap_app: Callable[[], LabdeckApp], size: tuple[int, int]) -> None:
    assert snap_compare(snap_app(), run_before=_follow_the_test_stage, terminal_size=size)
