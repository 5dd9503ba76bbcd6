"""Alerts reach a real terminal: the console runs on a pseudo-terminal, `W` watches a project (or a job),
a pipeline of it fails, and the bell and the desktop notification escape (OSC 9) arrive in the
terminal's output, with the terminal title naming the failure."""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from labdeck.sim.server import SimServer
from tests.pty.console_process import console_env, end_console, read_until, spawn_console
from tests.support.sim_control import advance, project_id, push_pipeline

pytestmark = [pytest.mark.pty, pytest.mark.skipif(sys.platform != "linux", reason="pseudo-terminal semantics of Linux")]


def test_a_watched_project_failing_rings_the_bell_and_notifies(sim_factory: Callable[..., SimServer],
                                                               tmp_path: Path) -> None:
    server = sim_factory()
    pid_project = project_id(server, "platform/audit-log")
    env = console_env(tmp_path)
    # A push makes the project the most recently active: the first row of the projects table.
    created = push_pipeline(server, pid_project, [{"name": "smoke-test", "duration": 30, "fail": True}])
    pid, master = spawn_console(["--url", server.base_url], env)
    try:
        read_until(master, b"platform/audit-log", 60)
        os.write(master, b"W")
        read_until(master, b"Alert on new failures", 20)
        time.sleep(1.0)  # the poller reads the project once: what fails from now on is new
        advance(server, 120)
        seen = read_until(master, b"\x1b]9;", 30)
        seen += read_until(master, None, 1.0)
        assert b"\x07" in seen  # the bell
        notification = seen[seen.index(b"\x1b]9;"):]
        assert b"platform/audit-log" in notification.split(b"\x07")[0]
        assert b"\x1b]2;" in seen and "✗".encode() in seen  # the title names the failure
        assert str(created["id"]).encode() in seen
    finally:
        end_console(pid, master)


def test_a_watched_job_ending_rings_the_bell_and_notifies(sim_factory: Callable[..., SimServer],
                                                          tmp_path: Path) -> None:
    """`W` on a running job in the jobs table: when it fails, the bell and OSC 9 name that job."""
    server = sim_factory()
    pid_project = project_id(server, "platform/audit-log")
    env = console_env(tmp_path)
    created = push_pipeline(server, pid_project, [{"name": "slow-deploy-check", "duration": 60, "fail": True}])
    job_id = created["jobs"][0]["id"]
    pid, master = spawn_console(["--url", server.base_url], env)
    try:
        read_until(master, b"platform/audit-log", 60)
        os.write(master, b":")
        time.sleep(0.3)
        os.write(master, b"jobs platform/audit-log\r")
        read_until(master, b"slow-deploy-check", 30)  # the newest job: the first row, under the cursor
        time.sleep(0.3)
        os.write(master, b"W")
        read_until(master, f"job #{job_id}".encode(), 20)  # "Alert when job #N … finishes or fails."
        advance(server, 120)
        seen = read_until(master, b"\x1b]9;", 30)
        seen += read_until(master, None, 1.0)
        assert b"\x07" in seen  # the bell
        notification = seen[seen.index(b"\x1b]9;"):].split(b"\x07")[0]
        assert b"slow-deploy-check" in notification or str(job_id).encode() in notification
    finally:
        end_console(pid, master)
