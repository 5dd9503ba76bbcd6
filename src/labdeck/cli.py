"""Command-line entry point (filled in by the cli work)."""

from __future__ import annotations


def main(argv: list[str] | None = None) -> int:
    """Run labdeck."""
    return 0
