"""Canary tokens for the credential tests, and a search for where a secret leaked to.

The ``canaries`` fixture (tests/conftest.py) registers them on the shared simulator."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

# Token-shaped, so the pattern redaction is exercised too; distinct per role so a leak names its test.
CANARY_ADMIN = "glpat-CANARYadmin0123456789abcdefXYZ"
CANARY_READONLY = "glpat-CANARYreadonly0123456789abcdXYZ"


@dataclass
class Canaries:
    url: str
    admin: str
    readonly: str


def files_containing(root: Path, needle: str) -> list[Path]:
    """Every file under ``root`` whose bytes contain ``needle``."""
    found = []
    for path in root.rglob("*"):
        if path.is_file():
            try:
                if needle.encode() in path.read_bytes():
                    found.append(path)
            except OSError:
                continue
    return found
