"""The text model behind :class:`~labdeck.ui.widgets.trace_view.TraceView`: a
:class:`labdeck.tail.lines.LineIndex` (sanitized display lines + escaped raw lines in spooled
files, sections, search) plus what the viewer needs on top: which sections failed, match counts,
and saving the log."""

from __future__ import annotations

import os
import re
import tempfile
from pathlib import Path

from labdeck.tail.lines import LineIndex, visible
from labdeck.tail.sections import Section


class TraceDocument:
    """A growing trace. Not a widget: tests and benchmarks use it directly."""

    def __init__(self, *, keep_raw: bool = True) -> None:
        self.index = LineIndex(keep_raw=keep_raw)
        self.first_error: int | None = None
        """First error line, once a search for it ran (marks the failed section)."""
        self.job_failed = False

    def __len__(self) -> int:
        return len(self.index)

    @property
    def complete_lines(self) -> int:
        """Lines ended by a newline."""
        return self.index.complete_lines

    @property
    def sections(self) -> list[Section]:
        """Sections in order of their header line."""
        return self.index.sections

    def feed(self, text: str | bytes) -> None:
        """Add raw (unsanitized) trace text."""
        self.index.append(text)

    def finish(self) -> None:
        """The trace is complete."""
        self.index.finish()

    def clear(self) -> None:
        """Forget every line."""
        self.index.reset()
        self.first_error = None

    def close(self) -> None:
        """Release the spooled files."""
        self.index.close()

    def line(self, line: int) -> str:
        """Sanitized display text (SGR only)."""
        return self.index.line(line)

    def plain_line(self, line: int) -> str:
        """Display text without styles."""
        return self.index.plain_line(line)

    def raw_line(self, line: int) -> str:
        """What the server sent, control characters made visible (render as plain text)."""
        return self.index.raw_line(line)

    def section_failed(self, section: Section) -> bool:
        """A section of a failed job that holds the first error line (or never ended)."""
        if not self.job_failed:
            return False
        if self.first_error is not None:
            return section.contains(self.first_error)
        return section.is_open

    def search(self, term: str, start: int, *, backwards: bool = False) -> int | None:
        """Next line (from ``start``) whose visible text contains ``term`` (any case)."""
        return self.index.search(term, start, backwards=backwards)

    def count_matches(self, term: str, upto: int | None = None) -> tuple[int, int | None]:
        """``(lines matching term, ordinal of line upto among them)``."""
        pattern = re.compile(re.escape(term), re.IGNORECASE)
        total = 0
        ordinal: int | None = None
        for line in self.index.iter_matches(pattern):
            total += 1
            if line == upto:
                ordinal = total
        return total, ordinal

    def find_first_error(self) -> int | None:
        """Scan for the first line that looks like an error; remembered in :attr:`first_error`."""
        self.first_error = self.index.first_error_line()
        return self.first_error

    def save(self, path: Path, *, raw: bool = False) -> int:
        """Write the log (plain text, or the escaped raw text) atomically; return lines written."""
        path = path.expanduser()
        descriptor, temp_name = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
        count = len(self.index)
        try:
            with os.fdopen(descriptor, "w", encoding="utf-8") as handle:
                for line in range(count):
                    text = self.index.raw_line(line) if raw else visible(self.index.line(line))
                    handle.write(text + "\n")
                handle.flush()
                os.fsync(handle.fileno())
            os.chmod(temp_name, 0o600)
            os.replace(temp_name, path)
        except BaseException:
            Path(temp_name).unlink(missing_ok=True)
            raise
        return count
