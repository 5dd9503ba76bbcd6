"""The client under server trouble, through the fault-switching proxy (issue 24): one back-off for
every read while the server fails, nginx's page said in a few words, connections kept across the
poller's rounds (plain HTTP and TLS), the start-up check in one round trip."""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Callable
from pathlib import Path

import httpx
import pytest

from labdeck.api import ApiClient, errors
from labdeck.api.transport import DEFAULT_LIMITS, READ_KEEPALIVE, WRITE_KEEPALIVE, WRITE_LIMITS
from labdeck.base.secret import Secret
from labdeck.sim.server import SimServer
from labdeck.watch.poller import BoardPoller
from labdeck.watch.settings import PollerSettings
from tests.support.fake_time import VirtualTime
from tests.support.fault_switch import NGINX_502, FaultSwitch, server_context


def test_nginx_page_is_said_in_a_few_words() -> None:
    page = NGINX_502.decode()
    assert errors.html_page_summary(page) == "502 Bad Gateway (nginx)"
    assert errors.html_page_summary(page.replace("<center>nginx</center>", "<center>nginx/1.25.3</center>")) == \
        "502 Bad Gateway (nginx)"
    assert errors.html_page_summary("<html><body><h1>503 Service Unavailable</h1></body></html>", "uvicorn") == \
        "503 Service Unavailable (uvicorn)"
    assert errors.html_page_summary('{"message": "x"}') is None
    assert errors.server_message(page, "HTTP 502") == "502 Bad Gateway (nginx)"


def _client(fault_switch: FaultSwitch, token: str, clock: VirtualTime) -> ApiClient:
    """A client whose waits run on virtual time (``clock``), its requests real."""
    return ApiClient(fault_switch.url, Secret(token), transport=clock.transport(), retry=clock.policy())


def _sent_at(client: ApiClient, clock: VirtualTime) -> list[float]:
    """When each request left, on ``clock`` (httpx's request hook runs for every attempt)."""
    sent: list[float] = []

    async def note(_request: httpx.Request) -> None:
        sent.append(clock.clock())

    client.http.event_hooks["request"].append(note)
    return sent


async def test_a_502_storm_is_one_short_error_and_the_client_backs_off(fault_switch: FaultSwitch,
                                                                        tokens: dict[str, str]) -> None:
    fault_switch.set("bad_gateway")
    arrived = time.monotonic()
    said: list[str] = []
    clock = VirtualTime()  # real requests, waits on virtual time: 12 s of storm in a blink
    async with _client(fault_switch, tokens["admin"], clock) as client, clock.running():
        sent = _sent_at(client, clock)

        async def reader(n: int) -> None:
            while True:
                try:
                    await client.projects.get(1 + n % 3)
                except errors.ApiError as error:
                    said.append(error.user_message())
                await clock.sleep(0.05)  # six screens and the poller asking as fast as they can

        readers = [asyncio.create_task(reader(n)) for n in range(6)]
        await clock.sleep(12)  # the storm as the console lives it: 12 s of asking
        for task in readers:
            task.cancel()
        await asyncio.gather(*readers, return_exceptions=True)
        assert client.health.reason == "502 Bad Gateway (nginx)" and client.health.retry_at is not None
    assert len(fault_switch.api_requests(since=arrived)) <= 6 + 7, sent  # as the server counted them
    # The six first reads leave together (nothing failed yet); then one probe at a time, 0.25–0.5,
    # 0.5–1, 1–2, 2–4, 4–8 s apart: a handful in 12 s, however many ask.
    storm = [t for t in sent if t <= 12]
    later = [t for t in storm if t > 1.0]
    assert len(storm) <= 6 + 7 and 2 <= len(later) <= 5, [round(t, 2) for t in sent]
    gaps = [b - a for a, b in zip(storm[6:], storm[7:], strict=False)]
    assert all(gap >= 0.2 for gap in gaps), gaps  # one probe at a time, never two together
    assert said and all("502 Bad Gateway (nginx)" in text and "<" not in text for text in said)


async def test_reads_wait_for_one_probe_then_all_go_when_the_server_is_back(fault_switch: FaultSwitch,
                                                                             tokens: dict[str, str]) -> None:
    fault_switch.set("bad_gateway")
    clock = VirtualTime()
    async with _client(fault_switch, tokens["admin"], clock) as client, clock.running():
        with pytest.raises(errors.ServerError):
            await client.projects.get(1)  # four attempts, the gate's waits between them
        failures = client.gate.failures
        assert failures >= 3 and client.gate.wait() > 0
        fault_switch.set("pass")
        await clock.sleep(client.gate.wait())
        started = clock.clock()
        results = await asyncio.gather(*(client.projects.get(pid) for pid in (1, 2, 3, 1, 2, 3)))
        assert [p.id for p in results] == [1, 2, 3, 1, 2, 3] and client.gate.closed
        assert clock.clock() - started < 5
        assert client.health.state == "ok" and client.health.reason is None


async def test_a_429_holds_every_read_for_retry_after(fault_switch: FaultSwitch, tokens: dict[str, str]) -> None:
    fault_switch.set("rate_limited", retry_after=2)
    clock = VirtualTime()
    async with _client(fault_switch, tokens["admin"], clock) as client, clock.running():
        first = asyncio.create_task(client.projects.get(1))
        await clock.sleep(0.3)
        assert client.health.reason == "rate limited" and client.health.retry_at is not None
        fault_switch.set("pass")
        began = clock.clock()
        second = await client.projects.get(2)  # waits for the same Retry-After, no request meanwhile
        assert second.id == 2 and (await first).id == 1
        assert clock.clock() - began >= 1.0


