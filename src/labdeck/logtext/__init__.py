"""Job-log text, with no I/O and no UI: sanitizing, sections, line indexing, error lines, search.

- :mod:`labdeck.logtext.sanitize`: :class:`TraceSanitizer`, :func:`~labdeck.logtext.sanitize.sanitize`,
  :func:`escape_raw`.
- :mod:`labdeck.logtext.sections`: :class:`Section`, :class:`SectionTracker`, :func:`display_name`.
- :mod:`labdeck.logtext.lines`: :class:`LineIndex` (million-line logs on disk, search, sections).
- :mod:`labdeck.logtext.line_text`: :func:`safe_cut` (shorten sanitized text without splitting an SGR
  sequence), carriage returns and tabs.
- :mod:`labdeck.logtext.cause`: reading a log for its cause (:func:`~labdeck.logtext.cause.read_cause`):
  the block to read first, ranked candidates, platform failures, signatures (``e``/``E``, triage,
  ``labdeck explain``).
- :mod:`labdeck.logtext.error_lines`: the older error-line finder (incident bundle summaries).

Following a running job's log over HTTP is :mod:`labdeck.operations.follower`, a layer above.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from labdeck.logtext.line_text import safe_cut
    from labdeck.logtext.lines import LineIndex
    from labdeck.logtext.sanitize import TraceSanitizer, escape_raw
    from labdeck.logtext.sections import Section, SectionTracker, display_name

# Imported when first asked for: ``labdeck.logtext.cause`` (triage, ``labdeck explain``) does not
# pay for the log viewer's line index. (The function ``sanitize`` is the submodule's: the
# package's name ``sanitize`` is the submodule once that is imported.)
_HOMES = {"safe_cut": "line_text", "LineIndex": "lines", "TraceSanitizer": "sanitize", "escape_raw": "sanitize",
          "Section": "sections", "SectionTracker": "sections", "display_name": "sections"}


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(import_module(f"{__name__}.{home}"), name)


__all__ = [
    "LineIndex",
    "Section",
    "SectionTracker",
    "TraceSanitizer",
    "display_name",
    "escape_raw",
    "safe_cut",
]
