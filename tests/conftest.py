"""Test isolation and the simulator fixtures shared by every test.

- Config, state, cache and theme directories point at a temporary folder; ``LABDECK_*`` and
  ``GITLAB_*`` variables are cleared; the keyring is an in-memory backend.
- ``sim`` is one simulator per test session on an ephemeral loopback port (manual clock, seed 42).
  Tests that mutate shared data must tolerate other tests' changes, or use ``sim_factory`` to get a
  private one.
- Credentials: ``canaries`` (canary tokens on the shared simulator), ``use_keyring`` (swap the
  keyring backend), ``run_labdeck`` (``python -m labdeck`` in a subprocess) and ``home``.
"""

from __future__ import annotations

import gc
import io
import os
import pickle
import threading
import zlib
from collections.abc import Callable, Generator, Iterator
from pathlib import Path

import keyring
import pytest
from keyring.backend import KeyringBackend

from labdeck.sim.core.clock import SimClock
from labdeck.sim.core.state import SimState
from labdeck.sim.server import SimServer
from labdeck.ui import collector
from labdeck.ui.app import FULL_PASS_EVERY
from tests.support.credentials import CANARY_ADMIN, CANARY_READONLY, Canaries
from tests.support.fault_switch import FaultSwitch
from tests.support.keyring_backend import InMemoryKeyring
from tests.support.paint_on_demand import install as paint_on_demand
from tests.support.process import Run, run_labdeck_process
from tests.support.shared_css import install as share_parsed_css
from tests.support.shared_tls import install as share_default_tls_context
from tests.support.snapshots import snapshot_text_diff

share_default_tls_context()
share_parsed_css()
paint_on_demand()

# The collector at the console's own pace: full passes ten times rarer than Python's default (the
# console sets this once its first listing is in; tests start many apps without that listing).
# At Python's pace a test worker, whose heap holds every earlier test's leftovers, spent a fifth
# of its CPU in full passes (measured with gc.callbacks over the board and jobs tests: 9.5 s of
# 50 s; 2.8 s of 45 s at this pace).
# Young passes ten times rarer than Python's default too (every 7,000 allocations, not 700): a
# console test makes short-lived cycles all the time (Textual's strips, each request's objects),
# and at 700 most of them were visited in the young generation and again in the middle one before
# they died. Over the console and board tests (one process, gc.callbacks): 157.7 s of CPU with 28 s
# in the collector at 700; 142.9 s with 18 s at 7,000 (20,000 gained nothing more: 145 s).
# What a test sees does not change: only when cycles are freed.
YOUNG_PASS_EVERY = 7000
gc.set_threshold(YOUNG_PASS_EVERY, gc.get_threshold()[1], FULL_PASS_EVERY)
# What the imports made is alive for the whole session: out of every full pass from here on. The
# console's own freezes (once its first listing is in, while a stream is shown) are left out in a
# test worker: there every app's cycles, frozen with it, stayed alive until some view's close
# unfroze and visited a heap of 300,000 objects (0.3-0.5 s each time; test_collector.py checks
# the freezes themselves with the real functions).
gc.collect()
gc.freeze()
_REAL_FREEZE, _REAL_UNFREEZE = gc.freeze, gc.unfreeze


