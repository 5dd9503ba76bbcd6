"""Project export archives: a gzip'd tar holding ``VERSION`` and ``project.json``, as GitLab's."""

from __future__ import annotations

import gzip
import io
import json
import tarfile
from datetime import datetime
from typing import Any

from labdeck.sim.core.state import Project, SimState
from labdeck.sim.projects.ops import project_snapshot

EXPORT_VERSION = "0.2.2"
_MAX_MEMBER = 16 * 1024 * 1024


def export_filename(state: SimState, project: Project, moment: datetime) -> str:
    """``2026-11-02_09-00-123_<namespace>_<path>_export.tar.gz``, as GitLab names it."""
    stamp = moment.strftime("%Y-%m-%d_%H-%M-") + f"{moment.microsecond // 1000:03d}"
    namespace = state.namespace_path(project).replace("/", "_")
    return f"{stamp}_{namespace}_{project.path}_export.tar.gz"


def build_archive(project: Project, description: str | None = None) -> bytes:
    """The export of ``project`` (``description`` overrides the project's when given)."""
    snapshot = project_snapshot(project)
    if description is not None:
        snapshot["description"] = description
    members = {
        "VERSION": EXPORT_VERSION.encode(),
        "project.json": json.dumps(snapshot, indent=2, sort_keys=True).encode(),
    }
    buffer = io.BytesIO()
    # A fixed mtime keeps the archive identical for identical projects.
    with gzip.GzipFile(fileobj=buffer, mode="wb", mtime=0) as zipped, \
            tarfile.open(fileobj=zipped, mode="w") as archive:
        for name, data in members.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            info.mode = 0o644
            archive.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


def read_archive(content: bytes) -> dict[str, Any]:
    """The ``project.json`` of an export; ``ValueError`` with the import error message otherwise."""
    try:
        with tarfile.open(fileobj=io.BytesIO(content), mode="r:gz") as archive:
            member = archive.getmember("project.json")
            if not member.isfile() or member.size > _MAX_MEMBER:
                raise ValueError("Unexpected project.json in the archive")
            handle = archive.extractfile(member)
            data = handle.read() if handle is not None else b""
    except KeyError:
        raise ValueError("Project JSON file not found in the archive") from None
    except (tarfile.TarError, OSError, EOFError):
        raise ValueError("Unable to decompress the archive: the file is invalid") from None
    try:
        snapshot = json.loads(data)
    except ValueError:
        raise ValueError("Error importing project.json: unexpected token") from None
    if not isinstance(snapshot, dict):
        raise ValueError("Error importing project.json: not an object")
    return snapshot
