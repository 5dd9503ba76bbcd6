"""The log viewer and the job detail read the cause the way ``labdeck triage`` does (issue 28),
against the demo's broken ``unit-tests`` of ``alice/notes`` (green on #105, red since): the lines new
since the last green run are marked, ``e`` lands on the cause ``labdeck triage --json`` names, and
the job detail's verdict and evidence are the ones ``labdeck triage --json`` prints for the job."""

from __future__ import annotations

import asyncio
import json
import re
from typing import Any

import pytest

from labdeck.api.models import Job
from labdeck.commands import cli
from labdeck.sim.dataset.build import DEMO_TOKENS
from labdeck.ui.screens.jobs.detail import JobDetailScreen
from labdeck.ui.screens.jobs.trace import TraceScreen
from labdeck.ui.screens.jobs.why import WhyFailed
from tests.sim.helpers import quiet
from tests.support.pilot import wait_until
from tests.ui.conftest import SimConsole

NOTES = "alice/notes"


async def _triage_json(base_url: str, monkeypatch: pytest.MonkeyPatch,
                       capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    monkeypatch.setenv("LABDECK_TOKEN", DEMO_TOKENS["user"])
    code = await asyncio.to_thread(cli.main, ["triage", "--url", base_url, "--json", NOTES])
    out, err = capsys.readouterr()
    assert code == 0, err
    broken = next(f for f in json.loads(out)["failures"] if f["job_name"] == "unit-tests")
    assert isinstance(broken, dict)
    return broken


async def test_new_since_green_marks_e_and_the_job_detail_agree_with_triage_json(
        console: SimConsole, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    server = quiet(console.server)
    expected = await _triage_json(server.base_url, monkeypatch, capsys)
    line = int(re.match(r"log lines? (\d+)", expected["evidence"][0]).group(1))  # type: ignore[union-attr]
    assert "new since the green run #" in expected["evidence"][0]
    async with console.run("user", size=(120, 40)) as (app, pilot):
        project_id = server.state.project_by_ref(NOTES).id  # type: ignore[union-attr]
        job: Job = await app.client.jobs.get(project_id, expected["job_id"])
        # The job detail: the same verdict, reason and evidence as labdeck triage --json.
        detail = JobDetailScreen(project_id, NOTES, job)
        await app.push_screen(detail)
        panel = detail.query_one(WhyFailed)
        await wait_until(pilot, lambda: panel.done > 0, what="the verdict")
        assert panel.failure is not None
        assert panel.failure.verdict.kind == expected["verdict"] and panel.failure.verdict.reason == expected["reason"]
        assert list(panel.failure.verdict.evidence) == expected["evidence"]
        shown = str(panel.render())
        assert all(evidence in shown for evidence in expected["evidence"])
        await pilot.press("escape")
        # The log: lines new since the green run are marked; e lands on the cause triage names.
        trace = TraceScreen(project_id, NOTES, job)
        await app.push_screen(trace)
        await wait_until(pilot, lambda: trace.finished_reading and trace.document.cause_read
                         and trace.green_note != "", limit=30, what="the log read for its cause")
        document = trace.document
        assert document.green_job is not None and f"green #{document.green_job}" in trace.green_note
        assert line - 1 in document.new_lines and 0 not in document.new_lines
        await pilot.press("e")
        await wait_until(pilot, lambda: trace.view.error_line is not None, what="e")
        assert trace.view.cursor_line == line - 1
        assert "new since green" in trace.error_position
        # The mark is drawn: a + beside the number of a new line, none beside the first line.
        trace.view.move_cursor_to(line - 1, center=True)
        await pilot.pause()
        rows = [trace.view.strip_text(y) for y in range(trace.view.size.height)]
        assert any(row.lstrip().startswith(f"{line}+") for row in rows), rows
        trace.view.move_cursor_to(0)
        await pilot.pause()
        assert trace.view.strip_text(0).lstrip().startswith("1 ")


async def test_at_80_columns_the_header_keeps_where_e_went(console: SimConsole) -> None:
    """At 80 columns the job's runner, failure reason and duration give way to ``cause 1/2 · new
    since green``; at 120 there is room for all of them again."""
    from tests.ui.helpers import screen_lines

    server = quiet(console.server)
    async with console.run("user", size=(80, 24)) as (app, pilot):
        project_id = server.state.project_by_ref(NOTES).id  # type: ignore[union-attr]
        newest = max(job.id for job in server.state.jobs.values()
                     if job.project_id == project_id and job.name == "unit-tests" and job.status == "failed")
        job: Job = await app.client.jobs.get(project_id, newest)
        trace = TraceScreen(project_id, NOTES, job)
        await app.push_screen(trace)
        await wait_until(pilot, lambda: trace.finished_reading and trace.document.cause_read
                         and trace.green_note != "", limit=30, what="the log read for its cause")
        await pilot.press("e")
        await wait_until(pilot, lambda: "cause 1/" in screen_lines(app)[0], what="the cause's place in the header")
        top = screen_lines(app)[0]
        assert f"job #{job.id} unit-tests · failed" in top and "new since green" in top, top
        assert "shared-docker" not in top
        await pilot.resize_terminal(120, 40)
        await wait_until(pilot, lambda: "shared-docker" in screen_lines(app)[0], what="the runner back at 120 columns")
        assert "1m20s" in screen_lines(app)[0] and "cause 1/" in screen_lines(app)[0]
