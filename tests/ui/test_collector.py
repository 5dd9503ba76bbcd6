"""A console left open collects unreachable cycles on its own, at a steady pace (issue 24's soak:
between the rare automatic full passes they piled up and the resident set crept up for good)."""

from __future__ import annotations

import gc
import subprocess
import sys
import weakref

import pytest

from labdeck.ui import collector
from labdeck.ui.app import FREEZE_DELAY
from tests.ui.conftest import SimConsole, shared_sim

pytestmark = pytest.mark.real_freezes


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


def test_while_a_stream_is_shown_full_passes_skip_what_was_alive_and_come_often() -> None:
    """``F`` shows lines arriving all the time: what was alive when it opened is frozen (a full
    pass no longer walks it), full passes come at Python's default pace; when the last such view
    closes the pace is the console's again and what the frozen objects left unreachable is freed."""
    thresholds = gc.get_threshold()
    frozen = gc.get_freeze_count()
    gc.set_threshold(thresholds[0], thresholds[1], 100)
    try:
        earlier = Cycle()
        left = weakref.ref(earlier)
        collector.start_streaming()
        collector.start_streaming()  # a second view on the stack: one freeze, counted
        assert gc.get_freeze_count() > frozen
        assert gc.get_threshold()[2] == collector.STREAMING_FULL_PASS_EVERY
        del earlier
        gc.collect()
        assert left() is not None  # frozen: no pass visits it while streaming
        during = Cycle()
        made = weakref.ref(during)
        del during
        gc.collect()
        assert made() is None  # made while streaming: collected as usual
        collector.stop_streaming()
        assert gc.get_threshold()[2] == collector.STREAMING_FULL_PASS_EVERY  # one view still open
        collector.stop_streaming()
        assert gc.get_threshold()[2] == 100
        assert left() is None  # visited again once the last view closed: freed, not kept for good
        collector.stop_streaming()  # one more stop than starts changes nothing
        assert gc.get_threshold()[2] == 100
    finally:
        gc.set_threshold(*thresholds)


def test_giving_back_after_a_big_view_frees_what_was_frozen_with_it() -> None:
    """The console freezes what is alive when its first listing is in (and while a stream is
    shown): cycles of a big view open then were frozen with it and never collected after it
    closed. Closing a big view visits frozen objects too."""
    if not gc.isenabled():
        pytest.skip("the collector is paused")
    frozen = Cycle()
    left = weakref.ref(frozen)
    gc.freeze()
    try:
        kept = Cycle()
        del frozen
        gc.collect()
        assert left() is not None  # frozen: no ordinary pass frees it
        collector.give_back()
        assert left() is None
        assert gc.get_freeze_count() > 0  # what is still alive is frozen again
        assert kept.me is kept
    finally:
        gc.unfreeze()


_BURST_AND_REGULAR_PASS = """
import sys
from labdeck.base import allocator
from labdeck.ui import collector


def own_memory_mb():
    with open("/proc/self/status", encoding="ascii") as status:
        for line in status:
            if line.startswith("RssAnon:"):
                return int(line.split()[1]) / 1024
    sys.exit(3)


if not allocator.trim():
    sys.exit(2)
installed = []


class App:
    def set_interval(self, interval, callback, *, name):
        installed.append(callback)


collector.keep_collecting(App())
burst = [bytes(900 + index % 100) for index in range(48_000)]  # ~48 MB of C-heap blocks
stays = burst[::12]  # one block in twelve stays: the heap cannot shrink from its top
del burst
before = own_memory_mb()
for callback in installed:
    callback()
print(before - own_memory_mb(), len(stays))
"""


def test_the_regular_pass_gives_back_the_free_memory_scattered_through_the_c_heap() -> None:
    """A board left open makes bursts of objects (a triage round's jobs pages) among objects that
    stay; what the burst freed stayed in the C heap, and the resident set stepped up for good.
    The console's regular pass (the timer :func:`collector.keep_collecting` starts) gives it back.

    In a process of its own: a test worker's heap, shredded by hundreds of earlier tests, puts the
    burst in holes between blocks that stay, where no page can be given back (15 of 44 MB was)."""
    run = subprocess.run([sys.executable, "-c", _BURST_AND_REGULAR_PASS], capture_output=True, text=True,
                         timeout=60, check=False)
    if run.returncode == 2:
        pytest.skip("not glibc: nothing to give back this way")
    if run.returncode == 3:
        pytest.skip("no RssAnon here")
    assert run.returncode == 0, run.stderr
    given_back, stays = run.stdout.split()
    assert float(given_back) > 20
    assert int(stays) == 4000
