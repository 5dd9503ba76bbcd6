"""SVG snapshots of the jobs section and the trace viewer (colours, sections, folding) at 80x24 and
120x40: private simulator, seed 42, manual clock, a fixed instance name."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from labdeck.sim.server import SimServer
from labdeck.ui.app import LabdeckApp
from labdeck.ui.screens.jobs.list import JobsScreen
from labdeck.ui.screens.jobs.trace import TraceScreen
from labdeck.ui.widgets.status_line import StatusLine
from tests.support.pilot import settle, wait_until
from tests.ui.helpers import tables_measured

SIZES = [pytest.param((80, 24), id="80x24"), pytest.param((120, 40), id="120x40")]
PROJECT_ID, PROJECT_PATH = 9, "platform/infra/terraform-modules"


async def _ready_for_snapshot(pilot: Any) -> None:
    """Settle, then wait until the tables measured their rows."""
    await settle(pilot.app, pilot, rounds=3)
    await tables_measured(pilot)
    # The log opens scrolled to its first error; on a loaded machine the scroll may still be moving
    # (the scrollbar's thumb was drawn an eighth of a cell short).
    await pilot.wait_for_scheduled_animations()
    await pilot.pause()
    # The status line is drawn with the screen's first frames (it was blank for a second on a fast
    # machine and filled on a slow one: the snapshot depended on the machine).
    await wait_until(pilot, lambda: all(status._shown.get("mode") for status in StatusLine.on_screen(pilot.app.screen)),
                     what="the status line")
    # Every screen here has read its data: its age comes with the screen's report of that read,
    # a frame or two after the status line's first (`data —` on a loaded machine).
    await wait_until(pilot, lambda: all(status._shown.get("age", "data —") != "data —"
                                        for status in StatusLine.on_screen(pilot.app.screen)),
                     what="the data's age")
    await pilot.pause()


def _failed_job(server: SimServer) -> int:
    """The newest failed job of the project (fixed by the seed)."""
    failed = [job.id for job in server.state.jobs.values()
              if job.project_id == PROJECT_ID and job.status == "failed"]
    return max(failed)


def _open_jobs(*keys: str) -> Callable[[Any], Any]:
    async def run_before(pilot: Any) -> None:
        await _ready_for_snapshot(pilot)
        pilot.app.open_jobs(PROJECT_ID, PROJECT_PATH)
        # The first refresh starts from a timer: on a busy machine no worker may be running yet
        # when the screen first settles, and rows added later would be caught unmeasured.
        for _ in range(1000):
            screen = pilot.app.screen
            if isinstance(screen, JobsScreen) and screen.refresh_count:
                break
            await pilot.pause(0.01)
        await _ready_for_snapshot(pilot)
        assert isinstance(pilot.app.screen, JobsScreen) and pilot.app.screen.refresh_count
        if keys:
            await pilot.press(*keys)
            await _ready_for_snapshot(pilot)

    return run_before


def _open_trace(server: SimServer, *keys: str) -> Callable[[Any], Any]:
    async def run_before(pilot: Any) -> None:
        await _ready_for_snapshot(pilot)
        app = pilot.app
        job = await app.client.jobs.get(PROJECT_ID, _failed_job(server))
        await app.push_screen(TraceScreen(PROJECT_ID, PROJECT_PATH, job))
        await _ready_for_snapshot(pilot)
        screen = app.screen
        assert isinstance(screen, TraceScreen) and screen.finished_reading
        if keys:
            await pilot.press(*keys)
            await _ready_for_snapshot(pilot)

    return run_before


@pytest.mark.parametrize("size", SIZES)
def test_jobs_list(snap_compare: Any, snap_app: Callable[[], LabdeckApp], size: tuple[int, int]) -> None:
    assert snap_compare(snap_app(), run_before=_open_jobs(), terminal_size=size)


@pytest.mark.parametrize("size", SIZES[1:])
def test_jobs_grouped_by_stage(snap_compare: Any, snap_app: Callable[[], LabdeckApp], size: tuple[int, int]) -> None:
    assert snap_compare(snap_app(), run_before=_open_jobs("v", "v"), terminal_size=size)


@pytest.mark.parametrize("size", SIZES[:1])
def test_trace_failed_job(snap_compare: Any, snap_app: Callable[[], LabdeckApp], snap_server: SimServer,
                          size: tuple[int, int]) -> None:
    assert snap_compare(snap_app(), run_before=_open_trace(snap_server), terminal_size=size)


@pytest.mark.parametrize("size", SIZES)
def test_trace_folded_sections(snap_compare: Any, snap_app: Callable[[], LabdeckApp], snap_server: SimServer,
                               size: tuple[int, int]) -> None:
    assert snap_compare(snap_app(), run_before=_open_trace(snap_server, "z", "home"), terminal_size=size)
