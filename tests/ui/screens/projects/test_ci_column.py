"""The projects table's CI column follows the rows a filter brings on screen at once, not at the
console clock's next tick (until then those rows showed an empty CI cell)."""

from __future__ import annotations

import pytest

from labdeck.ui import app as app_module
from labdeck.ui.screens.projects.list import ProjectsScreen
from tests.support.pilot import settle
from tests.ui.conftest import SimConsole, shared_sim


@shared_sim
async def test_rows_a_filter_brings_on_screen_get_their_ci_status_without_waiting_for_the_clock(
        console: SimConsole, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(app_module, "TICK_SECONDS", 3600.0)  # no clock tick during the test
    async with console.run(size=(100, 12)) as (app, pilot):  # room for a few rows only
        await settle(app, pilot, rounds=3)
        screen = app.screen
        assert isinstance(screen, ProjectsScreen)
        await pilot.press("slash", *"web/")
        await settle(app, pilot, rounds=3)
        shown = screen.table.visible_rows(0, screen.table.size.height)
        assert shown and all("web/" in str(row.cells[1]) for row in shown)
        for _ in range(100):
            if screen.ci_loading() == 0:
                break
            await pilot.pause(0.05)
        cells = [str(row.cells[2]) for row in screen.table.visible_rows(0, screen.table.size.height)]
        assert all(cell.strip() for cell in cells), cells  # a status, or — for no pipeline
