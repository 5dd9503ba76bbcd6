"""Suspend and resume in a real terminal (issue 24): ``ctrl+z`` (or SIGTSTP from the shell)
stops the console, and after ``fg`` (SIGCONT) the whole screen is drawn again: the header, the
rows, the status line and the key bar, not only what changed meanwhile."""

from __future__ import annotations

import os
import re
import signal
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from labdeck.sim.dataset.build import DEMO_TOKENS
from labdeck.sim.server import SimServer
from tests.support.process import REPO

sys.path.insert(0, str(REPO / "bench"))
from _pty import PtyProgram, strip_escapes

pytestmark = [pytest.mark.pty, pytest.mark.skipif(sys.platform != "linux", reason="pseudo-terminal semantics of Linux")]

ROWS, COLUMNS = 24, 100
_MOVE = re.compile(rb"\x1b\[(\d+);(\d+)H")


def _env(home: Path) -> dict[str, str]:
    env = {key: value for key, value in os.environ.items() if not key.startswith(("LABDECK_", "GITLAB_", "TMUX"))}
    env.update({"TERM": "xterm-256color", "PYTHONPATH": f"{REPO / 'src'}{os.pathsep}{REPO}", "HOME": str(home),
                "XDG_STATE_HOME": str(home / "state"), "XDG_CONFIG_HOME": str(home / "config"),
                "LABDECK_CONFIG": str(home / "config.toml"), "LABDECK_TOKEN": DEMO_TOKENS["user"]})
    return env


def _stopped(pid: int, seconds: float) -> bool:
    limit = time.monotonic() + seconds
    while time.monotonic() < limit:
        done, status = os.waitpid(pid, os.WNOHANG | os.WUNTRACED)
        if done and os.WIFSTOPPED(status):
            return True
        time.sleep(0.02)
    return False


def _redrawn_rows(output: bytes) -> set[int]:
    return {int(match.group(1)) for match in _MOVE.finditer(output)}


@pytest.mark.parametrize("how", ["ctrl+z", "SIGTSTP"])
def test_suspend_then_fg_draws_the_whole_screen_again(sim_factory: Callable[..., SimServer], tmp_path: Path,
                                                      how: str) -> None:
    server = sim_factory()
    argv = [sys.executable, "-m", "labdeck", "--url", server.base_url]
    with PtyProgram(argv, env=_env(tmp_path), columns=COLUMNS, rows=ROWS) as program:
        program.wait_for(lambda out: b"Keys" in out and b"online" in out and b"Projects" in out, timeout=60)
        program.drain(1.0)
        if how == "ctrl+z":
            program.send(b"\x1a")
        else:
            os.kill(program.pid, signal.SIGTSTP)
        assert _stopped(program.pid, 10), "the console did not stop"
        program.drain(0.3)
        before = len(program.output)
        os.kill(program.pid, signal.SIGCONT)
        program.drain(3.0)
        after = bytes(program.output[before:])
        text = strip_escapes(after)
        assert "Projects" in text, "the header is missing after fg"
        assert "online" in text and "@alice" in text, "the status line is missing after fg"
        assert "Keys" in text and "Filter" in text, "the key bar is missing after fg"
        rows = _redrawn_rows(after)
        assert len(rows & set(range(1, ROWS + 1))) >= ROWS - 2, sorted(rows)
        # …and it still answers keys.
        program.send(b"?")
        program.wait_for(lambda out: b"app.suspend" in out[before:], timeout=10)
