"""What the status line says is what the last reads said (issue 32, points 1 and 4): it stays true
under any dialog, and a note about trouble goes with the first good read after it. Each test drives
the real app with Pilot against a private simulator behind the fault switch."""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from typing import Any

import pytest
from rich.cells import cell_len

from labdeck.base.config import BoardSettings
from labdeck.ui.connection import keep_countdown, short_trouble
from labdeck.ui.dialogs.keys import KeysScreen
from labdeck.ui.screens.board.board import BoardScreen
from labdeck.ui.widgets.status_line import StatusLine
from tests.support.pilot import settle, wait_until
from tests.ui.board_support import FAST, open_board_storm_safe
from tests.ui.conftest import SimConsole
from tests.ui.jobs_support import advance, create_pipeline
from tests.ui.pipeline_support import open_pipeline


async def drawn(pilot: Any) -> None:
    """Let the screen lay out and draw what it was last told. Not :func:`settle`: in a storm the
    board's readers wait out their back-off, and settling waited for them (15 s and more a time)."""
    await pilot.pause(0.2)


def shown(screen: Any, part: str) -> str:
    """A part of the status line of ``screen`` as shown."""
    return next(iter(StatusLine.on_screen(screen)))._shown.get(part, "")


@pytest.mark.usefixtures("quick_gate")
async def test_the_status_line_follows_a_502_storm_under_the_keys_dialog(behind_switch: Any,
                                                                         console: SimConsole) -> None:
    server, switch, via = behind_switch
    async with console.run(via=via, board=FAST, size=(120, 40)) as (app, pilot):
        board = await open_board_storm_safe(app, pilot)
        await pilot.press("question_mark")
        await wait_until(pilot, lambda: app.screen is not board, what="the keys dialog")
        switch.set("bad_gateway")
        began = time.monotonic()
        await wait_until(pilot, lambda: "502 Bad Gateway" in shown(board, "health"), limit=8,
                         what="the storm on the status line under the dialog")
        await wait_until(pilot, lambda: "<10s" not in shown(board, "age"), limit=25,
                         what="the data age grows under the dialog")
        assert app.screen is not board and time.monotonic() - began < 25
        assert "502 Bad Gateway" in board.context_text  # the header follows too
        switch.set("pass")
        await wait_until(pilot, lambda: "online" in shown(board, "health"), limit=30,
                         what="back online, still under the dialog")
        assert app.screen is not board


@pytest.mark.usefixtures("quick_gate")
async def test_the_rate_note_goes_with_the_first_good_read_after_a_429_storm(behind_switch: Any,
                                                                             console: SimConsole) -> None:
    server, switch, via = behind_switch
    async with console.run(via=via, board=FAST, size=(120, 40)) as (app, pilot):
        board = await open_board_storm_safe(app, pilot)
        switch.set("rate_limited", retry_after=5)
        await wait_until(pilot, lambda: "rate 0/600" in shown(board, "rate"), limit=20, what="the rate note")
        switch.set("pass")
        await wait_until(pilot, lambda: "online" in shown(board, "health"), limit=20, what="reads succeed again")
        await wait_until(pilot, lambda: shown(board, "rate") == "", limit=3, what="the rate note cleared")
        assert "rate limited" not in board.context_text


def cut_parts(screen: Any) -> list[str]:
    """The status line's parts whose text does not fit the room they are drawn in (``● online … d``);
    the instance is left out: it is the one part made to shorten (with an ellipsis)."""
    status = next(iter(StatusLine.on_screen(screen)))
    cut = []
    for name, text in status._shown.items():
        if name == "instance":
            continue
        label = status._part(name)
        if text and label.display and (label.content_region.width < cell_len(text)
                                       or label.region.right > status.region.right):
            cut.append(f"{name}: {text!r} in {label.content_region.width} cells at {label.region}")
    return cut


@pytest.mark.usefixtures("quick_gate")
async def test_a_storm_over_the_starred_listing_clears_with_the_first_good_reads(behind_switch: Any,
                                                                                 console: SimConsole) -> None:
    """Issue 32, point 4: a 503 storm with ``Retry-After`` over the starred projects' listing left
    ``loading…`` for minutes after reads succeeded again (the listing waited for its 5-minute turn),
    and the status line cut until a resize."""
    server, switch, via = behind_switch
    async with console.run(via=via, board=FAST, size=(80, 24)) as (app, pilot):
        board = await open_board_storm_safe(app, pilot)
        watched = app.watching.watched
        switch.set("unavailable", retry_after=1)
        await pilot.press("ctrl+r")  # the starred projects are listed again, in the storm
        await wait_until(pilot, lambda: watched.current().problems, limit=30, what="the listing failed")
        await wait_until(pilot, lambda: "Service Unavailable" in shown(board, "health"), limit=10,
                         what="the storm on the status line")
        switch.set("pass")
        began = time.monotonic()
        await wait_until(pilot, lambda: not watched.current().problems and "loading" not in board.context_text
                         and ("nothing failing" in board.context_text or "failed ·" in board.context_text),
                         limit=30, what="the board back after the storm")
        assert time.monotonic() - began < 30
        await wait_until(pilot, lambda: "online" in shown(board, "health"), limit=10, what="online again")
        await settle(app, pilot)
        assert cut_parts(board) == []


