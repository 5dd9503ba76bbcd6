"""A full garbage collection every :data:`COLLECT_EVERY` seconds while the console is open.

The console makes full passes of the collector ten times rarer than Python does
(:data:`labdeck.ui.app.FULL_PASS_EVERY`) and freezes what start-up and the first listing leave
alive, so that no full pass stalls a keystroke. Left open on the board, though, it makes
unreachable cycles all the time (each poll and each repaint: about 300 objects a second with 300
watched projects, measured with ``LABDECK_DEBUG_TRACEMALLOC``); between two of those rare full
passes they piled up to 80,000 objects (13 MB), and each pile left the process's resident set a
little higher for good, the freed memory too scattered to give back: +0.2–0.3 MB per simulated
hour in ``bench/bench_soak.py``, 35–50 MB a week. A pass this often finds a few thousand objects
and takes a few milliseconds (what is frozen is not visited); with it the soak's RSS stays flat.
"""

from __future__ import annotations

import gc
import logging
import time
from typing import Any

from textual.app import App
from textual.timer import Timer

from labdeck.base import allocator

log = logging.getLogger("labdeck.ui")
COLLECT_EVERY = 30.0
"""Seconds between full passes."""


def full_pass() -> int:
    """Collect every generation now (nothing while the collector is paused: start-up is not over,
    and its objects are to be frozen, not visited). Returns the unreachable objects found."""
    if not gc.isenabled():
        return 0
    started = time.perf_counter()
    found = gc.collect()
    log.debug("full collection: %d unreachable objects in %.1f ms", found, (time.perf_counter() - started) * 1000)
    return found


def keep_collecting(app: App[Any]) -> Timer:
    """Run :func:`regular_pass` every :data:`COLLECT_EVERY` seconds on ``app``'s loop (between two
    messages, never inside a keystroke's handling)."""
    return app.set_interval(COLLECT_EVERY, regular_pass, name="full-collection")


def regular_pass() -> None:
    """One of the console's regular passes: :func:`full_pass`, then the C heap's free pages go back
    to the system (:func:`labdeck.base.allocator.trim`). Without the second step each burst's new
    high of glibc's heap stayed resident for good (steps of 2-6 MB; 25 MB in use, 30 MB held
    free): a board of 300 projects left open a simulated day (``bench/bench_soak.py``, ``--speed
    120``) ended at 136 MB, with it at 111-113 MB (+0.64 → +0.53 MB per simulated hour from hour
    1). The trim itself took 5-15 ms over a 40 MB heap in shreds, well under a millisecond usually."""
    full_pass()
    allocator.trim()


STREAMING_FULL_PASS_EVERY = 10
"""The collector's third threshold while a view shows a fast stream (see :func:`start_streaming`)."""
_streams = 0
_thresholds: tuple[int, int, int] | None = None


def start_streaming() -> None:
    """A view starts showing lines that arrive all the time (the merged view of ``F``).

    Every frame of such a view leaves unreachable cycles behind (Textual's strips cache
    themselves: ``Strip.divide`` keeps ``[self]``), and a frame's strips live long enough to
    reach the oldest generation, so full passes come every few tens of seconds. Each one visited
    every object made since start-up's freeze as well (the board's and the lists' records, the
    screens' caches: 40,000 objects, 50-75 ms of CPU and, on a busy machine, 200-330 ms of a
    keystroke's wait in ``bench/bench_follow_many.py``). So: what is alive now is frozen (no
    collection first: it would itself take tens of milliseconds, and :func:`stop_streaming`
    collects what is frozen with it), and full passes come ten times as often (Python's default
    pace), each over the few thousand objects made since. Nested calls count."""
    global _streams, _thresholds
    _streams += 1
    if _streams > 1 or not gc.isenabled():
        return
    gc.freeze()
    _thresholds = gc.get_threshold()
    young, middle, _ = _thresholds
    gc.set_threshold(young, middle, STREAMING_FULL_PASS_EVERY)


def stop_streaming() -> None:
    """The last streaming view closed: the collector's pace as before, and the objects frozen by
    :func:`start_streaming` visited again (one full pass, then what is alive is frozen again, as
    start-up does), so that what was or became unreachable among them is freed, not kept for
    good."""
    global _streams, _thresholds
    if _streams == 0:
        return
    _streams -= 1
    if _streams or _thresholds is None:
        return
    gc.set_threshold(*_thresholds)
    _thresholds = None
    gc.unfreeze()
    gc.collect()
    gc.freeze()


def give_back() -> bool:
    """After a big view closed (a 5,000-job pipeline): collect every generation, frozen objects
    included, then ask the C allocator to return its free pages to the system (glibc's
    ``malloc_trim(0)``, :func:`labdeck.base.allocator.trim`). Without the second step the freed
    objects' memory stays in the process's heap and RSS does not come down. Returns whether
    the allocator was asked (False where there is no glibc).

    Frozen objects too: the console freezes what is alive once its first listing is in
    (:meth:`labdeck.ui.app.LabdeckApp.listing_loaded`) and while a stream is shown
    (:func:`start_streaming`); cycles of a view open at that moment (its workers' frames, its
    widgets) were frozen with it and never collected after it closed. What is still alive is
    frozen again afterwards, as before."""
    if gc.isenabled():
        gc.unfreeze()
        full_pass()
        gc.freeze()
    return allocator.trim()
