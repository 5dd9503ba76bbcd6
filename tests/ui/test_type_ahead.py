"""Keys typed in one burst (as they arrive over SSH) reach dialogs in order, and typed
confirmations get every letter of the target."""

from __future__ import annotations

from typing import Any

import pytest
from textual.widgets import Input, Label

from labdeck.sim.server import SimServer
from labdeck.ui.app import LabdeckApp
from labdeck.ui.dialogs.confirm import ConfirmScreen
from labdeck.ui.dialogs.form import FormScreen
from labdeck.ui.screens.issues.detail import IssueDetailScreen
from tests.support.pilot import burst, settle
from tests.ui.conftest import SimConsole, shared_sim
from tests.ui.helpers import push


async def settle_keys(app: LabdeckApp, pilot: Any) -> None:
    """Settle, and wait until every key of the burst was handled: on a busy machine a key's way up
    can take longer than one idle pause (the next key then waits for it, up to 0.25 s)."""
    for _ in range(100):
        await settle(app, pilot)
        if app._keys.idle:
            return
        await pilot.pause(0.02)


def typed(text: str) -> list[str]:
    return list(text)


def open_issue(server: SimServer) -> Any:
    return next(i for i in server.state.issues.values() if i.state == "opened" and not i.deleted)


async def test_time_form_typed_in_one_burst_fills_each_field(console: SimConsole) -> None:
    server = console.server
    issue = open_issue(server)
    spent_before = server.state.issues[issue.id].total_time_spent
    async with console.run(size=(120, 40)) as (app, pilot):
        await push(app, pilot, IssueDetailScreen(issue.project_id, issue.iid))
        burst(app, "t", *typed("2h"), "tab", *typed("15m"))
        await settle_keys(app, pilot)
        form = app.screen
        assert isinstance(form, FormScreen)
        assert form.query_one("#f-estimate", Input).value == "2h"
        assert form.query_one("#f-spent", Input).value == "15m"
        burst(app, "enter")
        await settle_keys(app, pilot)
        assert not isinstance(app.screen, FormScreen)
    record = server.state.issues[issue.id]
    assert (record.time_estimate, record.total_time_spent - spent_before) == (7200, 900)


@shared_sim
async def test_edit_form_keys_typed_ahead_append_to_the_title(console: SimConsole) -> None:
    issue = open_issue(console.server)
    async with console.run(size=(120, 40)) as (app, pilot):
        await push(app, pilot, IssueDetailScreen(issue.project_id, issue.iid))
        burst(app, "e", "end", *typed(" (edited)"))
        await settle_keys(app, pilot)
        form = app.screen
        assert isinstance(form, FormScreen)
        assert form.query_one("#f-title", Input).value == f"{issue.title} (edited)"


@shared_sim
async def test_a_typed_confirmation_gets_every_letter_typed_right_away(console: SimConsole) -> None:
    async with console.run(size=(120, 40)) as (app, pilot):
        await settle_keys(app, pilot)
        answers: list[bool | None] = []
        app.push_screen(ConfirmScreen("Disable", "Disable it?", target="group/project · cluster-platform",
                                      typed="cluster-platform"), answers.append)
        burst(app, *typed("cluster-platform"))
        await settle_keys(app, pilot)
        dialog = app.screen
        assert isinstance(dialog, ConfirmScreen)
        assert dialog.query_one("#typed", Input).value == "cluster-platform"
        # h and l are letters here, even when the focus sits on a button
        dialog.query_one("#cancel").focus()
        await pilot.press("h", "l")
        assert dialog.query_one("#typed", Input).value == "cluster-platformhl"
        assert answers == []


@shared_sim
async def test_the_early_press_guard_says_why_nothing_happened(console: SimConsole,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    from labdeck.ui.dialogs import confirm as confirm_module

    monkeypatch.setattr(confirm_module, "guard_clock", lambda: 1000.0)  # the press comes "at once", however busy
    async with console.run(size=(120, 40)) as (app, pilot):
        await settle_keys(app, pilot)
        answers: list[bool | None] = []
        app.push_screen(ConfirmScreen("Cancel job", "Cancel it?", target="g/p · job #1"), answers.append)
        await pilot.pause()
        dialog = app.screen
        assert isinstance(dialog, ConfirmScreen)
        dialog.query_one("#confirm").focus()
        await pilot.press("enter")  # within the guard time
        await pilot.pause()
        assert answers == []
        why = dialog.query_one("#why-not", Label)
        assert why.display and "too soon" in str(why.render())


@shared_sim
async def test_issue_dialogs_name_the_project_not_only_the_iid(console: SimConsole) -> None:
    issue = open_issue(console.server)
    path = console.server.state.project_full_path(console.server.state.projects[issue.project_id])
    async with console.run(size=(120, 40)) as (app, pilot):
        detail = await push(app, pilot, IssueDetailScreen(issue.project_id, issue.iid, project_path=path))
        detail.action_close_reopen()
        await settle_keys(app, pilot)
        dialog = app.screen
        assert isinstance(dialog, ConfirmScreen)
        assert f"{path}#{issue.iid}" in str(dialog.query_one("#target", Label).render())
