"""Back-off on every kind of failure (issue 32.3): refused connections and resets go through the
same gate as a 502 — at most 30 attempts a minute however many screens ask, waits growing to a
minute with jitter, one request at a time testing the server, and the time of the next try known.

The requests are real (loopback, through the fault switch); the waits run on virtual time
(:class:`VirtualTime`), so a minute of back-off takes a second or two."""

from __future__ import annotations

import asyncio
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
        # Four at once, then 0.25–0.5, 0.5–1, 1–2, 2–4 s apart: not 4 × 20 a second.
        assert len(times) <= 4 + 5, times
        assert len(fault_switch.api_requests(since=arrived)) <= 4 + 5, times  # as the server counted them
        assert all(b - a >= 0.2 for a, b in zip(times[4:], times[5:], strict=False)), times
        posted = _monotonic()
        with pytest.raises(errors.OutcomeUnknown):
            await client.jobs.cancel(1, job.id)  # sent, then the connection dropped: unknown
        assert [method for _, method, *_ in fault_switch.api_requests(since=posted)] == ["POST"]
