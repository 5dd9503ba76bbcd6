"""Running labdeck from a test: ``python -m labdeck`` as a subprocess that inherits the test's
isolated HOME/XDG environment and has no terminal (the ``run_labdeck`` fixture of tests/conftest.py),
or ``labdeck login`` in this process with the token on stdin."""

from __future__ import annotations

import io
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


@dataclass
class Run:
    returncode: int
    stdout: str
    stderr: str

    @property
    def output(self) -> str:
        return self.stdout + self.stderr


def run_labdeck_process(*args: str, stdin: str = "", backend: str = "keyring.backends.fail.Keyring",
                env: dict[str, str] | None = None, timeout: float = 60) -> Run:
    """Run ``python -m labdeck ARGS`` with the current (test) environment and no terminal."""
    environ = dict(os.environ)
    environ["PYTHON_KEYRING_BACKEND"] = backend
    environ["PYTHONPATH"] = str(REPO) + os.pathsep + environ.get("PYTHONPATH", "")
    environ.update(env or {})
    done = subprocess.run([sys.executable, "-m", "labdeck", *args], input=stdin, capture_output=True,
                          text=True, env=environ, timeout=timeout, start_new_session=True, check=False)
    return Run(done.returncode, done.stdout, done.stderr)


def login_in_process(monkeypatch: pytest.MonkeyPatch, token: str, *args: str) -> int:
    """``labdeck login ARGS`` in this process, with ``token`` typed on stdin; returns the exit code."""
    from labdeck.commands import cli

    monkeypatch.setattr("sys.stdin", io.StringIO(token + "\n"))
    return cli.main(["login", *args])
