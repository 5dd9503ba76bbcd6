"""Shared helpers for the console tests."""

from __future__ import annotations

import contextlib
from typing import Any

from textual.worker import WorkerFailed

from labdeck.ui.app import LabdeckApp


async def settle(app: LabdeckApp, pilot: Any) -> None:
    """Wait until every worker finished (failed ones included) and the screen repainted."""
    for _ in range(3):
        with contextlib.suppress(WorkerFailed):
            await app.workers.wait_for_complete()
        await pilot.pause()


async def run_command(app: LabdeckApp, pilot: Any, line: str) -> None:
    """Open the ``:`` line, put ``line`` in it (typing every key is slow) and run it."""
    await pilot.press("colon")
    await pilot.pause()
    app.screen.query_one("#command").value = line  # type: ignore[attr-defined]
    await pilot.press("enter")
    await settle(app, pilot)
