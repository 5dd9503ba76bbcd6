"""Every screen of the console against both dialects of the simulator (issue 11): the spec's neutral
one (GitLab 10.x shapes, ``/services/chat-d``, runner ``active``, project ``tag_list``) and current
GitLab's (``/integrations/slack``, list without properties, webhooks hidden, runner ``paused`` and
``runner_type``, ``topics``, failure reasons). Each screen is opened and each of its actions run
once over real HTTP, and the server's own state is checked afterwards; where the two dialects must
send different requests, the audit log (field names of every change sent) shows which were sent.

One private simulator per dialect for the module (the tests pick different objects to change).
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import pytest
from rich.text import Text
from textual.widgets import Input

from labdeck.audit.read import AuditEntry, read_audit
from labdeck.sim.core.clock import SimClock
from labdeck.sim.core.dialect import dialect_of
from labdeck.sim.dataset.build import build_state
from labdeck.sim.server import SimServer
from labdeck.ui.app import LabdeckApp
from labdeck.ui.dialogs.form import MASK, FormScreen
from labdeck.ui.screens.audit.list import AuditScreen
from labdeck.ui.screens.integrations.actions import WRITE_ONLY
from labdeck.ui.screens.integrations.detail import IntegrationDetailScreen
from labdeck.ui.screens.integrations.list import IntegrationsScreen
from labdeck.ui.screens.issues.detail import IssueDetailScreen
from labdeck.ui.screens.issues.list import IssuesScreen
from labdeck.ui.screens.jobs.table import JobTable
from labdeck.ui.screens.jobs.trace import TraceScreen
from labdeck.ui.screens.projects.detail import ProjectDetailScreen
from labdeck.ui.screens.projects.list import ProjectsScreen
from labdeck.ui.screens.runners.detail import RunnerDetailScreen, RunnerJobsScreen
from labdeck.ui.screens.runners.list import ProjectRunnersScreen, RunnersScreen
from labdeck.ui.screens.settings.badges import GroupBadgesScreen
from labdeck.ui.screens.settings.branches import ProtectedBranchesScreen
from labdeck.ui.screens.settings.export import ProjectExportScreen
from labdeck.ui.screens.settings.hooks import ProjectHooksScreen
from labdeck.ui.screens.settings.menu import ProjectSettingsScreen
from labdeck.ui.screens.settings.notifications import NotificationSettingsScreen
from labdeck.ui.screens.settings.people import ProjectForksScreen, ProjectUsersScreen
from tests.support.pilot import confirm, settle, submit, wait_until
from tests.ui.conftest import DIALECTS, SimConsole
from tests.ui.helpers import toasts
from tests.ui.jobs_support import create_pipeline

pytestmark = [pytest.mark.usefixtures("no_confirm_guard"),
              pytest.mark.parametrize("dialect", DIALECTS, scope="module")]


@pytest.fixture(scope="module")
def console_server(dialect: str) -> Iterator[SimServer]:
    """``console`` runs against one private simulator per dialect for the whole module, not one per
    test: the tests change different objects, and twelve starts would cost more than the two."""
    started = SimServer(build_state(seed=42, clock=SimClock(mode="manual"), dialect=dialect)).start()
    yield started
    started.stop()


def gitlab(server: SimServer) -> bool:
    return dialect_of(server.state) == "gitlab"


def plain(cell: Any) -> str:
    return cell.plain if isinstance(cell, Text) else str(cell)


def cells(screen: Any, key: Any) -> list[str]:
    row = next(row for row in screen.table.rows() if row.key == key)
    return [plain(cell) for cell in row.cells]


def fields_of(screen: Any) -> dict[str, str]:
    return {plain(row.cells[0]).rstrip(" *"): plain(row.cells[1]) for row in screen.table.rows()}


def last_sent(method: str, path_end: str) -> AuditEntry:
    """The last change sent whose path ends with ``path_end`` (the audit log is per test)."""
    return [entry for entry in read_audit() if entry.method == method and entry.path.endswith(path_end)][-1]



async def push(app: LabdeckApp, pilot: Any, screen: Any) -> Any:
    """Push ``screen`` and wait for its first load (its rows are on screen)."""
    await settle(app, pilot)
    app.push_screen(screen)
    await wait_until(pilot, lambda: screen.load_count > 0, limit=10, what=f"{type(screen).__name__} loaded")
    await settle(app, pilot)
    return screen


async def press(app: LabdeckApp, pilot: Any, *keys: str) -> None:
    await pilot.press(*keys)
    await settle(app, pilot)


def admin_id(server: SimServer) -> int:
    return next(u.id for u in server.state.users.values() if u.username == "root")


async def test_projects_detail_jobs_and_log(console: SimConsole) -> None:
    server = console.server
    state = server.state
    pipeline = await create_pipeline(server, [{"name": "build", "jobs": [{"name": "long-build", "duration": 600}]}])
    job_id = pipeline["jobs"][0]["id"]
    project = state.projects[7]
    async with console.run(size=(120, 40)) as (app, pilot):
        await settle(app, pilot)
        projects = app.screen
        assert isinstance(projects, ProjectsScreen) and projects.table.row_count > 0
        projects.table.move_cursor_to_key(project.id)
        await press(app, pilot, "s")  # star
        assert admin_id(server) in project.starred_by
        await press(app, pilot, "s")  # unstar
        assert admin_id(server) not in project.starred_by
        await press(app, pilot, "A")  # archive, confirmed
        await confirm(app, pilot)
        assert project.archived
        await press(app, pilot, "A")
        await confirm(app, pilot)
        assert not project.archived
        await press(app, pilot, "d")
        detail = app.screen
        assert isinstance(detail, ProjectDetailScreen)
        topics = next(plain(row.cells[2]) for row in detail.table.rows() if row.key == ("field", "topics"))
        assert topics == (", ".join(project.tag_list) or "—")
        app.pop_screen()
        await settle(app, pilot)
        await press(app, pilot, "enter")  # the project's jobs
        await wait_until(pilot, lambda: app.current_mode == "jobs" and app.screen.query(JobTable), what="jobs")
        jobs = app.screen
        table = jobs.query_one(JobTable)
        await wait_until(pilot, lambda: table.select_job(job_id), what=f"row of job {job_id}")
        await wait_until(pilot, lambda: getattr(jobs.selected_job(), "id", None) == job_id, what="the job selected")
        await settle(app, pilot)
        # Now and then the hidden "/" field of the jobs screen keeps the focus once the section is shown
        # (Textual's auto-focus takes it: reported to the jobs screen's owner). The actions are what this
        # test is about: through their keys when the table has the focus, directly otherwise.
        table.focus()
        for _ in range(40):
            if app.focused is table:
                break
            await pilot.pause(0.05)

        async def job_key(key: str, action: str) -> None:
            if app.focused is table:
                await press(app, pilot, key)
            else:
                getattr(jobs, f"action_{action}")()
                await settle(app, pilot)

        await job_key("c", "cancel_job")  # confirmed
        await confirm(app, pilot)
        await wait_until(pilot, lambda: state.jobs[job_id].status == "canceled", what="the cancel")
        await job_key("r", "retry_job")  # a new job, confirmed
        await confirm(app, pilot)
        await wait_until(pilot, lambda: any(j.name == "long-build" and j.id > job_id for j in state.jobs.values()),
                         what="the retried job")
        await wait_until(pilot, lambda: table.select_job(job_id), what=f"row of job {job_id}")
        await wait_until(pilot, lambda: getattr(jobs.selected_job(), "id", None) == job_id, what="the job selected")
        await job_key("enter", "open_trace")  # its log
        assert isinstance(app.screen, TraceScreen) and app.screen.job.id == job_id


async def test_runners_lists_detail_jobs_and_every_action(console: SimConsole) -> None:
    server = console.server
    state = server.state
    runner = next(r for r in state.runners.values() if r.active and not r.is_shared and r.project_ids and r.tags)
    doomed = next(r for r in state.runners.values() if not r.is_shared and r.id != runner.id)
    target = next(p for p in state.projects.values() if p.id not in runner.project_ids and not p.deleted)
    pause_param, shared_kind, specific_kind = (("paused", "instance", "project") if gitlab(server)
                                               else ("active", "shared", "specific"))
    async with console.run(size=(160, 40)) as (app, pilot):
        screen = await push(app, pilot, RunnersScreen(all_runners=True))
        for each in state.runners.values():  # Type, Paused and Tags (read from each runner's details)
            row = cells(screen, each.id)
            assert row[3] == (shared_kind if each.is_shared else specific_kind)
            assert row[4] == ("no" if each.active else "yes") and row[5] == (", ".join(each.tags) or "—")
        await press(app, pilot, "slash", *runner.tags[0], "enter")  # "/" finds runners by tag
        assert screen.table.visible_count and all(runner.tags[0] in plain(r.cells[5]) for r in screen.table.visible_rows())
        await press(app, pilot, "escape")
        screen.table.move_cursor_to_key(runner.id)
        await press(app, pilot, "p")  # pause, confirmed
        await confirm(app, pilot)
        assert runner.active is False and cells(screen, runner.id)[4] == "yes"
        assert pause_param in last_sent("PUT", f"/runners/{runner.id}").fields
        await press(app, pilot, "p")  # resume
        await confirm(app, pilot)
        assert runner.active is True and cells(screen, runner.id)[4] == "no"
        await press(app, pilot, "e")
        await submit(app, pilot, {"description": "edited in both dialects", "tag_list": "docker, dialect-test"})
        assert runner.description == "edited in both dialects" and "dialect-test" in runner.tags
        assert cells(screen, runner.id)[5] == "docker, dialect-test"
        await press(app, pilot, "enter")
        detail = app.screen
        assert isinstance(detail, RunnerDetailScreen)
        values = fields_of(detail)
        assert values["paused"] == "no" and values["type"] == specific_kind and values["tags"] == "docker, dialect-test"
        await press(app, pilot, "J")
        assert isinstance(app.screen, RunnerJobsScreen)
        app.pop_screen()
        app.pop_screen()
        await settle(app, pilot)
        screen.table.move_cursor_to_key(doomed.id)
        await press(app, pilot, "D")  # delete: type the id
        await confirm(app, pilot, typed=str(doomed.id))
        assert doomed.id not in state.runners and screen.table.get_data(doomed.id) is None

        project_runners = await push(app, pilot, ProjectRunnersScreen(target.id, "target/project"))
        await press(app, pilot, "E")  # enable one of the runners in this project
        await submit(app, pilot, {"runner_id": str(runner.id)})
        assert target.id in runner.project_ids and project_runners.table.get_data(runner.id) is not None
        project_runners.table.move_cursor_to_key(runner.id)
        await press(app, pilot, "X")  # disable, confirmed
        await confirm(app, pilot)
        assert target.id not in runner.project_ids


async def test_issues_lists_detail_and_every_action(console: SimConsole) -> None:
    server = console.server
    state = server.state
    project = state.projects[1]
    path = state.project_full_path(project)
    destination = next(p for p in state.projects.values() if p.id not in (1,) and not p.deleted
                       and p.namespace_kind == "group")
    destination_path = state.project_full_path(destination)
    me = admin_id(server)
    async with console.run(size=(120, 40)) as (app, pilot):
        await settle(app, pilot)
        for screen in (IssuesScreen(group="platform"), IssuesScreen(filters={"scope": "all", "state": "opened"})):
            await push(app, pilot, screen)
            assert screen.table.row_count > 0, (screen.load_count, screen.loading_text, toasts(app))
            app.pop_screen()
        listing = await push(app, pilot, IssuesScreen(project_id=1, project_path=path))
        await press(app, pilot, "n")
        await submit(app, pilot, {"title": "Opened from both dialects"})
        issue = next(i for i in state.issues.values() if i.title == "Opened from both dialects" and not i.deleted)
        listing.table.move_cursor_to_key((1, issue.iid))
        await press(app, pilot, "enter")
        detail = app.screen
        assert isinstance(detail, IssueDetailScreen)
        await press(app, pilot, "e")
        await submit(app, pilot, {"title": "Renamed in both dialects"})
        assert issue.title == "Renamed in both dialects"
        await press(app, pilot, "x")
        await confirm(app, pilot)
        assert issue.state == "closed"
        await press(app, pilot, "x")  # reopen (not confirmed: nothing is lost)
        assert issue.state == "opened"
        await press(app, pilot, "L")
        assert issue.discussion_locked
        subscribed = bool(detail.issue and detail.issue.subscribed)
        await press(app, pilot, "S")
        assert issue.subscriptions.get(me) is (not subscribed)
        await press(app, pilot, "T")
        assert any(t.target_id == issue.id and t.user_id == me for t in state.todos.values())
        await press(app, pilot, "t")
        await submit(app, pilot, {"estimate": "1h30m", "spent": "20m"})
        assert issue.time_estimate == 5400 and issue.total_time_spent == 1200
        await press(app, pilot, "M")
        await submit(app, pilot, {"project": destination_path})  # a path, not an id
        await confirm(app, pilot)
        moved = next(i for i in state.issues.values() if i.project_id == destination.id
                     and i.title == "Renamed in both dialects")
        assert issue.moved_to_id == moved.id and detail.project_id == destination.id
        await press(app, pilot, "D")
        await confirm(app, pilot, typed=str(moved.iid))
        assert moved.deleted


async def test_integrations_by_title_secrets_configure_disable(console: SimConsole) -> None:
    server = console.server
    state = server.state
    project = next(p for p in state.projects.values() if not p.deleted and not any(
        pid == p.id for (pid, _slug) in state.integrations))
    slack = "slack" if gitlab(server) else "chat-d"
    wire = "integrations" if gitlab(server) else "services"
    async with console.run(size=(120, 40)) as (app, pilot):
        screen = await push(app, pilot, IntegrationsScreen(project.id, "some/project"))
        assert cells(screen, "chat-d")[:3] == ["Slack notifications", slack, "inactive"]
        await press(app, pilot, "slash", *"slack", "enter")  # by title …
        assert {plain(r.cells[0]) for r in screen.table.visible_rows()} == {"Slack notifications",
                                                                           "Slack slash commands"}
        await press(app, pilot, "escape", "slash", *slack, "enter")  # … or by the server's slug
        assert "Slack notifications" in {plain(r.cells[0]) for r in screen.table.visible_rows()}
        await press(app, pilot, "escape")
        screen.table.move_cursor_to_key("chat-d")
        await press(app, pilot, "e")
        await submit(app, pilot, {"webhook": "https://hooks.example.test/T0/B0/secret", "channel": "#ops"})
        record = next(r for (pid, _), r in state.integrations.items() if pid == project.id)
        assert record.active and record.properties["webhook"] == "https://hooks.example.test/T0/B0/secret"
        assert last_sent("PUT", f"/{wire}/{slack}").outcome == "done"
        assert cells(screen, "chat-d")[2] == "active"
        await press(app, pilot, "enter")
        detail = app.screen
        assert isinstance(detail, IntegrationDetailScreen)
        values = fields_of(detail)
        assert values["webhook"] == (WRITE_ONLY if gitlab(server) else MASK)  # never the URL itself
        assert "secret" not in " ".join(values.values()) and values["channel"] == "#ops"
        assert values["push_events"] == "yes"
        await press(app, pilot, "e")  # the webhook is write-only: not pre-filled; empty = unchanged …
        form = await submit(app, pilot, {"channel": "#alerts"})
        assert app.screen is form  # … but this server wants it on every save, and says so under it
        assert "needs it again on every save" in plain(form.query_one("#err-webhook").render())
        form.set_value("webhook", "https://hooks.example.test/T0/B0/new")
        form.action_submit()
        await settle(app, pilot)
        assert app.screen is detail and record.properties["channel"] == "#alerts"
        await press(app, pilot, "X")  # disable: type the server's slug
        await confirm(app, pilot, typed=slack)
        assert not record.active and fields_of(detail)["state"] == "inactive"
        app.pop_screen()
        await settle(app, pilot)
        screen.table.move_cursor_to_key("chat-c")  # HipChat: gone from current GitLab
        await press(app, pilot, "enter")
        values = fields_of(app.screen)
        assert values["state"] == ("unavailable" if gitlab(server) else "inactive")
        assert values["title"] == "HipChat"


async def test_settings_hooks_branches_badges_notifications_export(console: SimConsole) -> None:
    server = console.server
    state = server.state
    path = state.project_full_path(state.projects[2])
    async with console.run(size=(120, 40)) as (app, pilot):
        menu = await push(app, pilot, ProjectSettingsScreen(2, path))
        for key, screen_type in (("users", ProjectUsersScreen), ("forks", ProjectForksScreen),
                                 ("issues", IssuesScreen), ("integrations", IntegrationsScreen),
                                 ("runners", ProjectRunnersScreen)):
            menu.table.move_cursor_to_key(key)
            await press(app, pilot, "enter")
            assert isinstance(app.screen, screen_type), key
            if key == "users":
                assert app.screen.table.row_count > 0
            app.pop_screen()
            await settle(app, pilot)

        hooks = await push(app, pilot, ProjectHooksScreen(2, path))
        await press(app, pilot, "n")
        form = app.screen
        assert isinstance(form, FormScreen)
        names = {field.name for field in form.fields}
        assert ("name" in names) is gitlab(server)  # hooks have a name on GitLab 17.1+
        await submit(app, pilot, {"url": "https://hooks.example.test/dialect", "job_events": True,
                                  **({"name": "CI relay"} if gitlab(server) else {})})
        hook = next(h for h in state.hooks.values() if h.url == "https://hooks.example.test/dialect")
        assert hook.flags["job_events"] and cells(hooks, hook.id)[2] == "https://hooks.example.test/dialect"
        assert ("name" in last_sent("POST", "/hooks").fields) is gitlab(server)
        hooks.table.move_cursor_to_key(hook.id)
        await press(app, pilot, "e")
        await submit(app, pilot, {"url": "https://hooks.example.test/dialect-2"})
        assert hook.url == "https://hooks.example.test/dialect-2"
        await press(app, pilot, "D")
        await confirm(app, pilot, typed=str(hook.id))
        assert hook.id not in state.hooks
        app.pop_screen()

        branches = await push(app, pilot, ProtectedBranchesScreen(2, path))
        await press(app, pilot, "n")
        force = {"allow_force_push": True} if gitlab(server) else {}
        assert ("allow_force_push" in {f.name for f in app.screen.fields}) is gitlab(server)  # type: ignore[attr-defined]
        await submit(app, pilot, {"name": "hotfix/*", "push_access_level": 30, "merge_access_level": 40, **force})
        assert (2, "hotfix/*") in state.protected_branches
        assert ("allow_force_push" in last_sent("POST", "/protected_branches").fields) is gitlab(server)
        assert state.protected_branches[(2, "hotfix/*")].push_access_level == 30
        assert cells(branches, "hotfix/*")[1] == "Developers + Masters"  # the server's own words
        branches.table.move_cursor_to_key("hotfix/*")
        await press(app, pilot, "D")
        await confirm(app, pilot)
        assert (2, "hotfix/*") not in state.protected_branches
        app.pop_screen()

        badges = await push(app, pilot, GroupBadgesScreen("platform"))
        await press(app, pilot, "n")
        await submit(app, pilot, {"link_url": "https://ci.example.test/%{project_path}",
                                  "image_url": "https://ci.example.test/badge.svg"})
        badge = next(b for b in state.badges.values() if b.image_url == "https://ci.example.test/badge.svg")
        badges.table.move_cursor_to_key(badge.id)
        await press(app, pilot, "D")
        await confirm(app, pilot, typed=str(badge.id))
        assert badge.id not in state.badges
        app.pop_screen()

        notifications = await push(app, pilot, NotificationSettingsScreen(2, path, "platform"))
        notifications.table.move_cursor_to_key("project")
        await press(app, pilot, "e")
        await submit(app, pilot, {"level": "watch"})
        assert (await app.client.notifications.project_settings(2)).level == "watch"
        app.pop_screen()

        export = ProjectExportScreen(2, path)

        async def tick(seconds: float) -> None:
            server.state.clock.advance(seconds)  # the export moves on simulated time
            await asyncio.sleep(0)

        export.sleep = tick
        await push(app, pilot, export)
        await press(app, pilot, "x")
        await submit(app, pilot, {})
        assert export.export_status == "finished"
        assert (await app.client.exports.export_status(2)).export_status == "finished"


async def test_project_settings_share_fork_delete_and_the_audit_screen(console: SimConsole) -> None:
    server = console.server
    state = server.state
    path = state.project_full_path(state.projects[3])
    group = next(g for g in state.groups.values() if g.full_path == "data")
    async with console.run(size=(160, 40)) as (app, pilot):
        await settle(app, pilot)
        menu = await push(app, pilot, ProjectSettingsScreen(3, path))
        await press(app, pilot, "e")
        await submit(app, pilot, {"tag_list": "edge, dialects"})
        assert state.projects[3].tag_list == ["edge", "dialects"]
        sent = last_sent("PUT", "/projects/3").fields  # topics from GitLab 14.0, tag_list before
        assert any(name.startswith("topics" if gitlab(server) else "tag_list") for name in sent)
        assert not any(name.startswith("tag_list" if gitlab(server) else "topics") for name in sent)
        menu.open("share")
        await settle(app, pilot)
        field = app.screen.query_one("#f-group", Input)
        await press(app, pilot, "d", "a", "right")  # completes to a group of the projects listed
        assert field.value == "data"
        await submit(app, pilot, {"group_access": 30})
        assert group.id in state.projects[3].shared_with_groups
        menu.open("unshare")
        await settle(app, pilot)
        await submit(app, pilot, {"group_id": group.id})
        await confirm(app, pilot)
        assert group.id not in state.projects[3].shared_with_groups
        menu.open("fork")
        await settle(app, pilot)
        await submit(app, pilot, {"namespace": "data"})
        fork = next(p for p in state.projects.values() if p.forked_from_id == 3 and not p.deleted)
        fork_path = state.project_full_path(fork)
        assert fork_path.startswith("data/")
        fork_menu = await push(app, pilot, ProjectSettingsScreen(fork.id, fork_path))
        fork_menu.open("delete")
        await settle(app, pilot)
        await confirm(app, pilot, typed=fork_path)
        assert fork.deleted or fork.id not in state.projects

        audit = await push(app, pilot, AuditScreen())
        rows = [[plain(cell) for cell in row.cells] for row in audit.table.rows()]
        assert rows[0][2] == "projects.delete" and rows[0][6] == f"typed:{fork_path}" and rows[0][5] == "done (202)"
        assert any(row[3] == "PUT /api/v4/projects/3" and row[6] == "form" for row in rows)
        assert all(row[5].startswith("done") for row in rows)
        assert not any("Invalid" in message for message in toasts(app))
