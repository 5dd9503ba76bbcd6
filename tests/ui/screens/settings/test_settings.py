"""Project settings against the simulator: the menu, hooks, protected branches, group badges,
notification settings, export/import, share/unshare, fork, upload, create, edit, delete; and the
`:` commands that open these screens."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from textual.widgets import Input

from labdeck.ui.dialogs.confirm import ConfirmScreen
from labdeck.ui.dialogs.form import FormScreen
from labdeck.ui.dialogs.message import MessageScreen
from labdeck.ui.screens.integrations.list import IntegrationsScreen
from labdeck.ui.screens.issues.detail import IssueDetailScreen
from labdeck.ui.screens.issues.list import IssuesScreen
from labdeck.ui.screens.record_detail import RecordDetailScreen
from labdeck.ui.screens.runners.detail import RunnerDetailScreen
from labdeck.ui.screens.runners.list import ProjectRunnersScreen, RunnersScreen
from labdeck.ui.screens.settings.badges import GroupBadgesScreen
from labdeck.ui.screens.settings.branches import ProtectedBranchesScreen
from labdeck.ui.screens.settings.export import ProjectExportScreen
from labdeck.ui.screens.settings.hooks import ProjectHooksScreen
from labdeck.ui.screens.settings.menu import ProjectSettingsScreen
from labdeck.ui.screens.settings.notifications import NotificationSettingsScreen
from labdeck.ui.screens.settings.people import ProjectForksScreen, ProjectUsersScreen, UserProjectsScreen
from labdeck.ui.sections import register
from labdeck.ui.widgets.resource_table import ResourceTable
from tests.support.pilot import confirm, settle, submit
from tests.ui.conftest import SimConsole, shared_sim
from tests.ui.helpers import push, toasts

PROJECT = 1
PATH = "platform/api-gateway"





@shared_sim
async def test_menu_opens_every_area(console: SimConsole) -> None:
    async with console.run(size=(120, 40)) as (app, pilot):
        menu = await push(app, pilot, ProjectSettingsScreen(PROJECT, PATH))
        keys = [row.key for row in menu.table.rows()]
        assert {"hooks", "branches", "badges", "notifications", "export", "delete", "create"} <= set(keys)
        # (the :commands test opens the other screens)
        expected = {"hooks": ProjectHooksScreen, "badges": GroupBadgesScreen, "notifications": NotificationSettingsScreen,
                    "issues": IssuesScreen, "users": ProjectUsersScreen, "forks": ProjectForksScreen,
                    "runners": ProjectRunnersScreen}
        for key, screen_type in expected.items():
            menu.table.move_cursor_to_key(key)
            await pilot.press("enter")
            await settle(app, pilot)
            assert isinstance(app.screen, screen_type), key
            app.pop_screen()
            await pilot.pause()



@shared_sim
async def test_read_only_hides_every_change(console: SimConsole) -> None:
    app = console.app(read_only=True)
    issue = next(i for i in console.server.state.issues.values() if i.state == "opened" and not i.deleted)
    async with app.run_test(size=(120, 40)) as pilot:
        menu = await push(app, pilot, ProjectSettingsScreen(PROJECT, PATH))
        keys = {row.key for row in menu.table.rows()}
        assert "delete" not in keys and "edit" not in keys and "hooks" in keys
        assert menu.check_action("delete", ()) is False
        runners = await push(app, pilot, RunnersScreen(all_runners=True))
        assert runners.check_action("edit", ()) is False and runners.check_action("delete", ()) is False
        await pilot.press("e", "D", "p")
        await settle(app, pilot)
        assert app.screen is runners
        detail = await push(app, pilot, IssueDetailScreen(issue.project_id, issue.iid))
        for action in ("edit", "close_reopen", "subscribe", "todo", "time", "move", "delete", "lock"):
            assert detail.check_action(action, ()) is False
        await pilot.press("e", "x", "D")
        await settle(app, pilot)
        assert app.screen is detail


@shared_sim
async def test_user_role_sees_own_runners_and_no_admin_detail(console: SimConsole) -> None:
    async with console.run(role="user", size=(120, 40)) as (app, pilot):
        runners = await push(app, pilot, RunnersScreen())
        assert not runners.all_runners
        assert {row.cells[3] for row in runners.table.rows()} <= {"specific"}
        listing = await push(app, pilot, IssuesScreen(filters={"scope": "all", "state": "opened"}))
        assert listing.table.row_count > 0
        await pilot.press("enter")
        await settle(app, pilot)
        assert isinstance(app.screen, IssueDetailScreen)
        assert "user_agent" not in {str(row.cells[0]) for row in app.screen.table.rows()}


async def test_hooks_add_edit_delete(console: SimConsole, no_confirm_guard: None) -> None:
    async with console.run(size=(120, 40)) as (app, pilot):
        screen = await push(app, pilot, ProjectHooksScreen(PROJECT, PATH))
        before = screen.table.row_count
        await pilot.press("n")
        await settle(app, pilot)
        await submit(app, pilot, {"url": "https://hooks.example.test/ci", "job_events": True, "token": "s3cret"})
        assert screen.table.row_count == before + 1
        hook = next(row.data for row in screen.table.rows() if row.data.url == "https://hooks.example.test/ci")
        assert hook.job_events
        screen.table.move_cursor_to_key(hook.id)
        await pilot.press("enter")  # GET …/hooks/:hook_id; the secret token is never shown
        await settle(app, pilot)
        assert isinstance(app.screen, RecordDetailScreen)
        shown = " ".join(str(row.cells[1]) for row in app.screen.query_one(ResourceTable).rows())
        assert "https://hooks.example.test/ci" in shown and "s3cret" not in shown
        app.pop_screen()
        await settle(app, pilot)
        await pilot.press("e")
        await settle(app, pilot)
        await submit(app, pilot, {"url": "https://hooks.example.test/v2"})
        assert screen.table.get_data(hook.id).url == "https://hooks.example.test/v2"
        await pilot.press("D")
        await settle(app, pilot)
        await pilot.click("#confirm")  # irreversible: nothing happens until the id is typed
        await settle(app, pilot)
        assert isinstance(app.screen, ConfirmScreen)
        assert hook.id in {row.key for row in screen.table.rows()}
        await confirm(app, pilot, typed=f"#{hook.id}")
        assert hook.id not in {row.key for row in screen.table.rows()}


async def test_protect_and_unprotect_branch(console: SimConsole, no_confirm_guard: None) -> None:
    async with console.run(size=(120, 40)) as (app, pilot):
        screen = await push(app, pilot, ProtectedBranchesScreen(PROJECT, PATH))
        await pilot.press("n")
        await settle(app, pilot)
        await submit(app, pilot, {"name": "release/*", "push_access_level": 0, "merge_access_level": 30})
        branch = screen.table.get_data("release/*")
        assert branch is not None
        assert [level.access_level for level in branch.push_access_levels] == [0]
        assert [level.access_level for level in branch.merge_access_levels] == [30]
        screen.table.move_cursor_to_key("release/*")
        await pilot.press("D")
        await settle(app, pilot)
        await confirm(app, pilot)
        assert screen.table.get_data("release/*") is None


async def test_badges_add_preview_edit_delete(console: SimConsole, no_confirm_guard: None) -> None:
    async with console.run(size=(120, 40)) as (app, pilot):
        screen = await push(app, pilot, GroupBadgesScreen("platform"))
        await pilot.press("n")
        await settle(app, pilot)
        await submit(app, pilot, {"link_url": "https://ci.example.test/%{project_path}",
                                  "image_url": "https://ci.example.test/%{project_id}.svg"})
        badge = next(row.data for row in screen.table.rows() if row.data.link_url.endswith("%{project_path}"))
        assert "%{" not in (badge.rendered_link_url or "%{")
        screen.table.move_cursor_to_key(badge.id)
        await pilot.press("v")
        await settle(app, pilot)
        await submit(app, pilot, {})
        assert isinstance(app.screen, MessageScreen)
        app.pop_screen()
        await settle(app, pilot)
        await pilot.press("e")
        await settle(app, pilot)
        await submit(app, pilot, {"image_url": "https://ci.example.test/new.svg"})
        assert screen.table.get_data(badge.id).image_url == "https://ci.example.test/new.svg"
        await pilot.press("D")
        await settle(app, pilot)
        await pilot.click("#confirm")  # irreversible: nothing happens until the id is typed
        await settle(app, pilot)
        assert isinstance(app.screen, ConfirmScreen) and screen.table.get_data(badge.id) is not None
        await confirm(app, pilot, typed=str(badge.id))
        assert screen.table.get_data(badge.id) is None


async def test_notification_levels_and_custom_events(console: SimConsole) -> None:
    async with console.run(size=(120, 40)) as (app, pilot):
        screen = await push(app, pilot, NotificationSettingsScreen(PROJECT, PATH, "platform"))
        assert [row.key for row in screen.table.rows()] == ["global", "group", "project"]
        screen.table.move_cursor_to_key("project")
        await pilot.press("e")
        await settle(app, pilot)
        await submit(app, pilot, {"level": "custom", "failed_pipeline": True, "new_issue": True})
        settings = await app.client.notifications.project_settings(PROJECT)
        assert settings.level == "custom"
        assert settings.events and settings.events["failed_pipeline"] and settings.events["new_issue"]
        row = next(row for row in screen.table.rows() if row.key == "project")
        assert "failed_pipeline" in str(row.cells[2])


async def test_export_watch_download_and_import(console: SimConsole, tmp_path: Path) -> None:
    server = console.server
    app = console.app()

    async def tick(seconds: float) -> None:
        server.state.clock.advance(seconds)  # the export/import move on simulated time
        await asyncio.sleep(0)

    async with app.run_test(size=(120, 40)) as pilot:
        screen = ProjectExportScreen(PROJECT, PATH)
        screen.sleep = tick
        await push(app, pilot, screen)
        await pilot.press("d")  # not exported yet
        await settle(app, pilot)
        assert any("start it (x)" in message for message in toasts(app))
        await pilot.press("x")
        await settle(app, pilot)
        form = app.screen
        assert isinstance(form, FormScreen)
        form.action_submit()
        await settle(app, pilot)
        assert screen.export_status == "finished"
        await pilot.press("d")
        await settle(app, pilot)
        await submit(app, pilot, {"dest": str(tmp_path)})
        assert screen.downloaded is not None and screen.downloaded.exists()
        assert screen.downloaded.name.endswith("export.tar.gz")
        await pilot.press("i")
        await settle(app, pilot)
        await submit(app, pilot, {"file": str(screen.downloaded), "path": "restored-gateway"})
        assert screen.imported is not None
        assert screen.imported.import_status == "finished"
        rows = {str(row.cells[0]): str(row.cells[1]) for row in screen.table.rows()}
        assert rows["import_status"] == "finished"


async def test_share_unshare_fork_create_edit_delete(console: SimConsole,
                                                     no_confirm_guard: None, tmp_path: Path) -> None:
    server = console.server
    app = console.app()
    group = next(g for g in server.state.groups.values() if g.full_path == "data")
    async with app.run_test(size=(120, 40)) as pilot:
        menu = await push(app, pilot, ProjectSettingsScreen(PROJECT, PATH))
        await pilot.press("e")
        await settle(app, pilot)
        await submit(app, pilot, {"description": "edited from the console", "merge_method": "ff"})
        project = await app.client.projects.get(PROJECT)
        assert project.description == "edited from the console" and project.merge_method == "ff"
        menu.open("share")
        await settle(app, pilot)
        assert any(path.startswith("data/") for path in app.known_projects.values())
        field = app.screen.query_one("#f-group", Input)
        field.focus()
        await pilot.press("d", "a")  # completes from the groups of the projects listed
        await settle(app, pilot)
        assert field._suggestion == "data"
        await pilot.press("right")
        assert field.value == "data"
        await submit(app, pilot, {"group_access": 20})
        assert app.screen is menu
        assert group.id in {g.group_id for g in (await app.client.projects.get(PROJECT)).shared_with_groups}
        assert any("shared with data" in message for message in toasts(app))
        menu.open("share")
        await settle(app, pilot)
        form = await submit(app, pilot, {"group": "no-such-group", "group_access": 20})
        assert app.screen is form and "No group 'no-such-group'" in form.last_error
        form.action_cancel()
        await settle(app, pilot)
        menu.open("unshare")
        await settle(app, pilot)
        await submit(app, pilot, {"group_id": group.id})
        await confirm(app, pilot)
        assert group.id not in {g.group_id for g in (await app.client.projects.get(PROJECT)).shared_with_groups}
        menu.open("fork")
        await settle(app, pilot)
        await submit(app, pilot, {"namespace": "data"})
        assert any("Fork created" in message for message in toasts(app))
        upload = tmp_path / "notes.txt"
        upload.write_text("hello")
        menu.open("upload")
        await settle(app, pilot)
        await submit(app, pilot, {"file": str(upload)})
        assert isinstance(app.screen, MessageScreen)
        app.pop_screen()
        await settle(app, pilot)
        menu.open("create")
        await settle(app, pilot)
        await submit(app, pilot, {"name": "SimConsole Made"})
        created = next(p for p in server.state.projects.values() if p.name == "SimConsole Made")
        alice = next(u for u in server.state.users.values() if u.username == "alice")
        menu.open("create")
        await settle(app, pilot)
        await submit(app, pilot, {"name": "Made For Alice", "owner_user_id": str(alice.id)})
        for_alice = next(p for p in server.state.projects.values() if p.name == "Made For Alice")
        assert for_alice.namespace_kind == "user" and for_alice.namespace_id == alice.id
        menu.open("delete")
        await settle(app, pilot)
        await confirm(app, pilot, typed=PATH)
        assert server.state.projects[PROJECT].deleted or PROJECT not in server.state.projects
        assert created.id in server.state.projects


@shared_sim
async def test_commands_open_screens(console: SimConsole) -> None:
    async with console.run(size=(120, 40)) as (app, pilot):
        register(app.commands)
        await settle(app, pilot)
        checks: list[tuple[str, type]] = [
            ("runners all scope=shared", RunnersScreen), (f"issues {PATH} state=closed", IssuesScreen),
            ("issues group:platform", IssuesScreen), (f"integrations {PATH}", IntegrationsScreen),
            (f"settings {PROJECT}", ProjectSettingsScreen), (f"hooks {PATH}", ProjectHooksScreen),
            (f"branches {PATH}", ProtectedBranchesScreen), ("badges platform", GroupBadgesScreen),
            (f"notifications {PATH}", NotificationSettingsScreen), (f"export {PATH}", ProjectExportScreen),
            ("user-projects alice", UserProjectsScreen), ("runner 4", RunnerDetailScreen),
            (f"issue {PATH} 1", IssueDetailScreen),
        ]
        for line, screen_type in checks:
            await app.commands.execute(app, line)
            await settle(app, pilot)
            assert isinstance(app.screen, screen_type), line
            app.pop_screen()
            await pilot.pause()
        app.run_command_line("runners sideways")
        await settle(app, pilot)
        assert any("usage: :runners" in message for message in toasts(app))


def test_rows_from_real_gitlab_answers_show_hook_names_and_force_push() -> None:
    import json
    from datetime import UTC, datetime

    from labdeck.api.models import ProjectHook, ProtectedBranch
    from labdeck.ui.screens.settings.branches import branch_row
    from labdeck.ui.screens.settings.hooks import hook_row
    from tests.support.process import REPO

    corpus = REPO / "tests" / "api" / "models" / "corpus"  # real GitLab answers
    now = datetime(2024, 1, 1, tzinfo=UTC)

    def body(name: str) -> Any:
        return json.loads((corpus / name).read_text(encoding="utf-8"))["body"]

    assert hook_row(ProjectHook.model_validate(body("hook_18x.json")), now).cells[1] == "Hook name"
    assert hook_row(ProjectHook.model_validate(body("hook_11x.json")), now).cells[1] == "—"  # before 17.1
    branches = [ProtectedBranch.model_validate(item) for item in body("protected_branches_18x.json")]
    assert branch_row(branches[0]).cells[3] == "no"  # allow_force_push false
    old = ProtectedBranch.model_validate(body("protected_branch_11x.json"))
    assert branch_row(old).cells[3] == "—"  # not said before 13.10
