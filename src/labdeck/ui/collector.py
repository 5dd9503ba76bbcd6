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

import ctypes
import ctypes.util
import gc
import logging
import time
from typing import Any

from textual.app import App
from textual.timer import Timer

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
    """Run :func:`full_pass` every :data:`COLLECT_EVERY` seconds on ``app``'s loop (between two
    messages, never inside a keystroke's handling)."""
    return app.set_interval(COLLECT_EVERY, full_pass, name="full-collection")


_TRIM: list[Any] = []
"""glibc's ``malloc_trim`` once looked up (an empty list: not looked up yet; ``[None]``: none here)."""


def give_back() -> bool:
    """After a big view closed (a 5,000-job pipeline): collect every generation, then ask the C
    allocator to return its free pages to the system (glibc's ``malloc_trim(0)``). Without the
    second step the freed objects' memory stays in the process's arenas and RSS does not come
    down. Returns whether the allocator was asked (False where there is no glibc)."""
    full_pass()
    if not _TRIM:
        trim = None
        try:
            name = ctypes.util.find_library("c")
            libc = ctypes.CDLL(name) if name else None
            trim = getattr(libc, "malloc_trim", None)
        except OSError:
            trim = None
        _TRIM.append(trim)
    trim = _TRIM[0]
    if trim is None:
        return False
    trim(0)
    return True
