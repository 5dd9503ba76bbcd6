"""Append-only storage of text lines in a spooled temporary file with an offset index.

Only a ``array('q')`` of byte offsets (8 bytes per line) and a small LRU cache stay in memory;
the text itself lives in a :class:`tempfile.SpooledTemporaryFile` that moves to disk past
``spool_size`` bytes. Each stored line ends with ``\\n`` so blocks of lines can be scanned with
one read.
"""

from __future__ import annotations

import tempfile
import threading
from array import array
from bisect import bisect_right
from collections import OrderedDict
from itertools import accumulate, count
from operator import add, methodcaller

_WRITE_BATCH = 256 * 1024
_ENCODE = methodcaller("encode", "utf-8", "replace")


class LineStore:
    """Lines ``0 .. len-1``; :meth:`append` adds one, :meth:`get` reads one back."""

    def __init__(self, spool_size: int = 8 * 1024 * 1024, cache_size: int = 2048) -> None:
        self._spool_size = spool_size
        self._cache_size = cache_size
        self._lock = threading.Lock()
        self._open()

    def _open(self) -> None:
        self._file = tempfile.SpooledTemporaryFile(max_size=self._spool_size, mode="w+b")
        self._offsets = array("q", [0])
        self._pending = bytearray()
        self._flushed = 0
        self._cache: OrderedDict[int, str] = OrderedDict()

    def __len__(self) -> int:
        return len(self._offsets) - 1

    @property
    def size(self) -> int:
        """Bytes stored (UTF-8, newlines included)."""
        return self._offsets[-1]

    def append(self, text: str) -> int:
        """Store ``text`` (which must not contain ``\\n``) as the next line; return its index."""
        data = text.encode("utf-8", "replace") + b"\n"
        with self._lock:
            self._pending += data
            self._offsets.append(self._offsets[-1] + len(data))
            if len(self._pending) >= _WRITE_BATCH:
                self._flush()
            return len(self._offsets) - 2

    def extend(self, lines: list[str]) -> None:
        """Store several lines (none containing ``\\n``) at once."""
        if not lines:
            return
        text = "\n".join(lines) + "\n"
        data = text.encode("utf-8", "replace")
        # Byte lengths: the characters' for ASCII text, else each line encoded on its own.
        lengths = map(len, lines) if len(data) == len(text) else map(len, map(_ENCODE, lines))
        with self._lock:
            offsets = self._offsets
            # Each line ends one past the previous end plus its length (its newline): summed in C,
            # not line by line in Python (a million-line log arrives in a few seconds).
            offsets.extend(map(add, accumulate(lengths), count(offsets[-1] + 1)))
            self._pending += data
            if len(self._pending) >= _WRITE_BATCH:
                self._flush()

    def _flush(self) -> None:
        if self._pending:
            self._file.seek(self._flushed)
            self._file.write(self._pending)
            self._flushed += len(self._pending)
            self._pending.clear()

    def _read(self, start: int, end: int) -> bytes:
        """Bytes ``start .. end`` of the stored stream (lock held)."""
        if start >= self._flushed:
            return bytes(self._pending[start - self._flushed:end - self._flushed])
        if end > self._flushed:
            self._flush()
        self._file.seek(start)
        return self._file.read(end - start)

    def get(self, index: int) -> str:
        """Line ``index`` (IndexError outside ``0 .. len-1``)."""
        if not 0 <= index < len(self):
            raise IndexError(index)
        with self._lock:
            cached = self._cache.get(index)
            if cached is not None:
                self._cache.move_to_end(index)
                return cached
            data = self._read(self._offsets[index], self._offsets[index + 1] - 1)
            text = data.decode("utf-8", "replace")
            self._cache[index] = text
            if len(self._cache) > self._cache_size:
                self._cache.popitem(last=False)
            return text

    def block(self, first: int, last: int) -> str:
        """Lines ``first .. last-1`` as one string, each followed by ``\\n``."""
        with self._lock:
            return self._read(self._offsets[first], self._offsets[last]).decode("utf-8", "replace")

    def line_after_bytes(self, first: int, budget: int) -> int:
        """The line index where a block starting at ``first`` reaches about ``budget`` bytes."""
        target = self._offsets[first] + budget
        return min(len(self), max(first + 1, bisect_right(self._offsets, target) - 1))

    def line_before_bytes(self, last: int, budget: int) -> int:
        """The first line of a block ending (exclusive) at ``last`` of about ``budget`` bytes."""
        target = self._offsets[last] - budget
        return max(0, min(last - 1, bisect_right(self._offsets, target)))

    def clear(self) -> None:
        """Forget every line."""
        with self._lock:
            self._file.close()
            self._open()

    def close(self) -> None:
        """Release the temporary file."""
        with self._lock:
            self._file.close()
