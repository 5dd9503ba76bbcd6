"""The incident bundle: one ``.tar.gz`` with everything needed to hand an incident over.

Contents (paths inside the archive):

- ``summary.md``: :func:`labdeck.incident.summary.render_summary`;
- ``jobs/<id>.json`` (as the server sent it), ``jobs/<id>.log.raw`` (the log's bytes as received)
  and ``jobs/<id>.log.txt`` (plain text: no escape sequence at all, line numbers as in the viewer);
- ``runners/<id>.json`` (details, the runner's ``token`` removed), ``pipeline-<id>.json`` (the
  pipeline's job list), ``audit.jsonl`` (the local audit lines about these jobs, pipelines and
  runners).

The archive is written to a private temporary file next to the destination and then given its
name, mode 0600. An existing file is never replaced: with ``on_exists="rename"`` (the default) the
bundle becomes ``name (1).tar.gz``, ``name (2).tar.gz``… and :attr:`BundleFile.message` says so;
with ``"refuse"`` :class:`BundleExists` is raised.

    async with ApiClient(...) as client:
        result = await build_bundle(client, "group/project", job=123)
        print(result.message)
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import re
import tarfile
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from labdeck.api.resources.base import ProjectRef
from labdeck.base import paths
from labdeck.incident.collect import Incident, collect_incident
from labdeck.incident.summary import render_summary

if TYPE_CHECKING:
    from labdeck.api.client import ApiClient

OnExists = Literal["rename", "refuse"]
_MAX_RENAMES = 999


class BundleExists(FileExistsError):
    """The destination exists and ``on_exists="refuse"`` was asked."""


@dataclass(frozen=True)
class BundleFile:
    """Where the bundle went. ``renamed`` is True when the requested name was taken."""

    path: Path
    requested: Path
    files: tuple[str, ...]
    summary: str

    @property
    def renamed(self) -> bool:
        return self.path != self.requested

    @property
    def message(self) -> str:
        """One line for the status bar."""
        if self.renamed:
            return f"{self.requested.name} already exists: saved the incident bundle as {self.path}"
        return f"Saved the incident bundle to {self.path}"


def default_name(incident: Incident) -> str:
    """``incident-[<profile>-]<project>-<scope>-<yyyymmdd-hhmmss>.tar.gz`` (server time, UTC); the
    profile when the console shows several instances."""
    project = incident.project.path_with_namespace or str(incident.project.id)
    slug = re.sub(r"[^A-Za-z0-9._-]+", "-", f"{project}-{incident.scope}").strip("-.")[:80] or "incident"
    if incident.profile:
        slug = f"{re.sub(r'[^A-Za-z0-9._-]+', '-', incident.profile).strip('-.')[:30]}-{slug}"
    return f"incident-{slug}-{incident.generated_at.strftime('%Y%m%d-%H%M%S')}.tar.gz"


def _candidates(target: Path) -> list[Path]:
    name = target.name
    stem, suffix = (name[: -len(".tar.gz")], ".tar.gz") if name.endswith(".tar.gz") else (target.stem, target.suffix)
    return [target] + [target.with_name(f"{stem} ({n}){suffix}") for n in range(1, _MAX_RENAMES + 1)]


def _claim(target: Path, on_exists: OnExists) -> Path:
    """Create the final file exclusively (mode 0600), so nobody else's file is ever replaced."""
    for candidate in _candidates(target):
        try:
            fd = os.open(candidate, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        except FileExistsError:
            if on_exists == "refuse":
                raise BundleExists(f"{candidate} already exists") from None
            continue
        os.close(fd)
        return candidate
    raise BundleExists(f"{target} and {_MAX_RENAMES} numbered variants already exist")


def _add(archive: tarfile.TarFile, name: str, data: bytes | Path, mtime: float) -> None:
    info = tarfile.TarInfo(name)
    info.mode, info.mtime, info.uid, info.gid, info.uname, info.gname = 0o600, mtime, 0, 0, "", ""
    if isinstance(data, Path):
        info.size = data.stat().st_size
        with data.open("rb") as handle:
            archive.addfile(info, handle)
    else:
        info.size = len(data)
        archive.addfile(info, io.BytesIO(data))


def _members(incident: Incident) -> list[tuple[str, bytes | Path]]:
    members: list[tuple[str, bytes | Path]] = []
    for evidence in incident.jobs:
        members.append((f"jobs/{evidence.id}.json", evidence.raw_json))
        if evidence.raw_log is not None and evidence.text_log is not None:
            members.append((f"jobs/{evidence.id}.log.raw", evidence.raw_log))
            members.append((f"jobs/{evidence.id}.log.txt", evidence.text_log))
    for rid, body in sorted(incident.runners.items()):
        members.append((f"runners/{rid}.json", json.dumps(body, indent=2, ensure_ascii=False).encode() + b"\n"))
    for pid, items in sorted(incident.pipelines.items()):
        members.append((f"pipeline-{pid}.json", json.dumps(items, indent=2, ensure_ascii=False).encode() + b"\n"))
    audit = "".join(json.dumps(record, ensure_ascii=True) + "\n" for entry in incident.audit for record in entry.records)
    members.append(("audit.jsonl", audit.encode("ascii")))
    return members


def write_bundle(incident: Incident, dest: Path | None = None, *, on_exists: OnExists = "rename") -> BundleFile:
    """Write the archive. ``dest`` is a file path, a directory (the :func:`default_name` goes in
    it) or None (the download folder, :func:`labdeck.base.paths.download_dir`)."""
    target = Path(dest) if dest is not None else paths.download_dir()
    if target.is_dir():
        target = target / default_name(incident)
    target = target.expanduser()
    members = _members(incident)
    names = ["summary.md", *(name for name, _ in members)]
    summary = render_summary(incident, names)
    mtime = incident.generated_at.timestamp()
    fd, part_name = tempfile.mkstemp(prefix=".labdeck-bundle-", suffix=".part", dir=target.parent)
    part = Path(part_name)
    try:
        os.fchmod(fd, 0o600)
        with os.fdopen(fd, "wb") as raw, tarfile.open(fileobj=raw, mode="w:gz") as archive:
            _add(archive, "summary.md", summary.encode("utf-8"), mtime)
            for name, data in members:
                _add(archive, name, data, mtime)
            archive.close()
            raw.flush()
            os.fsync(raw.fileno())
        final = _claim(target, on_exists)
        os.replace(part, final)
    except BaseException:
        with contextlib.suppress(OSError):
            part.unlink()
        raise
    return BundleFile(final, target, tuple(names), summary)


async def build_bundle(client: ApiClient, project: ProjectRef, *, job: int | None = None, jobs: Sequence[int] = (),
                       pipeline: int | None = None, dest: Path | None = None, on_exists: OnExists = "rename",
                       now: datetime | None = None) -> BundleFile:
    """:func:`~labdeck.incident.collect.collect_incident` then :func:`write_bundle` (the temporary
    log files are deleted afterwards)."""
    with await collect_incident(client, project, job=job, jobs=jobs, pipeline=pipeline, now=now) as incident:
        return write_bundle(incident, dest, on_exists=on_exists)
