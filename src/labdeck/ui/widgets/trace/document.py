"""The text model behind :class:`~labdeck.ui.widgets.trace.view.TraceView`: a
:class:`labdeck.logtext.lines.LineIndex` (sanitized display lines + escaped raw lines in spooled
files, sections, search) plus what the viewer needs on top: which sections failed, match counts,
and saving the log."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from pathlib import Path

from labdeck.logtext.cause import LogAnswer, passing_lines, read_cause_lines
from labdeck.logtext.error_lines import ErrorFinder, ErrorIndex
from labdeck.logtext.lines import LineIndex
from labdeck.logtext.search import visible
from labdeck.logtext.sections import Section


class TraceDocument:
    """A growing trace. Not a widget: tests and benchmarks use it directly."""

    def __init__(self, *, keep_raw: bool = True) -> None:
        self.index = LineIndex(keep_raw=keep_raw)
        self.first_error: int | None = None
        """First error line, once a search for it ran (marks the failed section)."""
        self.job_failed = False
        self.job_ended = False
        """The job has finished: a section with no end mark is not "running…" any more."""
        self.new_lines: frozenset[int] = frozenset()
        """0-based lines new since the last green run (empty without a green run to compare)."""
        self.green_job: int | None = None
        """The passing job the log was compared against."""
        self._errors = ErrorFinder()
        self._passing: frozenset[str] | None = None
        self._answer: tuple[int, LogAnswer] | None = None

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
        self.new_lines = frozenset()
        self.green_job = None
        self._errors = ErrorFinder()
        self._answer = None

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
        """Whether ``section`` is where a failed job failed: it holds the first error line; or,
        when that line comes after every section (``ERROR: Job failed: exit code 1``), it is the
        last script section (``step_script``, ``build_script``…) before it; or it never ended."""
        if not self.job_failed:
            return False
        if section.is_open:
            return True
        error = self.first_error
        if error is None:
            return False
        if section.contains(error):
            return True
        if any(other.contains(error) for other in self.sections):
            return False
        before = [other for other in self.sections if other.depth == 0 and other.start_line < error]
        scripts = [other for other in before if "script" in other.name]
        chosen = scripts[-1] if scripts else (before[-1] if before else None)
        return chosen is section

    def search(self, term: str, start: int, *, backwards: bool = False) -> int | None:
        """Next line (from ``start``) whose visible text contains ``term`` (any case)."""
        return self.index.search(term, start, backwards=backwards)

    def count_matches(self, term: str, upto: int | None = None) -> tuple[int, int | None]:
        """``(lines whose visible text contains term (any case), ordinal of line upto among them)``.

        One pass over the log in blocks of a few MiB, like the search itself.
        """
        needle = term.lower()
        if not needle:
            return 0, None
        total = 0
        ordinal: int | None = None
        for first, block in self._blocks():
            hay = visible(block).lower()
            position = 0
            line = first
            counted_to = 0
            while True:
                hit = hay.find(needle, position)
                if hit == -1:
                    break
                line_start = hay.rfind("\n", 0, hit) + 1
                line += hay.count("\n", counted_to, line_start)
                counted_to = line_start
                total += 1
                if line == upto:
                    ordinal = total
                line_end = hay.find("\n", hit)
                if line_end == -1:
                    break
                position = line_end + 1
        return total, ordinal

    def _blocks(self, budget: int = 4 * 1024 * 1024) -> Iterator[tuple[int, str]]:
        """``(first line, text of lines first.. each ending in \\n)`` over the whole log."""
        store = getattr(self.index, "_display", None)
        complete = self.index.complete_lines
        first = 0
        if store is not None and hasattr(store, "block") and hasattr(store, "line_after_bytes"):
            while first < complete:
                last = store.line_after_bytes(first, budget)
                yield first, store.block(first, last)
                first = last
        else:
            step = 20_000
            while first < complete:
                last = min(complete, first + step)
                yield first, "".join(line + "\n" for line in self.index.lines(first, last))
                first = last
        if len(self.index) > complete:
            yield complete, self.index.line(complete) + "\n"

    def errors(self) -> ErrorIndex:
        """The real error lines so far (compiler, test runner, traceback … before the runner's own
        ``ERROR: Job failed``), scanning only the lines not scanned yet: call it in a thread."""
        complete = self.index.complete_lines
        step = 50_000
        while self._errors.lines_seen < complete:
            start = self._errors.lines_seen
            self._errors.feed_lines(self.index.lines(start, min(complete, start + step)))
        found = self._errors.index
        self.first_error = found.first.index if found.first is not None else None
        return found

    def set_passing(self, text: str | bytes | None) -> None:
        """The log of the same job's last green run (None: unknown): the baseline of :meth:`cause`."""
        self._passing = None if text is None else passing_lines(
            (text.decode("utf-8", "replace") if isinstance(text, bytes) else text).split("\n"))
        self._answer = None

    def cause(self) -> LogAnswer:
        """The cause of the log so far (:func:`labdeck.logtext.cause.read_cause_lines`): the block to
        read first, the ranked candidates that ``e``/``E`` visit, the lines new since the passing
        log. Read again only when lines were added: call it in a thread."""
        complete = self.index.complete_lines
        if self._answer is not None and self._answer[0] == complete:
            return self._answer[1]
        step = 50_000
        lines = (line for start in range(0, complete, step)
                 for line in self.index.lines(start, min(complete, start + step)))
        answer = read_cause_lines(lines, self._passing)
        self._answer = (complete, answer)
        return answer

    @property
    def cause_read(self) -> bool:
        """Whether :meth:`cause` answered for every complete line (nothing added since)."""
        return self._answer is not None and self._answer[0] == self.index.complete_lines

    def read_cause(self, passing: bytes | str | None = None, green_job: int | None = None) -> LogAnswer:
        """:meth:`cause` of the finished log against the ``passing`` log of ``green_job`` (the same
        job's last green run on the ref), if given: sets :attr:`new_lines`, :attr:`green_job` and
        :attr:`first_error`. Call it in a thread."""
        self.set_passing(passing)
        answer = self.cause()
        self.green_job = green_job if answer.new_lines is not None else None
        self.new_lines = frozenset(line - 1 for line in answer.new_lines) if answer.new_lines is not None else frozenset()
        self.first_error = answer.error.line - 1 if answer.error is not None else None
        return answer

    def cause_lines(self) -> list[int]:
        """0-based first lines of the cause finder's blocks in the order ``e`` visits them: the
        ranked blocks that are new since the green run first, then the others (ranked)."""
        if self._answer is None:
            return []
        order: list[int] = []
        for block in self._answer[1].candidates:
            line = block.line - 1
            if line not in order:
                order.append(line)
        if self.new_lines:
            order = [line for line in order if line in self.new_lines] + \
                [line for line in order if line not in self.new_lines]
        return order

    def find_first_error(self) -> int | None:
        """The first line of the block to read first (0-based; see :meth:`cause`); remembered in
        :attr:`first_error`."""
        error = self.cause().error
        self.first_error = None if error is None else error.line - 1
        return self.first_error

    def save(self, path: Path, *, raw: bool = False) -> int:
        """Write the log (plain text, or the escaped raw text) atomically; return lines written."""
        path = path.expanduser()
        descriptor, temp_name = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
        count = len(self.index)
        try:
            with os.fdopen(descriptor, "w", encoding="utf-8") as handle:
                if raw:
                    for line in range(count):
                        handle.write(self.index.raw_line(line) + "\n")
                else:
                    for _, block in self._blocks():
                        handle.write(visible(block))
                handle.flush()
                os.fsync(handle.fileno())
            os.chmod(temp_name, 0o600)
            os.replace(temp_name, path)
        except BaseException:
            Path(temp_name).unlink(missing_ok=True)
            raise
        return count
