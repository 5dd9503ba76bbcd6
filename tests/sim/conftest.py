"""Helpers for the simulator tests: httpx clients bound to a simulator and a demo role."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import httpx
import pytest

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
