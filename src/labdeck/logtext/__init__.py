"""Job-log text, with no I/O and no UI: sanitizing, sections, line indexing, error lines, search.

- :mod:`labdeck.logtext.sanitize`: :class:`TraceSanitizer`, :func:`sanitize`, :func:`escape_raw`.
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

from labdeck.logtext.line_text import safe_cut
from labdeck.logtext.lines import LineIndex
from labdeck.logtext.sanitize import TraceSanitizer, escape_raw, sanitize
from labdeck.logtext.sections import Section, SectionTracker, display_name

__all__ = [
    "LineIndex",
    "Section",
    "SectionTracker",
    "TraceSanitizer",
    "display_name",
    "escape_raw",
    "safe_cut",
    "sanitize",
]
