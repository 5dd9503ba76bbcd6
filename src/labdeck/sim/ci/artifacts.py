"""Job artifacts: real zip archives, generated deterministically when first needed.

Small archives (a few files in nested directories) are built in memory and kept in a bounded
cache; their size is remembered so that job records never rebuild them. A "big" archive holds one
payload of a chosen size (memory benchmarks, e.g. 200 MB); it is written once to a temporary file
and streamed from there, and its size is known up front from the zip layout.
"""

from __future__ import annotations

import io
import random
import tempfile
import threading
import zipfile
from collections import OrderedDict
from collections.abc import AsyncIterator, Iterator
from typing import IO, TYPE_CHECKING

if TYPE_CHECKING:
    from labdeck.sim.ci.model import Job

ZIP_DATE = (2026, 11, 2, 9, 0, 0)
BIG_MEMBER = "dist/payload.bin"
CHUNK = 256 * 1024
_SMALL_CACHE_BYTES = 8 * 1024 * 1024


def small_files(job: Job) -> list[tuple[str, bytes]]:
    """The files of a job's small archive (a report, a binary, nested coverage output)."""
    rng = random.Random(job.seed * 7919 + job.id)
    cases = rng.randint(5, 30)
    failures = 1 if job.status == "failed" else 0
    junit = [f'<?xml version="1.0" encoding="UTF-8"?>\n<testsuite name="{job.name}" tests="{cases}" '
             f'failures="{failures}">\n']
    for index in range(cases):
        junit.append(f'  <testcase classname="tests.test_{index % 7}" name="test_case_{index}" '
                     f'time="{rng.uniform(0.001, 2.5):.3f}"/>\n')
    junit.append("</testsuite>\n")
    lcov = "".join(f"SF:src/module_{index}.py\nLH:{rng.randint(10, 90)}\nLF:100\nend_of_record\n"
                   for index in range(rng.randint(3, 9)))
    return [
        ("README.txt", f"Artifacts of job {job.id} ({job.name}, stage {job.stage}) on {job.ref}.\n".encode()),
        ("reports/junit.xml", "".join(junit).encode()),
        (f"dist/{job.name.replace(' ', '-')}.bin", rng.randbytes(rng.randint(512, 4096))),
        ("coverage/index.html", f"<html><body><h1>Coverage {rng.uniform(50, 99):.1f}%</h1></body></html>\n".encode()),
        ("coverage/lcov/nested/deep/lcov.info", lcov.encode()),
    ]


