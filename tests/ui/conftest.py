"""Helpers for the console tests: build a LabdeckApp against a simulator over real HTTP."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from labdeck.api import ApiClient, RetryPolicy
from labdeck.base.secret import Secret
from labdeck.base.session import Session
from labdeck.base.statefile import StateStore
from labdeck.sim.server import SimServer
from labdeck.ui.app import LabdeckApp
from labdeck.ui.dialogs.confirm import ConfirmScreen
from labdeck.ui.ui_state import UiState

MakeApp = Callable[..., LabdeckApp]


@pytest.fixture
def no_confirm_guard(monkeypatch: pytest.MonkeyPatch) -> None:
    """Let tests press Confirm at once (the 500 ms guard has its own test)."""
    monkeypatch.setattr(ConfirmScreen, "GUARD_SECONDS", 0.0)


@pytest.fixture
def state_path(tmp_path: Path) -> Path:
    return tmp_path / "state.json"


@pytest.fixture
def make_app(tokens: dict[str, str], state_path: Path) -> Iterator[MakeApp]:
    """``make_app(server, role="admin", **session_fields)`` → a LabdeckApp using the server's clock."""

    def make(server: SimServer, role: str = "admin", *, token: str | None = None, fast_retry: bool = False,
             **fields: Any) -> LabdeckApp:
        session = Session(base_url=server.base_url, token=Secret(token or tokens[role]),
                          profile=fields.pop("profile", "test"), **fields)
        client = None
        if fast_retry:
            async def no_sleep(seconds: float) -> None:
                return None

            client = ApiClient(server.base_url, session.token, read_only=session.read_only,
                               retry=RetryPolicy(sleep=no_sleep))
        return LabdeckApp(session, client=client, clock=server.state.clock.now,
                          ui_state=UiState(StateStore(state_path)))

    yield make
