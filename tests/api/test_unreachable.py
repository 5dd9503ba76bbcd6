"""Back-off on every kind of failure (issue 32.3): refused connections and resets go through the
same gate as a 502 — at most 30 attempts a minute however many screens ask, waits growing to a
minute with jitter, one request at a time testing the server, and the time of the next try known.

The requests are real (loopback, through the fault switch); the waits run on virtual time
(:class:`VirtualTime`), so a minute of back-off takes a second or two."""

from __future__ import annotations

import asyncio
import contextlib
from time import monotonic as _monotonic

import httpx
import pytest

from labdeck.api import ApiClient, errors
from labdeck.base.secret import Secret
from tests.support.fake_time import VirtualTime
from tests.support.fault_switch import FaultSwitch


def _client(fault_switch: FaultSwitch, token: str, time: VirtualTime) -> ApiClient:
    """A client whose waits (the gate's, the retries') run on ``time``, its requests real."""
    return ApiClient(fault_switch.url, Secret(token), transport=time.transport(), retry=time.policy())


def _count_attempts(client: ApiClient, time: VirtualTime) -> list[float]:
    """When each request left (httpx's request hook runs for every attempt, refused ones too)."""
    sent: list[float] = []

    async def note(_request: httpx.Request) -> None:
        sent.append(time.clock())

    client.http.event_hooks["request"].append(note)
    return sent


async def _ask(client: ApiClient, time: VirtualTime, until: float, said: list[str]) -> None:
    """A screen or the poller asking as fast as it can."""
    while time.clock() < until:
        try:
            await client.projects.get(1)
        except errors.ApiError as error:
            said.append(error.user_message())
        await time.sleep(0.05)


async def test_a_minute_of_refused_connections_costs_at_most_30_attempts(fault_switch: FaultSwitch,
                                                                        tokens: dict[str, str]) -> None:
    time = VirtualTime()
    async with _client(fault_switch, tokens["admin"], time) as client, time.running():
        await client.projects.get(1)
        sent = _count_attempts(client, time)
        fault_switch.set("refused")
        began = time.clock()
        said: list[str] = []
        waits: list[float] = []

        async def watch() -> None:
            while time.clock() - began < 60:
                if client.retry_in is not None:
                    waits.append(client.retry_in)
                await time.sleep(0.5)

        await asyncio.gather(*(_ask(client, time, began + 60, said) for _ in range(6)), watch())
        spacing = [round(b - a, 2) for a, b in zip(sent, sent[1:], strict=False)]
        assert len(sent) <= 30, spacing
        # After the first burst (every reader at once, before anything failed), one at a time and
        # ever further apart: the last gaps are tens of seconds, not the 1 s of a fixed retry.
        later = [gap for gap in spacing if gap > 0.1]
        assert all(gap >= 0.2 for gap in later) and max(later) >= 15, spacing
        assert len(sent) - len(later) <= 6, spacing
        assert max(waits) > 10  # the screens can say "retrying in 12 s"
        assert said and all("Cannot reach the server" in text for text in said)
        assert client.health.retry_at is not None and client.health.reason is None  # no answer came
        fault_switch.set("pass")
        await time.sleep(client.retry_in or 0)
        assert (await client.projects.get(1)).id == 1 and client.retry_in is None
        assert client.health.state == "ok"


async def test_resets_are_held_back_too_and_a_post_is_never_replayed(fault_switch: FaultSwitch,
                                                                     tokens: dict[str, str]) -> None:
    time = VirtualTime()
    async with _client(fault_switch, tokens["admin"], time) as client, time.running():
        job = (await client.jobs.list(1).first_page())[0]
        sent = _count_attempts(client, time)
        fault_switch.set("reset")
        began, arrived = time.clock(), _monotonic()
        said: list[str] = []
        readers = [asyncio.create_task(_ask(client, time, began + 8, said)) for _ in range(4)]
        await time.sleep(8)
        for task in readers:  # the screens go away; readers still waiting are not left to finish
            task.cancel()
        await asyncio.gather(*readers, return_exceptions=True)
        times = [round(t - began, 2) for t in sent]
        # Four at once and one of them again at once (a kept connection the server has just
        # closed fails the same way), then 0.25–0.5, 0.5–1, 1–2, 2–4 s apart: not 4 × 20 a second.
        assert len(times) <= 4 + 1 + 5, times
        assert len(fault_switch.api_requests(since=arrived)) <= 4 + 1 + 5, times  # as the server counted them
        assert all(b - a >= 0.2 for a, b in zip(times[5:], times[6:], strict=False)), times
        posted = _monotonic()
        with pytest.raises(errors.OutcomeUnknown):
            await client.jobs.cancel(1, job.id)  # sent, then the connection dropped: unknown
        assert [method for _, method, *_ in fault_switch.api_requests(since=posted)] == ["POST"]


class _ClosingKeptConnections:
    """A server that answers the first request of each connection (kept alive, as HTTP/1.1 says)
    and closes the connection when the next one arrives on it: its idle timeout firing just as the
    client reuses the connection (uvicorn's is 5 s, as long as httpx's own keep-alive)."""

    def __init__(self) -> None:
        self.connections = 0
        self.server: asyncio.Server | None = None

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.connections += 1
        await reader.readuntil(b"\r\n\r\n")
        body = b'{"version": "17.0.0", "revision": "abc"}'
        writer.write(b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: "
                     + str(len(body)).encode() + b"\r\n\r\n" + body)
        await writer.drain()
        with contextlib.suppress(Exception):
            await reader.readuntil(b"\r\n\r\n")
        writer.close()

    async def __aenter__(self) -> str:
        self.server = await asyncio.start_server(self._serve, "127.0.0.1", 0)
        port = self.server.sockets[0].getsockname()[1]
        return f"http://127.0.0.1:{port}"

    async def __aexit__(self, *exc: object) -> None:
        assert self.server is not None
        self.server.close()


async def test_a_kept_connection_the_server_just_closed_is_not_taken_for_the_server_gone() -> None:
    # In tmux the board said "Cannot reach the server" for a few seconds, twice in ten minutes,
    # against a simulator that was up: a read had gone out on a connection the server was closing.
    server = _ClosingKeptConnections()
    async with server as url, ApiClient(url, Secret("glpat-some-token")) as client:
        for _ in range(3):
            assert (await client.version()).version == "17.0.0"
            assert client.health.state == "ok" and client.gate.failed_at == 0.0
    assert server.connections == 3
