"""The error finder of the merged view, behind one small adapter.

The single log viewer's ``e``/``E`` use :class:`labdeck.logtext.error_lines.ErrorFinder`; the merged
view uses the same finder, through :class:`JobErrorLines`, so that replacing the finder (a cause
reader in ``logtext``) changes this one module.
"""

from __future__ import annotations

from collections.abc import Sequence

from labdeck.logtext.error_lines import ErrorFinder


class JobErrorLines:
    """The error lines of one job's log, found as its lines arrive (each line fed once)."""

    def __init__(self) -> None:
        self._finder = ErrorFinder()
        self._seen: set[int] = set()

    @property
    def lines_seen(self) -> int:
        """How many lines were fed."""
        return self._finder.lines_seen

    def feed(self, lines: Sequence[str]) -> list[int]:
        """Feed the next display lines; return the line numbers of the error lines that appeared.

        The finder shows the runner's own ``ERROR: Job failed`` only while nothing else failed:
        a trailer line reported first stays counted (it was on screen as an error)."""
        self._finder.feed_lines(lines)
        found = [match.index for match in self._finder.index if match.index not in self._seen]
        self._seen.update(found)
        return sorted(found)
