"""Helpers shared by the tests of the runners, issues, integrations and settings screens."""

from __future__ import annotations

import contextlib
from typing import Any

from textual.worker import WorkerFailed, WorkerState

from labdeck.ui.app import LabdeckApp
from tests.ui.helpers import finite_workers, wait_for_workers

_BUSY = (WorkerState.PENDING, WorkerState.RUNNING)


async def settle(app: LabdeckApp, pilot: Any) -> None:
    """Wait until no worker runs and the screen processed its messages (stops as soon as quiet)."""
    for _ in range(6):
        with contextlib.suppress(WorkerFailed):
            await wait_for_workers(app)
        await pilot.pause()
        if not any(worker.state in _BUSY for worker in finite_workers(app)):
            return


def toasts(app: LabdeckApp) -> list[str]:
    """The messages of every notification shown so far."""
    return [str(n.message) for n in app._notifications]  # type: ignore[attr-defined]


async def push(app: LabdeckApp, pilot: Any, screen: Any) -> Any:
    """Push ``screen`` once the app is quiet and wait until it loaded."""
    await settle(app, pilot)
    app.push_screen(screen)
    await settle(app, pilot)
    return screen
