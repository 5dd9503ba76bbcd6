"""The merged log of many jobs: every line once, in arrival order, prefixed by its job.

Each job's text goes through its own :class:`labdeck.logtext.lines.LineIndex`, exactly as in the
single log viewer (sanitized: only SGR remains; ``\\r`` progress lines resolved; section markers
removed). That index keeps the text in a spooled file, so what stays in memory per line is a few
bytes of offsets. The merged order is a window of the ``window`` most recent lines (8 bytes each):
older entries leave the view (:attr:`MergedLog.dropped` says how many; each job's whole log
stays readable in its own viewer). Only complete lines enter the order: a line that is still
being written appears once its newline (or the job's end) arrives.

An entry is addressed by its *sequence number*: ``0`` is the first line that ever arrived; the
window holds ``dropped .. total - 1``.
"""

from __future__ import annotations

from array import array
from bisect import bisect_left, bisect_right
from dataclasses import dataclass, field

from labdeck.logtext.lines import LineIndex
from labdeck.logtext.search import visible
from labdeck.operations.following.finder import JobErrorLines

WINDOW = 200_000
"""Merged lines kept addressable (older ones leave the view; the job's own log keeps them)."""
_SLOT_SHIFT = 40
_NOTE = -1


@dataclass(frozen=True)
class Entry:
    """One line of the merged view."""

    seq: int
    job: int
    """Index of the job in :attr:`MergedLog.labels`."""
    text: str
    """Display text: sanitized, SGR only (render with ``Text.from_ansi``), or a note's text."""
    line: int | None
    """The line's number in the job's own log (None for a note)."""
    note: str = ""
    """``""`` for a log line; else the note's kind: ``end``, ``reset``, ``error``, ``dropped``."""
    error: bool = False


@dataclass
class JobLines:
    """One job's part of the merged log."""

    label: str
    index: LineIndex
    slot: int
    errors: JobErrorLines = field(default_factory=JobErrorLines)
    entered: int = 0
    """Lines of :attr:`index` already in the merged order."""
    line_base: int = 0
    """Lines of earlier slots (before a reset) so line numbers stay those of the job's own log."""
    error_count: int = 0
    lines: int = 0
    finished: bool = False


def _lines(index: LineIndex, start: int, upto: int) -> list[str]:
    """Display lines ``start .. upto-1`` of ``index``: the complete ones in one read of its store
    (not one look-up each), the partial last one (at the job's end) from the index."""
    store = getattr(index, "_display", None)
    complete = min(upto, index.complete_lines)
    if store is None or not hasattr(store, "block") or complete <= start:
        return index.lines(start, upto)
    found = store.block(start, complete).split("\n")[:-1]
    if upto > complete:
        found += index.lines(complete, upto)
    return found


