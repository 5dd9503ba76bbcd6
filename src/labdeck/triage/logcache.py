"""A private, bounded cache of finished job logs: a finished job's log never changes, so it is read
from the server once. Beside each log it keeps the log's *facts* (what the cause finder answered,
a few kilobytes of JSON: :meth:`LogCache.get_facts`), so a warm round reads neither the log nor
its analysis again; a log too big to keep (over :data:`MAX_LOG_BYTES`) keeps only its facts, and
is never read again either. Beside them, a warm round's jobs pages (:mod:`labdeck.triage.kept`:
:meth:`LogCache.get_blob`), bounded with the logs.

Files live in :func:`labdeck.base.paths.log_cache_dir` (directory 0700, files 0600), named by a hash of
the instance, project and job (no URL, path or token in a name). The total size stays under
``max_bytes`` (200 MB by default): the least recently used files go first. Only logs are stored:
the token never is. Reads and writes are plain blocking file I/O (small files); an unreadable or
unwritable cache is treated as empty, never as an error.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
from pathlib import Path
from typing import Any

from labdeck.base import paths

DEFAULT_MAX_BYTES = 200 * 1024 * 1024
MAX_LOG_BYTES = 32 * 1024 * 1024
"""A bigger log is not kept (it would push out hundreds of others): its facts are."""


class LogCache:
    """``get``/``put`` finished logs by (instance, project id, job id)."""

    def __init__(self, directory: Path | None = None, *, max_bytes: int = DEFAULT_MAX_BYTES) -> None:
        self.directory = directory or paths.log_cache_dir()
        self.max_bytes = max_bytes
        self._size: int | None = None

    def _path(self, instance: str, project_id: int, job_id: int) -> Path:
        digest = hashlib.sha256(f"{instance.rstrip('/')}\0{int(project_id)}\0{int(job_id)}".encode()).hexdigest()
        return self.directory / f"{digest[:40]}.log"

    def _facts_path(self, instance: str, project_id: int, job_id: int, variant: str) -> Path:
        key = f"{instance.rstrip('/')}\0{int(project_id)}\0{int(job_id)}\0facts\0{variant}"
        return self.directory / f"{hashlib.sha256(key.encode()).hexdigest()[:40]}.json"

    def _blob_path(self, instance: str, key: str) -> Path:
        digest = hashlib.sha256(f"{instance.rstrip('/')}\0blob\0{key}".encode()).hexdigest()
        return self.directory / f"{digest[:40]}.blob"

    def get_blob(self, instance: str, key: str) -> bytes | None:
        """What :meth:`put_blob` kept under ``key`` for ``instance`` (a round's jobs page …), or None."""
        return self._read(self._blob_path(instance, key))

    def put_blob(self, instance: str, key: str, data: bytes) -> bool:
        """Keep ``data`` (bounded with the logs, least recently used first); False when not kept."""
        if len(data) > min(MAX_LOG_BYTES, self.max_bytes):
            return False
        return self._write(self._blob_path(instance, key), data)

    def get(self, instance: str, project_id: int, job_id: int) -> bytes | None:
        """The cached log, or None."""
        return self._read(self._path(instance, project_id, job_id))

    def _read(self, path: Path) -> bytes | None:
        try:
            data = path.read_bytes()
        except OSError:
            return None
        with contextlib.suppress(OSError):
            os.utime(path)  # recently used: evicted last
        return data

    def get_facts(self, instance: str, project_id: int, job_id: int, variant: str = "") -> Any:
        """The facts kept for a finished job's log (JSON, as given to :meth:`put_facts`), or None.
        ``variant`` tells apart facts read against different baselines (the passing job's id)."""
        data = self._read(self._facts_path(instance, project_id, job_id, variant))
        if data is None:
            return None
        try:
            return json.loads(data)
        except ValueError:
            return None

    def put_facts(self, instance: str, project_id: int, job_id: int, facts: Any, variant: str = "") -> bool:
        """Keep the facts (JSON-able) of a finished job's log; False when they were not kept."""
        return self._write(self._facts_path(instance, project_id, job_id, variant),
                           json.dumps(facts, separators=(",", ":")).encode())

    def put(self, instance: str, project_id: int, job_id: int, data: bytes) -> bool:
        """Keep a finished job's log; False when it was not kept (too big, cache unwritable)."""
        if len(data) > min(MAX_LOG_BYTES, self.max_bytes):
            return False
        return self._write(self._path(instance, project_id, job_id), data)

    def _write(self, path: Path, data: bytes) -> bool:
        try:
            self.directory.mkdir(mode=0o700, parents=True, exist_ok=True)
            temporary = path.with_suffix(f".{os.getpid()}.tmp")
            descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            with os.fdopen(descriptor, "wb") as handle:
                handle.write(data)
            os.replace(temporary, path)
        except OSError:
            return False
        self._size = (self._size if self._size is not None else self._measure()) + len(data)
        if self._size > self.max_bytes:
            self._evict()
        return True

    def _files(self) -> list[os.DirEntry[str]]:
        try:
            return [entry for entry in os.scandir(self.directory) if entry.name.endswith((".log", ".json", ".blob"))]
        except OSError:
            return []

    def _measure(self) -> int:
        total = 0
        for entry in self._files():
            with contextlib.suppress(OSError):
                total += entry.stat().st_size
        return total

    def _evict(self) -> None:
        """Remove least recently used files until the cache is at 90 % of its bound."""
        entries = []
        for entry in self._files():
            with contextlib.suppress(OSError):
                stat = entry.stat()
                entries.append((stat.st_mtime, stat.st_size, entry.path))
        total = sum(size for _, size, _ in entries)
        for _, size, path in sorted(entries):
            if total <= self.max_bytes * 0.9:
                break
            with contextlib.suppress(OSError):
                os.unlink(path)
                total -= size
        self._size = total

    def size(self) -> int:
        """Bytes held now."""
        return self._measure()
