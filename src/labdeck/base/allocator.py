"""The C allocator's part of memory that comes back (glibc; elsewhere every call here does nothing).

Python hands objects over 512 bytes (a pydantic model's ``__dict__``, a page of JSON, a log) to the
C library's ``malloc``. glibc keeps what is freed inside its heap for reuse and gives pages back to
the system only from the heap's top: long-lived objects scattered through the heap pin it, so each
new high of a burst (a triage round parsing every failing project's jobs page, say) left the
resident set a few megabytes higher for good, while the heap held more free memory than in use
(measured with ``LABDECK_DEBUG_TRACEMALLOC`` in ``bench/bench_soak.py``: 25 MB in use, 30 MB held
free, RSS stepping up 3-6 MB at a time through a simulated day). :func:`trim` (``malloc_trim(0)``)
returns every free page of every heap (threads' too), wherever it is: 5-15 ms over a 40 MB heap in
shreds, much less usually. (Fixing glibc's mmap threshold at 256 KB, tried as well, gained nothing
measurable on top.)

:func:`limit_arenas` keeps every thread on one heap: glibc gives threads heaps of their own
(arenas, up to eight per core), and the console's threads (triage's log reads and their analysis,
via ``asyncio.to_thread``) held 11-14 MB resident in theirs on a board of 300 projects, their free
space not reusable by the main thread. With one heap the soak (``bench/bench_soak.py``, 48 h at
``--speed 120``) ended 3-5 MB lower (one run each: 110.7 MB against 113.5 and 116.0); its growth
after warm-up stayed as it was (+0.22 MB per simulated hour).
"""

from __future__ import annotations

import ctypes
from typing import Any

_LIBC: list[Any] = []
"""The C library once looked up (an empty list: not looked up yet; ``[None]``: not glibc here)."""


def _glibc_call(name: str) -> Any:
    if not _LIBC:
        libc = None
        try:
            # The process's own symbols first (the C library Python runs on): find_library runs
            # ldconfig in a child process, milliseconds a console's start-up need not wait.
            libc = ctypes.CDLL(None)
            if not hasattr(libc, "malloc_trim"):
                from ctypes.util import find_library  # (subprocess, shutil: 50-100 ms of imports)

                found = find_library("c")
                libc = ctypes.CDLL(found) if found else None
        except OSError:
            libc = None
        _LIBC.append(libc if libc is not None and hasattr(libc, "malloc_trim") else None)
    libc = _LIBC[0]
    return getattr(libc, name, None) if libc is not None else None


M_ARENA_MAX = -8
"""glibc's ``mallopt`` parameter for the most arenas (heaps) threads may spread over."""


def limit_arenas(count: int = 1) -> bool:
    """Let threads share at most ``count`` heaps (glibc's ``mallopt(M_ARENA_MAX, count)``): call
    it before the first thread starts (a thread keeps the heap it was given). Returns whether the
    allocator took it (False where there is no glibc)."""
    call = _glibc_call("mallopt")
    return call is not None and bool(call(M_ARENA_MAX, count))


def trim() -> bool:
    """Give the C heap's free pages back to the system (glibc's ``malloc_trim(0)``). Returns whether
    the allocator was asked (False where there is no glibc)."""
    call = _glibc_call("malloc_trim")
    if call is None:
        return False
    call(0)
    return True
