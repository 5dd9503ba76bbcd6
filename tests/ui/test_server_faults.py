"""The console under server trouble, through the fault-switching proxy (issue 24): a revoked
token, the token given again, a 502 storm with nginx's page, a rate limit, a slow link, an audit
log that cannot be written. Each test drives the real app with Pilot against a private simulator
behind :class:`tests.support.fault_switch.FaultSwitch`."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import Any

import pytest
from textual.widgets import Input

from labdeck.api import exchange
from labdeck.sim.core.state import Token
from labdeck.ui.dialogs.confirm import ConfirmScreen
from labdeck.ui.dialogs.login import LoginScreen
from labdeck.ui.screens.board.board import BoardScreen
from labdeck.ui.screens.jobs.trace import TraceScreen
from labdeck.ui.screens.projects.list import ProjectsScreen
from labdeck.ui.widgets.status_line import StatusLine
from tests.support.pilot import wait_until
from tests.support.sim_control import push_pipeline
from tests.ui.board_support import FAST, open_board_storm_safe, why_cells
from tests.ui.conftest import SimConsole
from tests.ui.helpers import toasts
from tests.ui.jobs_support import PROJECT_PATH, append_trace, create_pipeline, shown_text
from tests.ui.jobs_support import advance as advance_jobs


def log_text(screen: TraceScreen) -> str:
    return "\n".join(shown_text(screen.view))


def health(screen: Any) -> str:
    """The status line's connection part as shown."""
    return next(iter(StatusLine.on_screen(screen)))._shown.get("health", "")


@pytest.mark.usefixtures("quick_gate")
async def test_a_revoked_token_is_said_and_the_rows_stay_marked_stale(behind_switch: Any,
                                                                       console: SimConsole) -> None:
    server, switch, via = behind_switch
    async with console.run(via=via, board=FAST, size=(120, 40)) as (app, pilot):
        board = await open_board_storm_safe(app, pilot)
        before = board.table.row_count
        switch.set("revoked")
        await wait_until(pilot, lambda: "token refused (401)" in board.context_text, what="401 on the board")
        await wait_until(pilot, lambda: "token refused (401)" in health(board), what="401 on the status line")
        for _ in range(10):  # a few more rounds: still said, rows still there, never "nothing failing"
            await pilot.pause(0.3)
            assert board.table.row_count == before
            assert "nothing failing" not in board.context_text and "0 running" not in board.context_text
            assert "stale" in board.context_text


async def test_a_token_given_again_resumes_the_board_alerts_and_ci_column(behind_switch: Any,
                                                                          console: SimConsole) -> None:
    server, switch, via = behind_switch
    async with console.run(via=via, board=FAST, size=(120, 40), notifications=True) as (app, pilot):
        board = await open_board_storm_safe(app, pilot)
        row = board.table.cursor_data
        await pilot.press("W")  # an alert on the pipeline under the cursor
        old_poller = app.watching.poller
        switch.set("revoked", tokens={app.session.token.reveal()})
        await wait_until(pilot, lambda: "token refused (401)" in board.context_text, what="the refusal")
        renewed = "labdeck-renewed-admin-token"
        root = next(user for user in server.state.users.values() if user.username == "root")
        server.state.tokens[renewed] = Token(renewed, root.id, ("api", "sudo"), "renewed")
        if not isinstance(app.screen, LoginScreen):
            app.show_login("The server refused the token (401).")
        await wait_until(pilot, lambda: isinstance(app.screen, LoginScreen) and bool(app.screen.query("#token")),
                         what="the sign-in dialog")
        app.screen.query_one("#token", Input).value = renewed
        await pilot.press("enter")
        await wait_until(pilot, lambda: app.screen is board, what="the dialog closes")
        # Within one round: the same subscriptions, fed through the new client.
        await wait_until(pilot, lambda: "token refused" not in board.context_text
                         and ("nothing failing" in board.context_text or "failed ·" in board.context_text),
                         limit=5, what="the board reads again")
        assert app.watching.poller is old_poller and old_poller.client is app.client
        created = push_pipeline(server, row.project_id, [{"name": "after-sign-in", "duration": 30}])
        await wait_until(pilot, lambda: any(r.data.pipeline_id == int(created["id"])
                                            for r in board.table.visible_rows()),
                         limit=5, what="a new pipeline on the board")
        assert app.watching.alerts.project_ids() and row.project_id in app.watching.alerts.project_ids()
        await pilot.press("1")
        projects = app.screen
        assert isinstance(projects, ProjectsScreen)
        await wait_until(pilot, lambda: projects.ci_loading() == 0, limit=10, what="the CI column")


