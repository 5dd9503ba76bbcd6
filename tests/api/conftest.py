"""Fixtures for the API integration tests: clients bound to the shared or a private simulator."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest

from labdeck.api import ApiClient
from labdeck.base.secret import Secret


def client_for(server: Any, token: str | None, **kwargs: Any) -> ApiClient:
    return ApiClient(server.base_url, Secret(token) if token else None, **kwargs)


@pytest.fixture
async def admin(sim: Any, tokens: dict[str, str]) -> AsyncIterator[ApiClient]:
    """Admin client on the shared simulator."""
    async with client_for(sim, tokens["admin"]) as client:
        yield client


@pytest.fixture
async def user(sim: Any, tokens: dict[str, str]) -> AsyncIterator[ApiClient]:
    """The ``alice`` client on the shared simulator."""
    async with client_for(sim, tokens["user"]) as client:
        yield client


@pytest.fixture
async def private_admin(sim_factory: Callable[..., Any], tokens: dict[str, str]) -> AsyncIterator[ApiClient]:
    """Admin client on a private simulator (for tests that change data)."""
    server = sim_factory()
    async with client_for(server, tokens["admin"]) as client:
        client.server = server  # type: ignore[attr-defined]
        yield client
