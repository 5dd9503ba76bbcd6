"""Private, atomic files: the console's JSON state (last profile, command history, drafts).

Writes go to a temporary file in the same directory, are fsynced and renamed over the target, so a
dropped SSH connection or a crash never leaves half a file. Everything is mode 0600 because drafts
hold user text. A state file that cannot be parsed is moved aside and defaults are used.
"""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
import time
from pathlib import Path
from typing import Any

from labdeck.base import paths

STATE_VERSION = 1


def write_private(path: Path, data: bytes) -> None:
    """Atomically replace ``path`` with ``data``, mode 0600 (directories created 0700)."""
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    fd, temp_name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        os.fchmod(fd, 0o600)
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temp_name, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temp_name)
        raise
    _fsync_directory(path.parent)


def _fsync_directory(directory: Path) -> None:
    # Makes the rename itself durable; not every filesystem allows opening a directory.
    with contextlib.suppress(OSError):
        fd = os.open(directory, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


class StateStore:
    """The console's persisted state as a JSON object.

    Keys used by labdeck: ``last_profile`` (str), ``history`` (list of command strings), ``drafts``
    (draft key → text), ``ui`` (free-form per-screen state). Unknown keys are kept.
    """

    def __init__(self, path: Path | None = None) -> None:
        self.path = path or paths.state_file()

    def load(self) -> dict[str, Any]:
        """The stored state, or ``{}`` when missing; a corrupt file is moved aside, never fatal."""
        try:
            raw = self.path.read_bytes()
        except FileNotFoundError:
            return {}
        except OSError:
            return {}
        try:
            data = json.loads(raw)
            if not isinstance(data, dict):
                raise ValueError("state is not a JSON object")
        except ValueError:
            self._move_aside()
            return {}
        data.pop("version", None)
        return data

    def save(self, data: dict[str, Any]) -> None:
        """Write the whole state atomically (mode 0600)."""
        payload = {"version": STATE_VERSION, **data}
        write_private(self.path, json.dumps(payload, indent=1, ensure_ascii=False).encode("utf-8"))

    def update(self, **changes: Any) -> dict[str, Any]:
        """Load, apply ``changes`` (a value of ``None`` removes the key), save; returns the result."""
        data = self.load()
        for key, value in changes.items():
            if value is None:
                data.pop(key, None)
            else:
                data[key] = value
        self.save(data)
        return data

    def save_draft(self, key: str, text: str) -> None:
        """Keep a draft (e.g. ``issue:group/project:new``) until :meth:`drop_draft` after success."""
        data = self.load()
        drafts = data.get("drafts") if isinstance(data.get("drafts"), dict) else {}
        assert isinstance(drafts, dict)
        drafts[key] = text
        data["drafts"] = drafts
        self.save(data)

    def drop_draft(self, key: str) -> None:
        """Forget a draft once the server confirmed the object was created or updated."""
        data = self.load()
        drafts = data.get("drafts")
        if isinstance(drafts, dict) and key in drafts:
            del drafts[key]
            self.save(data)

    def drafts(self) -> dict[str, str]:
        """Every saved draft, key → text."""
        drafts = self.load().get("drafts")
        if not isinstance(drafts, dict):
            return {}
        return {str(key): str(value) for key, value in drafts.items()}

    def _move_aside(self) -> None:
        stamp = time.strftime("%Y%m%dT%H%M%S")
        with contextlib.suppress(OSError):
            os.replace(self.path, self.path.with_name(f"{self.path.name}.corrupt-{stamp}"))
