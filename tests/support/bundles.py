"""Reading an incident bundle back in tests."""

from __future__ import annotations

import tarfile
from pathlib import Path


def members(path: Path) -> dict[str, bytes]:
    """The files of the bundle at ``path`` (``.tar.gz``), by name."""
    with tarfile.open(path, "r:gz") as archive:
        return {member.name: archive.extractfile(member).read() for member in archive.getmembers()  # type: ignore[union-attr]
                if member.isfile()}
