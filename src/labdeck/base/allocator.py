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
"""

from __future__ import annotations

import ctypes
import ctypes.util
from typing import Any

_LIBC: list[Any] = []
"""The C library once looked up (an empty list: not looked up yet; ``[None]``: not glibc here)."""


def _glibc_call(name: str) -> Any:
    if not _LIBC:
        libc = None
        try:
            found = ctypes.util.find_library("c")
            libc = ctypes.CDLL(found) if found else None
        except OSError:
            libc = None
        _LIBC.append(libc if libc is not None and hasattr(libc, "malloc_trim") else None)
    libc = _LIBC[0]
    return getattr(libc, name, None) if libc is not None else None


def trim() -> bool:
    """Give the C heap's free pages back to the system (glibc's ``malloc_trim(0)``). Returns whether
    the allocator was asked (False where there is no glibc)."""
    call = _glibc_call("malloc_trim")
    if call is None:
        return False
    call(0)
    return True