def build_small_zip(job: Job) -> bytes:
    """The small archive of ``job`` (deflated, fixed timestamps)."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for name, data in small_files(job):
            info = zipfile.ZipInfo(name, date_time=ZIP_DATE)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            archive.writestr(info, data)
    return buffer.getvalue()


def big_zip_size(payload: int) -> int:
    """Exact size of a stored (uncompressed) zip holding one ``payload``-byte member."""
    name = len(BIG_MEMBER.encode())
    return (30 + name + payload) + (46 + name) + 22


def write_big_zip(seed: int, payload: int) -> IO[bytes]:
    """A temporary file holding the big archive; content is a repeated seeded 1 MiB block."""
    block = random.Random(seed).randbytes(1024 * 1024)
    handle = tempfile.TemporaryFile(prefix="labdeck-sim-artifact-")
    with zipfile.ZipFile(handle, "w", compression=zipfile.ZIP_STORED, allowZip64=True) as archive:
        info = zipfile.ZipInfo(BIG_MEMBER, date_time=ZIP_DATE)
        info.compress_type = zipfile.ZIP_STORED
        info.file_size = payload
        with archive.open(info, "w") as member:
            left = payload
            while left > 0:
                piece = block[: min(left, len(block))]
                member.write(piece)
                left -= len(piece)
    handle.seek(0)
    return handle


_KNOWN_SIZES: dict[tuple[int, int, str, str, str, str], int] = {}
"""Sizes of small archives built in this process, by what makes the archive (every simulator in
the process shares them: a test suite starts hundreds of copies of one data set, and each listed
every job's size by deflating its archive again). At most :data:`_KNOWN_SIZES_KEPT`."""
_KNOWN_SIZES_KEPT = 100_000


def _archive_key(job: Job) -> tuple[int, int, str, str, str, str]:
    """What :func:`small_files` builds a job's archive from."""
    return (job.seed, job.id, job.status, job.name, job.stage, job.ref)


def _remember_size(key: tuple[int, int, str, str, str, str], size: int) -> None:
    if len(_KNOWN_SIZES) >= _KNOWN_SIZES_KEPT:  # a simulator running for days: forget, start over
        _KNOWN_SIZES.clear()
    _KNOWN_SIZES[key] = size


class ArtifactStore:
    """Archives of every job: small ones cached in memory, big ones in temporary files."""

    def __init__(self) -> None:
        self._small: OrderedDict[int, bytes] = OrderedDict()
        self._small_bytes = 0
        self._sizes: dict[int, int] = {}
        self._big: dict[int, IO[bytes]] = {}

    def size(self, job: Job) -> int:
        """Size in bytes of the job's archive (built once for small ones)."""
        if job.artifacts == "big":
            return big_zip_size(job.artifact_bytes)
        cached = self._sizes.get(job.id)
        if cached is None:
            key = _archive_key(job)
            cached = _KNOWN_SIZES.get(key)
            if cached is None:
                cached = len(self._small_zip(job))
                _remember_size(key, cached)
            self._sizes[job.id] = cached
        return cached

    def _small_zip(self, job: Job) -> bytes:
        data = self._small.get(job.id)
        if data is not None:
            self._small.move_to_end(job.id)
            return data
        data = build_small_zip(job)
        self._sizes[job.id] = len(data)
        self._small[job.id] = data
        self._small_bytes += len(data)
        while self._small_bytes > _SMALL_CACHE_BYTES and len(self._small) > 1:
            _, dropped = self._small.popitem(last=False)
            self._small_bytes -= len(dropped)
        return data

    def _big_file(self, job: Job) -> IO[bytes]:
        handle = self._big.get(job.id)
        if handle is None:
            handle = write_big_zip(job.seed * 31 + job.id, job.artifact_bytes)
            self._big[job.id] = handle
        return handle

    def open(self, job: Job) -> IO[bytes]:
        """A fresh readable handle on the job's archive (a copy for the big one's shared file)."""
        if job.artifacts == "big":
            source = self._big_file(job)
            return io.BufferedReader(_SharedReader(source), CHUNK)
        return io.BytesIO(self._small_zip(job))

    def drop(self, job_id: int) -> None:
        """Forget a job's archive (erased, or the job was pruned)."""
        data = self._small.pop(job_id, None)
        if data is not None:
            self._small_bytes -= len(data)
        self._sizes.pop(job_id, None)
        handle = self._big.pop(job_id, None)
        if handle is not None:
            handle.close()

    def close(self) -> None:
        """Close every temporary file."""
        for handle in self._big.values():
            handle.close()
        self._big.clear()


_SHARED_LOCK = threading.Lock()


class _SharedReader(io.RawIOBase):
    """An independent read position over a shared temporary file (several downloads at once)."""

    def __init__(self, source: IO[bytes]) -> None:
        super().__init__()
        self._source = source
        self._pos = 0
        source.seek(0, io.SEEK_END)
        self._size = source.tell()

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return True

    def seek(self, offset: int, whence: int = io.SEEK_SET) -> int:
        if whence == io.SEEK_SET:
            self._pos = offset
        elif whence == io.SEEK_CUR:
            self._pos += offset
        else:
            self._pos = self._size + offset
        return self._pos

    def tell(self) -> int:
        return self._pos

    def readinto(self, buffer: bytearray | memoryview) -> int:  # type: ignore[override]
        with _SHARED_LOCK:  # single-file downloads iterate in the thread pool
            self._source.seek(self._pos)
            data = self._source.read(len(buffer))
        buffer[: len(data)] = data
        self._pos += len(data)
        return len(data)


def valid_member_path(path: str) -> bool:
    """Gitlab::Ci::Build::Artifacts::Path: no traversal, not absolute, no NUL, not empty."""
    if not path or path.startswith("/") or "\x00" in path or "\\" in path:
        return False
    return all(part not in ("..", ".") for part in path.split("/"))


async def iter_handle(handle: IO[bytes], start: int = 0, length: int | None = None) -> AsyncIterator[bytes]:
    """Stream ``length`` bytes of ``handle`` from ``start`` in chunks, closing it at the end."""
    try:
        handle.seek(start)
        left = length
        while left is None or left > 0:
            data = handle.read(CHUNK if left is None else min(CHUNK, left))
            if not data:
                break
            if left is not None:
                left -= len(data)
            yield data
    finally:
        handle.close()


def iter_member(archive: IO[bytes], name: str) -> Iterator[bytes] | None:
    """Chunks of one member of the zip in ``archive``, or None when it has no such file."""
    zipped = zipfile.ZipFile(archive)
    try:
        zipped.getinfo(name)
    except KeyError:
        zipped.close()
        return None

    def chunks() -> Iterator[bytes]:
        try:
            with zipped.open(name) as member:
                while True:
                    data = member.read(CHUNK)
                    if not data:
                        break
                    yield data
        finally:
            zipped.close()
            archive.close()

    return chunks()


def member_size(archive: IO[bytes], name: str) -> int | None:
    """Uncompressed size of one member, or None when absent."""
    with zipfile.ZipFile(archive) as zipped:
        try:
            return zipped.getinfo(name).file_size
        except KeyError:
            return None