async def test_a_followed_log_goes_on_after_the_token_is_given_again(behind_switch: Any,
                                                                     console: SimConsole) -> None:
    server, switch, via = behind_switch
    pipeline = await create_pipeline(server, [{"name": "build", "jobs": [{"name": "tail-me", "duration": None,
                                                                           "generate_trace": False}]}])
    await advance_jobs(server, 5)
    job_id = int(pipeline["jobs"][0]["id"])
    async with console.run(via=via, size=(100, 20)) as (app, pilot):
        job = await app.client.jobs.get(7, job_id)
        screen = TraceScreen(7, PROJECT_PATH, job)
        screen.follow_min_interval, screen.follow_max_interval = 0.05, 0.2
        await app.push_screen(screen)
        await append_trace(server, job_id, b"before the refusal\n")
        await wait_until(pilot, lambda: "before the refusal" in log_text(screen), what="first lines")
        switch.set("revoked", tokens={app.session.token.reveal()})
        await pilot.pause(1.0)
        renewed = "labdeck-renewed-admin-token-2"
        root = next(user for user in server.state.users.values() if user.username == "root")
        server.state.tokens[renewed] = Token(renewed, root.id, ("api", "sudo"), "renewed")
        await append_trace(server, job_id, b"after the sign-in\n")
        await app._replace_token(type(app.session.token)(renewed))  # what the dialog does once validated
        await wait_until(pilot, lambda: "after the sign-in" in log_text(screen), limit=5, what="the log goes on")
        assert log_text(screen).count("before the refusal") == 1  # nothing read twice


async def test_a_502_storm_backs_off_and_says_bad_gateway_not_the_page(behind_switch: Any,
                                                                        console: SimConsole) -> None:
    server, switch, via = behind_switch
    async with console.run(via=via, board=FAST, size=(120, 40), notifications=True) as (app, pilot):
        board = await open_board_storm_safe(app, pilot)
        switch.set("bad_gateway")
        began = time.monotonic()
        await wait_until(pilot, lambda: "502 Bad Gateway (nginx)" in health(board), what="the status line")
        while time.monotonic() - began < 10:
            await pilot.pause(0.5)
            assert "<" not in health(board) and "<" not in board.context_text
        sent = switch.api_requests(since=began)
        # Backing off, exponential with jitter: a handful in 10 s (6 here; at most 30 a minute in all).
        assert len(sent) <= 8, [(round(t - began, 1), path) for t, _, path, _ in sent]
        assert "502 Bad Gateway (nginx)" in board.context_text and "nothing failing" not in board.context_text
        assert all("<html" not in message and "<center" not in message for message in toasts(app))
        switch.set("pass")


@pytest.mark.usefixtures("quick_gate")
async def test_rate_limited_at_start_says_retrying_in_5_s(behind_switch: Any, console: SimConsole) -> None:
    server, switch, via = behind_switch
    switch.set("rate_limited", retry_after=5)
    async with console.run(via=via, board=FAST, start="board", size=(120, 40)) as (app, pilot):
        await wait_until(pilot, lambda: isinstance(app.screen, BoardScreen), what="the board")
        board = app.screen
        assert isinstance(board, BoardScreen)
        await wait_until(pilot, lambda: "rate limited — retrying in" in board.context_text, what="the header")
        assert "rate limited — retrying in" in health(board)
        for _ in range(10):
            await pilot.pause(0.2)
            assert "nothing failing" not in board.context_text and "0 projects watched" not in board.context_text
        switch.set("pass")
        await wait_until(pilot, lambda: board.table.row_count > 0, limit=30, what="rows once allowed")


