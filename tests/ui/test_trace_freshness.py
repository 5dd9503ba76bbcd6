"""The log viewer's status line says how fresh the log is (issue 32, point 1), from the same
source as every other screen: the client's health (last failure, reason, next try) and the time
of the last read that answered. It keeps moving under a dialog. Through the fault switch."""

from __future__ import annotations

from typing import Any

from labdeck.ui.widgets.status_line import StatusLine
from tests.support.pilot import wait_until
from tests.ui.conftest import SimConsole
from tests.ui.jobs_support import follow_quiet_job


def shown(screen: Any, part: str) -> str:
    """A part of ``screen``'s status line as shown ("" when the screen has none)."""
    lines = list(StatusLine.on_screen(screen))
    return lines[0]._shown.get(part, "") if lines else ""


async def test_the_log_viewer_says_how_fresh_the_log_is_through_a_502_storm_under_a_dialog(
        behind_switch: Any, console: SimConsole) -> None:
    server, switch, via = behind_switch
    async with console.run(via=via, size=(120, 40)) as (app, pilot):
        screen, _job_id = await follow_quiet_job(app, pilot, server, max_interval=0.5)
        await wait_until(pilot, lambda: shown(screen, "age") == "data <10s" and "online" in shown(screen, "health"),
                         limit=5, what="a fresh log on the status line")
        await pilot.press("question_mark")
        await wait_until(pilot, lambda: app.screen is not screen, what="the keys dialog")
        switch.set("bad_gateway")
        await wait_until(pilot, lambda: "502 Bad Gateway" in shown(screen, "health"), limit=10,
                         what="the storm on the log viewer's status line under the dialog")
        assert "retrying in" in shown(screen, "health") or "retrying now" in shown(screen, "health")
        await wait_until(pilot, lambda: shown(screen, "age") not in ("", "data <10s"), limit=25,
                         what="the log's age grows while reads fail")
        assert app.screen is not screen
        switch.set("pass")
        await wait_until(pilot, lambda: "online" in shown(screen, "health") and shown(screen, "age") == "data <10s",
                         limit=40, what="fresh again with the first good read, still under the dialog")
        assert app.screen is not screen
