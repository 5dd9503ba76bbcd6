"""A screen's status line says what the reads that answered *its* question said (issue 32, points 1
and 2): a wrong-shape answer to the board's reads is not hidden by other reads answered 304, and a
body that was never believed is neither kept in the ETag cache nor counted as a good read."""

from __future__ import annotations

import re
import time
from typing import Any

import pytest
from rich.cells import cell_len

from labdeck.ui.app import LabdeckApp
from labdeck.ui.widgets.status_line import StatusLine
from tests.support.pilot import settle, wait_until
from tests.ui.board_support import FAST, open_board_storm_safe
from tests.ui.conftest import SimConsole
from tests.ui.jobs_support import advance, open_jobs

NOT_THE_API = ("not what the API returns", "not the API's answer")  # in full, or short when room is short


def shown(screen: Any, part: str) -> str:
    """A part of the status line of ``screen`` as shown."""
    return next(iter(StatusLine.on_screen(screen)))._shown.get(part, "")


def poisoned(app: LabdeckApp) -> list[str]:
    """Cached bodies that are not the API's answer (each item wrapped as ``{"data": …}``)."""
    return [url for url, entry in app.client.cache._entries.items() if entry.content.startswith(b'[{"data"')]


@pytest.mark.usefixtures("quick_gate")
async def test_a_wrong_shape_storm_never_shows_the_board_online(behind_switch: Any, console: SimConsole) -> None:
    """Tried in tmux: the board opened during a ``wrong_shape`` fault said ``starred projects: the
    server's answer was not what the API returns … · loading…`` in its header and ``● online`` on
    its status line (other reads, answered 304, passed)."""
    server, switch, via = behind_switch
    async with console.run(via=via, board=FAST, size=(120, 40)) as (app, pilot):
        board = await open_board_storm_safe(app, pilot)
        switch.set("wrong_shape")
        await advance(server, 60)  # jobs move on: changed pages answer 200 (wrapped), the rest 304
        await wait_until(pilot, lambda: any(words in board.context_text for words in NOT_THE_API), limit=15, what="the reason on the board")
        said = []
        for _ in range(16):
            await pilot.pause(0.25)
            said.append(shown(board, "health"))
        assert not any("online" in text for text in said), said
        switch.set("pass")
        await wait_until(pilot, lambda: "online" in shown(board, "health") and not any(words in board.context_text for words in NOT_THE_API),
                         limit=30, what="online again once the board's reads are good")


@pytest.mark.usefixtures("quick_gate")
async def test_items_of_another_shape_are_not_cached_nor_a_good_read(behind_switch: Any,
                                                                     console: SimConsole) -> None:
    """A list whose items are not jobs passes the shape check: the board's poller stored it in the
    ETag cache before parsing it and counted the read as good, so the status line said ``● online``
    beside ``jobs: ValidationError · last rows kept (stale)``, and after the fault every 304 handed
    back the copy that never parsed."""
    server, switch, via = behind_switch
    async with console.run(via=via, board=FAST, size=(120, 40)) as (app, pilot):
        board = await open_board_storm_safe(app, pilot)
        rows = board.table.row_count
        switch.set("wrong_items")
        await advance(server, 60)
        await wait_until(pilot, lambda: "stale" in board.context_text, limit=15, what="the rows marked stale")
        await pilot.pause(2)
        assert "ValidationError" not in board.context_text
        assert "online" not in shown(board, "health")
        assert poisoned(app) == []
        switch.set("pass")
        await wait_until(pilot, lambda: "stale" not in board.context_text and "online" in shown(board, "health"),
                         limit=20, what="good rows again")
        assert board.table.row_count >= rows and "ValidationError" not in board.context_text


COUNTDOWN = re.compile(r"retry(ing)? in \d+ s|retrying now")


def title_cut(screen: Any) -> list[str]:
    """Title-row labels whose text does not fit the room they are drawn in."""
    cut = []
    for label in screen.query("#title-row Label"):
        text = str(label.render())
        if text and label.content_region.width < cell_len(text):
            cut.append(f"{label.id}: {text!r} in {label.content_region.width} cells")
    return cut


async def test_at_80_columns_the_jobs_header_says_when_the_next_try_is(behind_switch: Any,
                                                                     console: SimConsole) -> None:
    """Tried in tmux at 80x24: ``Jobs  platform/feature-flags · refresh failed: Server failure
    (502):…  49 jobs``: cut before it said when the next try is."""
    server, switch, via = behind_switch
    async with console.run(via=via, size=(80, 24)) as (app, pilot):
        await settle(app, pilot)
        screen = await open_jobs(app, pilot)
        switch.set("bad_gateway")
        await wait_until(pilot, lambda: COUNTDOWN.search(screen.context_text) is not None, limit=15,
                         what="the countdown in the jobs header")
        for _ in range(8):
            await pilot.pause(0.25)
            assert COUNTDOWN.search(screen.context_text), screen.context_text
            assert "502" in screen.context_text and title_cut(screen) == [], title_cut(screen)
        switch.set("pass")
        await pilot.press("ctrl+r")  # the next read tests the server now, not at the end of the wait
        await wait_until(pilot, lambda: "live" in screen.context_text, limit=20, what="live again")


