"""The console never shows something false: it reconnects by itself, data it shows is fresh, and
a 304 never empties a screen."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta
from typing import Any

from labdeck.api import ApiClient, RetryPolicy
from labdeck.base.secret import Secret
from labdeck.base.session import Session
from labdeck.base.statefile import StateStore
from labdeck.sim.server import SimServer
from labdeck.ui.app import LabdeckApp
from labdeck.ui.screens.projects.list import ProjectsScreen
from labdeck.ui.ui_state import UiState
from labdeck.ui.widgets.status_line import StatusLine
from tests.support.pilot import settle, wait_until
from tests.ui.conftest import SimConsole, shared_sim
from tests.ui.helpers import toasts


async def _no_sleep(seconds: float) -> None:
    return None


def _status_text(app: LabdeckApp) -> str:
    line = app.screen.query_one(StatusLine)
    return " ".join(str(label.render()) for label in line.children)


async def test_started_while_the_server_is_down_it_reconnects_by_itself(
        sim_factory: Callable[..., SimServer], tokens: dict[str, str], tmp_path: Any) -> None:
    server = sim_factory()
    server.stop()  # the console starts while nothing listens on the port
    session = Session(base_url=server.base_url, token=Secret(tokens["admin"]), profile="test")
    client = ApiClient(server.base_url, session.token, retry=RetryPolicy(sleep=_no_sleep, max_attempts=1))
    app = LabdeckApp(session, client=client, clock=server.state.clock.now,
                     ui_state=UiState(StateStore(tmp_path / "state.json")))
    app.connection.delays = (0.05,)
    async with app.run_test(size=(120, 40), notifications=True) as pilot:
        await settle(app, pilot)
        assert app.connection.in_outage
        assert "not connected" in _status_text(app) and "signed out" not in _status_text(app)
        back = SimServer(server.state, port=server.port).start()
        try:
            for _ in range(100):
                await pilot.pause(0.05)
                if not app.connection.in_outage and app.screen.query_one("#projects-table").row_count:
                    break
            await settle(app, pilot)
            screen = app.screen
            assert isinstance(screen, ProjectsScreen)
            assert screen.table.row_count > 0
            assert "@root" in _status_text(app)
            problems = [text for text in toasts(app) if "Retrying in the background" in text]
            assert len(problems) == 1  # one toast for the outage, not one per failed request
        finally:
            back.stop()


# --- 1. a 304 never empties a screen --------------------------------------------------------------

@shared_sim
async def test_reopening_a_quiet_projects_jobs_shows_them_again(console: SimConsole) -> None:
    from labdeck.ui.screens.jobs.list import JobsScreen
    from tests.ui.helpers import run_command

    async with console.run(size=(120, 40)) as (app, pilot):
        await settle(app, pilot)
        await run_command(app, pilot, "jobs data/reports")
        first = app.screen
        assert isinstance(first, JobsScreen)
        await wait_until(pilot, lambda: first.refresh_count > 0)
        count = len(first.jobs)
        assert count > 0
        await pilot.press("1")
        await settle(app, pilot)
        await run_command(app, pilot, "jobs data/reports")  # the same URL again: the server says 304
        await run_command(app, pilot, "jobs 1")
        await run_command(app, pilot, "jobs data/reports")
        again = app.screen
        assert isinstance(again, JobsScreen) and again.project_path == "data/reports"
        await wait_until(pilot, lambda: again.refresh_count > 0)
        assert len(again.jobs) == count
        again.reload()  # ctrl+r: still all there
        await wait_until(pilot, lambda: again.refresh_count > 1)
        assert len(again.jobs) == count


# --- 2. following survives a resize ------------------------------------------------------------------

async def test_a_bigger_terminal_never_pauses_following(console: SimConsole) -> None:
    from tests.ui.jobs_support import append_trace, header_text, open_trace, running_job

    server = console.server
    job_id = await running_job(server)
    async with console.run(size=(120, 40)) as (app, pilot):
        screen = await open_trace(app, pilot, job_id)
        await append_trace(server, job_id, b"".join(b"line %d\n" % n for n in range(200)))
        await wait_until(pilot, lambda: screen.view.line_count >= 200)
        assert screen.view.following
        await pilot.resize_terminal(200, 60)
        await pilot.pause(0.3)
        # What Rich measures is cut to its console's width: it follows the window.
        assert tuple(app.console.size) == (200, 60)
        assert screen.view.following, header_text(screen)
        assert "paused" not in header_text(screen)
        await append_trace(server, job_id, b"after the resize\n")
        await wait_until(pilot, lambda: screen.view.line_count >= 201)
        await pilot.pause(0.2)
        assert screen.view.following and screen.view.scroll_y == screen.view.max_scroll_y
        await pilot.resize_terminal(80, 24)  # and smaller again
        await pilot.pause(0.3)
        assert screen.view.following


# --- 4. time moves on, durations come from the server's clock -----------------------------------------

async def test_relative_times_tick_and_the_log_uses_the_servers_time(console: SimConsole) -> None:
    from tests.ui.jobs_support import advance, header_text, open_trace, running_job

    server = console.server
    job_id = await running_job(server)
    app = console.app()
    app.clock = lambda: server.state.clock.now() + timedelta(hours=521)  # this machine's clock is far off
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_trace(app, pilot, job_id)
        await wait_until(pilot, lambda: screen.live)
        await pilot.pause(1.2)
        assert "521h" not in header_text(screen) and "m" in header_text(screen)  # minutes, not days
        await advance(server, 90)
        await pilot.pause(1.5)
        assert "521h" not in header_text(screen)


async def test_the_projects_table_ages_move_on(console: SimConsole) -> None:
    server = console.server
    async with console.run(size=(120, 40)) as (app, pilot):
        await settle(app, pilot)
        screen = app.screen
        assert isinstance(screen, ProjectsScreen)
        before = {row.key: str(row.cells[-1]) for row in screen.table.rows()}
        server.state.clock.advance(3 * 3600)
        screen.retime(server.state.clock.now())
        after = {row.key: str(row.cells[-1]) for row in screen.table.rows()}
        assert before != after
        assert all(text.endswith("ago") for text in after.values() if text != "—")


# --- 5. one failed log read is "retrying", not an outage -----------------------------------------------

async def test_one_failed_log_read_says_retrying(console: SimConsole) -> None:
    from tests.ui.jobs_support import header_text, open_trace, running_job

    server = console.server
    job_id = await running_job(server)
    async with console.run(size=(120, 40)) as (app, pilot):
        screen = await open_trace(app, pilot, job_id)
        await wait_until(pilot, lambda: screen.live)
        await screen._handle(_ErrorEvent("500 Internal Server Error"))
        assert "retrying" in header_text(screen) and "disconnected" not in header_text(screen)
        for _ in range(3):
            await screen._handle(_ErrorEvent("500 Internal Server Error"))
        assert "disconnected" in header_text(screen)


class _ErrorEvent:
    kind = "error"

    def __init__(self, message: str) -> None:
        self.message = message


# --- 10. what each change asks before it is sent --------------------------------------------------------

async def test_a_form_shows_what_it_will_send_and_toggles_apply_at_once(console: SimConsole) -> None:
    from textual.widgets import Static

    from labdeck.ui.dialogs.confirm import ConfirmScreen
    from labdeck.ui.dialogs.form import FormScreen
    from labdeck.ui.screens.issues.detail import IssueDetailScreen
    from tests.ui.helpers import push

    server = console.server
    issue = next(i for i in server.state.issues.values() if i.state == "opened" and not i.deleted)
    async with console.run(size=(120, 40)) as (app, pilot):
        detail = await push(app, pilot, IssueDetailScreen(issue.project_id, issue.iid))
        await pilot.press("e")
        await settle(app, pilot)
        form = app.screen
        assert isinstance(form, FormScreen)
        form.set_value("title", "A new title")
        await pilot.pause()
        preview = str(form.query_one("#form-preview", Static).render())
        assert f'"{issue.title}" → "A new title"' in preview
        assert "Will send" in preview
        await pilot.press("escape")
        await settle(app, pilot)
        from labdeck.sim.issues.model import is_subscribed

        root = next(user for user in server.state.users.values() if user.username == "root")
        subscribed = is_subscribed(server.state.issues[issue.id], root)
        await pilot.press("S")  # a reversible toggle: applied at once, no dialog
        await settle(app, pilot)
        assert not isinstance(app.screen, ConfirmScreen)
        assert is_subscribed(server.state.issues[issue.id], root) != subscribed
        assert app.screen is detail
