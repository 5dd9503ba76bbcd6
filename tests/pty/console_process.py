"""The real console in a pseudo-terminal: start it, read what it draws, end it."""

from __future__ import annotations

import os
import pty
import select
import signal
import sys
import time
from pathlib import Path

from labdeck.sim.dataset.build import DEMO_TOKENS
from tests.support.process import REPO


def read_until(master: int, marker: bytes | None, limit: float) -> bytes:
    """Terminal output until ``marker`` appears (or for ``limit`` seconds when it is None)."""
    seen = b""
    end = time.monotonic() + limit
    while time.monotonic() < end:
        ready, _, _ = select.select([master], [], [], 0.05)
        if ready:
            try:
                chunk = os.read(master, 65536)
            except OSError:
                break
            seen += chunk
            if marker is not None and marker in seen:
                return seen
    if marker is not None:
        raise AssertionError(f"{marker!r} did not appear in {limit} s")
    return seen


def ended_within(pid: int, seconds: float) -> int | None:
    """The exit status if the process ended within ``seconds``, else None."""
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            return status
        time.sleep(0.02)
    return None


CONFIG = """
[board]
interval = 1
requests_per_minute = 6000

[alerts]
notify = "osc9"
"""


def console_env(home: Path) -> dict[str, str]:
    """A clean environment for the console: its own home and state, the alert config, a token."""
    config = home / "config.toml"
    config.write_text(CONFIG)
    env = {key: value for key, value in os.environ.items() if not key.startswith(("LABDECK_", "GITLAB_", "TMUX"))}
    env.update({"TERM": "xterm-256color", "PYTHONPATH": f"{REPO / 'src'}{os.pathsep}{REPO}", "HOME": str(home),
                "XDG_STATE_HOME": str(home / "state"), "LABDECK_CONFIG": str(config),
                "LABDECK_TOKEN": DEMO_TOKENS["admin"]})
    return env


def end_console(pid: int, master: int) -> None:
    os.kill(pid, signal.SIGTERM)
    if ended_within(pid, 5) is None:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
    os.close(master)


def spawn_console(args: list[str], env: dict[str, str]) -> tuple[int, int]:
    pid, master = pty.fork()
    if pid == 0:
        os.environ.clear()
        os.environ.update(env)
        os.execv(sys.executable, [sys.executable, "-m", "labdeck", *args])
    import fcntl
    import struct
    import termios

    fcntl.ioctl(master, termios.TIOCSWINSZ, struct.pack("HHHH", 30, 120, 0, 0))
    return pid, master
