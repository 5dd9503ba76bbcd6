"""The status line says where the token came from (issue: sign-in over SSH)."""

from __future__ import annotations

from tests.support.pilot import settle
from tests.ui.conftest import SimConsole, shared_sim


@shared_sim
async def test_status_line_names_the_token_source(console: SimConsole) -> None:
    async with console.run("readonly", token_source="env:LABDECK_TOKEN", size=(120, 30)) as (app, pilot):
        await settle(app, pilot, rounds=3)
        source = app.screen.query_one("#status-source")
        assert str(source.render()) == "via env:LABDECK_TOKEN"
        assert source.display


@shared_sim
async def test_demo_session_does_not_repeat_the_source(console: SimConsole) -> None:
    async with console.run("admin", token_source="demo", demo=True, size=(120, 30)) as (app, pilot):
        await settle(app, pilot, rounds=3)
        assert not app.screen.query_one("#status-source").display
