"""A console left open collects unreachable cycles on its own, at a steady pace (issue 24's soak:
between the rare automatic full passes they piled up and the resident set crept up for good)."""

from __future__ import annotations

import gc
import weakref

import pytest

from labdeck.ui import collector
from labdeck.ui.app import FREEZE_DELAY
from tests.ui.conftest import SimConsole, shared_sim


class Cycle:
    """An object that refers to itself: only a collection frees it."""

    def __init__(self) -> None:
        self.me = self


@shared_sim
async def test_the_console_collects_cycles_without_waiting_for_the_automatic_full_pass(
        console: SimConsole, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(collector, "COLLECT_EVERY", 0.2)
    thresholds = gc.get_threshold()
    app = console.app()
    try:
        async with app.run_test() as pilot:
            for _ in range(100):  # the first listing's own collection (and freeze) first
                if not app.freeze_loaded_data:
                    break
                await pilot.pause(0.1)
            await pilot.pause(FREEZE_DELAY + 0.5)  # and start-up's (once per process)
            gc.set_threshold(10_000_000, 1000, 1000)  # no automatic pass during the test
            garbage = Cycle()
            left = weakref.ref(garbage)
            del garbage
            for _ in range(40):
                if left() is None:
                    break
                await pilot.pause(0.1)
            assert left() is None
            app.watching.replace_client(app.client)  # a new sign-in: still one timer, not two
            assert sum(1 for timer in app._timers if timer.name == "full-collection") == 1
    finally:
        gc.set_threshold(*thresholds)
