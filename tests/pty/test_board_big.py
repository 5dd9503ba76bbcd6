"""The real console in a pseudo-terminal: a starred project's 1,500-job pipeline whose first test
job failed (its page of 40 newest jobs: skipped deploy jobs only) is on the board as failed, with
the failed job's name, not as skipped."""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from labdeck.sim.server import SimServer
from tests.pty.console_process import console_env, end_console, read_until, spawn_console
from tests.support.sim_control import advance, big_stages, push_stages
from tests.ui.board_support import starred_project

pytestmark = [pytest.mark.pty, pytest.mark.skipif(sys.platform != "linux", reason="pseudo-terminal semantics of Linux")]

_ESCAPES = re.compile(rb"\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[()][0-9A-B]")


@pytest.mark.parametrize("dialect", ["spec", "gitlab"])
def test_a_big_pipeline_failed_first_is_failed_on_the_board(sim_factory: Callable[..., SimServer], tmp_path: Path,
                                                            dialect: str) -> None:
    server = sim_factory(dialect=dialect)
    project = starred_project(server)
    pushed = push_stages(server, project, big_stages(fail=(1,)))
    advance(server, 900)  # unit-0001 failed, the other tests passed, the deploy stage was skipped
    pid, master = spawn_console(["--url", server.base_url], console_env(tmp_path))
    try:
        read_until(master, b"Projects", 60)
        os.write(master, b"0")
        seen = read_until(master, b"unit-0001", 60)
        seen += read_until(master, None, 2.0)
        text = _ESCAPES.sub(b"", seen).decode("utf-8", "replace")
        line = next(line for line in reversed(text.splitlines()) if f"#{pushed['id']}" in line and "unit-0001" in line)
        assert "failed" in line and "skipped" not in line
    finally:
        end_console(pid, master)
