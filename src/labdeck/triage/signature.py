"""What a failed job's log says, for verdicts and clusters, without any I/O.

:func:`read_log` reads a log once with the cause finder (:func:`labdeck.logtext.cause.read_cause_lines`,
streamed line by line: a log of any size is read in bounded memory) and returns :class:`LogFacts`:
the block to read first, its :attr:`~LogFacts.signature` (normalized: volatile parts replaced,
names kept; never the runner's ``Job failed`` trailer), the platform failure named by the platform's
own words (runner, executor, image pulls, OOM killer, full disk, network failures of package
fetches; never the same words in a test's assertion) and, given the passing log of the same job on
the same ref, which lines are new since that green run (a line the green run printed too is not
the cause). :func:`facts_json` / :func:`facts_from_json` keep the facts of a log instead of its bytes.
"""

from __future__ import annotations

import io
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from labdeck.logtext.cause import LogAnswer

__all__ = ["SYSTEM_FAILURE_REASONS", "Block", "Hit", "LogFacts", "facts_from_json", "facts_json", "iter_lines",
           "normalize", "platform_failure", "read_log"]

SYSTEM_FAILURE_REASONS: frozenset[str] = frozenset({
    "runner_system_failure", "stuck_or_timeout_failure", "scheduler_failure", "data_integrity_failure",
    "stale_schedule", "environment_creation_failure", "job_router_failure", "api_failure",
    "job_execution_timeout", "runner_unsupported", "no_matching_runner", "trace_size_exceeded",
})
"""``failure_reason`` values that are the platform's doing, not the job's (GitLab's pipeline
observability list, plus API failures, timeouts and runner mismatches)."""

FACTS_VERSION = 1
"""Bumped when what :func:`facts_json` keeps changes (older kept facts are then read again)."""
KEPT_CANDIDATES = 20
"""Ranked candidates kept with the facts (the verdict needs the first; the rest is for people)."""


def normalize(line: str) -> str:
    """The one normalization of signatures (:func:`labdeck.logtext.cause.normalize`)."""
    from labdeck.logtext.cause import normalize as cause_normalize

    return cause_normalize(line)


@dataclass(frozen=True, slots=True)
class Block:
    """An error block of a log: lines ``line`` .. ``end`` (1-based, inclusive), its ``kind`` and text
    (the cause finder's :class:`~labdeck.logtext.cause.ErrorBlock`, as kept)."""

    line: int
    end: int
    kind: str
    text: str


@dataclass(frozen=True, slots=True)
class Hit:
    """A platform failure: its ``label``, the 1-based ``line`` that says so and that line's ``text``."""

    label: str
    line: int
    text: str


def platform_failure(reason: str | None) -> bool:
    """True for a ``failure_reason`` that is the platform's (see :data:`SYSTEM_FAILURE_REASONS`)."""
    return reason in SYSTEM_FAILURE_REASONS


@dataclass(frozen=True)
class LogFacts:
    """What one failed job's log says (see the module docstring).

    ``error``: the block to read first (lines 1-based, inclusive); ``signature``: its normalized
    first line ('' when the log is empty); ``platform``: the platform failure, if any;
    ``candidates``: every block, ranked; ``new_lines``: lines new since the green run (None without
    one); ``passing_job``: the id of the passing job compared against, if any."""

    error: Block | None
    signature: str
    platform: Hit | None
    candidates: tuple[Block, ...] = ()
    new_lines: frozenset[int] | None = None
    line_count: int = 0
    passing_job: int | None = None

    @classmethod
    def of(cls, answer: LogAnswer, passing_job: int | None = None) -> LogFacts:
        """The facts of a :class:`~labdeck.logtext.cause.LogAnswer`."""
        # A log whose only words are the platform's (an image pull in the runner's trailer) is
        # signed by the platform's line: the same outage in many projects is one cluster.
        signature = answer.signature or (normalize(answer.platform.text) if answer.platform is not None else "")
        error = answer.error
        hit = answer.platform
        return cls(Block(error.line, error.end, error.kind, error.text) if error is not None else None, signature,
                   Hit(hit.label, hit.line, hit.text) if hit is not None else None,
                   tuple(Block(b.line, b.end, b.kind, b.text) for b in answer.candidates[:KEPT_CANDIDATES]),
                   answer.new_lines, answer.line_count, passing_job if answer.new_lines is not None else None)

    @property
    def error_text(self) -> str:
        """The first line of the block to read first (what a one-line evidence shows)."""
        if self.error is None:
            return ""
        return next((line.strip() for line in self.error.text.splitlines() if line.strip()), "")

    def evidence(self) -> str:
        """``log line 412: <text>`` (the platform's line for a platform failure, else the block's
        first line; ``new since the green run #N`` when it is); '' without one."""
        if self.platform is not None:
            return f"log line {self.platform.line}: {self.platform.text.strip()}"
        if self.error is None:
            return ""
        new = ""
        if self.new_lines is not None and self.passing_job is not None and self.error.line in self.new_lines:
            new = f" (new since the green run #{self.passing_job})"
        where = f"log line {self.error.line}" if self.error.end == self.error.line else \
            f"log lines {self.error.line}-{self.error.end}"
        return f"{where}{new}: {self.error_text}"


