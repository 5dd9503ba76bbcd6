"""The administrators' "running now" strip when the server is in trouble: the last reading stays in
view, said stale with its age, so a hung or failing server's jobs are never read as running now."""

from __future__ import annotations

from typing import Any

import pytest

from labdeck.api import exchange
from labdeck.ui.screens.board.running_strip import RunningNowStrip
from tests.support.pilot import wait_until
from tests.ui.board_support import FAST, open_board_storm_safe
from tests.ui.conftest import SimConsole


def strip_text(strip: RunningNowStrip) -> str:
    return str(strip.content) if strip.display else ""


@pytest.mark.usefixtures("quick_gate")
@pytest.mark.parametrize("fault", ["bad_gateway", "latency"])
async def test_in_trouble_the_strip_keeps_its_jobs_and_says_how_old_they_are(behind_switch: Any, console: SimConsole,
                                                                             fault: str,
                                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(exchange, "SLOW_ANSWER", 2.0)  # "no answer for" after 2 s here, not 8: the same rule
    server, switch, via = behind_switch
    async with console.run(via=via, board=FAST, size=(120, 40)) as (app, pilot):
        board = await open_board_storm_safe(app, pilot)
        strip = board.query_one("#running-now", RunningNowStrip)
        await wait_until(pilot, lambda: strip_text(strip).startswith(" running now: "), what="the strip read")
        counts = strip_text(strip).split(":", 1)[1].split("·", 1)[0]  # " 7 jobs on 7/10 online runners "
        switch.set(fault, seconds=30)  # a 502 storm, or a server that takes requests and says nothing
        await wait_until(pilot, lambda: "(stale)" in strip_text(strip), limit=20, what="the strip said stale")
        shown = strip_text(strip)
        assert "running now" not in shown and " ago (stale): " in shown
        assert counts in shown  # the last reading is kept, not hidden nor emptied
        assert strip.has_class("-stale")
