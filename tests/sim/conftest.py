"""Helpers for the simulator tests: httpx clients bound to a simulator and a demo role, and a shared
simulator of the gitlab dialect."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import httpx
import pytest

from labdeck.sim.core.clock import SimClock
from labdeck.sim.server import SimServer


@pytest.fixture
def api(sim: SimServer, tokens: dict[str, str]) -> Iterator[Callable[..., httpx.Client]]:
    """``api("user")`` → an httpx client on the shared simulator's /api/v4 with that role's token;
    ``api(None)`` is anonymous; ``api("user", server=other)`` targets another simulator."""
    clients: list[httpx.Client] = []

    def make(role: str | None = "user", server: SimServer | None = None) -> httpx.Client:
        headers = {"PRIVATE-TOKEN": tokens[role]} if role else {}
        client = httpx.Client(base_url=(server or sim).api_url + "/", headers=headers, timeout=10)
        clients.append(client)
        return client

    yield make
    for client in clients:
        client.close()


@pytest.fixture(scope="session")
def sim_gitlab() -> Iterator[SimServer]:
    """A shared simulator of the gitlab dialect (manual clock, seed 42). Tests that change data or
    move its clock use ``sim_factory(dialect="gitlab")`` instead."""
    from labdeck.sim.dataset.build import build_state

    server = SimServer(build_state(seed=42, clock=SimClock(mode="manual"), dialect="gitlab")).start()
    yield server
    server.stop()


@pytest.fixture(params=["spec", "gitlab"])
def dialect(request: pytest.FixtureRequest) -> str:
    """Run a test once per dialect."""
    value: str = request.param
    return value


@pytest.fixture
def any_sim(dialect: str, sim: SimServer, sim_gitlab: SimServer) -> SimServer:
    """The shared simulator of the dialect under test (read-only tests)."""
    return sim_gitlab if dialect == "gitlab" else sim
