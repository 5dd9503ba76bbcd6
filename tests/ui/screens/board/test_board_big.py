"""Monorepo pipelines (1,500 jobs: 1,200 tests, 300 deploys) in the console, both dialects: the
board's row (status, failed cell, running cell), ``W`` on it, the projects table's CI column and
the jobs screen grouped by pipeline, as a user sees them. The page of 40 newest jobs the board
reads holds only deploy jobs: none of this may be derived from it."""

from __future__ import annotations

from typing import Any

import pytest

from labdeck.base.config import AlertSettings
from labdeck.sim.server import SimServer
from labdeck.ui.screens.board.board import BoardScreen
from labdeck.ui.screens.jobs.list import JobsScreen
from labdeck.ui.screens.jobs.table import JobTable
from labdeck.ui.screens.projects.list import ProjectsScreen
from tests.support.pilot import settle, wait_until
from tests.support.sim_control import advance, big_stages, control, push_stages
from tests.ui.board_support import FAST, open_board, rows, starred_project
from tests.ui.conftest import SimConsole
from tests.ui.helpers import toasts

SCENARIOS: dict[str, tuple[dict[str, Any], str, str, str]] = {
    # name: (big_stages options, status, failed cell, running cell) once the test stage ran
    "failed-first": ({"fail": (1,), "durations": {1: 600}}, "failed", "unit-0001", ""),
    "failed-last": ({"fail": (1200,), "durations": {1200: 600}}, "failed", "unit-1200", ""),
    "running": ({"long": (1200,)}, "running", "—", "≥1"),
    "allow-failure": ({"allowed": (1,), "durations": {1: 600}}, "success", "—", ""),
    "retried": ({"flaky": (1,), "durations": {1: 600, 1200: 1500}}, "success", "—", ""),
}


def cells(screen: BoardScreen, key: tuple[int, int]) -> dict[str, str]:
    row = next(row for row in screen.table.visible_rows() if row.key == key)
    return {column.key: str(cell) for column, cell in zip(screen.table.columns, row.cells, strict=True)}


def retry_failed(server: SimServer, project: int, pipeline: int) -> None:
    with control(server) as admin:
        failed = admin.get(f"/api/v4/projects/{project}/pipelines/{pipeline}/jobs", params={"scope[]": "failed"}).json()
        for job in failed:
            assert admin.post(f"/api/v4/projects/{project}/jobs/{job['id']}/retry").status_code == 201


CASES = [("gitlab", scenario) for scenario in SCENARIOS] + [("spec", "failed-last"), ("spec", "retried")]
"""Every scenario on GitLab's dialect; on the spec's, the two whose reads differ most (the failed
job found at the end of 30 pages, a retry replacing a failed job)."""


@pytest.mark.parametrize(("dialect", "scenario"), CASES)
async def test_a_monorepo_pipeline_in_the_console(console: SimConsole,
                                                  dialect: str, scenario: str) -> None:
    options, status, failed_cell, running_cell = SCENARIOS[scenario]
    server = console.server
    project = starred_project(server)
    pushed = push_stages(server, project, big_stages(**options))
    key = (project, int(pushed["id"]))
    advance(server, 300)  # most tests passed; the slow one (or the day-long one) still runs
    alerts = AlertSettings(toast=True, bell=False, desktop=False, title=False)
    async with console.run(board=FAST, alerts=alerts, size=(120, 40), notifications=True) as (app, pilot):
        screen = await open_board(app, pilot)
        await wait_until(pilot, lambda: any(row.pipeline_id == key[1] and row.status == "running"
                                            and row.running_known for row in rows(screen)))
        assert cells(screen, key)["status"].strip() == "running"
        screen.table.move_cursor_to_key(key)
        await pilot.press("W")  # alert me when this pipeline fails or ends
        advance(server, 900)
        if scenario == "retried":
            # Failed while unit-1200 still runs (the board's precedence: a known failure), then
            # retried: the retry passes, and so does the pipeline.
            await wait_until(pilot, lambda: cells(screen, key)["failed"] == "unit-0001"
                             and cells(screen, key)["status"].strip() == "failed", limit=60)
            retry_failed(server, *key)
            advance(server, 1800)
        await wait_until(pilot, lambda: (row := next((r for r in rows(screen) if r.pipeline_id == key[1]), None))
                         is not None and row.status == status and row.failed_known and row.running_known,
                         limit=60)
        with control(server) as admin:  # the server's own count (other pipelines share the runners)
            running_now = admin.get(f"/api/v4/projects/{project}/pipelines/{key[1]}/jobs",
                                    params={"scope[]": "running", "per_page": 1}).headers["x-total"]
        running_cell = running_now if running_cell else ""
        await wait_until(pilot, lambda: cells(screen, key)["running"] == running_cell, limit=60)
        shown = cells(screen, key)
        assert (shown["status"].strip(), shown["failed"], shown["running"]) == (status, failed_cell, running_cell)
        if status == "failed":
            await wait_until(pilot, lambda: any(failed_cell in text for text in toasts(app)))
        elif status == "success":
            await wait_until(pilot, lambda: any(f"#{key[1]}" in text for text in toasts(app)))
        assert not any("skipped" in text for text in toasts(app))

        await pilot.press("escape")  # the projects table: its CI column says the same
        await settle(app, pilot)
        projects = app.screen
        assert isinstance(projects, ProjectsScreen)
        # (The simulator's own pushes may have added a newer pipeline meanwhile: the column shows the newest.)
        newest = max(app.watching.poller.tracks[project].rows, key=lambda row: row.pipeline_id)
        expected = status if newest.pipeline_id == key[1] else newest.status
        await wait_until(pilot, lambda: str(projects._ci_cell(project)).strip() == expected)

        jobs = JobsScreen(project, "", pipeline_id=key[1])
        await app.push_screen(jobs)
        await wait_until(pilot, lambda: jobs.refresh_count > 0, limit=60)
        jobs.group_mode = "none"
        jobs.action_cycle_group()  # grouped by pipeline
        await pilot.pause()
        table = jobs.query_one(JobTable)
        group = next(iter(table.groups.values()))
        assert (group.pipeline_id, group.pipeline_status, group.jobs) == (key[1], status, 1500)
        assert group.failed == ((failed_cell,) if status == "failed" else ())
        assert group.running == int(running_cell or 0) or status == "running"  # it moved on meanwhile