async def test_rate_limited_log_viewer_says_so_while_it_waits(behind_switch: Any,
                                                             console: SimConsole) -> None:
    server, switch, via = behind_switch
    pipeline = await create_pipeline(server, [{"name": "build", "jobs": [{"name": "tail-me", "duration": None,
                                                                           "generate_trace": False}]}])
    await advance_jobs(server, 5)
    job_id = int(pipeline["jobs"][0]["id"])
    async with console.run(via=via, size=(100, 20)) as (app, pilot):
        job = await app.client.jobs.get(7, job_id)
        switch.set("rate_limited", retry_after=5)
        screen = TraceScreen(7, PROJECT_PATH, job)
        await app.push_screen(screen)
        # (The switch keeps answering 429, so the note stands at every wait: a busy machine may
        # take longer than one Retry-After to show it.)
        await wait_until(pilot, lambda: "rate limited — retrying in" in screen.waiting, limit=15,
                         what="the log viewer's note")


async def test_the_write_check_runs_after_the_first_frame(behind_switch: Any, console: SimConsole) -> None:
    """A token that may not write: the console draws first, then probes and turns read-only."""
    server, switch, via = behind_switch
    switch.set("latency", seconds=1.0)
    app = console.app(via=via, role="readonly", board=FAST, start="board")
    app._check_write = True
    async with app.run_test(size=(120, 40), notifications=True) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, BoardScreen) and bool(app.screen.context_text),
                         limit=3, what="the first frame")
        assert not app.read_only  # the first frame did not wait for the probe
        assert not any(method == "POST" for _, method, _, _ in switch.api_requests())
        board = app.screen
        assert isinstance(board, BoardScreen)
        assert "nothing failing" not in board.context_text and "loading…" in board.context_text
        await wait_until(pilot, lambda: app.read_only, limit=10, what="read-only after the probe")
        assert [method for _, method, path, _ in switch.api_requests() if path.endswith("/projects")
                and method == "POST"] == ["POST"]
        assert any("may not write" in message or "Read-only" in message for message in toasts(app))


