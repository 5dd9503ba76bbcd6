"""Job-trace handling without any UI: sanitizing, sections, line indexing and live following.

- :mod:`labdeck.tail.sanitize`: :class:`TraceSanitizer`, :func:`sanitize`, :func:`escape_raw`.
- :mod:`labdeck.tail.sections`: :class:`Section`, :class:`SectionTracker`, :func:`display_name`.
- :mod:`labdeck.tail.lines`: :class:`LineIndex` (million-line logs on disk, search, sections).
- :mod:`labdeck.tail.line_text`: :func:`safe_cut` (shorten sanitized text without splitting an SGR
  sequence), carriage returns and tabs.
- :mod:`labdeck.tail.follower`: :class:`TraceFollower` and :class:`TraceEvent`.
"""

from __future__ import annotations

from typing import Any

from labdeck.tail.line_text import safe_cut
from labdeck.tail.lines import LineIndex
from labdeck.tail.sanitize import TraceSanitizer, escape_raw, sanitize
from labdeck.tail.sections import Section, SectionTracker, display_name, format_duration

_FOLLOWER_NAMES = ("FINISHED_STATUSES", "TraceEvent", "TraceFollower")


def __getattr__(name: str) -> Any:
    # The follower needs labdeck.api (httpx); load it only when asked so that the pure text
    # modules stay importable on their own.
    if name in _FOLLOWER_NAMES:
        from labdeck.tail import follower

        return getattr(follower, name)
    raise AttributeError(f"module 'labdeck.tail' has no attribute {name!r}")


__all__ = [
    "FINISHED_STATUSES",
    "LineIndex",
    "Section",
    "SectionTracker",
    "TraceEvent",
    "TraceFollower",
    "TraceSanitizer",
    "display_name",
    "escape_raw",
    "format_duration",
    "safe_cut",
    "sanitize",
]
