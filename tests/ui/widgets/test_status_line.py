"""The status line's data age as a console left open shows it: it moves on in place (the rest of
the line does not shift by a column every ten seconds), is never cut, and turns amber when stale."""

from __future__ import annotations

from datetime import timedelta

import pytest
from rich.cells import cell_len
from textual.geometry import Region
from textual.widgets import Label

from labdeck.ui.widgets.status_line import StatusLine
from tests.support.pilot import settle
from tests.ui.conftest import SimConsole, shared_sim
from tests.ui.helpers import screen_lines


@shared_sim
async def test_the_data_age_moves_on_in_place_and_is_never_cut(console: SimConsole) -> None:
    async with console.run(size=(80, 24)) as (app, pilot):
        await settle(app, pilot, rounds=3)
        status = app.screen.query_one(StatusLine)
        age = status.query_one("#status-age", Label)
        user = status.query_one("#status-user", Label)
        now = app.clock()

        async def shown(seconds: float | None = None) -> tuple[Region, Region]:
            """Where the user name and the data age are on screen; the age is shown in full."""
            if seconds is not None:
                status.data_loaded_at = now - timedelta(seconds=seconds)
            status.update_status()
            await pilot.pause()
            text = str(age.render())
            assert cell_len(text) <= age.size.width  # never cut
            assert any(text in line for line in screen_lines(app))
            return user.region, age.region

        where = await shown(2)
        assert str(age.render()) == "data <10s"
        for seconds, text in ((15, "data 10s"), (25, "data 20s"), (130, "data 2m")):
            assert await shown(seconds) == where
            assert str(age.render()) == text
        assert age.has_class("-stale")  # past twice the refresh interval
        assert await shown(3) == where
        assert str(age.render()) == "data <10s" and not age.has_class("-stale")
        status.show_freshness("loading 120 · paused 30s", True)  # longer than any age: it makes room
        user_region, _ = await shown()
        assert str(age.render()) == "loading 120 · paused 30s" and user_region.x < where[0].x


@shared_sim
async def test_the_line_is_whole_again_once_a_long_trouble_note_goes(console: SimConsole) -> None:
    """After a storm the line is not left cut (``● online … d``) until a resize: a part that gets
    much shorter gives its room back to the others."""
    from dataclasses import replace

    async with console.run(size=(120, 24)) as (app, pilot):
        await settle(app, pilot, rounds=3)
        status = app.screen.query_one(StatusLine)
        real = app.status_info
        trouble = {"on": True}

        def info() -> object:
            now = real()
            if trouble["on"]:
                return replace(now, health="reconnecting", rate_limit="0/600",
                               trouble="503 Service Unavailable — retrying in 20 s (the server asked)")
            return now

        app.status_info = info  # type: ignore[method-assign]
        status.update_status()
        await pilot.pause()
        trouble["on"] = False
        status.update_status()
        await pilot.pause()
        lines = screen_lines(app)
        for name in ("instance", "health", "age", "user"):
            label = status.query_one(f"#status-{name}", Label)
            text = str(label.render())
            assert text and "…" not in text, (name, text)
            assert any(text in line for line in lines), (name, text, lines[-2:])


@shared_sim
@pytest.mark.parametrize("width", [80, 120])
@pytest.mark.parametrize("trouble", ["offline — retrying in 12 s", "502 Bad Gateway (nginx) — retrying in 44 s"])
async def test_the_countdown_keeps_its_number_when_the_line_is_crowded(console: SimConsole, width: int,
                                                                      trouble: str) -> None:
    """Issue 29.5: a crowded line (a long profile, ``not connected``, ``READ-ONLY``; at 120 columns
    the token's source, the rate and the plaintext warning too) said ``◌ offline`` or ``◌ 502 Bad
    Gateway (nginx)`` with no word of the next try. The host, the token's source and the glyph
    give way first: the number of seconds stays, whole, beside the data age."""
    from dataclasses import replace

    async with console.run(size=(width, 24)) as (app, pilot):
        await settle(app, pilot, rounds=3)
        status = app.screen.query_one(StatusLine)
        real = app.status_info
        crowded: dict[str, object] = {"profile": "production-eu", "user": None, "read_only": True,
                                      "health": "reconnecting", "trouble": trouble}
        if width >= StatusLine.NARROW:
            crowded.update(token_source="keyring", rate_limit="1990/2000", insecure_storage=True)
        app.status_info = lambda: replace(real(), **crowded)  # type: ignore[method-assign]
        for _ in range(2):  # the second pass sees the parts as the first one laid them out
            status.update_status()
            await pilot.pause()
        health = str(status.query_one("#status-health", Label).render())
        number = trouble.rsplit(" ", 2)[1]
        assert f"{number} s" in health, health
        row = screen_lines(app)[-2]
        assert health in row and str(status.query_one("#status-age", Label).render()) in row, row
