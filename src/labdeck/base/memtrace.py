"""What keeps growing in a console left open:
``LABDECK_DEBUG_TRACEMALLOC=<seconds>[,<warm-up>[,<frames>]]``.

When the variable is set, :func:`start_from_env` starts :mod:`tracemalloc` and a daemon thread that,
every ``<seconds>`` (default 60), compares a snapshot with the baseline, taken ``<warm-up>`` seconds
after the start (default: one interval; make it longer than start-up and the first reads), and writes the allocation sites that grew most (by traceback), the object types whose counts grew
(:func:`gc.get_objects`), and the process's RSS to ``<state dir>/tracemalloc.txt``, replacing the
previous report. For finding leaks, not for everyday use: tracing makes every allocation slower and
the snapshots cost memory of their own (not counted in the figures: tracemalloc's own frames are
filtered out). ``<frames>`` (default 10) is how many frames each traceback keeps: 1 costs least; 0 traces
nothing (object counts, RSS and the C allocator's figures only: no slowdown).
"""

from __future__ import annotations

import collections
import ctypes
import gc
import os
import sys
import tempfile
import threading
import time
import tracemalloc
import types
from collections.abc import Mapping
from pathlib import Path

ENV = "LABDECK_DEBUG_TRACEMALLOC"
FRAMES = 10
TOP = 30


class Reporter:
    """The reporting thread (a daemon: it ends with the process, or at :meth:`stop`)."""

    def __init__(self, interval: float, warm_up: float, target: Path) -> None:
        self._stopped = threading.Event()
        self.thread = threading.Thread(target=_report_loop, args=(interval, warm_up, target, self._stopped),
                                       name="labdeck-tracemalloc", daemon=True)
        self.thread.start()

    def stop(self) -> None:
        """End the reports (and the tracing, if on)."""
        self._stopped.set()
        self.thread.join()
        tracemalloc.stop()


def start_from_env(environ: Mapping[str, str], folder: Path) -> Reporter | None:
    """Start tracing when ``environ`` asks for it (see the module docstring); the report goes to
    ``folder / "tracemalloc.txt"``. Returns the reporter, or None when not asked."""
    raw = environ.get(ENV)
    if not raw:
        return None
    interval, warm_up, frames = parse_setting(raw)
    if frames:
        tracemalloc.start(frames)
    return Reporter(interval, warm_up, folder / "tracemalloc.txt")


def parse_setting(raw: str) -> tuple[float, float, int]:
    """``"<seconds>[,<warm-up>[,<frames>]]"`` → (interval, warm-up, frames): 60 s, one interval and
    :data:`FRAMES` by default (what cannot be read falls back to the default)."""
    parts = [*raw.split(","), "", ""]
    interval = _seconds(parts[0], 60.0)
    frames = 0 if parts[2].strip() == "0" else int(_seconds(parts[2], FRAMES))
    return interval, _seconds(parts[1], interval), frames


def _seconds(text: str, default: float) -> float:
    try:
        return max(1.0, float(text))
    except ValueError:
        return default


def _filtered(snapshot: tracemalloc.Snapshot) -> tracemalloc.Snapshot:
    return snapshot.filter_traces((
        tracemalloc.Filter(False, tracemalloc.__file__),
        tracemalloc.Filter(False, "<frozen importlib._bootstrap>"),
        tracemalloc.Filter(False, "<frozen importlib._bootstrap_external>"),
        tracemalloc.Filter(False, __file__),
    ))


def type_counts() -> collections.Counter[str]:
    """Live objects tracked by the collector, by type name."""
    return collections.Counter(type(item).__qualname__ for item in gc.get_objects())


_PLAIN = frozenset({"list", "dict", "tuple", "set", "frozenset", "function", "method", "cell", "type",
                    "builtin_function_or_method", "ReferenceType", "FIFOCache", "LRUCache"})
HELD_TYPES = 4
SAMPLE = 40


def holders(type_name: str) -> collections.Counter[str]:
    """For a sample of live objects of ``type_name``: what refers to them, three levels up (each
    level the first referrer that is not a frame or this module's own list), as ``A < B < C``."""
    objects = [item for item in gc.get_objects() if type(item).__qualname__ == type_name]
    sample = objects[-SAMPLE:]
    chains: collections.Counter[str] = collections.Counter()
    mine = {id(objects), id(sample)}
    for index in range(len(sample)):
        names: list[str] = []
        current: object = sample[index]
        for _ in range(3):
            referrers = gc.get_referrers(current)
            mine.add(id(referrers))
            found = [ref for ref in referrers if id(ref) not in mine and not isinstance(ref, types.FrameType)]
            del referrers
            if not found:
                break
            current = found[0]
            del found
            label = type(current).__qualname__
            if isinstance(current, dict | list | collections.OrderedDict):
                label += f"[{len(current)}]"
            names.append(label)
        chains[" < ".join(names) or "(nothing tracked)"] += 1
    del objects, sample
    return chains


