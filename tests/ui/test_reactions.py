"""Errors: injected server faults show and recover, 401 leads to sign-in, crashes leave a report
without local variables, and the error → reaction mapping."""

from __future__ import annotations

from collections.abc import Callable

import httpx
import pytest

from labdeck.api import errors
from labdeck.base import paths
from labdeck.sim.server import SimServer
from labdeck.ui.dialogs.login import LoginScreen
from labdeck.ui.reactions import react_to
from labdeck.ui.screens.projects.list import ProjectsScreen
from labdeck.ui.widgets.status_line import StatusLine
from tests.support.pilot import settle, wait_until
from tests.ui.conftest import SimConsole, shared_sim

ServerFactory = Callable[..., SimServer]


def _faults(server: SimServer, **config: object) -> None:
    from labdeck.sim.dataset.build import DEMO_TOKENS

    response = httpx.put(f"{server.base_url}/-/sim/faults", json=config, timeout=5,
                         headers={"PRIVATE-TOKEN": DEMO_TOKENS["admin"]})
    response.raise_for_status()


def _messages(app: object) -> list[str]:
    return [str(n.message) for n in app._notifications]  # type: ignore[attr-defined]


def _health(app: object) -> str:
    status = app.screen.query_one(StatusLine)  # type: ignore[attr-defined]
    status.update_status()
    return str(status.query_one("#status-health").render())


async def test_server_errors_show_and_the_console_recovers(console: SimConsole) -> None:
    server = console.server
    async with console.run(fast_retry=True, size=(100, 30)) as (app, pilot):
        await settle(app, pilot, rounds=3)
        screen = app.screen
        assert isinstance(screen, ProjectsScreen)
        loaded = screen.table.row_count
        _faults(server, error_rate=1.0, path_prefix="/projects")
        await pilot.press("ctrl+r")
        await settle(app, pilot, rounds=3)
        assert app.is_running and app.screen is screen
        assert any("Server failure (5" in message for message in _messages(app))
        assert screen.table.row_count == loaded  # what was shown stays
        assert "online" not in _health(app)
        _faults(server)
        await pilot.press("ctrl+r")
        await settle(app, pilot, rounds=3)
        assert screen.table.row_count == loaded
        # ctrl+r tries at once, but never sooner than 2 s after the last failure (30 tries a minute).
        await wait_until(pilot, lambda: "online" in _health(app), limit=10, what="online after ctrl+r")


async def test_rate_limit_shows_wait_and_headroom(console: SimConsole) -> None:
    server = console.server
    async with console.run(fast_retry=True, size=(100, 30)) as (app, pilot):
        await settle(app, pilot, rounds=3)
        _faults(server, rate_limit=1.0, retry_after=3, path_prefix="/projects", limit=600)
        await pilot.press("ctrl+r")
        await settle(app, pilot, rounds=3)
        assert any("Rate limited (429)" in message for message in _messages(app))
        status = app.screen.query_one(StatusLine)
        status.update_status()
        assert "/600" in str(status.query_one("#status-rate").render())
        assert app.is_running


@shared_sim
async def test_unauthorized_opens_sign_in_and_a_valid_token_recovers(
        console: SimConsole, tokens: dict[str, str]) -> None:
    async with console.run(token="glpat-this-token-was-revoked-000000", size=(100, 30)) as (app, pilot):
        await settle(app, pilot, rounds=3)
        dialog = app.screen
        assert isinstance(dialog, LoginScreen)
        field = dialog.query_one("#token")
        assert field.password  # masked
        await pilot.press(*"wrong-token", "enter")
        await settle(app, pilot, rounds=3)
        assert isinstance(app.screen, LoginScreen)
        assert "Sign-in failed" in str(dialog.query_one("#error").render())
        field.value = ""
        await pilot.press(*tokens["user"], "enter")
        await settle(app, pilot, rounds=3)
        screen = app.screen
        assert isinstance(screen, ProjectsScreen)
        assert app.current_user is not None and app.current_user != "root"
        assert screen.table.row_count > 0
        assert app.session.token is not None and tokens["user"] not in repr(app.session)


@shared_sim
async def test_crash_writes_a_report_without_locals(console: SimConsole,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    secret_local = "glpat-canary-canary-canary-canary"

    def explode(self: ProjectsScreen) -> None:
        token = secret_local  # a local variable Textual's crash screen would print
        raise RuntimeError(f"boom {len(token)}")

    monkeypatch.setattr(ProjectsScreen, "action_details", explode)
    app = console.app()
    with pytest.raises(RuntimeError, match="boom"):
        async with app.run_test(size=(100, 30)) as pilot:
            await settle(app, pilot, rounds=3)
            await pilot.press("d")
            await pilot.pause()
    assert app.return_code == 1
    reports = list(paths.crash_dir().glob("crash-*.txt"))
    assert reports
    text = reports[-1].read_text()
    assert "RuntimeError: boom" in text and secret_local not in text
    rendered = " ".join(str(item) for item in app._exit_renderables)
    assert secret_local not in rendered


@pytest.mark.parametrize(
    ("error", "kind"),
    [
        (errors.Unauthorized(401, "GET", "http://x/api/v4/user", "401 Unauthorized"), "login"),
        (errors.RateLimited(429, "GET", "http://x/api/v4/projects", "Retry later", retry_after=4), "toast"),
        (errors.OutcomeUnknown("read timeout", method="POST", url="http://x/api/v4/projects/1/archive"), "modal"),
        (errors.Forbidden(403, "POST", "http://x/api/v4/projects/1/star", "insufficient_scope"), "read-only"),
        (errors.Forbidden(403, "POST", "http://x/api/v4/projects/1/archive", "403 Forbidden"), "toast"),
        (errors.NotFound(404, "GET", "http://x/api/v4/projects/9", "404 Project Not Found"), "toast"),
        (errors.TransportError("connection failed", method="GET", url="http://x/api/v4/projects"), "toast"),
        (ValueError("bug"), "modal"),
    ],
)
def test_each_error_gets_the_right_reaction(error: BaseException, kind: str) -> None:
    reaction = react_to(error)
    assert reaction.kind == kind
    assert reaction.message
