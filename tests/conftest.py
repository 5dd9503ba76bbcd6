"""Test isolation and the simulator fixtures shared by every test.

- Config, state, cache and theme directories point at a temporary folder; ``LABDECK_*`` and
  ``GITLAB_*`` variables are cleared; the keyring is an in-memory backend.
- ``sim`` is one simulator per test session on an ephemeral loopback port (manual clock, seed 42).
  Tests that mutate shared data must tolerate other tests' changes, or use ``sim_factory`` to get a
  private one.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

import keyring
import pytest

from labdeck.sim.core.clock import SimClock
from labdeck.sim.server import SimServer
from tests.support.fault_switch import FaultSwitch
from tests.support.keyring_backend import InMemoryKeyring

_ENV_PREFIXES = ("LABDECK_", "GITLAB_", "HTTPS_PROXY", "HTTP_PROXY", "ALL_PROXY", "NO_PROXY")


@pytest.fixture(autouse=True)
def isolated_machine(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Iterator[InMemoryKeyring]:
    """Keep the developer's config, keyring and environment out of every test."""
    import os

    for name in list(os.environ):
        if name.upper().startswith(_ENV_PREFIXES):
            monkeypatch.delenv(name, raising=False)
    home = tmp_path_factory.mktemp("home")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / ".config"))
    monkeypatch.setenv("XDG_STATE_HOME", str(home / ".local" / "state"))
    monkeypatch.setenv("XDG_DATA_HOME", str(home / ".local" / "share"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(home / ".cache"))
    monkeypatch.setenv("LABDECK_CONFIG", str(home / ".config" / "labdeck" / "config.toml"))
    monkeypatch.setenv("NO_COLOR", "")
    monkeypatch.delenv("NO_COLOR")
    backend = InMemoryKeyring()
    previous = keyring.get_keyring()
    keyring.set_keyring(backend)
    yield backend
    keyring.set_keyring(previous)


def _start(seed: int = 42, **options: object) -> SimServer:
    from labdeck.sim.dataset.build import build_state

    clock = SimClock(mode="manual")
    state = build_state(seed=seed, clock=clock, **options)  # type: ignore[arg-type]
    return SimServer(state).start()


@pytest.fixture(scope="session")
def sim() -> Iterator[SimServer]:
    """The shared simulator (manual clock, seed 42)."""
    server = _start()
    yield server
    server.stop()


@pytest.fixture
def sim_factory() -> Iterator[Callable[..., SimServer]]:
    """Start private simulators (stopped at the end of the test): ``sim_factory(seed=1)``."""
    started: list[SimServer] = []

    def make(seed: int = 42, **options: object) -> SimServer:
        server = _start(seed, **options)
        started.append(server)
        return server

    yield make
    for server in started:
        server.stop()


@pytest.fixture(scope="session")
def tokens() -> dict[str, str]:
    """The demo accounts' tokens: ``admin``, ``user``, ``readonly``."""
    from labdeck.sim.dataset.build import DEMO_TOKENS

    return dict(DEMO_TOKENS)


@pytest.fixture
def fault_switch(sim: SimServer) -> Iterator[FaultSwitch]:
    """A fault-switching proxy in front of the shared simulator (``switch.set("bad_gateway")`` …;
    see :mod:`tests.support.fault_switch`)."""
    with FaultSwitch(sim.base_url) as switch:
        yield switch
