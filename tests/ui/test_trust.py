"""The console never shows something false: it reconnects by itself, data it shows is fresh, and
a 304 never empties a screen."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from labdeck.api import ApiClient, RetryPolicy
from labdeck.secret import Secret
from labdeck.session import Session
from labdeck.sim.server import SimServer
from labdeck.statefile import StateStore
from labdeck.ui.app import LabdeckApp
from labdeck.ui.screens.projects.list import ProjectsScreen
from labdeck.ui.ui_state import UiState
from labdeck.ui.widgets.status_line import StatusLine
from tests.ui.sections_helpers import settle, toasts


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