def iter_lines(data: bytes | str) -> Iterator[str]:
    """The lines of a log (without ``\\n``), decoded as they are read: a 40 MB log is never one
    string nor a list of all its lines."""
    if isinstance(data, str):
        stream: Iterable[str] = io.StringIO(data, newline="\n")
    else:
        stream = io.TextIOWrapper(io.BytesIO(data), encoding="utf-8", errors="replace", newline="\n")
    for line in stream:
        yield line[:-1] if line.endswith("\n") else line


def read_log(data: bytes | str, passing: bytes | str | frozenset[str] | None = None, *,
             passing_job: int | None = None) -> LogFacts:
    """The facts of a job log (see the module docstring); ``passing``: the log of the same job's
    last green run on the same ref (its text, or :func:`~labdeck.logtext.cause.passing_lines` of it)."""
    # Imported here: a warm round answers from kept facts and never compiles the finder's patterns.
    from labdeck.logtext.cause import passing_lines, read_cause_lines

    baseline: frozenset[str] | None
    if passing is None or isinstance(passing, frozenset):
        baseline = passing
    else:
        baseline = passing_lines(iter_lines(passing))
    return LogFacts.of(read_cause_lines(iter_lines(data), baseline), passing_job)


def _block(block: Block) -> list[Any]:
    return [block.line, block.end, block.kind, block.text]


def _ranges(lines: frozenset[int]) -> list[list[int]]:
    """``[[first, last], …]``: runs of consecutive lines (a diff's new lines come in runs)."""
    runs: list[list[int]] = []
    for line in sorted(lines):
        if runs and runs[-1][1] == line - 1:
            runs[-1][1] = line
        else:
            runs.append([line, line])
    return runs


def facts_json(facts: LogFacts) -> dict[str, Any]:
    """What the log cache keeps of a log instead of its bytes (see :func:`facts_from_json`)."""
    return {
        "version": FACTS_VERSION,
        "error": _block(facts.error) if facts.error is not None else None,
        "signature": facts.signature,
        "platform": [facts.platform.label, facts.platform.line, facts.platform.text] if facts.platform else None,
        "candidates": [_block(block) for block in facts.candidates],
        "new_lines": _ranges(facts.new_lines) if facts.new_lines is not None else None,
        "line_count": facts.line_count,
        "passing_job": facts.passing_job,
    }


def facts_from_json(data: Any) -> LogFacts | None:
    """The facts :func:`facts_json` kept; None for anything else (an older version, a damaged file)."""
    try:
        if not isinstance(data, dict) or data.get("version") != FACTS_VERSION:
            return None
        error = Block(*data["error"]) if data["error"] is not None else None
        platform = Hit(*data["platform"]) if data["platform"] is not None else None
        new_lines = None
        if data["new_lines"] is not None:
            new_lines = frozenset(line for first, last in data["new_lines"] for line in range(first, last + 1))
        return LogFacts(error, str(data["signature"]), platform,
                        tuple(Block(*block) for block in data["candidates"]), new_lines,
                        int(data["line_count"]), data["passing_job"])
    except (KeyError, TypeError, ValueError):
        return None
