"""Server text cannot drive the terminal or the console: control bytes in names never reach the
terminal, markup in names stays text (toasts, palette), a cut log line leaves no raw ESC, a change
whose answer was lost cannot be sent twice from its form, a token typed after ``:login`` is not
remembered, and completion does not read the config file on the event loop."""

from __future__ import annotations

import io
import re
from collections.abc import Callable
from typing import Any

import httpx
import pytest
from rich.console import Console
from rich.segment import Segment
from rich.style import Style
from textual.app import App, ComposeResult
from textual.color import Color
from textual.command import CommandPalette
from textual.widgets import Button, Input

from labdeck.api import ApiClient
from labdeck.base.secret import Secret
from labdeck.base.session import Session
from labdeck.base.statefile import StateStore
from labdeck.sim.server import SimServer
from labdeck.ui.app import LabdeckApp
from labdeck.ui.dialogs.confirm import ConfirmScreen
from labdeck.ui.dialogs.form import OUTCOME_UNKNOWN_HINT, FormField, FormScreen
from labdeck.ui.dialogs.login import LoginScreen
from labdeck.ui.palette import ProjectJumpProvider
from labdeck.ui.terminal_filter import InertTextFilter
from labdeck.ui.ui_state import UiState
from labdeck.ui.widgets.trace.view import MAX_LINE_CHARS, TraceView
from tests.support.pilot import settle, wait_until
from tests.ui.conftest import SimConsole, shared_sim
from tests.ui.helpers import run_command
from tests.ui.jobs_support import PROJECT_ID, create_pipeline, open_jobs

HOSTILE = "\x1b]52;c;ZXZpbA==\x07\x1b[2J\x9b6n\u202e"
"""Clipboard write (OSC 52), erase display, an 8-bit CSI cursor query and a right-to-left override."""
UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
TEXTUAL_OWN = re.compile(r"\x1b\[[0-9;]*m|\x1b\[[0-9]+;[0-9]+H|\x1b\]8;[^\x1b]*\x1b\\")
"""What Textual itself writes around the text: SGR, cursor positioning, OSC 8 link wrappers."""


def terminal_output(app: App[Any]) -> str:
    """What the app would write to the terminal for a full repaint of the current screen."""
    update = app.screen._compositor.render_update(full=True, screen_stack=app._background_screens)
    console = Console(file=io.StringIO(), force_terminal=True, color_system="truecolor", width=app.size.width,
                      legacy_windows=False, safe_box=False)
    return str(update.render_segments(console))  # type: ignore[union-attr]


def assert_inert(output: str) -> None:
    text = TEXTUAL_OWN.sub("", output)
    assert "\x1b" not in text, repr(text[max(0, text.find("\x1b") - 40):text.find("\x1b") + 40])
    found = UNSAFE.search(text)
    assert found is None, repr(text[max(0, found.start() - 40):found.end() + 40])


async def test_control_bytes_in_server_names_never_reach_the_terminal(
        console: SimConsole, no_confirm_guard: None) -> None:
    server = console.server
    project = server.state.projects[PROJECT_ID]
    project.name = "evil" + HOSTILE
    project.path = "evil" + HOSTILE
    project.description = HOSTILE + "described"
    pipeline = await create_pipeline(server, [{"name": "build", "jobs": [{"name": "job" + HOSTILE,
                                                                          "duration": 30}]}])
    async with console.run(size=(160, 40), notifications=True) as (app, pilot):
        await settle(app, pilot, rounds=3)
        app.screen.table.move_cursor_to_key(PROJECT_ID)  # type: ignore[attr-defined]
        app.notify(f"toast {project.name}")  # a toast carrying a server string
        await settle(app, pilot, rounds=3)
        output = terminal_output(app)
        assert "evil" in output and "toast evil" in output
        assert_inert(output)
        screen = await open_jobs(app, pilot, pipeline_id=pipeline["id"])
        await pilot.pause()
        assert_inert(terminal_output(app))
        app.push_screen(ConfirmScreen("Delete " + HOSTILE, "Really " + HOSTILE, target=HOSTILE))
        await pilot.pause()
        output = terminal_output(app)
        assert "Really" in output
        assert_inert(output)
        assert app.screen is not screen and app.is_running


