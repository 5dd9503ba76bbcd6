"""Shared helpers for the console tests (``settle``, ``wait_until`` and ``confirm`` are in
:mod:`tests.support.pilot`)."""

from __future__ import annotations

from typing import Any

from labdeck.ui.app import LabdeckApp
from tests.support.pilot import settle


async def tables_measured(pilot: Any, seconds: float = 5.0) -> None:
    """Wait until every ``DataTable`` on screen has measured its new rows: it does so when its
    message queue runs empty, which ``pilot.pause()`` does not wait for on a busy machine (a
    snapshot would catch the columns at their labels' widths)."""
    from textual.widgets import DataTable

    for _ in range(int(seconds / 0.01)):
        tables = list(pilot.app.screen.query(DataTable))
        if not any(table._require_update_dimensions or table._new_rows or table._updated_cells
                   for table in tables):
            return
        await pilot.pause(0.01)


async def run_command(app: LabdeckApp, pilot: Any, line: str) -> None:
    """Open the ``:`` line, put ``line`` in it (typing every key is slow) and run it."""
    await pilot.press("colon")
    await pilot.pause()
    app.screen.query_one("#command").value = line  # type: ignore[attr-defined]
    await pilot.press("enter")
    await settle(app, pilot, rounds=3)


def screen_lines(app: LabdeckApp) -> list[str]:
    """The terminal's rows as plain text (from Textual's own screenshot)."""
    import html
    import re

    rows: dict[float, list[tuple[float, str]]] = {}
    pattern = r'<text class="[^"]*" x="([\d.]+)" y="([\d.]+)"[^>]*>([^<]*)</text>'
    for match in re.finditer(pattern, app.export_screenshot()):
        x, y = float(match.group(1)), float(match.group(2))
        rows.setdefault(y, []).append((x, html.unescape(match.group(3)).replace("\xa0", " ")))
    return ["".join(text for _, text in sorted(parts)) for _, parts in sorted(rows.items())]


async def ci_column_complete(pilot: Any, seconds: float = 15.0) -> None:
    """Wait until the projects table's CI column shows every row on screen (snapshots must not
    depend on when the shared poller answers)."""
    from labdeck.ui.screens.projects.list import ProjectsScreen

    for _ in range(int(seconds / 0.05)):
        screen = pilot.app.screen
        if not isinstance(screen, ProjectsScreen) or screen.ci_loading() == 0:
            break
        await pilot.pause(0.05)
    screen = pilot.app.screen
    for status in screen.query("StatusLine"):
        status.update_status()
    await pilot.pause()


def toasts(app: LabdeckApp) -> list[str]:
    """The messages of every notification shown so far."""
    return [str(n.message) for n in app._notifications]  # type: ignore[attr-defined]


async def push(app: LabdeckApp, pilot: Any, screen: Any) -> Any:
    """Push ``screen`` once the app is quiet and wait until it loaded."""
    await settle(app, pilot)
    app.push_screen(screen)
    await settle(app, pilot)
    return screen
