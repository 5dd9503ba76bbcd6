"""Closing a big pipeline gives its memory back (issue 29, point 6): nothing keeps the closed view,
its rows or its jobs alive (four 5,000-job pipelines took the console from 171 to 345 MB, and it
stayed there after they were closed)."""

from __future__ import annotations

import gc
import weakref

from tests.support.pilot import settle, wait_until
from tests.ui.board_support import ROOMY
from tests.ui.conftest import SimConsole
from tests.ui.pipeline_support import big_pipeline, big_stages, open_pipeline


async def test_a_closed_pipeline_view_lets_go_of_its_jobs(console: SimConsole) -> None:
    server = console.server
    pipeline_id, _ = await big_pipeline(server, big_stages(fail=list(range(1, 41))))
    async with console.run(board=ROOMY, size=(120, 40)) as (app, pilot):
        opened = [await open_pipeline(app, pilot, pipeline_id)]
        await wait_until(pilot, lambda: opened[0].complete, what="every page read")
        await pilot.press("enter")  # a stage's jobs, then back: the sub-screen must let go too
        await settle(app, pilot)
        while app.screen is not opened[0]:
            app.pop_screen()
            await settle(app, pilot)
        view = weakref.ref(opened[0])
        jobs = [weakref.ref(job) for job in opened.pop().jobs[::500]]
        app.pop_screen()
        await settle(app, pilot)
        await pilot.pause(0.5)
        gc.collect()
        # (The view's object itself may stay a while: a connection opened during its reads keeps a
        # copy of Textual's context, which names it. What it held must not stay with it.)
        closed = view()
        assert closed is None or not closed.jobs
        assert all(ref() is None for ref in jobs), "jobs of the closed pipeline are still held"


async def test_a_closed_pipeline_view_leaves_no_job_pages_in_the_answer_cache(console: SimConsole) -> None:
    """The client's ETag cache kept the body of every page of the closed pipeline's jobs (32 MB of
    the 84 MB four 5,000-job pipelines left behind in bench/bench_pipeline_memory.py)."""
    server = console.server
    pipeline_id, _ = await big_pipeline(server, big_stages(fail=list(range(1, 41))))
    async with console.run(board=ROOMY, size=(120, 40)) as (app, pilot):
        opened = [await open_pipeline(app, pilot, pipeline_id)]
        await wait_until(pilot, lambda: opened[0].complete, what="every page read")
        marker = f"/pipelines/{pipeline_id}/jobs"
        cache = app.client.cache
        assert any(marker in url for url in cache.urls()), "the view's pages were read conditionally"
        opened.clear()
        app.pop_screen()
        await settle(app, pilot)
        # (The board's own read of the pipeline's failed jobs, `scope[]=failed`, is the board's.)
        left = [url for url in cache.urls() if marker in url and "scope" not in url]
        assert not left, f"{len(left)} job pages of the closed pipeline still cached"
