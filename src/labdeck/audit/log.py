"""The local audit log: one record per change the client sends, written before it leaves.

The log is the client's change recorder (:class:`labdeck.api.recorder.ChangeRecorder`): the console
hands it to the client it builds, and every request that is not GET/HEAD/OPTIONS goes through it
(:func:`labdeck.api.recorder.recorded`, on :meth:`labdeck.api.core.HttpEngine.send`), so cancel, retry,
delete, settings edits and bulk actions are all on record whether or not the caller said anything
about them. Nothing here imports the client: this package sits below it. Each attempt gives
two JSON lines in ``<state dir>/audit.jsonl`` (:func:`labdeck.base.paths.audit_file`) with the same
``id``:

1. ``"phase": "sent"``, written (and fsynced) *before* the request leaves: time (UTC), profile,
   instance, user, action, method, path, target, the *names* of the fields sent, confirmation;
2. ``"phase": "result"`` after the answer: ``outcome`` ``done`` / ``refused`` (``status``) /
   ``unknown`` (no answer, or a 500/502/503/504: the change may or may not have happened) /
   ``failed`` (certainly never reached the server), the server's ``Date`` and a short reason.

A crash between the two leaves the first line: readers show it as ``sent (no answer recorded)``.
A write refused locally by read-only mode is one line with ``outcome: refused`` and ``local:
true``. The same id goes to the server as ``X-Request-Id``.

What is never written: the token, request bodies and field *values* (only names), query values.
A server message kept as ``detail`` has every value the request carried masked out of it first.

Context from the UI comes from :func:`audit_context` (also ``client.audit.context``), a
:mod:`contextvars` block around the call: it covers every request made inside it, in the same task
or in tasks started inside it, and nests (an inner block fills in what the outer one left out)::

    with client.audit.context(action="jobs.cancel", target=AuditTarget(project="g/p", job=12),
                              confirmation="dialog"):
        await client.jobs.cancel("g/p", 12)

Without context the action and target are inferred from the path (``jobs.cancel``, project and
job ids) and the confirmation is recorded as null (not known). With context, ids found in the path
(job, runner, issue…) still win over the context's, since they are what was sent; the context's
project/group (a readable full path) wins over the numeric id in the path.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import tempfile
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from pathlib import Path
from typing import Any

from labdeck.audit.context import AuditContext, AuditTarget, audit_context, current_context, new_id, utc_stamp
from labdeck.audit.shape import field_names, infer_from_path, request_values
from labdeck.base import logsafe, paths

try:
    import fcntl
except ImportError:  # pragma: no cover - not POSIX
    fcntl = None  # type: ignore[assignment]

_log = logging.getLogger(__name__)

MAX_BYTES = 10 * 1024 * 1024
"""Size at which the log is rotated."""
KEEP_FILES = 5
"""Files kept: ``audit.jsonl`` and ``audit.jsonl.1`` … ``audit.jsonl.4`` (oldest)."""
FORMAT_VERSION = 1
OUTCOMES = ("sent", "done", "refused", "unknown", "failed")

__all__ = ["AuditContext", "AuditLog", "AuditTarget", "audit_context", "current_context"]


def _clean(text: str, masked: set[str], limit: int = 200) -> str:
    for value in sorted(masked, key=len, reverse=True):
        text = text.replace(value, "***")
    flat = " ".join(logsafe.printable(logsafe.redact_text(text)).split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def _server_date(value: str | None) -> str | None:
    if not value:
        return None
    try:
        return utc_stamp(parsedate_to_datetime(value))
    except (TypeError, ValueError, IndexError, OverflowError):
        return logsafe.printable(value)[:64]


@dataclass
class Attempt:
    """One change in flight (between its ``sent`` and ``result`` lines)."""

    id: str
    masked: set[str] = field(default_factory=set, repr=False)


class AuditLog:
    """The audit log of one client (``client.audit``).

    Args:
        instance: the instance root URL (recorded on every line).
        path: the file; default :func:`labdeck.base.paths.audit_file` (resolved at each write, so the
            state directory may change, as it does in tests).
        max_bytes, keep_files: rotation (10 MB, 5 files).
        clock: the local time source (tests).

    No change leaves without its record: when the ``sent`` line cannot be written (the folder is
    not writable, the disk is full) :meth:`begin` returns None and the client refuses the change
    (:class:`labdeck.api.errors.AuditUnavailable`, nothing sent), unless the user agreed to send without records (:attr:`allow_unrecorded`).
    The reason is kept in :attr:`write_error`, and logged.
    """

    def __init__(self, instance: str, path: Path | None = None, *, max_bytes: int = MAX_BYTES,
                 keep_files: int = KEEP_FILES, enabled: bool = True,
                 clock: Callable[[], datetime] = lambda: datetime.now(UTC)) -> None:
        self.instance = logsafe.redact_url(instance)
        self._path = path
        self.max_bytes = max_bytes
        self.keep_files = max(1, keep_files)
        self.enabled = enabled
        self.clock = clock
        self.profile: str | None = None
        self.user: str | None = None
        self._user_bound = False
        self.write_error: str | None = None
        self.allow_unrecorded = False
        """The user agreed to send changes although their records cannot be written."""
        self._lock = threading.Lock()

    def problem(self) -> str | None:
        """Why records cannot be written now (the folder missing and not creatable, the file or
        its lock not writable, a folder the file cannot be created or rotated in); None when they
        can. Asked at start-up and by ``labdeck doctor``: it tries what :meth:`_append` needs, so
        its answer is what the next change meets."""
        return writable_problem(self.path, self.max_bytes)

    @property
    def path(self) -> Path:
        """The current log file."""
        return self._path if self._path is not None else paths.audit_file()

    def bind(self, *, profile: str | None = None, user: str | None = None) -> None:
        """Session facts for every line: the profile name, and the account (otherwise learnt from
        the first ``GET /user`` answer)."""
        if profile is not None:
            self.profile = profile
        if user is not None:
            self.user, self._user_bound = user, True

    context = staticmethod(audit_context)

    # --- the engine's side -----------------------------------------------------------------------

    def begin(self, method: str, raw_path: str, *, params: Any = None, data: Any = None,
              json_body: Any = None, files: Any = None, refused_locally: bool = False) -> Attempt | None:
        """Write the ``sent`` line (or, with ``refused_locally``, the whole record). None when the line
        could not be written and the change must not be sent (see :attr:`write_error`)."""
        context = current_context() or AuditContext()
        action, inferred = infer_from_path(method, raw_path)
        target = inferred
        if context.target is not None:
            # Ids in the path are what was actually sent; the caller's project/group (a readable
            # full path rather than an id) and anything the path does not say fill the rest.
            named = AuditTarget(project=context.target.project, group=context.target.group)
            target = named.filled_from(inferred.filled_from(context.target))
        attempt = Attempt(new_id(), request_values(params, data, json_body))
        record: dict[str, Any] = {
            "v": FORMAT_VERSION, "id": attempt.id, "phase": "sent", "time": utc_stamp(self.clock()),
            "profile": context.profile or self.profile, "instance": self.instance,
            "user": context.user or self.user, "action": context.action or action,
            "method": method, "path": logsafe.printable(logsafe.redact_url(raw_path.split("?", 1)[0]))[:500],
            "target": target.to_dict(),
            "fields": field_names(params=params, data=data, json_body=json_body, files=files),
            "confirmation": context.confirmation, "operation": context.operation,
        }
        if refused_locally:
            record.update(phase="local", outcome="refused", local=True, detail="read-only mode")
        if not self._append(record, sync=True) and not refused_locally and not self.allow_unrecorded:
            return None
        return attempt

    def finish(self, attempt: Attempt, outcome: str, *, status: int | None = None,
               server_date: str | None = None, detail: str | None = None) -> None:
        """Write the ``result`` line of ``attempt``."""
        record: dict[str, Any] = {"v": FORMAT_VERSION, "id": attempt.id, "phase": "result",
                                  "time": utc_stamp(self.clock()), "outcome": outcome}
        if status is not None:
            record["status"] = status
        if server_date is not None:
            record["server_date"] = _server_date(server_date)
        if detail:
            record["detail"] = _clean(detail, attempt.masked)
        self._append(record, sync=False)

    def learn_user(self, username: str) -> None:
        """The account the requests are sent as (from a ``GET /user`` answer), unless :meth:`bind`
        set one."""
        if not self._user_bound:
            self.user = logsafe.printable(username)[:100]

    # --- the file ------------------------------------------------------------------------------

    def _append(self, record: dict[str, Any], *, sync: bool) -> bool:
        # ensure_ascii: every control character in a server string is written as a \\u escape,
        # so the file is safe to cat.
        line = (json.dumps(record, ensure_ascii=True, separators=(",", ":")) + "\n").encode("ascii")
        path = self.path
        try:
            with self._lock, _file_lock(path):
                self._rotate(path, len(line))
                fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
                try:
                    os.fchmod(fd, 0o600)
                    os.write(fd, line)
                    if sync:
                        os.fsync(fd)
                finally:
                    os.close(fd)
            self.write_error = None
            return True
        except OSError as exc:
            self.write_error = f"the audit log could not be written to {path}: {exc.strerror or exc}"
            _log.warning("%s", self.write_error)
            return False

    def _rotate(self, path: Path, incoming: int) -> None:
        try:
            size = path.stat().st_size
        except FileNotFoundError:
            return
        if size == 0 or size + incoming <= self.max_bytes:
            return
        for number in range(self.keep_files - 1, 0, -1):
            older = rotated_path(path, number)
            if number == self.keep_files - 1:
                older.unlink(missing_ok=True)
            elif older.exists():
                os.replace(older, rotated_path(path, number + 1))
        if self.keep_files > 1:
            os.replace(path, rotated_path(path, 1))
        else:
            path.unlink()


def writable_problem(path: Path, max_bytes: int = MAX_BYTES) -> str | None:
    """Why ``path`` (an audit log file) cannot be written: its folder cannot be created, the file
    or its lock file cannot be opened for appending, or one of them (or a rotation that is due)
    needs a new file in a folder that takes none; None when a record can be written.

    It tries what a write does (open to append; create a file only when one must be created),
    rather than asking for permissions: a read-only folder with a writable log in it takes
    records, and must not be called unwritable (issue 32: start-up said "changes are refused",
    then sent and recorded them)."""
    folder = path.parent
    try:
        folder.mkdir(parents=True, exist_ok=True, mode=0o700)
    except OSError as exc:
        return f"the audit log's folder {folder} cannot be created ({exc.strerror or exc})"
    lock = path.with_name(path.name + ".lock") if fcntl is not None else None
    to_create = False
    for existing in (path, lock):
        if existing is None:
            continue
        try:
            fd = os.open(existing, os.O_WRONLY | os.O_APPEND)
        except FileNotFoundError:
            to_create = True
            continue
        except OSError as exc:
            return f"the audit log {existing} is not writable ({exc.strerror or exc})"
        os.close(fd)
    with contextlib.suppress(OSError):
        to_create = to_create or path.stat().st_size >= max_bytes - _ROTATE_MARGIN  # a rotation is near
    if to_create and not _can_create_in(folder):
        return f"the audit log's folder {folder} is not writable"
    return None


_ROTATE_MARGIN = 64 * 1024
"""A log this close to its size limit is rotated by one of the next records (new files)."""


def _can_create_in(folder: Path) -> bool:
    """Whether a new file can be made in ``folder`` (tried, then removed: permission bits do not
    tell, for root or on a read-only mount)."""
    try:
        fd, name = tempfile.mkstemp(prefix=".audit-probe-", dir=folder)
    except OSError:
        return False
    os.close(fd)
    with contextlib.suppress(OSError):
        os.unlink(name)
    return True


def rotated_path(path: Path, number: int) -> Path:
    """``audit.jsonl.<number>`` next to ``path``."""
    return path.with_name(f"{path.name}.{number}")


@contextlib.contextmanager
def _file_lock(path: Path) -> Iterator[None]:
    """Serialise rotation and appends between labdeck processes sharing one state directory."""
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    if fcntl is None:
        yield
        return
    fd = os.open(path.with_name(path.name + ".lock"), os.O_WRONLY | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)

