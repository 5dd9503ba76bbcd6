"""A dropped SSH connection (SIGHUP) or SIGTERM saves state and drafts before the process exits."""

from __future__ import annotations

import os
import signal
import subprocess
import sys

import pytest

from labdeck.base.statefile import StateStore
from tests.support.process import REPO

EDITOR = """
import sys, time
from labdeck.base.crash import install_signal_handlers
from labdeck.base.statefile import StateStore

draft = "half-typed issue body"
def save():
    StateStore().save_draft("issue:group/app:new", draft)
install_signal_handlers(save)
print("ready", flush=True)
time.sleep(60)
print("not interrupted", flush=True)
"""


@pytest.mark.parametrize("signum", [signal.SIGHUP, signal.SIGTERM])
def test_signal_saves_the_draft_then_exits(signum: int) -> None:
    process = subprocess.Popen([sys.executable, "-c", EDITOR], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               text=True, env={**os.environ, "PYTHONPATH": str(REPO)})
    assert process.stdout is not None
    assert process.stdout.readline().strip() == "ready"
    process.send_signal(signum)
    out, err = process.communicate(timeout=30)
    assert process.returncode == 128 + signum, err
    assert "not interrupted" not in out
    assert StateStore().drafts() == {"issue:group/app:new": "half-typed issue body"}


def test_uninstall_restores_the_previous_handlers() -> None:
    from labdeck.base.crash import install_signal_handlers

    before = signal.getsignal(signal.SIGHUP), signal.getsignal(signal.SIGTERM)
    uninstall = install_signal_handlers(lambda: None)
    assert signal.getsignal(signal.SIGTERM) != before[1]
    uninstall()
    assert (signal.getsignal(signal.SIGHUP), signal.getsignal(signal.SIGTERM)) == before


async def test_loop_handlers_call_on_exit_after_saving() -> None:
    import asyncio

    from labdeck.base.crash import install_signal_handlers

    events: list[str] = []
    exited = asyncio.Event()

    def on_exit(signum: int) -> None:
        events.append(f"exit {signum}")
        exited.set()

    uninstall = install_signal_handlers(lambda: events.append("saved"), on_exit=on_exit,
                                        loop=asyncio.get_running_loop())
    try:
        os.kill(os.getpid(), signal.SIGHUP)
        await asyncio.wait_for(exited.wait(), 10)
    finally:
        uninstall()
    assert events == ["saved", f"exit {int(signal.SIGHUP)}"]