@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
@pytest.mark.usefixtures("quick_gate")
async def test_a_long_reason_leaves_the_data_age_in_view(behind_switch: Any, console: SimConsole,
                                                         size: tuple[int, int]) -> None:
    """Issue 32: a sign-in page's reason (``the server answered a web page, not the API: a sign-in
    or proxy page?``) pushed the data age off the status line (at 80 columns, and at 120 with its
    countdown); the reason is shortened first, the age stays."""
    server, switch, via = behind_switch
    async with console.run(via=via, board=FAST, size=size) as (app, pilot):
        board = await open_board_storm_safe(app, pilot)
        switch.set("sign_in")
        await wait_until(pilot, lambda: "web page" in shown(board, "health"), limit=15, what="the sign-in page said")
        await drawn(pilot)
        assert shown(board, "age").startswith(("oldest", "data"))
        assert cut_parts(board) == []
        assert "✕" in shown(board, "health") or "◌" in shown(board, "health")


async def test_the_pipeline_view_reads_on_under_the_keys_dialog(console: SimConsole) -> None:
    """Issue 32: "keep updating while any dialog is open": a job that ends while ``?`` covers the
    pipeline view shows under it, and its status line's data age stays young."""
    server = console.server
    pipeline = await create_pipeline(server, [{"name": "build", "jobs": [{"name": "compile", "duration": 30}]}])
    compile_id = pipeline["jobs"][0]["id"]
    async with console.run(size=(80, 24)) as (app, pilot):
        view = await open_pipeline(app, pilot, pipeline["id"])
        view.active_interval = 0.3
        await pilot.press("question_mark")
        await wait_until(pilot, lambda: isinstance(app.screen, KeysScreen), what="the keys dialog")
        loads = view.load_count
        await advance(server, 45)
        await wait_until(pilot, lambda: any(job.id == compile_id and job.status == "success" for job in view.jobs),
                         limit=15, what="compile's end read under the dialog")
        assert view.load_count > loads and isinstance(app.screen, KeysScreen)
        await pilot.pause(1.2)
        assert shown(view, "age") == "data <10s"


async def test_at_high_latency_the_board_shows_rows_as_the_first_pages_arrive(behind_switch: Any,
                                                                              console: SimConsole) -> None:
    """Issue 32: at 3 s a request the board's first rows came 36 s after ``0``: a step's reads
    were all awaited (deep reads of partial pipelines, the activity check) before anything was
    shown. Rows now show as each project's first page arrives, long before the round completes."""
    server, switch, via = behind_switch
    latency = 1.0
    board_settings = BoardSettings(interval=5.0, requests_per_minute=600, max_in_flight=4)
    async with console.run(via=via, board=board_settings, size=(120, 40)) as (app, pilot):
        await settle(app, pilot)
        switch.set("latency", seconds=latency)
        began = time.monotonic()
        await pilot.press("0")
        board = app.screen
        assert isinstance(board, BoardScreen)
        await wait_until(pilot, lambda: board.table.row_count > 0, limit=60, what="the first rows")
        first_rows = time.monotonic() - began
        await wait_until(pilot, lambda: "nothing failing" in board.context_text or "failed ·" in board.context_text,
                         limit=90, what="the first round complete")
        complete = time.monotonic() - began
        # The listing, then a project's first page (and its pipelines-API question): a few latencies,
        # not the whole step's worth.
        assert first_rows <= 5 * latency + 1.5, (first_rows, complete)
        assert first_rows < complete


def test_a_reason_gives_way_short_form_then_countdown_then_cut() -> None:
    """What the server answered stays as long as the room allows (the data age beside it first)."""
    long = "the server answered a web page, not the API: a sign-in or proxy page? — retrying in 36 s"
    assert short_trouble(long, 200) == long
    assert short_trouble(long, 45) == "a web page, not the API — retrying in 36 s"
    assert short_trouble(long, 30) == "a web page, n… — retry in 36 s"  # when, rather than all of what
    assert short_trouble(long, 26) == "a web page, not the API"
    assert short_trouble(long, 12) == "a web page,…"
    assert short_trouble("502 Bad Gateway (nginx) — retrying in 8 s", 20) == "502 Bad Gateway (ng…"


LONG_PROFILE = "platform-production-eu-west-1-primary-cluster-a"


