"""A read waiting for its turn in the board's budget has not left yet: the server is not "not
answering" it (the status line said `no answer for 24 s` on a 2,000-project board while triage's
reads waited for spare tokens), and the wait is not taken from the read's time budget (a wait past
it gave up the read as `no answer within 30 s` and held every read back as if the server were gone)."""

from __future__ import annotations

import asyncio
import time

import pytest

from labdeck.api import ApiClient, RetryPolicy, exchange
from labdeck.base.secret import Secret
from labdeck.sim.dataset.build import DEMO_TOKENS
from labdeck.sim.server import SimServer
from labdeck.watch.budget import PollStats, RequestBudget
from labdeck.watch.clock import ServerClock
from labdeck.watch.tap import WireTap


async def test_a_read_held_for_its_turn_is_not_an_unanswered_one(sim: SimServer,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(exchange, "SLOW_ANSWER", 0.3)
    # Two a second, and none to spare for 1.5 s: a read the poller did not plan leaves half the
    # burst to the board's own and takes the third token.
    budget = RequestBudget(120, burst=4)
    while budget.try_take():
        pass
    policy = RetryPolicy(budget=0.8)
    async with ApiClient(sim.base_url, Secret(DEMO_TOKENS["admin"]), retry=policy) as client:
        tap = WireTap(budget, ServerClock(), PollStats())
        tap.install(client.http)
        states: list[str] = []

        async def read() -> object:
            with tap.attributed("triage", pay=True):
                return await client.get("/projects/1", dict)

        task = asyncio.ensure_future(read())
        began = time.monotonic()
        while not task.done():
            states.append(client.health.state)
            await asyncio.sleep(0.05)
        project = task.result()  # not given up as "no answer within 0.8 s"
        assert time.monotonic() - began >= 1.2  # it did wait for its turn
        assert project is not None
        assert set(states) == {"ok"}, states
