"""Fixtures for the credential tests: misbehaving keyrings, canary tokens on the simulator, and a
runner for ``python -m labdeck`` subprocesses that inherit the isolated HOME."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import keyring
import pytest
from keyring.backend import KeyringBackend

from labdeck.sim.core.state import Token
from labdeck.sim.server import SimServer

REPO = Path(__file__).resolve().parents[2]
# Token-shaped, so the pattern redaction is exercised too; distinct per role so a leak names its test.
CANARY_ADMIN = "glpat-CANARYadmin0123456789abcdefXYZ"
CANARY_READONLY = "glpat-CANARYreadonly0123456789abcdXYZ"


@dataclass
class Canaries:
    url: str
    admin: str
    readonly: str


@pytest.fixture
def canaries(sim: SimServer) -> Canaries:
    """Canary tokens registered on the shared simulator (admin with ``api``, a ``read_api`` one)."""
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


@dataclass
class Run:
    returncode: int
    stdout: str
    stderr: str

    @property
    def output(self) -> str:
        return self.stdout + self.stderr


@pytest.fixture
def run_labdeck() -> Callable[..., Run]:
    """Run ``python -m labdeck ARGS`` with the test's HOME/XDG environment and no terminal."""

    def run(*args: str, stdin: str = "", backend: str = "keyring.backends.fail.Keyring",
            env: dict[str, str] | None = None, timeout: float = 60) -> Run:
        environ = dict(os.environ)
        environ["PYTHON_KEYRING_BACKEND"] = backend
        environ["PYTHONPATH"] = str(REPO) + os.pathsep + environ.get("PYTHONPATH", "")
        environ.update(env or {})
        done = subprocess.run([sys.executable, "-m", "labdeck", *args], input=stdin, capture_output=True,
                              text=True, env=environ, timeout=timeout, start_new_session=True, check=False)
        return Run(done.returncode, done.stdout, done.stderr)

    return run


def files_containing(root: Path, needle: str) -> list[Path]:
    """Every file under ``root`` whose bytes contain ``needle``."""
    found = []
    for path in root.rglob("*"):
        if path.is_file():
            try:
                if needle.encode() in path.read_bytes():
                    found.append(path)
            except OSError:
                continue
    return found


@pytest.fixture
def home() -> Path:
    """The isolated HOME set by the autouse fixture."""
    return Path(os.environ["HOME"])
