"""SVG snapshots of the runners, issues and integrations lists at 80x24 and 120x40 (private
simulator, seed 42, manual clock, a fixed instance name)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from labdeck.api import ApiClient
from labdeck.base.secret import Secret
from labdeck.base.session import Session
from labdeck.base.statefile import StateStore
from labdeck.sim.server import SimServer
from labdeck.ui.app import LabdeckApp
from labdeck.ui.screens.integrations.list import IntegrationsScreen
from labdeck.ui.screens.issues.list import IssuesScreen
from labdeck.ui.screens.runners.list import RunnersScreen
from labdeck.ui.ui_state import UiState
from tests.support.pilot import settle

SIZES = [(80, 24), (120, 40)]
SHOWN_URL = "https://gitlab.example.test"


@pytest.fixture(scope="module")
def sections_snap_server() -> Iterator[SimServer]:
    """One private simulator for the module (the snapshots only read)."""
    from labdeck.sim.clock import SimClock
    from labdeck.sim.dataset import build_state

    server = SimServer(build_state(seed=42, clock=SimClock(mode="manual"))).start()
    server.state.base_url = SHOWN_URL
    yield server
    server.stop()


@pytest.fixture
def build(sections_snap_server: SimServer, tokens: dict[str, str], tmp_path: Path) -> Callable[[], LabdeckApp]:
    def make() -> LabdeckApp:
        token = Secret(tokens["admin"])
        session = Session(base_url=SHOWN_URL, token=token, profile="prod")
        client = ApiClient(sections_snap_server.base_url, token)
        return LabdeckApp(session, client=client, clock=sections_snap_server.state.clock.now,
                          ui_state=UiState(StateStore(tmp_path / "state.json")))

    return make


def _showing(factory: Callable[[], Any], *keys: str) -> Callable[[Any], Any]:
    async def run_before(pilot: Any) -> None:
        await settle(pilot.app, pilot)
        pilot.app.push_screen(factory())
        await settle(pilot.app, pilot)
        if keys:
            await pilot.press(*keys)
            await settle(pilot.app, pilot)

    return run_before


@pytest.mark.parametrize("size", SIZES)
def test_runner_list(snap_compare: Any, build: Callable[[], LabdeckApp], size: tuple[int, int]) -> None:
    assert snap_compare(build(), run_before=_showing(lambda: RunnersScreen(all_runners=True), "down"),
                        terminal_size=size)


@pytest.mark.parametrize("size", SIZES)
def test_issue_list(snap_compare: Any, build: Callable[[], LabdeckApp], size: tuple[int, int]) -> None:
    screen = lambda: IssuesScreen(project_id=1, project_path="platform/api-gateway",  # noqa: E731
                                  filters={"state": "all"})
    assert snap_compare(build(), run_before=_showing(screen), terminal_size=size)


@pytest.mark.parametrize("size", SIZES)
def test_integration_list(snap_compare: Any, build: Callable[[], LabdeckApp], size: tuple[int, int]) -> None:
    assert snap_compare(build(), run_before=_showing(lambda: IntegrationsScreen(14, "web/storefront")),
                        terminal_size=size)
