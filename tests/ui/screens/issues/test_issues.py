"""Issues section against the simulator: project/group/global lists and filters, the detail
(description as plain text), the create/edit form, and every issue action."""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual.widgets import Input, Static

from labdeck.sim.server import SimServer
from labdeck.ui.dialogs.confirm import ConfirmScreen
from labdeck.ui.dialogs.message import MessageScreen
from labdeck.ui.screens.issues.detail import IssueDetailScreen
from labdeck.ui.screens.issues.form import check_duration
from labdeck.ui.screens.issues.list import IssuesScreen, parse_issue_filters
from tests.support.pilot import settle, submit
from tests.ui.conftest import SimConsole, shared_sim
from tests.ui.helpers import push, toasts


def fields(screen: IssueDetailScreen) -> dict[str, str]:
    return {str(row.cells[0]): (row.cells[1].plain if isinstance(row.cells[1], Text) else row.cells[1])
            for row in screen.table.rows()}


def sim_issue(server: SimServer, project_id: int, iid: int) -> Any:
    return next(i for i in server.state.issues.values()
                if i.project_id == project_id and i.iid == iid and not i.deleted)


def open_issue(server: SimServer) -> Any:
    return next(i for i in server.state.issues.values() if i.state == "opened" and not i.deleted)




def test_filter_parsing() -> None:
    assert parse_issue_filters(["state=closed", "labels=bug,p1", "crash", "author_id=3"]) == {
        "state": "closed", "labels": "bug,p1", "search": "crash", "author_id": 3}
    assert check_duration("3h30m") is None and check_duration("1w 2d") is None
    assert check_duration("three hours") is not None


@shared_sim
async def test_project_group_and_global_lists(console: SimConsole) -> None:
    async with console.run(size=(120, 40)) as (app, pilot):
        project = await push(app, pilot, IssuesScreen(project_id=1, project_path="platform/api-gateway"))
        opened = [i for i in console.server.state.issues.values()
                  if i.project_id == 1 and i.state == "opened" and not i.deleted]
        assert project.table.row_count == len(opened)
        await pilot.press("s")  # closed
        await settle(app, pilot)
        assert {row.data.state for row in project.table.rows()} <= {"closed"}
        app.pop_screen()
        group = await push(app, pilot, IssuesScreen(group="platform"))
        assert group.table.row_count > len(opened)
        assert all(str(row.cells[0]).startswith("platform/") for row in group.table.rows())
        group_count = group.table.row_count
        app.pop_screen()
        everything = await push(app, pilot, IssuesScreen())
        assert everything.filters["scope"] == "created-by-me"
        await pilot.press("o", "o")  # assigned-to-me → all
        await settle(app, pilot)
        assert everything.filters["scope"] == "all"
        assert everything.table.row_count >= group_count
        await pilot.press("f")
        await pilot.press("ctrl+u", *"labels=bug", "enter")
        await settle(app, pilot)
        assert everything.filters == {"labels": "bug"}
        assert all("bug" in row.data.labels for row in everything.table.rows())


async def test_detail_description_verbatim_inert_and_admin_extras(console: SimConsole) -> None:
    server = console.server
    issue = next(i for i in server.state.issues.values() if i.user_agent and not i.deleted)
    issue.description = "[bold red]not markup[/] and [link=x]y[/link]"
    async with console.run(size=(120, 40)) as (app, pilot):
        screen = await push(app, pilot, IssueDetailScreen(issue.project_id, issue.iid))
        description = screen.query_one("#description", Static)
        assert str(description.render()) == issue.description  # brackets stay literal text
        shown = fields(screen)
        assert shown["title"] == issue.title
        assert "participants" in shown and "user_agent" in shown
        app.pop_screen()
        issue.title = "title \x1b]0;pwned\x07 end"  # hostile server text stays inert
        issue.description = "line\x1b[2J\x1b[31mred\x9b"
        listing = await push(app, pilot, IssuesScreen(project_id=issue.project_id, project_path="p"))
        title = next(row.cells[2] for row in listing.table.rows() if row.data.iid == issue.iid)
        assert "\x1b" not in str(title) and "␛" in str(title)
        detail = await push(app, pilot, IssueDetailScreen(issue.project_id, issue.iid))
        rendered = str(detail.query_one("#description", Static).render())
        assert "\x1b" not in rendered and "\x9b" not in rendered and "red" in rendered
        assert "\x1b" not in fields(detail)["title"]



async def test_create_keeps_input_on_error_then_creates(console: SimConsole) -> None:
    server = console.server
    async with console.run(size=(120, 40)) as (app, pilot):
        screen = await push(app, pilot, IssuesScreen(project_id=1, project_path="platform/api-gateway"))
        await pilot.press("n")
        await settle(app, pilot)
        form = await submit(app, pilot, {"title": "Pager fired at 3am", "description": "line 1\nline 2",
                                         "assignees": "nobody-like-this", "labels": "ops, p1"})
        assert app.screen is form and "nobody-like-this" in form.last_error
        assert form.raw_value(form.fields[0]) == "Pager fired at 3am"
        form = await submit(app, pilot, {"assignees": "alice", "due_date": "next week"})
        assert app.screen is form  # local check: YYYY-MM-DD
        form = await submit(app, pilot, {"due_date": "2027-01-31"})
        assert app.screen is screen
        created = next(i for i in server.state.issues.values() if i.title == "Pager fired at 3am")
        assert created.labels == ["ops", "p1"] and created.description == "line 1\nline 2"
        assert created.due_date == "2027-01-31" and len(created.assignee_ids) == 1
        assert (1, created.iid) in {row.key for row in screen.table.rows()}