@pytest.fixture(autouse=True)
def _console_freezes_off(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    if request.node.get_closest_marker("real_freezes") is None:
        monkeypatch.setattr(gc, "freeze", lambda: None)
        monkeypatch.setattr(gc, "unfreeze", lambda: None)
        yield
        return
    yield
    gc.collect()  # such a test may have unfrozen the session's imports: out of the passes again
    gc.freeze()


@pytest.fixture(autouse=True)
def _regular_passes_rare(monkeypatch: pytest.MonkeyPatch) -> None:
    """A console's regular full pass every 10 minutes, not 30 s. In a console it visits a few
    thousand objects; in a test worker, whose heap holds every earlier test's leftovers, each one
    took 0.3-0.5 s, and a console test lasting over 30 s made one or more (2.4 % of the busy
    samples in a py-spy profile of the UI tests). ``tests/ui/test_collector.py`` sets its own pace
    to check the passes themselves."""
    monkeypatch.setattr(collector, "COLLECT_EVERY", 600.0)


_ENV_PREFIXES = ("LABDECK_", "GITLAB_", "HTTPS_PROXY", "HTTP_PROXY", "ALL_PROXY", "NO_PROXY")


@pytest.fixture(autouse=True)
def isolated_machine(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Iterator[InMemoryKeyring]:
    """Keep the developer's config, keyring and environment out of every test."""
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


_BUILT: dict[str, bytes] = {}
"""Data sets built in this process, pickled: a private simulator costs a 30 ms copy of the data
set, not a 0.4 s build (some 400 tests start one)."""


class _StatePickler(pickle.Pickler):
    """Pickles a :class:`SimState`; its locks come back as new, unheld locks."""

    def reducer_override(self, obj: object) -> object:
        if isinstance(obj, _LOCK_TYPES):
            return (threading.RLock if type(obj) is _RLOCK else threading.Lock), ()
        return NotImplemented


_RLOCK = type(threading.RLock())
_LOCK_TYPES = (_RLOCK, type(threading.Lock()))


def _start(seed: int = 42, **options: object) -> SimServer:
    """A simulator of the data set for ``seed`` and ``options``, its clock manual (see
    :func:`labdeck.sim.dataset.build.build_state`): built once per process, copied for each."""
    from labdeck.sim.dataset.build import build_state

    key = repr((seed, sorted(options.items())))
    if key not in _BUILT:
        state = build_state(seed=seed, clock=SimClock(mode="manual"), **options)  # type: ignore[arg-type]
        buffer = io.BytesIO()
        _StatePickler(buffer, protocol=pickle.HIGHEST_PROTOCOL).dump(state)
        _BUILT[key] = buffer.getvalue()
    copied: SimState = pickle.loads(_BUILT[key])
    return SimServer(copied).start()


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
    for server in started:  # uvicorn takes 0.2 s to wind down: the next test need not wait for it
        threading.Thread(target=server.stop, name="labdeck-sim-stop", daemon=True).start()


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


@pytest.fixture
def canaries(sim: SimServer) -> Canaries:
    """Canary tokens registered on the shared simulator (admin with ``api``, a ``read_api`` one)."""
    from labdeck.sim.core.state import Token

    state = sim.state
    admin = next(user for user in state.users.values() if user.is_admin)
    viewer = next(user for user in state.users.values() if user.username == "viewer")
    with state.lock:
        state.tokens[CANARY_ADMIN] = Token(CANARY_ADMIN, admin.id, ("api",), "canary-admin")
        state.tokens[CANARY_READONLY] = Token(CANARY_READONLY, viewer.id, ("read_api",), "canary-ro")
    return Canaries(sim.base_url, CANARY_ADMIN, CANARY_READONLY)


@pytest.fixture
def use_keyring() -> Iterator[Callable[[KeyringBackend], KeyringBackend]]:
    """Swap the in-process keyring backend for the duration of a test."""
    previous = keyring.get_keyring()

    def use(backend: KeyringBackend) -> KeyringBackend:
        keyring.set_keyring(backend)
        return backend

    yield use
    keyring.set_keyring(previous)


@pytest.fixture
def run_labdeck() -> Callable[..., Run]:
    """Run ``python -m labdeck ARGS`` with the test's HOME/XDG environment and no terminal
    (see :func:`tests.support.process.run_labdeck_process`)."""
    return run_labdeck_process


@pytest.fixture
def home() -> Path:
    """The isolated HOME set by the autouse fixture."""
    return Path(os.environ["HOME"])


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item,
                              call: pytest.CallInfo[None]) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    """A failed snapshot test's report gets the screen rows that differ, as text: the CI log then
    says what changed (a toast, a status word) without the HTML report."""
    report = yield
    if call.when == "call" and report.failed and "snap_compare" in getattr(item, "fixturenames", ()):
        from pytest_textual_snapshot import node_to_report_path

        data_path = node_to_report_path(item)
        if data_path.exists():
            report.sections.append(("screen rows that differ", snapshot_text_diff(data_path)))
    return report


PTY_TEST_FOLDERS = ("tests/pty/", "tests/bench/")
"""Where ``pty`` tests live: ``make test`` runs them alone, afterwards, collecting only these."""


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """A failed test runs once more. Most tests drive the real console over real HTTP on real time
    (polling intervals, back-off, a hang-up deadline), and on a loaded two-core CI machine a screen
    is sometimes caught mid-change or a wait runs late. A real regression still fails twice; the
    report marks every rerun (``R``) and, for a snapshot, shows the rows that differ. A ``pty``
    test outside :data:`PTY_TEST_FOLDERS` stops the collection: ``make test`` would never run it.
    The modules then run in :func:`modules_mixed` order."""
    for item in items:
        if item.get_closest_marker("flaky") is None:
            item.add_marker(pytest.mark.flaky(reruns=1))
        if item.get_closest_marker("pty") is not None and not item.nodeid.startswith(PTY_TEST_FOLDERS):
            raise pytest.UsageError(f"{item.nodeid} is marked `pty` outside {' and '.join(PTY_TEST_FOLDERS)}: "
                                    "`make test` runs the pty tests from those folders only, so it would never run")
    items[:] = modules_mixed(items)


def modules_mixed(items: list[pytest.Item]) -> list[pytest.Item]:
    """The test modules in an order that mixes the folders (fixed: by a checksum of each module's
    path; a module's own tests stay together and in order, so its module-wide fixtures start once).
    In folder order the console tests, which wait on timers, polls and back-offs, all came at the
    end: on two cores with four workers the machine stood 15-40 % idle for minutes there, while
    the simulator's and the client's tests, which keep the CPU busy, had all run before."""
    modules: dict[str, list[pytest.Item]] = {}
    for item in items:
        modules.setdefault(item.nodeid.split("::", 1)[0], []).append(item)
    ordered = sorted(modules, key=lambda path: zlib.crc32(path.encode()))
    return [item for path in ordered for item in modules[path]]
