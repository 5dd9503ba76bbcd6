"""The console shell against the shared simulator: start, navigate, filter, command line, palette,
keys, copy, keymap, state."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from labdeck.ui.dialogs.command_line import CommandLineScreen
from labdeck.ui.dialogs.keys import KeysScreen
from labdeck.ui.screens.integrations.list import IntegrationsScreen
from labdeck.ui.screens.issues.list import IssuesScreen
from labdeck.ui.screens.projects.detail import ProjectDetailScreen
from labdeck.ui.screens.projects.list import ProjectsScreen
from labdeck.ui.screens.runners.list import RunnersScreen
from labdeck.ui.widgets.resource_table import ResourceTable
from labdeck.ui.widgets.status_line import StatusLine
from tests.support.pilot import settle
from tests.ui.conftest import SimConsole, shared_sim
from tests.ui.helpers import run_command


def _read_json(path: Path) -> dict[str, Any]:
    return dict(json.loads(path.read_text(encoding="utf-8")))


def _label(app: object, selector: str) -> str:
    return str(app.screen.query_one(selector).render())  # type: ignore[attr-defined]


@shared_sim
async def test_start_shows_projects_and_status(console: SimConsole) -> None:
    async with console.run(size=(120, 40)) as (app, pilot):
        await settle(app, pilot, rounds=3)
        screen = app.screen
        assert isinstance(screen, ProjectsScreen)
        visible = {p.id for p in console.server.state.projects.values() if not p.deleted}
        assert screen.table.row_count == len(visible)
        assert app.current_user == "root"
        screen.query_one(StatusLine).update_status()
        assert "WRITE" in _label(app, "#status-mode")
        assert "@root" in _label(app, "#status-user")
        assert console.server.base_url in _label(app, "#status-instance")
        assert _label(app, "#status-age") == "data <10s"
        assert f"{screen.table.row_count} rows" in _label(app, "#title-counts")


@shared_sim
async def test_navigate_details_and_back(console: SimConsole) -> None:
    async with console.run(size=(100, 30)) as (app, pilot):
        await settle(app, pilot, rounds=3)
        table = app.screen.query_one(ResourceTable)
        first = table.cursor_key
        await pilot.press("down", "down")
        assert table.cursor_row == 2 and table.cursor_key != first
        chosen = table.cursor_data
        await pilot.press("d")
        await settle(app, pilot, rounds=3)
        detail = app.screen
        assert isinstance(detail, ProjectDetailScreen)
        fields = {row.cells[1]: row.cells[2] for row in detail.query_one(ResourceTable).rows()}
        assert fields["path_with_namespace"] == chosen.path_with_namespace
        assert "repository_size" in fields and "project_access" in fields
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, ProjectsScreen)
        assert app.screen.table.cursor_key == chosen.id


@shared_sim
async def test_filter_substring_and_inverted(console: SimConsole) -> None:
    async with console.run(size=(100, 30)) as (app, pilot):
        await settle(app, pilot, rounds=3)
        table = app.screen.query_one(ResourceTable)
        total = table.row_count
        await pilot.press("slash", *"infra")
        await pilot.pause()
        matching = [row.cells[1] for row in table.visible_rows()]
        assert matching and all("infra" in path for path in matching)
        assert len(matching) < total
        assert "/infra" in _label(app, "#title-filter")
        await pilot.press("enter")
        assert table.has_focus
        await pilot.press("slash", "home", "exclamation_mark")
        await pilot.pause()
        assert table.visible_count == total - len(matching)
        assert all("infra" not in row.cells[1] for row in table.visible_rows())
        await pilot.press("escape")  # leaves the field, keeps the filter
        await pilot.press("escape")  # clears it
        await pilot.pause()
        assert table.visible_count == total
        assert isinstance(app.screen, ProjectsScreen)


@shared_sim
async def test_command_line_server_filter_history_and_completion(console: SimConsole) -> None:
    async with console.run(size=(100, 30)) as (app, pilot):
        await settle(app, pilot, rounds=3)
        await pilot.press("colon")
        await pilot.pause()
        assert isinstance(app.screen, CommandLineScreen)
        await pilot.press(*"proj", "tab")  # completes to "projects"
        command = app.screen.query_one("#command")
        assert command.value == "projects"  # type: ignore[attr-defined]
        command.insert_text_at_cursor(" search=terraform archived=false")  # type: ignore[attr-defined]
        await pilot.press("enter")
        await settle(app, pilot, rounds=3)
        screen = app.screen
        assert isinstance(screen, ProjectsScreen)
        assert screen.filters == {"search": "terraform", "archived": False}
        paths = [row.cells[1] for row in screen.table.rows()]
        assert paths and all("terraform" in path for path in paths)
        assert len(paths) < len(console.server.state.projects)
        assert "search=terraform archived=false" in _label(app, "#title-context")
        # history: ↑ brings the last line back
        await pilot.press("colon", "up")
        await pilot.pause()
        assert app.screen.query_one("#command").value == "projects search=terraform archived=false"  # type: ignore[attr-defined]
        await pilot.press("down")  # back to an empty line
        assert app.screen.query_one("#command").value == ""  # type: ignore[attr-defined]
        await pilot.press(*"projects", "enter")
        await settle(app, pilot, rounds=3)
        assert app.screen.filters == {}  # type: ignore[attr-defined]
        # a mistake is a toast, the console stays
        await run_command(app, pilot, "projects colour=red")
        assert any("unknown option 'colour'" in str(n.message) for n in app._notifications)
        await run_command(app, pilot, "nonsense")
        assert any("unknown command :nonsense" in str(n.message) for n in app._notifications)
        assert app.is_running


@shared_sim
async def test_theme_and_readonly_commands(console: SimConsole) -> None:
    async with console.run(size=(100, 30)) as (app, pilot):
        await settle(app, pilot, rounds=3)
        assert app.theme == "labdeck-dark"
        await run_command(app, pilot, "theme labdeck-production")
        assert app.theme == "labdeck-production"
        await run_command(app, pilot, "theme textual-light")  # Textual's own themes work too
        assert app.theme == "textual-light"
        await run_command(app, pilot, "readonly")
        assert app.read_only and app.client.read_only


@shared_sim
async def test_palette_jumps_to_project_and_runs_screen_actions(console: SimConsole) -> None:
    async with console.run(size=(100, 30)) as (app, pilot):
        await settle(app, pilot, rounds=3)
        target = next(p for p in console.server.state.projects.values() if p.path == "terraform-modules")
        await pilot.press("ctrl+p")
        await pilot.pause()
        app.screen.query_one("CommandInput").value = "project: terraform-mod"  # type: ignore[attr-defined]
        await pilot.pause(0.3)
        await pilot.press("enter")
        await settle(app, pilot, rounds=3)
        assert isinstance(app.screen, ProjectsScreen)
        assert app.screen.table.cursor_key == target.id
        await pilot.press("ctrl+p")
        await pilot.pause()
        app.screen.query_one("CommandInput").value = "projects: Details"  # type: ignore[attr-defined]
        await pilot.pause(0.3)
        await pilot.press("enter")
        await settle(app, pilot, rounds=3)
        assert isinstance(app.screen, ProjectDetailScreen)
        assert app.screen.project_id == target.id


@shared_sim
async def test_keys_screen_lists_ids_and_descriptions(console: SimConsole) -> None:
    async with console.run(size=(100, 30)) as (app, pilot):
        await settle(app, pilot, rounds=3)
        await pilot.press("question_mark")
        await pilot.pause()
        assert isinstance(app.screen, KeysScreen)
        ids = {row.cells[2] for row in app.screen.query_one(ResourceTable).rows()}
        assert {"projects.star", "projects.archive", "section.filter", "app.command-line"} <= ids
        await pilot.press("escape")
        assert isinstance(app.screen, ProjectsScreen)


@shared_sim
async def test_keymap_from_config_remaps_binding(console: SimConsole) -> None:
    async with console.run(keymap={"projects.details": "i"}, size=(100, 30)) as (app, pilot):
        await settle(app, pilot, rounds=3)
        await pilot.press("d")
        await pilot.pause()
        assert isinstance(app.screen, ProjectsScreen)
        await pilot.press("i")
        await settle(app, pilot, rounds=3)
        assert isinstance(app.screen, ProjectDetailScreen)


@shared_sim
async def test_copy_puts_project_url_on_clipboard(console: SimConsole) -> None:
    async with console.run(size=(100, 30)) as (app, pilot):
        await settle(app, pilot, rounds=3)
        project = app.screen.query_one(ResourceTable).cursor_data
        await pilot.press("y")
        assert app.clipboard == project.web_url
        assert project.web_url.startswith(console.server.base_url)


@shared_sim
async def test_enter_opens_jobs_section_and_number_keys_switch(console: SimConsole) -> None:
    async with console.run(size=(120, 40)) as (app, pilot):
        await settle(app, pilot, rounds=3)
        await pilot.press("2")  # no project chosen yet: stays, explains
        await pilot.pause()
        assert app.current_mode == "projects"
        assert any("Pick a project first" in str(n.message) for n in app._notifications)
        project = app.screen.query_one(ResourceTable).cursor_data
        await pilot.press("enter")
        await settle(app, pilot, rounds=3)
        assert app.current_mode == "jobs"
        assert getattr(app.screen, "project_id", None) == project.id
        await pilot.press("1")
        await pilot.pause()
        assert app.current_mode == "projects"
        await pilot.press("2")
        await pilot.pause()
        assert app.current_mode == "jobs"


@shared_sim
async def test_history_and_filters_survive_restart(console: SimConsole, state_path: Path) -> None:
    async with console.run(size=(100, 30)) as (app, pilot):
        await settle(app, pilot, rounds=3)
        await run_command(app, pilot, "projects search=data")
    saved = _read_json(state_path)
    assert saved["history"][-1] == "projects search=data"
    assert saved["ui"]["project_filters"] == {"search": "data"}
    again = console.app()
    async with again.run_test(size=(100, 30)) as pilot:
        await settle(again, pilot, rounds=3)
        assert again.screen.filters == {"search": "data"}  # type: ignore[attr-defined]
        assert again.commands.history[-1] == "projects search=data"


@shared_sim
async def test_section_keys_open_installed_sections(console: SimConsole) -> None:
    async with console.run(size=(120, 40)) as (app, pilot):
        await settle(app, pilot, rounds=3)
        project = app.screen.query_one(ResourceTable).cursor_data
        await pilot.press("5")
        await settle(app, pilot, rounds=3)
        assert isinstance(app.screen, IntegrationsScreen)
        assert getattr(app.screen, "project_id", None) == project.id
        await pilot.press("1")  # back to the projects table, whatever was pushed on it
        await settle(app, pilot, rounds=3)
        assert isinstance(app.screen, ProjectsScreen)
        screen_type: type
        for key, screen_type in (("3", RunnersScreen), ("4", IssuesScreen)):
            await pilot.press(key)
            await settle(app, pilot, rounds=3)
            assert isinstance(app.screen, screen_type)
            await pilot.press("1")
            await settle(app, pilot, rounds=3)


@shared_sim
async def test_no_color_is_respected(console: SimConsole, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NO_COLOR", "1")
    async with console.run(size=(80, 24)) as (app, pilot):
        await settle(app, pilot, rounds=3)
        assert app.no_color
        await pilot.press("down", "A")  # a table and a dialog render through the monochrome filter
        await settle(app, pilot, rounds=3)
        assert "Archive" in app.export_screenshot()
        assert app.is_running and app.return_code in (None, 0)