def test_the_filter_keeps_styles_widths_and_control_segments() -> None:
    red = Style(color="#ff0000", bold=True)
    move = Segment("\x1b[5;1H", None, [(3, 1, 5)])  # type: ignore[list-item]
    segments = [Segment("ok \x1b]0;title\x07x\u202e", red), move, Segment("\x9b2Jplain")]
    result = InertTextFilter().apply(segments, Color(0, 0, 0))
    assert result[0] == Segment("ok ]0;titlex", red)  # the style (a trace colour) is untouched
    assert result[1] is move  # Textual's own cursor move stays
    assert result[2] == Segment("2Jplain")
    assert sum(segment.cell_length for segment in result) == sum(segment.cell_length for segment in segments)
    clean = [Segment("nothing to do", red)]
    assert InertTextFilter().apply(clean, Color(0, 0, 0)) is clean


@shared_sim
async def test_the_filter_runs_after_textuals_own_filters(console: SimConsole,
                                                          monkeypatch: Any) -> None:
    monkeypatch.setenv("NO_COLOR", "1")
    async with console.run(size=(80, 24)) as (app, pilot):
        await settle(app, pilot, rounds=3)
        filters = list(app.get_line_filters())
        assert isinstance(filters[-1], InertTextFilter)
        assert len(filters) >= 2 and app.no_color  # NO_COLOR's filter is still applied


class _TraceApp(App[None]):
    def compose(self) -> ComposeResult:
        yield TraceView(id="view")


async def test_a_cut_long_line_leaves_no_half_escape_sequence() -> None:
    app = _TraceApp()
    async with app.run_test(size=(80, 10)) as pilot:
        view = app.query_one(TraceView)
        view.document.feed("A" * (MAX_LINE_CHARS - 5) + "\x1b[38;2;10;20;30mTAIL\n")
        view.document.finish()
        await pilot.pause()
        plain = view._line_text(0, None).plain
        assert "\x1b" not in plain and "[38;2" not in plain
        assert plain.rstrip().endswith("A")


@shared_sim
async def test_markup_in_names_stays_text_in_toasts_and_palette(console: SimConsole) -> None:
    app = console.app()
    names = {9001: "[@click=app.quit]x[/]", 9002: "[/oops]"}
    async with app.run_test(size=(120, 40), notifications=True) as pilot:
        await settle(app, pilot, rounds=3)

        async def check(token: Secret) -> str:
            return "[/oops][b]root"

        app.push_screen(LoginScreen(console.server.base_url, "test", check))
        await pilot.pause()
        app.screen.query_one("#token", Input).value = "anything"
        await pilot.press("enter")
        await settle(app, pilot, rounds=3)
        assert app.is_running
        assert any(n.message == "Signed in as [/oops][b]root" and not n.markup for n in app._notifications)
        assert "Signed in as [/oops][b]root" in TEXTUAL_OWN.sub("", terminal_output(app))
        app.screen.notify("export of [/oops] is [b]none")  # Widget.notify always passes markup=True
        await settle(app, pilot, rounds=3)
        assert app.is_running
        assert "export of [/oops] is [b]none" in TEXTUAL_OWN.sub("", terminal_output(app))

        app.known_projects.update(names)
        provider = ProjectJumpProvider(app.screen)
        hits = [hit async for hit in provider.search("x")] + [hit async for hit in provider.search("oops")]
        shown = {str(getattr(hit, "match_display", "")) for hit in hits}
        assert {"project: [@click=app.quit]x[/]", "project: [/oops]"} <= shown
        await pilot.press("ctrl+p")
        await pilot.pause()
        assert isinstance(app.screen, CommandPalette)
        await pilot.press(*"oops")
        await settle(app, pilot, rounds=3)
        await pilot.pause(0.3)
        assert app.is_running
        assert "project: [/oops]" in TEXTUAL_OWN.sub("", terminal_output(app))
        await pilot.press("escape")
        await settle(app, pilot, rounds=3)
        assert app.is_running


