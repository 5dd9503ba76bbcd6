"""The status line says where the token came from (issue: sign-in over SSH)."""

from __future__ import annotations

from labdeck.sim.server import SimServer
from tests.support.pilot import settle
from tests.ui.conftest import MakeApp


async def test_status_line_names_the_token_source(sim: SimServer, make_app: MakeApp) -> None:
    app = make_app(sim, "readonly", token_source="env:LABDECK_TOKEN")
    async with app.run_test(size=(120, 30)) as pilot:
        await settle(app, pilot, rounds=3)
        source = app.screen.query_one("#status-source")
        assert str(source.render()) == "via env:LABDECK_TOKEN"
        assert source.display


async def test_demo_session_does_not_repeat_the_source(sim: SimServer, make_app: MakeApp) -> None:
    app = make_app(sim, "admin", token_source="demo", demo=True)
    async with app.run_test(size=(120, 30)) as pilot:
        await settle(app, pilot, rounds=3)
        assert not app.screen.query_one("#status-source").display
