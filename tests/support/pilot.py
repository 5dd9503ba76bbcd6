"""Driving the console with Textual's Pilot: one ``settle``, one ``wait_until`` and one ``confirm``
for every UI test (they had drifted into several copies with different rounds and timeouts)."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from typing import Any

from textual import events
from textual.worker import WorkerCancelled, WorkerFailed, WorkerState

from labdeck.ui.app import LabdeckApp
from labdeck.ui.dialogs.confirm import ConfirmScreen
from labdeck.ui.dialogs.form import FormScreen

_BUSY = (WorkerState.PENDING, WorkerState.RUNNING)


def finite_workers(app: LabdeckApp) -> list[Any]:
    """The app's workers except the pollers (one per instance), which run as long as the app does."""
    return [worker for worker in app.workers if not worker.group.startswith("watch-poller")]


async def wait_for_workers(app: LabdeckApp) -> None:
    """Wait until every worker but the poller finished (``wait_for_complete([])`` would wait for all)."""
    workers = finite_workers(app)
    if workers:
        await app.workers.wait_for_complete(workers)


async def settle(app: LabdeckApp, pilot: Any, *, rounds: int | None = None) -> None:
    """Wait until the workers finished (failed ones included) and the screen processed their results.

    By default, round after round (at most six) until no worker but the poller runs: a result that
    starts another load is waited for too. ``rounds=n`` runs exactly ``n`` rounds whatever the
    workers do, which the snapshots and the tests that count the screen's pauses rely on.
    """
    for _ in range(rounds or 6):
        with contextlib.suppress(WorkerFailed, WorkerCancelled):  # an exclusive worker replaced by a newer one
            await wait_for_workers(app)
        await pilot.pause()
        if rounds is None and not any(worker.state in _BUSY for worker in finite_workers(app)):
            return


async def wait_until(pilot: Any, condition: Callable[[], object], *, limit: float = 20.0,
                     what: str = "the condition") -> None:
    """Let the app run until ``condition()`` is true; fails after ``limit`` seconds, naming ``what``."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + limit
    while not condition():
        if loop.time() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        await pilot.pause(0.03)


async def confirm(app: LabdeckApp, pilot: Any, typed: str | None = None, *, answer: bool = True,
                  limit: float = 20.0) -> ConfirmScreen:
    """Wait for the confirmation dialog and return it; unless ``answer`` is false, type ``typed`` (the
    name a typed confirmation asks for) into its field, press Confirm and settle."""
    await wait_until(pilot, lambda: isinstance(app.screen, ConfirmScreen), limit=limit,
                     what=f"the confirmation dialog (screen {app.screen}, focus {app.focused})")
    dialog = app.screen
    assert isinstance(dialog, ConfirmScreen)
    if not answer:
        return dialog
    if typed is not None:
        await pilot.click("#typed")
        await pilot.press(*typed)
    await pilot.click("#confirm")
    await settle(app, pilot)
    return dialog


async def submit(app: LabdeckApp, pilot: Any, values: dict[str, Any]) -> FormScreen:
    """Fill the open form with ``values`` (field name → value), submit it and settle."""
    form = app.screen
    assert isinstance(form, FormScreen), form
    for name, value in values.items():
        form.set_value(name, value)
    form.action_submit()
    await settle(app, pilot)
    return form


_NAMED = {" ": "space", "(": "left_parenthesis", ")": "right_parenthesis", "-": "minus", "/": "slash",
          "#": "number_sign"}


def burst(app: LabdeckApp, *keys: str) -> None:
    """Post ``keys`` to the app at once, as a terminal delivers a burst: no pause in between."""
    for key in keys:
        if len(key) == 1:
            app.post_message(events.Key(_NAMED.get(key, key), key))
        else:
            app.post_message(events.Key(key, None))