async def test_edit_close_reopen_lock(console: SimConsole, no_confirm_guard: None) -> None:
    server = console.server
    issue = open_issue(server)
    async with console.run(size=(120, 40)) as (app, pilot):
        screen = await push(app, pilot, IssueDetailScreen(issue.project_id, issue.iid))
        await pilot.press("e")
        await settle(app, pilot)
        await submit(app, pilot, {"title": "Edited title", "labels": "", "confidential": True})
        assert issue.title == "Edited title" and issue.labels == [] and issue.confidential
        await pilot.press("x")
        await settle(app, pilot)
        assert isinstance(app.screen, ConfirmScreen)
        await pilot.click("#confirm")
        await settle(app, pilot)
        assert issue.state == "closed"
        assert fields(screen)["state"] == "closed"
        await pilot.press("x")  # reopening needs no confirmation
        await settle(app, pilot)
        assert issue.state == "opened"
        await pilot.press("L")
        await settle(app, pilot)
        assert issue.discussion_locked
        assert fields(screen)["discussion_locked"] == "yes"


async def test_subscribe_todo_and_304s(console: SimConsole) -> None:
    server = console.server
    issue = open_issue(server)
    async with console.run(size=(120, 40)) as (app, pilot):
        screen = await push(app, pilot, IssueDetailScreen(issue.project_id, issue.iid))
        subscribed = screen.issue.subscribed
        await pilot.press("S")
        await settle(app, pilot)
        assert screen.issue.subscribed is (not subscribed)
        # the screen now believes the opposite of the server: the next S gets a 304
        await app.client.issues.unsubscribe(issue.project_id, issue.iid) if not subscribed else \
            await app.client.issues.subscribe(issue.project_id, issue.iid)
        await pilot.press("S")
        await settle(app, pilot)
        assert any("already" in message for message in toasts(app))
        await pilot.press("T")
        await settle(app, pilot)
        await pilot.press("T")
        await settle(app, pilot)
        assert any("added to your todo list" in message for message in toasts(app))
        assert any("already on your todo list" in message for message in toasts(app))


async def test_time_tracking(console: SimConsole) -> None:
    server = console.server
    issue = open_issue(server)
    async with console.run(size=(120, 40)) as (app, pilot):
        screen = await push(app, pilot, IssueDetailScreen(issue.project_id, issue.iid))
        spent_before = issue.total_time_spent
        await pilot.press("t")
        await settle(app, pilot)
        form = await submit(app, pilot, {"estimate": "soon"})
        assert app.screen is form
        await submit(app, pilot, {"estimate": "3h30m", "spent": "45m"})
        assert issue.time_estimate == 3 * 3600 + 30 * 60
        assert issue.total_time_spent == spent_before + 45 * 60
        assert fields(screen)["time estimate"] != "—"
        await pilot.press("t")
        await settle(app, pilot)
        await submit(app, pilot, {"reset_estimate": True, "reset_spent": True})
        assert issue.time_estimate == 0 and issue.total_time_spent == 0


async def test_move_to_same_project_explains_then_move_and_delete(console: SimConsole,
                                                                 no_confirm_guard: None) -> None:
    server = console.server
    issue = open_issue(server)
    source = server.state.projects[issue.project_id]
    target = next(p for p in server.state.projects.values() if p.id != issue.project_id and not p.deleted)
    async with console.run(size=(120, 40)) as (app, pilot):
        screen = await push(app, pilot, IssueDetailScreen(issue.project_id, issue.iid))
        await pilot.press("M")
        await settle(app, pilot)
        await submit(app, pilot, {"project": str(source.id)})
        assert isinstance(app.screen, ConfirmScreen)
        await pilot.click("#confirm")
        await settle(app, pilot)
        assert isinstance(app.screen, MessageScreen)
        await pilot.press("escape")
        await settle(app, pilot)
        await pilot.press("M")
        await settle(app, pilot)
        known = sorted(app.known_projects.values())  # listed by the projects section
        target_path = next(path for path in known if sum(other.startswith(path[:-1]) for other in known) == 1
                           and path != app.known_projects.get(issue.project_id))
        target = next(p for p in server.state.projects.values() if server.state.project_full_path(p) == target_path)
        field = app.screen.query_one("#f-project", Input)
        await pilot.press(*target_path[:-1])  # the path completes from the projects listed
        await settle(app, pilot)
        await pilot.press("right")
        assert field.value == target_path
        await submit(app, pilot, {})
        assert isinstance(app.screen, ConfirmScreen)
        await pilot.click("#confirm")
        await settle(app, pilot)
        assert screen.project_id == target.id
        moved = sim_issue(server, target.id, screen.iid)
        await pilot.press("D")
        await settle(app, pilot)
        await pilot.click("#typed")
        await pilot.press(*f"#{moved.iid}")  # the iid as the console shows it is accepted too
        await pilot.click("#confirm")
        await settle(app, pilot)
        assert moved.deleted
        assert app.screen is not screen