def _connections_over(client_calls: int, gap: float, proxy: FaultSwitch, client: ApiClient) -> int:
    async def run() -> None:
        for call in range(client_calls):
            if call:
                await asyncio.sleep(gap)  # real time: httpx's keep-alive expiry runs on it
            await client.users.current()

    asyncio.run(run())
    return proxy.connections


def test_reads_keep_their_connection_across_poll_rounds(fault_switch: FaultSwitch, tokens: dict[str, str]) -> None:
    """The board polls every 5 s: a kept connection must outlive that (it used to expire after 4 s)."""
    assert DEFAULT_LIMITS.keepalive_expiry == READ_KEEPALIVE > 30
    assert WRITE_LIMITS.keepalive_expiry == WRITE_KEEPALIVE < 5  # a change never meets a closing one
    client = ApiClient(fault_switch.url, Secret(tokens["admin"]))
    assert _connections_over(2, 5.5, fault_switch, client) == 1  # one poll gap outlived


def test_over_tls_an_idle_board_makes_no_new_handshake_per_poll(sim_factory: Callable[..., SimServer],
                                                                 tokens: dict[str, str], tmp_path: Path) -> None:
    """The board left open over HTTPS: at most 2 new TLS connections a minute (one here)."""
    from tests.support.pki import self_signed

    server = sim_factory()
    cert, key = self_signed(tmp_path)
    with FaultSwitch(server.base_url, tls=server_context(cert, key)) as switch:
        client = ApiClient(switch.url, Secret(tokens["admin"]), ca_file=str(cert))
        poller = BoardPoller(client, PollerSettings(interval=5.0))
        poller.subscribe_board(lambda snapshot: None, watched=[1, 2, 3])

        counts: list[int] = []

        async def idle() -> None:
            task = asyncio.create_task(poller.run())
            await asyncio.sleep(6)  # the first round opens a connection per read in flight
            counts.append(switch.connections)
            await asyncio.sleep(11)  # then two rounds of an idle board (a 4 s expiry: two handshakes)
            counts.append(switch.connections)
            poller.stop()
            await task
            await client.aclose()

        began = time.monotonic()
        asyncio.run(idle())
        idle_reads = [item for item in switch.api_requests() if item[0] >= began + 6]
        assert len(idle_reads) >= 4, idle_reads  # it did poll, round after round
        assert counts[1] - counts[0] <= 1, (counts, len(idle_reads))  # ≤ 2 a minute: none here


def test_the_start_up_check_is_one_round_trip(fault_switch: FaultSwitch, tokens: dict[str, str]) -> None:
    from labdeck.auth.probe import check_token, tls_settings

    fault_switch.set("latency", seconds=0.5)
    check = check_token(fault_switch.url, Secret(tokens["admin"]), tls_settings(), read_only=True)
    assert check.user.outcome == "ok"
    assert [(method, path) for _, method, path, _ in fault_switch.api_requests()] == [("GET", "/api/v4/user")]


async def test_try_now_sends_the_next_probe_at_once_but_never_faster_than_30_a_minute(
        fault_switch: FaultSwitch, tokens: dict[str, str]) -> None:
    """Issue 32 (leftover): after a storm cleared, the screens said the 502 until the next probe,
    up to a minute later. ``ctrl+r`` (:meth:`try_now`) ends the wait: the next read tests the server
    now. Pressed again and again it sends no more than one probe every 2 s (30 a minute), never two
    at once, and never cuts a wait the server asked for (``Retry-After``)."""
    fault_switch.set("bad_gateway")
    clock = VirtualTime()
    async with _client(fault_switch, tokens["admin"], clock) as client, clock.running():
        sent = _sent_at(client, clock)
        for _ in range(8):  # the waits grow past 10 s
            with pytest.raises(errors.ServerError):
                await client.projects.get(1)
            if (client.retry_in or 0.0) > 10:
                break
        assert (client.retry_in or 0.0) > 10
        # Pressed every 0.1 s for 10 s in the storm: 2 s apart at most, one at a time.
        began = clock.clock()
        while clock.clock() - began < 10:
            client.try_now()
            assert client.health.retry_at is not None
            with contextlib.suppress(errors.ApiError):
                await client.projects.get(1)
            await clock.sleep(0.1)
        pressed = [t for t in sent if t >= began]
        assert 3 <= len(pressed) <= 6, [round(t - began, 2) for t in pressed]
        assert all(b - a >= 1.99 for a, b in zip(pressed, pressed[1:], strict=False)), pressed
        # The storm is over: one press, and the next read answers (no 30–60 s wait).
        fault_switch.set("pass")
        await clock.sleep(2)
        assert (client.retry_in or 0.0) > 0.5 or client.gate.closed
        client.try_now()
        started = clock.clock()
        project = await client.projects.get(1)
        assert project.id == 1 and client.gate.closed and clock.clock() - started < 0.1
        assert client.health.state == "ok"
        # A wait the server asked for is never cut short.
        fault_switch.set("unavailable", retry_after=20)
        with pytest.raises(errors.ApiError):
            await client.projects.get(1)
        asked = client.retry_in or 0.0
        client.try_now()
        assert (client.retry_in or 0.0) >= min(asked, 15), (asked, client.retry_in)