@pytest.mark.parametrize("fault", ["pass", "bad_gateway"])
@pytest.mark.usefixtures("quick_gate")
async def test_a_long_profile_name_gives_way_to_the_data_age(behind_switch: Any, console: SimConsole,
                                                             fault: str) -> None:
    """Issue 32 (leftover): at 80 columns a long profile name pushed the data age off the status
    line (``oldest 3…``, ``data 40s · err…``). The name gives way (ellipsis) first; the age and
    what the server answered stay whole."""
    server, switch, via = behind_switch
    async with console.run(via=via, board=FAST, size=(80, 24), profile=LONG_PROFILE) as (app, pilot):
        board = await open_board_storm_safe(app, pilot)
        if fault != "pass":
            switch.set(fault)
            await wait_until(pilot, lambda: "502" in shown(board, "health"), limit=15, what="the storm said")
        await drawn(pilot)
        await pilot.pause(1.2)  # a tick of the clock after the last change
        await drawn(pilot)
        assert shown(board, "age").startswith(("oldest", "data"))
        assert [part for part in cut_parts(board) if not part.startswith("profile")] == []
        status = next(iter(StatusLine.on_screen(board)))
        profile = status._part("profile")
        assert profile.region.right <= status.region.right
        assert "…" in str(profile.render()) or profile.content_region.width >= cell_len(LONG_PROFILE)
        if fault != "pass":
            assert "502" in str(status._part("health").render())


def test_a_countdown_keeps_its_place_before_the_server_s_name() -> None:
    """The server's name in brackets gives way before when the next try is (80 columns)."""
    assert short_trouble("502 Bad Gateway (nginx) — retrying in 44 s", 36) == "502 Bad Gateway — retrying in 44 s"
    assert short_trouble("502 Bad Gateway (nginx) — retrying in 44 s", 31) == "502 Bad Gateway — retry in 44 s"
    assert short_trouble("offline — retrying in 23 s", 30) == "offline — retrying in 23 s"


def test_a_reason_cut_short_keeps_its_countdown_whole() -> None:
    """Where the short form and the countdown do not fit side by side, the reason is said shorter
    still, then cut; the countdown stays whole (issue 29.5)."""
    wrong = "the server's answer was not what the API returns — retrying in 12 s"
    assert keep_countdown(wrong, 40) == "not the API's answer — retry in 12 s"
    assert keep_countdown(wrong, 30) == "not the API — retry in 12 s"
    assert keep_countdown(wrong, 22) == "not t… — retry in 12 s"
    assert keep_countdown(wrong, 18) is None  # not even a few cells of the reason: said some other way
    assert keep_countdown("502 Bad Gateway (nginx) — retrying in 8 s", 28) == "502 Bad Gate… — retry in 8 s"
    assert keep_countdown("token refused (401)", 10) is None  # no countdown to keep


COUNTDOWN = re.compile(r"retry(ing)? in \d+ s|retrying now")


@pytest.mark.parametrize("fault", ["bad_gateway", "refused"])
async def test_at_80_columns_the_status_line_says_when_the_next_try_is(behind_switch: Any, console: SimConsole,
                                                                       fault: str) -> None:
    """Issue 32 (leftover, point 3): at 80 columns the status line dropped the countdown
    (``◌ offline data 1m``, ``✕ 502 Bad Gateway (nginx) data 1m``), and the jobs screen's header
    says none: nothing on screen said when the next try is. The instance and the profile give way
    to it; the data age stays whole."""
    server, switch, via = behind_switch
    async with console.run(via=via, board=FAST, size=(80, 24)) as (app, pilot):
        board = await open_board_storm_safe(app, pilot)
        switch.set(fault)
        await wait_until(pilot, lambda: COUNTDOWN.search(shown(board, "health")) is not None, limit=15,
                         what="the countdown on an 80-column status line")
        said = []
        for _ in range(24):  # a few seconds of the storm: the countdown is on the line all along
            await pilot.pause(0.25)
            said.append(shown(board, "health"))
        assert all(COUNTDOWN.search(text) for text in said), said
        assert shown(board, "age").startswith(("oldest", "data"))
        assert [part for part in cut_parts(board) if not part.startswith("profile")] == [], cut_parts(board)
        switch.set("pass")


async def test_ctrl_r_after_a_storm_clears_the_board_at_once(behind_switch: Any, console: SimConsole,
                                                             gate_timing: Callable[[float, float], None]) -> None:
    """Issue 32 (leftover): after a 502 storm cleared, the board said the 502 until its next try,
    up to a minute later; and once a read got through (``ctrl+r``, another screen), the board's own
    reads still waited out a back-off of their own: tried in tmux, ``● online`` on the status line
    and ``502 Bad Gateway (nginx) · last rows kept (stale)`` in the header for 18 s more. Now
    ``ctrl+r`` tries at once and the board's reads follow the first good answer."""
    server, switch, via = behind_switch
    gate_timing(16.0, 60.0)  # a long wait from the first failures on, not after half a minute of storm
    async with console.run(via=via, size=(120, 40)) as (app, pilot):
        board = await open_board_storm_safe(app, pilot)
        switch.set("bad_gateway")
        await wait_until(pilot, lambda: (app.client.retry_in or 0.0) > 10 and "502 Bad Gateway" in board.context_text,
                         limit=60, what="a long wait, said in the header")
        switch.set("pass")
        await pilot.press("ctrl+r")
        began = time.monotonic()
        await wait_until(pilot, lambda: "502" not in board.context_text and "online" in shown(board, "health"),
                         limit=12, what="the board clear of the storm")
        assert time.monotonic() - began < 6, time.monotonic() - began
