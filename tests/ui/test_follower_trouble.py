"""The log viewer in bad weather (issue 32.6, 32.7), through the fault-switching proxy: its
"disconnected" note goes with the first good read (a 304 included), and a viewer left behind by
``0`` reads nothing until it is shown again."""

from __future__ import annotations

import time
from typing import Any

import pytest

from labdeck.sim.core.state import Token
from labdeck.ui.screens.jobs.trace import TraceScreen
from tests.support.fault_switch import FaultSwitch
from tests.support.pilot import settle, wait_until
from tests.ui.conftest import SimConsole
from tests.ui.jobs_support import (
    append_trace,
    follow_quiet_job,
    header_text,
    shown_text,
)


def _job_reads(switch: FaultSwitch, job_id: int, since: float) -> list[tuple[float, str, str, int]]:
    return [item for item in switch.api_requests(since) if f"/jobs/{job_id}" in item[2]]


async def test_the_outage_note_goes_with_the_first_good_read_even_a_304(behind_switch: Any,
                                                                        console: SimConsole) -> None:
    """The issue's case: the token refused while the log is followed, then given again; every read
    after that answers 304 (nothing new), and the note goes with the first of them."""
    server, switch, via = behind_switch
    async with console.run(via=via, size=(120, 40)) as (app, pilot):
        screen, job_id = await follow_quiet_job(app, pilot, server)
        switch.set("revoked")
        await wait_until(pilot, lambda: "stopped until the token is given again" in header_text(screen),
                         limit=15, what="the log viewer's note")
        refused = time.monotonic()
        await pilot.pause(2.0)
        assert len(_job_reads(switch, job_id, refused)) <= 1  # stopped by the 401, not polling through it
        renewed = "labdeck-renewed-admin-token-3"
        root = next(user for user in server.state.users.values() if user.username == "root")
        server.state.tokens[renewed] = Token(renewed, root.id, ("api", "sudo"), "renewed")
        switch.set("pass")
        back = time.monotonic()
        await app._replace_token(type(app.session.token)(renewed))  # what the sign-in dialog does
        # (The sign-in dialog is still on top here: the header's "token refused" part, the client's
        # health, is the status line's business; the follower's own note must go.)
        await wait_until(pilot, lambda: not any(word in screen.note for word in ("retrying", "disconnected",
                                                                                 "stopped")),
                         limit=10, what="the note gone")
        reads = _job_reads(switch, job_id, back)
        trace_reads = [status for _, _, path, status in reads if path.endswith("/trace")]
        assert trace_reads and set(trace_reads) == {304}  # nothing new: the good reads were 304s
        assert time.monotonic() - min(t for t, *_ in reads) < 2.0  # gone with them, not 45 s later


async def test_a_log_left_behind_by_0_reads_nothing_until_shown_again(behind_switch: Any,
                                                                      console: SimConsole) -> None:
    server, switch, via = behind_switch
    async with console.run(via=via, size=(120, 40)) as (app, pilot):
        screen, job_id = await follow_quiet_job(app, pilot, server)
        mode = app.current_mode
        await pilot.press("0")
        await wait_until(pilot, lambda: app.current_mode == "board", what="the board")
        await pilot.pause(0.5)  # a read under way ends
        left = time.monotonic()
        switch.set("revoked")  # the token refused meanwhile, as in the issue: still no reads
        await pilot.pause(3.0)
        assert _job_reads(switch, job_id, left) == []
        switch.set("pass")
        await app.switch_mode(mode)
        back = time.monotonic()
        await append_trace(server, job_id, b"while away\n")
        await wait_until(pilot, lambda: "while away" in "\n".join(shown_text(screen.view)), limit=10,
                         what="the log going on once shown again")
        assert _job_reads(switch, job_id, back)


async def test_the_jobs_screen_backs_off_when_connections_are_refused(behind_switch: Any,
                                                                      console: SimConsole) -> None:
    """Issue 32.3: with the server gone the jobs screen made 63 connection attempts a minute,
    evenly spaced; now every read waits for one gate, waits growing."""
    from tests.ui.jobs_support import open_jobs

    server, switch, via = behind_switch
    async with console.run(via=via, size=(120, 40)) as (app, pilot):
        await settle(app, pilot)
        await open_jobs(app, pilot, interval=1.0)
        sent: list[float] = []

        async def note(_request: Any) -> None:
            sent.append(time.monotonic())

        app.client.http.event_hooks["request"].append(note)
        switch.set("refused")
        began = time.monotonic()
        try:
            await pilot.pause(12)
        finally:
            switch.set("pass")
        window = [t - began for t in sent if t - began <= 12]
        gaps = [round(b - a, 2) for a, b in zip(window, window[1:], strict=False)]
        assert len(window) <= 7, gaps  # 5 now (it was 21 in 20 s: one a second)
        # the silence after the last attempt is a wait too (a slow machine may fit only four tries)
        waits = [*gaps, round(12 - window[-1], 2)]
        assert max(waits) >= 2.5, waits  # growing, not every second


def _mark(screen: TraceScreen) -> str:
    """The header's first part: ``● live``, ``◌ not updating: …``, ``■ ended``…"""
    return header_text(screen).split(" │ ", 1)[0]


@pytest.mark.parametrize(("fault", "said"), [("bad_gateway", "server errors (502)"),
                                             ("refused", "no answer"),
                                             ("revoked", "token refused")])
async def test_the_header_stops_saying_live_while_reads_fail(behind_switch: Any, console: SimConsole,
                                                             fault: str, said: str) -> None:
    """Issue 32 (leftover): through a 502 storm, refused connections or a refused token, the log
    viewer's header kept ``● live`` (the failure only at the end of the line, cut at 80 columns).
    Now its first words say that the log is not updating and why, and ``● live`` comes back with
    the first good read."""
    server, switch, via = behind_switch
    async with console.run(via=via, size=(80, 24)) as (app, pilot):
        screen, job_id = await follow_quiet_job(app, pilot, server)
        await wait_until(pilot, lambda: _mark(screen).startswith("● live"), what="live before the fault")
        switch.set(fault)
        await wait_until(pilot, lambda: "not updating" in _mark(screen), limit=20,
                         what=f"the header saying the log is not updating ({fault})")
        assert "● live" not in header_text(screen)
        assert said in _mark(screen), _mark(screen)
        switch.set("pass")
        if fault == "revoked":
            renewed = "labdeck-renewed-admin-token-4"
            root = next(user for user in server.state.users.values() if user.username == "root")
            server.state.tokens[renewed] = Token(renewed, root.id, ("api", "sudo"), "renewed")
            await app._replace_token(type(app.session.token)(renewed))
        await append_trace(server, job_id, b"after the storm\n")
        await wait_until(pilot, lambda: _mark(screen).startswith("● live"), limit=40,
                         what="live again with the first good read")
        await wait_until(pilot, lambda: "after the storm" in "\n".join(shown_text(screen.view)), limit=10,
                         what="the log going on")
