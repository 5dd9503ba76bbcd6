"""The board in bad weather that answers 200 (issue 32.2), through the fault-switching proxy: a
sign-in page in place of the API is a failure said as such, and a wrong shape with the server's own
ETag does not poison the cache: the first rounds after the fault show good rows again."""

from __future__ import annotations

import time
from typing import Any

import pytest

from labdeck.api import answers
from labdeck.ui.widgets.status_line import StatusLine
from tests.support.pilot import wait_until
from tests.ui.board_support import FAST, open_board_storm_safe
from tests.ui.conftest import SimConsole
from tests.ui.jobs_support import advance

NOT_THE_API = ("not what the API returns", "not the API's answer")


def health(screen: Any) -> str:
    return next(iter(StatusLine.on_screen(screen)))._shown.get("health", "")


async def test_a_sign_in_page_is_not_a_healthy_board(behind_switch: Any, console: SimConsole) -> None:
    server, switch, via = behind_switch
    async with console.run(via=via, board=FAST, size=(120, 40)) as (app, pilot):
        board = await open_board_storm_safe(app, pilot)
        rows = board.table.row_count
        switch.set("sign_in")
        began = time.monotonic()
        await wait_until(pilot, lambda: "web page" in health(board), limit=15, what="the status line")
        assert "online" not in health(board)
        await wait_until(pilot, lambda: "web page" in board.context_text, limit=15, what="the board's header")
        await pilot.pause(3)
        assert board.table.row_count == rows and "stale" in board.context_text
        sent = switch.api_requests(since=began)
        assert len(sent) <= 20, len(sent)  # held back like a 502 storm, not the board's 60 a minute and more
        switch.set("pass")


@pytest.mark.usefixtures("quick_gate")
async def test_after_a_wrong_shape_fault_the_next_rounds_give_good_rows(behind_switch: Any,
                                                                         console: SimConsole) -> None:
    server, switch, via = behind_switch
    async with console.run(via=via, board=FAST, size=(120, 40)) as (app, pilot):
        board = await open_board_storm_safe(app, pilot)
        rows = board.table.row_count
        switch.set("wrong_shape")
        await advance(server, 60)  # jobs move on: pages change, new ETags, full answers (wrapped)
        # Said in full, or in its short form when the header has no room for it (the stale mark stays).
        await wait_until(pilot, lambda: any(words in board.context_text for words in NOT_THE_API), limit=15,
                         what="the reason on the board")
        await advance(server, 60)
        await pilot.pause(3)
        assert board.table.row_count >= rows
        assert not any(entry.content.startswith(b'{"data"') for entry in app.client.cache._entries.values())
        switch.set("pass")
        await wait_until(pilot, lambda: not any(words in board.context_text for words in NOT_THE_API)
                         and "stale" not in board.context_text, limit=20, what="good rows again")
        assert board.table.row_count >= rows and "ValidationError" not in board.context_text
        assert answers.WEB_PAGE not in health(board)
