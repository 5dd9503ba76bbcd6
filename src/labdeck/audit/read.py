"""Reading the audit log back: one :class:`AuditEntry` per attempt, merged from its lines.

Used by ``labdeck audit``, the console's ``:audit`` screen and the incident bundle. The log's
lines come in pairs with one ``id`` (see :mod:`labdeck.audit.log`); an attempt whose second line
never came (the process died while the request was in flight) reads as ``sent (no answer
recorded)``. Rotated files are read oldest first; unreadable lines are skipped and counted.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from labdeck.audit.context import AuditTarget
from labdeck.audit.log import KEEP_FILES, rotated_path
from labdeck.base import logsafe, paths
from labdeck.base.when import parse_since as parse_since
from labdeck.base.when import parse_time as parse_time


@dataclass(frozen=True)
class AuditEntry:
    """One attempt to change something, with its outcome."""

    id: str
    time: datetime
    """When it was about to be sent (local clock, UTC)."""
    method: str
    path: str
    action: str | None
    target: AuditTarget
    outcome: str
    """``sent`` (no answer recorded), ``done``, ``refused``, ``unknown`` or ``failed``."""
    profile: str | None = None
    instance: str | None = None
    user: str | None = None
    fields: tuple[str, ...] = ()
    confirmation: str | None = None
    operation: str | None = None
    status: int | None = None
    server_date: datetime | None = None
    finished_at: datetime | None = None
    detail: str | None = None
    local: bool = False
    """Refused on this machine (read-only mode): nothing was sent."""
    records: tuple[dict[str, Any], ...] = field(default=(), repr=False, compare=False)
    """The log lines this entry was merged from, as read."""

    @property
    def answered(self) -> bool:
        """True once a result was recorded."""
        return self.outcome != "sent"

    def outcome_text(self) -> str:
        """``done (201)``, ``refused (403: …)``, ``sent (no answer recorded)``…"""
        if self.outcome == "sent":
            return "sent (no answer recorded)"
        inner = [str(self.status)] if self.status is not None else []
        if self.local:
            inner.append("not sent")
        if self.detail and self.outcome != "done":
            inner.append(self.detail)
        return f"{self.outcome} ({': '.join(inner)})" if inner else self.outcome

    def to_dict(self) -> dict[str, Any]:
        """The merged record (for ``labdeck audit --json``)."""
        return {
            "id": self.id, "time": _stamp(self.time), "profile": self.profile, "instance": self.instance,
            "user": self.user, "action": self.action, "method": self.method, "path": self.path,
            "target": self.target.to_dict(), "fields": list(self.fields), "confirmation": self.confirmation,
            "operation": self.operation, "outcome": self.outcome, "status": self.status,
            "server_date": _stamp(self.server_date), "finished_at": _stamp(self.finished_at),
            "detail": self.detail, "local": self.local,
        }

    def concerns(self, *, jobs: Iterable[int] = (), pipelines: Iterable[int] = (),
                 runners: Iterable[int] = (), projects: Iterable[int | str] = ()) -> bool:
        """True when the target is one of the given jobs, pipelines, runners or projects."""
        target = self.target
        return ((target.job is not None and target.job in set(jobs))
                or (target.pipeline is not None and target.pipeline in set(pipelines))
                or (target.runner is not None and target.runner in set(runners))
                or (target.project is not None and str(target.project) in {str(p) for p in projects}))


@dataclass
class AuditRead:
    """What :func:`read_audit_file` found: entries and the number of lines it could not read."""

    entries: list[AuditEntry]
    skipped_lines: int = 0


def _stamp(moment: datetime | None) -> str | None:
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z") if moment else None


def audit_files(path: Path | None = None, keep_files: int = KEEP_FILES) -> list[Path]:
    """The log and its rotated files that exist, oldest first."""
    current = path or paths.audit_file()
    candidates = [rotated_path(current, number) for number in range(keep_files + 5, 0, -1)] + [current]
    return [candidate for candidate in candidates if candidate.is_file()]


def _text(value: Any, limit: int = 500) -> str | None:
    return logsafe.printable(str(value))[:limit] if value is not None else None


def _merge(records: list[dict[str, Any]]) -> AuditEntry | None:
    head = next((r for r in records if r.get("phase") in ("sent", "local")), None)
    if head is None:
        return None
    time = parse_time(head.get("time"))
    if time is None:
        return None
    result = next((r for r in reversed(records) if r.get("phase") == "result"), None)
    final = result or (head if head.get("phase") == "local" else None)
    outcome = str(final.get("outcome", "unknown")) if final else "sent"
    target = head.get("target")
    status = final.get("status") if final else None
    return AuditEntry(
        id=str(head["id"]), time=time, method=_text(head.get("method"), 10) or "?", path=_text(head.get("path")) or "",
        action=_text(head.get("action"), 100), target=AuditTarget.from_dict(target if isinstance(target, dict) else {}),
        outcome=outcome, profile=_text(head.get("profile"), 100), instance=_text(head.get("instance")),
        user=_text(head.get("user"), 100), fields=tuple(_text(f, 100) or "" for f in head.get("fields") or ()),
        confirmation=_text(head.get("confirmation"), 300), operation=_text(head.get("operation"), 40),
        status=status if isinstance(status, int) else None,
        server_date=parse_time(final.get("server_date")) if final else None,
        finished_at=parse_time(result.get("time")) if result else None,
        detail=_text(final.get("detail"), 300) if final else None, local=bool(head.get("local")),
        records=tuple(records),
    )


def read_audit_file(path: Path | None = None, *, keep_files: int = KEEP_FILES) -> AuditRead:
    """Every entry of the log (and its rotated files), oldest first."""
    grouped: dict[str, list[dict[str, Any]]] = {}
    skipped = 0
    for file in audit_files(path, keep_files):
        try:
            lines = file.read_text(encoding="utf-8", errors="replace").splitlines()
        except OSError:
            continue
        for line in lines:
            if not line.strip():
                continue
            try:
                record = json.loads(line)
            except ValueError:
                skipped += 1
                continue
            if not isinstance(record, dict) or not isinstance(record.get("id"), str):
                skipped += 1
                continue
            grouped.setdefault(record["id"], []).append(record)
    entries = [entry for entry in map(_merge, grouped.values()) if entry is not None]
    skipped += len(grouped) - len(entries)
    entries.sort(key=lambda entry: entry.time)
    return AuditRead(entries, skipped)


def read_audit(since: datetime | timedelta | None = None, *, profile: str | None = None,
               instance: str | None = None, path: Path | None = None,
               now: datetime | None = None) -> list[AuditEntry]:
    """The audit entries, oldest first, optionally only those sent at or after ``since`` (a time,
    or a duration before ``now``), for one ``profile`` or ``instance``."""
    if isinstance(since, timedelta):
        since = (now or datetime.now(UTC)) - since
    entries = read_audit_file(path).entries
    return [entry for entry in entries
            if (since is None or entry.time >= since)
            and (profile is None or entry.profile == profile)
            and (instance is None or entry.instance == instance.rstrip("/"))]


def format_table(entries: Sequence[AuditEntry]) -> str:
    """A plain-text table (one line per entry), safe to print on a terminal."""
    headers = ("TIME (UTC)", "USER", "PROFILE", "ACTION", "TARGET", "OUTCOME", "CONFIRMED", "REQUEST")
    rows = [headers] + [(
        entry.time.strftime("%Y-%m-%d %H:%M:%S"), entry.user or "-", entry.profile or "-", entry.action or "-",
        entry.target.describe() or "-", entry.outcome_text(), entry.confirmation or "-",
        f"{entry.method} {entry.path}",
    ) for entry in entries]
    cells = [[" ".join(logsafe.printable(cell).split()) for cell in row] for row in rows]
    widths = [min(60, max(len(row[col]) for row in cells)) for col in range(len(headers) - 1)]
    lines = []
    for row in cells:
        fixed = [cell if len(cell) <= width else cell[: width - 1] + "…" for cell, width in zip(row, widths, strict=False)]
        lines.append("  ".join(cell.ljust(width) for cell, width in zip(fixed, widths, strict=False)) + "  " + row[-1])
    return "\n".join(line.rstrip() for line in lines)


def format_json_lines(entries: Sequence[AuditEntry]) -> str:
    """One merged JSON object per line (ASCII, so control characters are escaped)."""
    return "".join(json.dumps(entry.to_dict(), ensure_ascii=True) + "\n" for entry in entries)