async def test_an_unwritable_audit_folder_asks_once_then_refuses(behind_switch: Any, console: SimConsole,
                                                                  tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    server, switch, via = behind_switch
    blocker = tmp_path / "state-is-a-file"
    blocker.write_text("")
    monkeypatch.setenv("XDG_STATE_HOME", str(blocker))
    async with console.run(via=via, size=(120, 40), notifications=True) as (app, pilot):
        await wait_until(pilot, lambda: isinstance(app.screen, ConfirmScreen), what="the question at start-up")
        await pilot.press("escape")  # no: changes are refused
        await wait_until(pilot, lambda: any("refused until the audit log" in m for m in toasts(app)), what="why")
        project = next(p for p in server.state.projects.values() if not p.archived)
        from labdeck.api import errors

        with pytest.raises(errors.AuditUnavailable):
            await app.client.projects.star(project.id)
        assert not any(method == "POST" for _, method, _, _ in switch.api_requests())
        app.ask_about_audit("again")
        await pilot.pause()
        assert not isinstance(app.screen, ConfirmScreen)  # asked once


@pytest.mark.usefixtures("quick_gate")
async def test_a_server_that_takes_requests_and_says_nothing_is_not_shown_online(behind_switch: Any,
                                                                               console: SimConsole,
                                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    """A server that accepts and then hangs showed `● online` for the 25 s before the time budget
    gave up: the status line and the board's header now say how long the oldest read has waited."""
    server, switch, via = behind_switch
    async with console.run(via=via, board=FAST, size=(120, 40)) as (app, pilot):
        board = await open_board_storm_safe(app, pilot)
        assert "online" in health(board)
        monkeypatch.setattr(exchange, "SLOW_ANSWER", 2.0)  # said after 2 s here, not 8: the same rule, sooner
        switch.set("latency", seconds=5)
        await wait_until(pilot, lambda: "no answer for" in health(board), limit=5, what="the wait on the status line")
        assert "online" not in health(board)
        await wait_until(pilot, lambda: "no answer for" in board.context_text, limit=3, what="the board's header")
        switch.set("pass")
        await wait_until(pilot, lambda: "online" in health(board), limit=20, what="online once answers come")


async def _board_with_logs_refused(app: Any, pilot: Any, switch: Any) -> BoardScreen:
    """The board opened while the token is refused for logs alone: its first triage round meets
    the 401 and the sign-in dialog opens over the board (returned)."""
    switch.set("revoked", only="/trace", tokens={app.session.token.reveal()})
    await pilot.press("0")
    await wait_until(pilot, lambda: isinstance(app.screen, LoginScreen), limit=30, what="the sign-in dialog")
    return next(screen for screen in app.screen_stack if isinstance(screen, BoardScreen))


async def test_the_why_cells_are_worked_out_after_the_token_is_given_again(behind_switch: Any,
                                                                           console: SimConsole) -> None:
    # Triage's log reads refused (401): its round ended there. The board's failures stayed the
    # same after the sign-in, so no round was asked for again and the Why cells stayed … for good.
    server, switch, via = behind_switch
    async with console.run(via=via, board=FAST, size=(120, 40)) as (app, pilot):
        board = await _board_with_logs_refused(app, pilot, switch)
        assert "…" in why_cells(board).values()
        renewed = "labdeck-renewed-admin-token-3"
        root = next(user for user in server.state.users.values() if user.username == "root")
        server.state.tokens[renewed] = Token(renewed, root.id, ("api", "sudo"), "renewed")
        await wait_until(pilot, lambda: bool(app.screen.query("#token")), what="the token field")
        app.screen.query_one("#token", Input).value = renewed
        await pilot.press("enter")
        await wait_until(pilot, lambda: app.screen is board, what="the dialog closes")
        await wait_until(pilot, lambda: "…" not in why_cells(board).values(), limit=30, what="every Why cell")


async def test_a_refused_triage_round_is_not_asked_again_until_a_sign_in(behind_switch: Any,
                                                                         console: SimConsole) -> None:
    # The sign-in dialog cancelled, the token still refused for logs: a round at every snapshot
    # would bring the dialog back every few seconds.
    server, switch, via = behind_switch
    async with console.run(via=via, board=FAST, size=(120, 40)) as (app, pilot):
        board = await _board_with_logs_refused(app, pilot, switch)
        await pilot.press("escape")
        await wait_until(pilot, lambda: app.screen is board, what="the dialog closes")
        refused = len(switch.api_requests(since=0))
        project_id = board.table.cursor_data.project_id
        for _ in range(2):  # new snapshots: a pipeline pushed, seen
            generation = board.snapshot.generation
            push_pipeline(server, project_id, [{"name": "after-cancel", "duration": 30}])
            await wait_until(pilot, lambda seen=generation: board.snapshot.generation > seen, limit=20,
                             what="a new snapshot")
            await pilot.pause(0.5)
            assert app.screen is board
        traces = [path for _, _, path, _ in switch.api_requests(since=0)[refused:] if path.endswith("/trace")]
        assert not traces


@pytest.mark.usefixtures("quick_gate")
async def test_the_refusal_is_not_said_after_a_sign_in_while_the_first_reads_are_on_their_way(
        behind_switch: Any, console: SimConsole) -> None:
    # The reads that met the 401 kept it as their trouble until each was read again: for a round
    # after the sign-in, the status line said "token refused (401)" beside fresh data.
    server, switch, via = behind_switch
    async with console.run(via=via, board=FAST, size=(120, 40)) as (app, pilot):
        board = await open_board_storm_safe(app, pilot)
        switch.set("revoked", tokens={app.session.token.reveal()})
        await wait_until(pilot, lambda: "token refused (401)" in health(board), what="401 on the status line")
        renewed = "labdeck-renewed-admin-token-4"
        root = next(user for user in server.state.users.values() if user.username == "root")
        server.state.tokens[renewed] = Token(renewed, root.id, ("api", "sudo"), "renewed")
        switch.set("latency", seconds=4)  # no answer yet to any read of the new token
        signing_in = asyncio.ensure_future(app._replace_token(type(app.session.token)(renewed)))
        await wait_until(pilot, lambda: "token refused" not in health(board)
                         and "token refused" not in board.context_text, limit=2, what="the refusal gone")
        switch.set("pass")
        await signing_in