@pytest.mark.usefixtures("quick_gate")
async def test_at_80_columns_a_long_reason_leaves_the_board_s_stale_mark(behind_switch: Any,
                                                                         console: SimConsole) -> None:
    """Tried in tmux at 80x24: ``Board  the server answered a web page, not the API: a sign-in or
    pro…  11 rows``: the reason pushed ``(stale)`` and the projects watched off the header."""
    server, switch, via = behind_switch
    async with console.run(via=via, board=FAST, size=(80, 24)) as (app, pilot):
        board = await open_board_storm_safe(app, pilot)
        switch.set("sign_in")
        await wait_until(pilot, lambda: "stale" in board.context_text, limit=15, what="the rows marked stale")
        for _ in range(8):
            await pilot.pause(0.25)
            assert "(stale)" in board.context_text and "projects watched" in board.context_text
            assert "web page" in board.context_text  # said short, not dropped
            assert title_cut(board) == [], title_cut(board)
        switch.set("pass")



def title_counts(app: LabdeckApp) -> str:
    """The right end of the title row: the row count and what the last load said."""
    from textual.widgets import Label

    return str(app.screen.query_one("#title-counts", Label).render())


@pytest.mark.usefixtures("quick_gate")
async def test_a_list_opened_in_a_storm_says_it_was_not_read_not_0_rows(behind_switch: Any,
                                                                         console: SimConsole) -> None:
    """Tried in tmux at 80x24: the runners screen opened during a 502 storm showed ``0 rows`` in its
    title row and an empty table, as if the account had no runners (only the status line said 502)."""
    server, switch, via = behind_switch
    async with console.run(via=via, size=(80, 24)) as (app, pilot):
        await settle(app, pilot)
        switch.set("bad_gateway")
        await pilot.press("3")
        await wait_until(pilot, lambda: "not read" in title_counts(app), limit=15, what="the title row's note")
        assert title_counts(app).startswith("0 rows · not read")
        switch.set("pass")
        await pilot.press("ctrl+r")
        await wait_until(pilot, lambda: app.screen.load_count > 0, limit=30, what="the runners read")
        assert title_counts(app) == "0 rows"  # the admin's own runners: truly none, now that they were read
        await pilot.press("a")  # every runner of the instance
        await wait_until(pilot, lambda: app.screen.table.row_count > 0, limit=30, what="all runners")
        switch.set("bad_gateway")
        await pilot.press("ctrl+r")
        await wait_until(pilot, lambda: "last rows kept (stale)" in title_counts(app), limit=15,
                         what="the rows said stale after a failed refresh")


async def test_in_a_429_storm_the_jobs_header_says_it_waits_not_live(behind_switch: Any,
                                                                    console: SimConsole) -> None:
    """Tried in tmux at 120x40: every read answered 429 with ``Retry-After: 5``, the jobs header said
    ``live · every 2s`` for about 15 s (the refresh waited out the server's wait inside the client,
    three times, before it failed); the board said ``rate limited — retrying in 4 s`` meanwhile."""
    server, switch, via = behind_switch
    async with console.run(via=via, size=(120, 40)) as (app, pilot):
        await settle(app, pilot)
        screen = await open_jobs(app, pilot)
        switch.set("rate_limited", retry_after=5)
        await wait_until(pilot, lambda: "rate limited — retrying in" in screen.context_text, limit=3,
                         what="the wait in the jobs header")
        for _ in range(8):
            await pilot.pause(0.25)
            assert "live" not in screen.context_text and COUNTDOWN.search(screen.context_text), screen.context_text
        switch.set("pass")
        await wait_until(pilot, lambda: "live" in screen.context_text, limit=15, what="live again")
        assert "rate limited" not in screen.context_text


async def test_a_wrong_items_storm_on_the_board_is_held_back_like_a_502(behind_switch: Any,
                                                                         console: SimConsole) -> None:
    """Tried in tmux at 120x40: a storm of answers whose items are not jobs (``wrong_items``) made 30
    requests in 30 s, each read failing on its own while others answered 304. Now every read waits
    for the client's gate, as in a 502 storm: a handful of requests, and the header says when the
    next try is. (The client's real back-off: this test is about its timing.)"""
    server, switch, via = behind_switch
    async with console.run(via=via, board=FAST, size=(120, 40)) as (app, pilot):
        board = await open_board_storm_safe(app, pilot)
        switch.set("wrong_items")
        await advance(server, 60)  # jobs move on: changed pages answer 200 (wrapped items), the rest 304
        began = time.monotonic()
        await wait_until(pilot, lambda: COUNTDOWN.search(board.context_text) is not None, limit=10,
                         what="the next try in the board's header")
        while time.monotonic() - began < 12:
            await pilot.pause(0.5)
            assert "online" not in shown(board, "health"), shown(board, "health")
        sent = switch.api_requests(since=began)
        # The reads under way when the storm began, then one probe at a time, 0.25-0.5, 0.5-1, 1-2,
        # 2-4, 4-8 s apart: not the board's pace (a round every 0.3 s here).
        assert len(sent) <= 16, [(round(t - began, 1), path, status) for t, _, path, status in sent]
        switch.set("pass")