def rss_kib() -> int:
    """The process's resident set (``VmRSS``), 0 where /proc is missing."""
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def malloc_kib() -> tuple[int, int]:
    """glibc's (bytes in use, bytes held free) in KiB (``mallinfo2``); (0, 0) elsewhere."""
    try:
        libc = ctypes.CDLL(None)
        info = libc.mallinfo2
    except (OSError, AttributeError):
        return 0, 0

    class MallInfo2(ctypes.Structure):
        _fields_ = [(name, ctypes.c_size_t) for name in (
            "arena", "ordblks", "smblks", "hblks", "hblkhd", "usmblks", "fsmblks", "uordblks", "fordblks",
            "keepcost")]

    info.restype = MallInfo2
    figures = info()
    return (figures.uordblks + figures.hblkhd) // 1024, figures.fordblks // 1024


def obmalloc_kib() -> tuple[int, int]:
    """Python's small-object allocator (objects up to 512 bytes): (KiB of its arenas, KiB in
    allocated blocks), from :func:`sys._debugmallocstats`; (0, 0) where it cannot be read. Its
    arenas are mapped apart from ``malloc``'s heap (not in :func:`malloc_kib`) and go back to the
    system only when wholly empty, so arenas far above the blocks in use are fragmentation."""
    figures: dict[str, int] = {}
    try:
        with tempfile.TemporaryFile() as sink:
            sys.stderr.flush()
            saved = os.dup(2)  # the statistics are written by C to file descriptor 2
            try:
                os.dup2(sink.fileno(), 2)
                sys._debugmallocstats()
            finally:
                os.dup2(saved, 2)
                os.close(saved)
            sink.seek(0)
            text = sink.read().decode("ascii", "replace")
    except (OSError, AttributeError):
        return 0, 0
    for line in text.splitlines():
        name, _, value = line.partition("=")
        if name.startswith("# ") and value.strip().replace(",", "").isdigit():
            figures[name[2:].strip()] = int(value.strip().replace(",", ""))
    arenas = figures.get("arenas allocated current", 0) * 1024  # 1 MiB arenas (3.10+)
    return arenas, figures.get("bytes in allocated blocks", 0) // 1024


def _report_loop(interval: float, warm_up: float, target: Path, stopped: threading.Event) -> None:
    began = time.monotonic()
    if stopped.wait(warm_up):
        return
    tracing = tracemalloc.is_tracing()
    baseline = _filtered(tracemalloc.take_snapshot()) if tracing else None
    base_counts = type_counts()
    base_rss = rss_kib()
    history: list[str] = []
    rounds = 0
    while not stopped.wait(interval):
        rounds += 1
        snapshot = _filtered(tracemalloc.take_snapshot()) if tracing else None
        counts = type_counts()
        used, free = malloc_kib()
        arenas, blocks = obmalloc_kib()
        history.append(f"  {time.monotonic() - began:6.0f} s: RSS {rss_kib() / 1024:7.1f} MiB; malloc in use "
                       f"{used / 1024:7.1f} MiB, held free {free / 1024:6.1f} MiB; obmalloc arenas "
                       f"{arenas / 1024:6.1f} MiB, blocks {blocks / 1024:6.1f} MiB; "
                       f"{sum(counts.values())} objects; traced "
                       f"{tracemalloc.get_traced_memory()[0] / 1024 / 1024:.1f} MiB")
        lines = [f"after {time.monotonic() - began:.0f} s ({rounds} intervals of {interval:.0f} s since the "
                 f"baseline): RSS {rss_kib() / 1024:.1f} MiB ({(rss_kib() - base_rss) / 1024:+.2f})", "",
                 "every interval:", *history, "", "object counts that grew (type: now, change):"]
        grown = sorted(((counts[name] - base_counts.get(name, 0), name) for name in counts), reverse=True)
        lines += [f"  {name}: {counts[name]} ({change:+d})" for change, name in grown[:TOP] if change > 0]
        lines += ["", "who holds them (sampled referrer chains of the types that grew most):"]
        for change, name in [item for item in grown if item[1] not in _PLAIN][:HELD_TYPES]:
            if change > 0:
                lines += [f"  {name}:", *(f"    {count} × {chain}" for chain, count in holders(name).most_common(6))]
        lines += ["", "allocation sites that grew most (by traceback):"]
        for stat in snapshot.compare_to(baseline, "traceback")[:TOP] if snapshot and baseline else []:
            if stat.size_diff <= 0:
                continue
            lines.append(f"  {stat.size_diff / 1024:+.1f} KiB ({stat.count_diff:+d} blocks), now "
                         f"{stat.size / 1024:.1f} KiB:")
            lines += [f"      {frame.filename}:{frame.lineno}" for frame in stat.traceback]
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            temporary = target.with_suffix(".tmp")
            temporary.write_text("\n".join(lines) + "\n", encoding="utf-8")
            os.replace(temporary, target)
        except OSError:
            return