class MergedLog:
    """Lines of several jobs, merged in arrival order, bounded in memory."""

    def __init__(self, labels: list[str], *, window: int = WINDOW, spool_size: int = 256 * 1024) -> None:
        self.labels = labels
        self.window = max(1, window)
        self._spool_size = spool_size
        self._slots: list[tuple[int, LineIndex]] = []
        self.jobs = [self._new_job(number, label) for number, label in enumerate(labels)]
        self._order = array("q")
        self._errors = array("q")
        """Sequence numbers of error lines, ascending."""
        self._notes: list[tuple[int, str, str]] = []
        self.dropped = 0
        """Entries that left the window (oldest first)."""
        self.bytes_fed = 0

    def _new_job(self, number: int, label: str) -> JobLines:
        index = LineIndex(keep_raw=False, spool_size=self._spool_size, cache_size=64)
        self._slots.append((number, index))
        return JobLines(label, index, len(self._slots) - 1)

    @property
    def total(self) -> int:
        """Sequence number of the next entry (every entry that ever arrived)."""
        return self.dropped + len(self._order)

    def __len__(self) -> int:
        return len(self._order)

    # -- building -------------------------------------------------------------------------------

    def feed(self, job: int, text: str) -> int:
        """Add raw (unsanitized) text of ``job``; return how many lines entered the view."""
        lines = self.jobs[job]
        self.bytes_fed += len(text)
        lines.index.append(text)
        return self._enter(job, lines.index.complete_lines)

    def finish(self, job: int) -> int:
        """The job's log is complete: its last line (without newline) enters too."""
        lines = self.jobs[job]
        lines.index.finish()
        lines.finished = True
        upto = len(lines.index)
        # Logs end ``Job succeeded\n`` and a colour reset without a newline: a last line with
        # nothing to read would be a blank row before the job's end line (its own log keeps it).
        if upto > lines.entered and not visible(lines.index.line(upto - 1)).strip():
            upto -= 1
        return self._enter(job, upto)

    def restart(self, job: int, message: str) -> None:
        """The job's log starts again (erased or truncated on the server): a note, then a new index.
        Lines already shown stay readable."""
        old = self.jobs[job]
        self.note(job, message, "reset")
        fresh = self._new_job(job, old.label)
        fresh.error_count = old.error_count
        fresh.line_base = 0
        self.jobs[job] = fresh

    def note(self, job: int, text: str, kind: str) -> None:
        """A line of the view's own (a job's end, a reset, a read that failed)."""
        self._notes.append((job, text, kind))
        self._append(-len(self._notes))

    def _enter(self, job: int, upto: int) -> int:
        lines = self.jobs[job]
        start = lines.entered
        if upto <= start:
            return 0
        text = _lines(lines.index, start, upto)
        errors = set(lines.errors.feed(text))
        base = lines.slot << _SLOT_SHIFT
        for number in range(start, upto):
            if number in errors:
                self._errors.append(self.total)
            self._append(base | number)
        lines.error_count += len(errors)
        lines.entered = upto
        lines.lines += upto - start
        return upto - start

    def _append(self, value: int) -> None:
        self._order.append(value)
        if len(self._order) > self.window + self.window // 4:
            cut = len(self._order) - self.window
            del self._order[:cut]
            self.dropped += cut
            first_error = bisect_left(self._errors, self.dropped)
            if first_error:
                del self._errors[:first_error]

    def close(self) -> None:
        """Release the spooled files."""
        for _, index in self._slots:
            index.close()

    # -- reading --------------------------------------------------------------------------------

    def entry(self, seq: int) -> Entry:
        """The entry with sequence number ``seq`` (``dropped <= seq < total``)."""
        position = seq - self.dropped
        if not 0 <= position < len(self._order):
            raise IndexError(seq)
        value = self._order[position]
        if value < 0:
            job, text, kind = self._notes[-value - 1]
            return Entry(seq, job, text, None, kind)
        slot, line = value >> _SLOT_SHIFT, value & ((1 << _SLOT_SHIFT) - 1)
        job, index = self._slots[slot]
        return Entry(seq, job, index.line(line), line, error=self.is_error(seq))

    def plain(self, seq: int) -> str:
        """The entry's text without styles."""
        return visible(self.entry(seq).text)

    def is_error(self, seq: int) -> bool:
        """Whether entry ``seq`` is an error line."""
        position = bisect_left(self._errors, seq)
        return position < len(self._errors) and self._errors[position] == seq

    def job_of(self, seq: int) -> int:
        """The job of entry ``seq`` (cheap: no text read)."""
        value = self._order[seq - self.dropped]
        if value < 0:
            return self._notes[-value - 1][0]
        return self._slots[value >> _SLOT_SHIFT][0]

    def next_error(self, after: int, jobs: set[int] | None = None) -> int | None:
        """The first error line after entry ``after`` (of one of ``jobs``, when given)."""
        position = bisect_right(self._errors, after)
        while position < len(self._errors):
            seq = self._errors[position]
            if jobs is None or self.job_of(seq) in jobs:
                return seq
            position += 1
        return None

    def previous_error(self, before: int, jobs: set[int] | None = None) -> int | None:
        """The last error line before entry ``before`` (of one of ``jobs``, when given)."""
        position = bisect_left(self._errors, before) - 1
        while position >= 0:
            seq = self._errors[position]
            if seq < self.dropped:
                return None
            if jobs is None or self.job_of(seq) in jobs:
                return seq
            position -= 1
        return None

    @property
    def error_total(self) -> int:
        """Error lines in the window."""
        return len(self._errors)
