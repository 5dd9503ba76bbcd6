"""What the snapshots of the section lists share: one private simulator (seed 42, manual clock, a fixed
instance name) and an app against it, at 80x24 and 120x40."""

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
from labdeck.ui.ui_state import UiState
from tests.support.pilot import settle
from tests.ui.board_support import ROOMY

SIZES = [(80, 24), (120, 40)]
SHOWN_URL = "https://gitlab.example.test"


@pytest.fixture(scope="session")
def sections_snap_server() -> Iterator[SimServer]:
    """One private simulator for the section snapshots (they only read)."""
    from labdeck.sim.core.clock import SimClock
    from labdeck.sim.dataset.build import build_state

    server = SimServer(build_state(seed=42, clock=SimClock(mode="manual"))).start()
    server.state.base_url = SHOWN_URL
    yield server
    server.stop()


@pytest.fixture
def section_app(sections_snap_server: SimServer, tokens: dict[str, str],
                tmp_path: Path) -> Callable[[], LabdeckApp]:
    """``section_app()`` → an app against the section snapshots' simulator, showing ``SHOWN_URL``."""

    def make() -> LabdeckApp:
        token = Secret(tokens["admin"])
        # Roomy budget: the runners list waits for triage's reads, 12 s at 60 reads a minute.
        session = Session(base_url=SHOWN_URL, token=token, profile="prod", board=ROOMY)
        client = ApiClient(sections_snap_server.base_url, token)
        return LabdeckApp(session, client=client, clock=sections_snap_server.state.clock.now,
                          ui_state=UiState(StateStore(tmp_path / "state.json")))

    return make


def showing(factory: Callable[[], Any], *keys: str) -> Callable[[Any], Any]:
    """Before the snapshot: push the screen ``factory()`` makes, press ``keys``, settle."""

    async def run_before(pilot: Any) -> None:
        await settle(pilot.app, pilot)
        pilot.app.push_screen(factory())
        await settle(pilot.app, pilot)
        if keys:
            await pilot.press(*keys)
            await settle(pilot.app, pilot)

    return run_before