@shared_sim
async def test_login_token_is_refused_on_the_command_line_and_history_is_redacted(
        console: SimConsole, state_path: Any) -> None:
    token = "glpat-" + "Z" * 24
    async with console.run(size=(120, 40)) as (app, pilot):
        await settle(app, pilot, rounds=3)
        await run_command(app, pilot, f"login {token}")
        assert not isinstance(app.screen, LoginScreen)
        messages = [n.message + n.title for n in app._notifications]
        assert any("sign-in dialog, not on the command line" in message for message in messages)
        assert not any(token in message for message in messages)
        assert all(token not in line for line in app.commands.history)
        await run_command(app, pilot, "login")
        assert isinstance(app.screen, LoginScreen)
        await pilot.press("escape")
        await settle(app, pilot, rounds=3)
        assert all(not line.startswith("login") for line in app.commands.history)
        await run_command(app, pilot, f"jobs {token}")  # an honest mistake: pasted in the wrong place
        assert any(token in line for line in app.commands.history)
    saved = state_path.read_text(encoding="utf-8")
    assert token not in saved and "jobs " in saved


@shared_sim
async def test_completion_reads_the_config_once_off_the_loop(console: SimConsole,
                                                             monkeypatch: Any) -> None:
    import threading

    import labdeck.base.config

    calls: list[bool] = []
    real = labdeck.base.config.load_config

    def counting(*args: Any, **kwargs: Any) -> Any:
        calls.append(threading.current_thread() is threading.main_thread())
        return real(*args, **kwargs)

    monkeypatch.setattr(labdeck.base.config, "load_config", counting)
    async with console.run(size=(100, 30)) as (app, pilot):
        await settle(app, pilot, rounds=3)
        for _ in range(3):
            await pilot.press("colon")
            await pilot.pause()
            await pilot.press("escape")
            await pilot.pause()
        app.profile_names()
    assert calls == [False]  # once, in a worker thread


class _DeliverThenLose(httpx.AsyncBaseTransport):
    """Sends POSTs to the server, then loses the answer: a read timeout (dropped connection) or a
    502 from a proxy in front of the server that applied the change."""

    def __init__(self, fault: str) -> None:
        self.inner = httpx.AsyncHTTPTransport()
        self.fault = fault
        self.posts = 0

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        response = await self.inner.handle_async_request(request)
        if request.method == "POST":
            self.posts += 1
            await response.aclose()
            if self.fault == "timeout":
                raise httpx.ReadTimeout("read timed out", request=request)
            return httpx.Response(502, json={"message": "502 Bad Gateway"}, request=request)
        return response

    async def aclose(self) -> None:
        await self.inner.aclose()


@pytest.mark.parametrize("fault", ["timeout", "bad-gateway"])
async def test_a_form_whose_outcome_is_unknown_cannot_be_sent_twice(
        sim_factory: Callable[..., SimServer], tokens: dict[str, str], tmp_path: Any, fault: str) -> None:
    server = sim_factory()
    transport = _DeliverThenLose(fault)
    session = Session(base_url=server.base_url, token=Secret(tokens["admin"]), profile="test")
    client = ApiClient(server.base_url, session.token, transport=transport)
    app = LabdeckApp(session, client=client, clock=server.state.clock.now,
                     ui_state=UiState(StateStore(tmp_path / "state.json")))
    title = "Only once please"

    def issues_titled() -> int:
        return sum(1 for issue in server.state.issues.values() if issue.title == title and not issue.deleted)

    async def save(values: dict[str, Any]) -> Any:
        return await client.issues.create(PROJECT_ID, values["title"])

    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot, rounds=3)
        form = FormScreen("New issue", [FormField("title", "Title", required=True)], save)
        app.push_screen(form)
        await pilot.pause()
        form.set_value("title", title)
        await pilot.press("enter")
        await wait_until(pilot, lambda: OUTCOME_UNKNOWN_HINT in form.last_error, what="the unknown outcome")
        assert issues_titled() == 1 and transport.posts == 1  # the server did create it
        assert app.screen is form and form.query_one("#form-submit", Button).disabled
        assert form.query_one("#f-title", Input).value == title  # kept for checking
        await pilot.press("enter")
        form.action_submit()
        await settle(app, pilot, rounds=3)
        assert transport.posts == 1 and issues_titled() == 1
        await pilot.press("escape")
        await settle(app, pilot, rounds=3)
        assert app.screen is not form
