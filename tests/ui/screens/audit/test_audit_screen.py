"""The ``:audit`` screen against the simulator: changes made from the console show up newest first
with their request, target, outcome and confirmation; entries whose answer never came read "sent
(no answer recorded)"; ``/`` filters; ``enter`` opens the target; ``ctrl+r`` reads the log again."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from typing import Any

from rich.text import Text

from labdeck.base import paths
from labdeck.ui.console import CommandError
from labdeck.ui.dialogs.confirm import ConfirmScreen
from labdeck.ui.screens.audit.command import AUDIT_COMMAND, parse_audit_args
from labdeck.ui.screens.audit.list import AuditScreen, local_time
from labdeck.ui.screens.issues.detail import IssueDetailScreen
from labdeck.ui.screens.runners.detail import RunnerDetailScreen
from labdeck.ui.screens.runners.list import RunnersScreen
from tests.support.pilot import settle
from tests.ui.conftest import SimConsole
from tests.ui.helpers import push, toasts


def plain(cell: Any) -> str:
    return cell.plain if isinstance(cell, Text) else str(cell)


def row_texts(screen: AuditScreen) -> list[list[str]]:
    return [[plain(cell) for cell in row.cells] for row in screen.table.visible_rows()]


def write_lines(*records: dict[str, Any]) -> None:
    """Lines as the audit log writes them (a crashed process leaves only the "sent" one)."""
    path = paths.audit_file()
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a", encoding="ascii") as handle:
        for record in records:
            handle.write(json.dumps(record) + "\n")


def test_arguments_and_local_time() -> None:
    since, here = parse_audit_args(["since=2h", "here"])
    assert here and since is not None and timedelta(hours=1.9) < datetime.now(UTC) - since < timedelta(hours=2.1)
    try:
        parse_audit_args(["yesterday"])
    except CommandError as error:
        assert "usage: :audit" in str(error)
    else:
        raise AssertionError("a bad argument must be refused")
    assert AUDIT_COMMAND.name == "audit"
    moment = datetime(2024, 5, 1, 23, 30, tzinfo=UTC)
    local = moment.astimezone()
    assert local_time(moment).startswith(local.strftime("%H:%M:%S"))


async def test_changes_from_the_console_are_listed_and_open_their_target(
        console: SimConsole, no_confirm_guard: None) -> None:
    server = console.server
    runner = next(r for r in server.state.runners.values() if r.active and not r.is_shared)
    issue = next(i for i in server.state.issues.values() if i.state == "opened" and not i.deleted)
    project_path = server.state.project_full_path(server.state.projects[issue.project_id])
    job = next(j for j in server.state.jobs.values() if j.project_id == 1)
    write_lines({"v": 1, "id": "crashed0000000001", "phase": "sent", "time": "2024-01-01T10:00:00.000Z",
                 "profile": "test", "instance": server.base_url, "action": "jobs.cancel", "method": "POST",
                 "path": f"/api/v4/projects/1/jobs/{job.id}/cancel", "target": {"project": 1, "job": job.id},
                 "fields": [], "confirmation": "dialog"})
    async with console.run(size=(160, 40)) as (app, pilot):
        runners = await push(app, pilot, RunnersScreen(all_runners=True))
        runners.table.move_cursor_to_key(runner.id)
        await pilot.press("p")
        await settle(app, pilot)
        assert isinstance(app.screen, ConfirmScreen)
        await pilot.click("#confirm")
        await settle(app, pilot)
        assert runner.active is False
        await app.client.issues.close(issue.project_id, issue.iid)  # no context: inferred from the path
        screen = await push(app, pilot, AuditScreen())
        rows = row_texts(screen)
        assert len(rows) == 3
        newest, pause, crashed = rows
        assert newest[2] == "issues.update" and newest[4] == f"project {issue.project_id} issue #{issue.iid}"
        assert newest[3].startswith("PUT ") and newest[3].endswith(f"/issues/{issue.iid}")
        assert newest[5] == "done (200)" and newest[6] == "not recorded"
        assert pause[2] == "runners.pause" and pause[3] == f"PUT /api/v4/runners/{runner.id}"
        assert pause[4] == f"runner {runner.id}" and pause[5] == "done (200)" and pause[6] == "dialog"
        assert crashed[5] == "sent (no answer recorded)" and crashed[0] == "2024-01-01 10:00:00"
        assert crashed[1] == local_time(datetime(2024, 1, 1, 10, tzinfo=UTC))

        await pilot.press("slash", *"runners.pause", "enter")  # "/" filters on every column
        assert [r[2] for r in row_texts(screen)] == ["runners.pause"]
        await pilot.press("enter")  # opens the runner
        await settle(app, pilot)
        assert isinstance(app.screen, RunnerDetailScreen) and app.screen.runner_id == runner.id
        app.pop_screen()
        await settle(app, pilot)
        await pilot.press("escape")  # clears the filter
        screen.table.move_cursor_to_key(screen.entries[0].id)
        await pilot.press("enter")  # the issue
        await settle(app, pilot)
        assert isinstance(app.screen, IssueDetailScreen)
        assert (app.screen.project_id, app.screen.iid) == (issue.project_id, issue.iid)
        assert app.screen.project_path == project_path
        app.pop_screen()
        await settle(app, pilot)

        runners_again = await push(app, pilot, RunnersScreen(all_runners=True))
        runners_again.table.move_cursor_to_key(runner.id)
        await pilot.press("p")  # resume
        await settle(app, pilot)
        await pilot.click("#confirm")
        await settle(app, pilot)
        app.pop_screen()
        await settle(app, pilot)
        assert app.screen is screen
        await pilot.press("ctrl+r")  # reads the log again
        await settle(app, pilot)
        assert row_texts(screen)[0][2] == "runners.resume" and len(row_texts(screen)) == 4

        screen.table.move_cursor_to_key("crashed0000000001")
        await pilot.press("enter")  # a job: its log
        await settle(app, pilot)
        from labdeck.ui.screens.jobs.trace import TraceScreen

        assert isinstance(app.screen, TraceScreen) and app.screen.job.id == job.id


async def test_unknown_outcome_and_this_instance_only(console: SimConsole) -> None:
    server = console.server
    write_lines(
        {"v": 1, "id": "elsewhere00000001", "phase": "sent", "time": "2024-01-02T10:00:00.000Z",
         "instance": "https://other.example.test", "action": "runners.delete", "method": "DELETE",
         "path": "/api/v4/runners/9", "target": {"runner": 9}, "fields": [], "confirmation": "typed:9"},
        {"v": 1, "id": "elsewhere00000001", "phase": "result", "time": "2024-01-02T10:00:31.000Z",
         "outcome": "unknown", "status": 504, "detail": "Gateway Timeout"},
        {"v": 1, "id": "here0000000000001", "phase": "sent", "time": "2024-01-03T10:00:00.000Z",
         "instance": server.base_url.rstrip("/"), "action": "projects.star", "method": "POST",
         "path": "/api/v4/projects/1/star", "target": {"project": 1}, "fields": []},
        {"v": 1, "id": "here0000000000001", "phase": "result", "time": "2024-01-03T10:00:01.000Z",
         "outcome": "refused", "status": 403, "detail": "403 Forbidden"},
        {"v": 1, "id": "gone0000000000001", "phase": "local", "time": "2023-12-31T10:00:00.000Z",
         "instance": server.base_url.rstrip("/"), "action": "issues.delete", "method": "DELETE",
         "path": "/api/v4/projects/1/issues/99999", "target": {"project": 1, "issue": 99999}, "fields": [],
         "outcome": "refused", "local": True, "detail": "read-only mode"},
    )
    async with console.run(size=(160, 40)) as (app, pilot):
        screen = await push(app, pilot, AuditScreen())
        rows = row_texts(screen)
        assert [r[5] for r in rows] == ["refused (403: 403 Forbidden)", "unknown (504: Gateway Timeout)",
                                        "refused (not sent: read-only mode)"]
        assert rows[1][6] == "typed:9" and rows[0][6] == "not recorded"
        assert "every instance" in screen.context_text
        screen.table.move_cursor_to_key("gone0000000000001")
        await pilot.press("enter")  # the issue is not there
        await settle(app, pilot)
        assert app.screen is screen
        assert any("not there any more" in message for message in toasts(app))
        await pilot.press("i")
        await settle(app, pilot)
        assert [r[2] for r in row_texts(screen)] == ["projects.star", "issues.delete"]
        assert "this instance" in screen.context_text
        screen.table.move_cursor_to_key("here0000000000001")
        await pilot.press("enter")  # a project: its jobs
        await settle(app, pilot)
        assert app.current_mode == "jobs"
