"""A hang-up (SSH drop, tmux kill) at any moment of start-up ends the real console within 2 s.

Each test starts ``labdeck --demo`` on a pseudo-terminal that is its controlling terminal, waits for
one moment of start-up, then closes the terminal's master side as sshd or tmux do: the kernel sends
SIGHUP to the console. The process must be gone 2 s later (no orphan left polling).

The last test is the case that used to leave an orphan: the terminal stops reading first (a dead
SSH link, tmux tearing the pane down), the console's output blocks, and only then comes SIGHUP.
"""

from __future__ import annotations

import json
import os
import pty
import signal
import sys
import time
from pathlib import Path

import pytest

from tests.pty.console_process import ended_within, read_until
from tests.support.process import REPO

pytestmark = [pytest.mark.pty, pytest.mark.skipif(sys.platform != "linux", reason="pseudo-terminal hang-up semantics of Linux")]

DEADLINE = 2.0
COLUMNS, ROWS = 100, 30


def _spawn_demo(env: dict[str, str], *, hang_up_ignored: bool = False) -> tuple[int, int]:
    pid, master = pty.fork()
    if pid == 0:  # the child: its controlling terminal is the pty
        os.environ.update(env)
        if hang_up_ignored:  # as under nohup or a CI runner: the ignored signal survives exec
            signal.signal(signal.SIGHUP, signal.SIG_IGN)
        os.execv(sys.executable, [sys.executable, "-m", "labdeck", "--demo"])
    import fcntl
    import struct
    import termios

    fcntl.ioctl(master, termios.TIOCSWINSZ, struct.pack("HHHH", ROWS, COLUMNS, 0, 0))
    return pid, master


def _children(pid: int) -> list[int]:
    """Processes whose parent is ``pid`` (the demo simulator runs in one)."""
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat", encoding="ascii") as stat:
                    if int(stat.read().rsplit(")", 1)[1].split()[1]) == pid:
                        found.append(int(entry))
            except (OSError, IndexError, ValueError):
                continue
    return found


def _running(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def _assert_children_end(children: list[int], since: float) -> None:
    """No process the console started outlives it: each has ended ``DEADLINE`` s after ``since``."""
    while any(_running(child) for child in children) and time.monotonic() - since < DEADLINE:
        time.sleep(0.02)
    left = [child for child in children if _running(child)]
    for child in left:
        os.kill(child, signal.SIGKILL)
    assert not left, f"the demo simulator was still running {DEADLINE} s after the hang-up"


@pytest.fixture
def demo_env(tmp_path: Path) -> dict[str, str]:
    env = {key: value for key, value in os.environ.items() if not key.startswith(("LABDECK_", "GITLAB_"))}
    env.update({"TERM": "xterm-256color", "PYTHONPATH": f"{REPO / 'src'}{os.pathsep}{REPO}",
                "XDG_STATE_HOME": str(tmp_path / "state"), "XDG_CONFIG_HOME": str(tmp_path / "config"),
                "LABDECK_CONFIG": str(tmp_path / "config" / "labdeck" / "config.toml"),
                "HOME": str(tmp_path)})
    return env


@pytest.mark.parametrize(("started", "moment"), [
    *[("from a shell", moment) for moment in ("at once", "first output", "rows on screen", "a second later")],
    # Started with SIGHUP ignored, the hang-up before the console's own handler was lost.
    ("under nohup", "at once"), ("under nohup", "first output")])
def test_a_hang_up_ends_the_console_within_two_seconds(moment: str, started: str, demo_env: dict[str, str],
                                                        tmp_path: Path) -> None:
    pid, master = _spawn_demo(demo_env, hang_up_ignored=started == "under nohup")
    try:
        if moment == "first output":
            read_until(master, b"\x1b", 30)
        elif moment in ("rows on screen", "a second later"):
            read_until(master, b"platform/", 60)
            if moment == "a second later":
                read_until(master, None, 1.0)
    finally:
        children = _children(pid)
        hung_up_at = time.monotonic()
        os.close(master)
    status = ended_within(pid, DEADLINE)
    if status is None:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        pytest.fail(f"the console was still running {DEADLINE} s after a hang-up ({moment}, {started})")
    assert time.monotonic() - hung_up_at <= DEADLINE
    _assert_children_end(children, hung_up_at)
    if moment in ("rows on screen", "a second later"):
        assert children, "the demo simulator runs in a process of its own"
        # Once the console is up, a hang-up saves its state before it goes.
        state = json.loads((tmp_path / "state" / "labdeck" / "state.json").read_text())
        assert "history" in state


def test_a_hang_up_after_the_terminal_stopped_reading(demo_env: dict[str, str], tmp_path: Path) -> None:
    pid, master = _spawn_demo(demo_env)
    try:
        read_until(master, b"platform/", 60)
        # Keys keep arriving, output is no longer read: the console repaints until its writes block.
        for index in range(400):
            os.write(master, b"\x1b[B" if index % 2 else b"\x1b[A")
            time.sleep(0.005)
        time.sleep(0.5)
        children = _children(pid)
        hung_up_at = time.monotonic()
        os.kill(pid, signal.SIGHUP)
        status = ended_within(pid, DEADLINE)
        if status is None:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            pytest.fail(f"the console was still running {DEADLINE} s after SIGHUP with its output blocked")
        assert time.monotonic() - hung_up_at <= DEADLINE
        _assert_children_end(children, hung_up_at)
        state = json.loads((tmp_path / "state" / "labdeck" / "state.json").read_text())
        assert "history" in state
    finally:
        os.close(master)
