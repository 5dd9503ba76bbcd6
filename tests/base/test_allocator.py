"""The console's threads share one C heap (:func:`labdeck.base.allocator.limit_arenas`): a heap of
a thread's own kept the memory its work freed stranded there, and a board left open grew."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

from labdeck.base import allocator

_SCRIPT = textwrap.dedent("""
    import re, sys, threading
    from labdeck.base import allocator

    if sys.argv[1] == "limit":
        allocator.limit_arenas()

    def work():
        kept = [bytes(2000 + index % 100) for index in range(4000)]  # C-heap blocks (over 512 B)
        del kept

    thread = threading.Thread(target=work)
    thread.start()
    thread.join()
    # glibc's heaps of threads are mappings aligned on 64 MiB; the main heap is "[heap]".
    heaps = 0
    for line in open("/proc/self/maps"):
        match = re.match(r"([0-9a-f]+)-[0-9a-f]+ rw-p 00000000 00:00 0\\s*$", line)
        if match and int(match.group(1), 16) % (64 << 20) == 0:
            heaps += 1
    print(heaps)
""")


def _thread_heaps(mode: str) -> int:
    answer = subprocess.run([sys.executable, "-c", _SCRIPT, mode], capture_output=True, text=True, check=True,
                            env={"PYTHONPATH": ":".join(sys.path)})
    return int(answer.stdout.strip())


def test_a_thread_s_work_lands_in_the_shared_heap() -> None:
    if not allocator.trim() or sys.platform != "linux":
        pytest.skip("not glibc on Linux: threads' heaps are another allocator's business")
    assert _thread_heaps("default") >= 1  # what the check below would see without the limit
    assert _thread_heaps("limit") == 0
