"""A job that ends while its log is open: what the viewer said of it running stops being said.

Tried in tmux on a job that succeeded while its log was followed: the history line kept ``▶ · took
17m55s`` (its jobs page was read while the job ran) and a section the log never closed kept saying
``running…`` under ``Job succeeded``."""

from __future__ import annotations

from labdeck.ui.screens.jobs.why import HistoryLine
from tests.support.pilot import wait_until
from tests.ui.conftest import SimConsole
from tests.ui.jobs_support import advance, append_trace, create_pipeline, open_trace, shown_text

OPEN_SECTION = b"\x1b[0Ksection_start:1764000000:publish_docs\r\x1b[0KPublishing the docs\nuploading 3 files\n"


async def test_a_job_that_ends_is_drawn_ended_in_its_history_and_its_open_section(console: SimConsole) -> None:
    server = console.server
    pipeline = await create_pipeline(server, [{"name": "build", "jobs": [
        {"name": "docs", "duration": 120, "generate_trace": False}]}])
    job_id = pipeline["jobs"][0]["id"]
    await advance(server, 5)
    async with console.run(size=(120, 40)) as (app, pilot):
        screen = await open_trace(app, pilot, job_id)
        history = screen.query_one(HistoryLine)
        await append_trace(server, job_id, OPEN_SECTION)
        await wait_until(pilot, lambda: any("Publishing the docs  running…" in row for row in shown_text(screen.view)),
                         what="the open section, running")
        await wait_until(pilot, lambda: "▶" in str(history.render()), what="the history strip, running")
        await advance(server, 200)  # the job succeeds; the log never closes the section
        await wait_until(pilot, lambda: not screen.live, limit=30, what="the job ended")
        await wait_until(pilot, lambda: "✓" in str(history.render()), limit=10, what="the strip says it passed")
        assert "▶" not in str(history.render())
        await wait_until(pilot, lambda: any("Publishing the docs  no end mark" in row for row in shown_text(screen.view)),
                         limit=10, what="the open section, ended")
        assert not any("running…" in row for row in shown_text(screen.view))
