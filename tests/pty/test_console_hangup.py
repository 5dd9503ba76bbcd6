"""A dropped SSH connection: SIGHUP to the real console (``labdeck`` under a pseudo-terminal)
saves its state — the command history and the projects filters — then the process exits."""

from __future__ import annotations

import fcntl
import json
import os
import pty
import select
import signal
import struct
import sys
import termios
import time
from pathlib import Path

import pytest

from labdeck.sim.server import SimServer

pytestmark = pytest.mark.pty


def _drain_until(fd: int, needle: bytes, seconds: float) -> bytes:
    """Read the pty until ``needle`` appeared (answering Textual's terminal query)."""
    seen = bytearray()
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        readable, _, _ = select.select([fd], [], [], 0.05)
        if not readable:
            continue
        try:
            chunk = os.read(fd, 65536)
        except OSError:
            break
        seen += chunk
        if b"\x1b[c" in chunk or b"\x1b[>c" in chunk:
            os.write(fd, b"\x1b[?62;c")
        if needle in seen:
            return bytes(seen)
    raise AssertionError(f"{needle!r} did not appear on the terminal")


def test_sighup_saves_history_and_filters(sim: SimServer, tokens: dict[str, str]) -> None:
    env = {key: value for key, value in os.environ.items() if not key.startswith(("LABDECK_URL", "LABDECK_TOKEN"))}
    env.update(LABDECK_URL=sim.base_url, LABDECK_TOKEN=tokens["user"], TERM="xterm-256color")
    state = Path(env["XDG_STATE_HOME"]) / "labdeck" / "state.json"
    pid, fd = pty.fork()
    if pid == 0:  # child: the real command line, as a user would start it
        os.execvpe(sys.executable, [sys.executable, "-m", "labdeck"], env)
    try:
        fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", 30, 100, 0, 0))
        os.kill(pid, signal.SIGWINCH)
        _drain_until(fd, b"alice", 60)  # signed in: the status line shows the user
        os.write(fd, b":projects search=data\r")
        _drain_until(fd, b"search=data", 30)
        assert not state.exists() or "search=data" not in state.read_text()
        os.kill(pid, signal.SIGHUP)
        deadline = time.monotonic() + 30
        status = None
        while time.monotonic() < deadline:
            select.select([fd], [], [], 0.05)
            try:
                os.read(fd, 65536)
            except OSError:
                pass
            done, status = os.waitpid(pid, os.WNOHANG)
            if done:
                break
        assert status is not None and (os.WIFEXITED(status) or os.WIFSIGNALED(status)), "still running"
    finally:
        try:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
        except (ProcessLookupError, ChildProcessError):
            pass
        os.close(fd)
    saved = json.loads(state.read_text())
    assert saved["history"][-1] == "projects search=data"
    assert saved["ui"]["project_filters"] == {"search": "data"}
