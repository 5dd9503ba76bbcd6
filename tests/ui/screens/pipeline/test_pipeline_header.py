"""The pipeline view's header names the failed jobs at any width (issue 29, point 5): at 80
columns it ended ``failed:`` with nothing after it."""

from __future__ import annotations

import re

import pytest

from labdeck.sim.server import SimServer
from labdeck.ui.screens.pipeline.header import PipelineHeader
from tests.support.pilot import wait_until
from tests.support.sim_control import big_stages, control
from tests.ui.board_support import ROOMY
from tests.ui.conftest import SimConsole
from tests.ui.helpers import screen_lines
from tests.ui.jobs_support import PROJECT_ID, advance
from tests.ui.pipeline_support import big_pipeline, open_pipeline


def retry_job(server: SimServer, job_id: int) -> None:
    with control(server) as admin:
        assert admin.post(f"/api/v4/projects/{PROJECT_ID}/jobs/{job_id}/retry").status_code == 201


@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
async def test_the_header_names_the_failed_jobs(console: SimConsole, size: tuple[int, int]) -> None:
    server = console.server
    # 40 failures, and a job retried (its older try hidden): a long second line.
    pipeline_id, ids = await big_pipeline(server, big_stages(fail=tuple(range(1, 41)), durations={41: 600}))
    retry_job(server, ids["unit-0001"])
    async with console.run(board=ROOMY, size=size) as (app, pilot):
        screen = await open_pipeline(app, pilot, pipeline_id)
        await wait_until(pilot, lambda: screen.complete, what="every page read")
        await pilot.pause()
        top = screen.query_one(PipelineHeader).region.y
        second = screen_lines(app)[top + 1]  # as drawn: the header's second line
        failed = second.split("failed:", 1)
        assert len(failed) == 2, second
        assert "unit-0" in failed[1] and "+" in failed[1], second
        assert "older try hidden" in str(screen.query_one(PipelineHeader).render())


async def test_a_pipeline_retried_days_later_says_how_long_this_run_took(console: SimConsole) -> None:
    """Tried on the board: ``Took 102h05m`` for a pipeline retried four days after it ran. The
    header says how long the retry has been running, not the days since the first job started."""
    server = console.server
    pipeline_id, ids = await big_pipeline(server, big_stages(tests=3, deploys=1, fail=(1,), durations={1: 600}),
                                          seconds=3600)
    await advance(server, 4 * 24 * 3600)  # four days later, a retry
    retry_job(server, ids["unit-0001"])
    await advance(server, 120)
    async with console.run(board=ROOMY, size=(120, 40)) as (app, pilot):
        screen = await open_pipeline(app, pilot, pipeline_id)
        await wait_until(pilot, lambda: screen.complete, what="every page read")
        await pilot.pause()
        text = str(screen.query_one(PipelineHeader).render())
        assert re.search(r"running for [12]m\d\ds ·", text), text  # the retry started ~2 minutes ago
