"""Fixtures for the console tests: a LabdeckApp against a simulator over real HTTP.

- ``console``: a private simulator of the dialect under test and the apps run against it
  (``async with console.run(size=(120, 40)) as (app, pilot)``). The dialect is ``spec`` unless a
  test asks for both with ``@both_dialects``, or for ``@gitlab_only``; ``@shared_sim`` runs it
  against the shared simulator instead of a private one.
- ``make_app(server)``: an app against any simulator (the shared ``sim``, one behind a proxy).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from labdeck.api import ApiClient, RetryPolicy
from labdeck.api.exchange import Exchange
from labdeck.base.secret import Secret
from labdeck.base.session import Session
from labdeck.base.statefile import StateStore
from labdeck.sim.server import SimServer
from labdeck.ui.app import LabdeckApp
from labdeck.ui.dialogs.confirm import ConfirmScreen
from labdeck.ui.ui_state import UiState
from tests.support.fault_switch import FaultSwitch
from tests.ui.board_support import ROOMY

MakeApp = Callable[..., LabdeckApp]

DIALECTS = ("spec", "gitlab")
both_dialects = pytest.mark.parametrize("dialect", DIALECTS)
"""Run a test once per dialect of the simulator (its ``console`` and ``dialect`` follow)."""
gitlab_only = pytest.mark.parametrize("dialect", ["gitlab"])
"""Run a test against the gitlab dialect only."""
shared_sim = pytest.mark.usefixtures("on_shared_sim")
"""Run a test's ``console`` against the shared simulator (``sim``), not a private one: for tests
that change nothing, or only what other tests tolerate."""


@pytest.fixture(autouse=True)
def quick_triage(monkeypatch: pytest.MonkeyPatch) -> None:
    """The board's triage claims a read every half second when the board leaves none to spare
    (the console waits 6 s: ``SPARE_PATIENCE``, whose pace ``tests/watch/test_budget_spare.py``
    checks). A console test that waits for verdicts, or settles while triage runs, would otherwise
    wait a minute on a small world: its board's own reads take most of the 60 a minute."""
    monkeypatch.setattr("labdeck.watch.budget.SPARE_PATIENCE", 0.5)


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


@pytest.fixture
def dialect() -> str:
    """The simulator's dialect: ``spec``, or each of ``DIALECTS`` under ``@both_dialects``."""
    return "spec"


@pytest.fixture
def on_shared_sim() -> None:
    """Asked for by ``@shared_sim``: ``console_server`` is then the shared simulator."""


@pytest.fixture
def console_server(request: pytest.FixtureRequest, dialect: str) -> SimServer:
    """The simulator ``console`` runs against: a private one per test, of the dialect under test, or
    the shared one under ``@shared_sim``. A module whose tests can share one overrides this fixture
    with a wider scope."""
    if "on_shared_sim" in request.fixturenames:
        assert dialect == "spec", "the shared simulator speaks the spec dialect"
        server: SimServer = request.getfixturevalue("sim")
        return server
    factory: Callable[..., SimServer] = request.getfixturevalue("sim_factory")
    return factory(dialect=dialect)


@pytest.fixture
def behind_switch(console_server: SimServer) -> Iterator[tuple[SimServer, FaultSwitch, SimpleNamespace]]:
    """A private simulator, the fault switch in front of it, and what ``console.run(via=…)`` needs to
    talk through the switch (the switch's URL, the simulator's clock)."""
    with FaultSwitch(console_server.base_url) as switch:
        yield console_server, switch, SimpleNamespace(base_url=switch.url, state=console_server.state)


@dataclass
class SimConsole:
    """A simulator of one dialect and the console apps run against it over real HTTP."""

    server: SimServer
    dialect: str
    make_app: MakeApp

    def app(self, role: str = "admin", *, via: Any = None, **fields: Any) -> LabdeckApp:
        """An app against the simulator (``make_app``'s arguments: role, token, session fields), or
        through ``via`` (a proxy in front of it: what has a ``base_url`` and the server's ``state``).
        The board's budget is :data:`~tests.ui.board_support.ROOMY` unless ``board`` is given: a
        test of another screen must not wait a minute for triage's reads at 60 a minute."""
        fields.setdefault("board", ROOMY)
        return self.make_app(via or self.server, role, **fields)

    @asynccontextmanager
    async def run(self, role: str = "admin", *, size: tuple[int, int] = (80, 24), notifications: bool = False,
                  **fields: Any) -> AsyncIterator[tuple[LabdeckApp, Any]]:
        """Run an app (``app(role, **fields)``) in a headless terminal of ``size`` (``notifications``
        shows the toasts, as ``run_test`` does): ``(app, pilot)``."""
        app = self.app(role, **fields)
        async with app.run_test(size=size, notifications=notifications) as pilot:
            yield app, pilot


@pytest.fixture
def console(console_server: SimServer, dialect: str, make_app: MakeApp) -> SimConsole:
    """The console against a private simulator of the dialect under test."""
    return SimConsole(console_server, dialect, make_app)


@pytest.fixture(scope="module")
def snap_server() -> Iterator[SimServer]:
    """One private simulator per module of snapshots (seed 42, manual clock): they only read."""
    from labdeck.sim.core.clock import SimClock
    from labdeck.sim.dataset.build import build_state

    server = SimServer(build_state(seed=42, clock=SimClock(mode="manual"))).start()
    yield server
    server.stop()


@pytest.fixture
def snap_app(snap_server: SimServer, tokens: dict[str, str], tmp_path: Path) -> Callable[..., LabdeckApp]:
    """``snap_app(role=…, profile=…, **session fields)`` → an app against :func:`snap_server` that
    shows the instance as ``gitlab.example.test`` (URLs on screen carry no port)."""
    from tests.support.snapshots import SHOWN_HOST, FixedHost

    def make(**fields: Any) -> LabdeckApp:
        token = Secret(tokens[fields.pop("role", "admin")])
        session = Session(base_url=f"http://{SHOWN_HOST}", token=token, profile=fields.pop("profile", "prod"),
                          **fields)
        client = ApiClient(snap_server.base_url, token, read_only=session.read_only, transport=FixedHost())
        return LabdeckApp(session, client=client, clock=snap_server.state.clock.now,
                          ui_state=UiState(StateStore(tmp_path / "state.json")))

    return make


@pytest.fixture
def fast_following(monkeypatch: pytest.MonkeyPatch) -> None:
    """The merged view (``F``) reads every few tens of milliseconds (its budget's own tests check
    the real pace)."""
    from tests.ui.follow_support import read_fast

    read_fast(monkeypatch)


QUICK_GATE = (0.2, 2.0)
"""The client's back-off in storm tests that are not about its timing: from 0.2 s up to 2 s."""


@pytest.fixture
def gate_timing(monkeypatch: pytest.MonkeyPatch) -> Callable[[float, float], None]:
    """``gate_timing(base, cap)``: every client made from then on backs off (its
    :class:`~labdeck.api.retry.ServerGate`) from ``base`` seconds up to ``cap``, not 0.5 s up to a
    minute. Server-asked waits (``Retry-After``) are kept: they are the server's."""
    original = Exchange.__init__

    def set_timing(base: float, cap: float) -> None:
        def init(self: Exchange, *args: Any, **kwargs: Any) -> None:
            original(self, *args, **kwargs)
            self.gate.base, self.gate.cap = base, cap

        monkeypatch.setattr(Exchange, "__init__", init)

    return set_timing


@pytest.fixture
def quick_gate(gate_timing: Callable[[float, float], None]) -> None:
    """Storm tests that wait for the storm to be said or to clear, not for the back-off's length:
    the client backs off at :data:`QUICK_GATE` (a recovery waits 2 s at most, not a minute)."""
    gate_timing(*QUICK_GATE)
