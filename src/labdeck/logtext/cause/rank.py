"""Steps 3 and 4: rank the blocks a scan found and answer with the one to read first.

Order: the failing command's blocks (surest tier first, then earliest); when that command has no
block that names a cause, the end of its output (its last meaningful lines); then the blocks of
later commands, of earlier commands (their error-shaped lines did not stop the job: noise), and of
the trailer. A block whose first line the passing log printed too goes last. The runner's ``Job
failed`` trailer is never a block.
"""

from __future__ import annotations

import re

from labdeck.logtext.cause.findings import FINDING
from labdeck.logtext.cause.model import MAX_BLOCK_TEXT, ErrorBlock, LogAnswer, PlatformHit
from labdeck.logtext.cause.normalize import comparable, normalize
from labdeck.logtext.cause.scan import Candidate, Scanner, Segment

_REPORTS = frozenset({"pytest", "junit", "rspec", "go", "cargo", "jest", "test", "dotnet", "phpunit", "prove",
                      "minitest", "unittest", "tap", "ctest", "behave", "lint"})
"""Kinds whose summary lines name what failed (a report), as opposed to a consequence."""


def failing_segment(scan: Scanner) -> Segment:
    """The command that failed: the one its CI system marked, else the last command before the
    trailer, else the last part of the log."""
    if scan.failure_segment is not None:
        return _real(scan, scan.segments[scan.failure_segment])
    commands = [seg for seg in scan.segments if seg.where == "command"]
    if scan.trailer_segment is not None:
        before = [seg for seg in commands if seg.index < scan.trailer_segment]
        if before:
            return _real(scan, before[-1])
        return scan.segments[scan.trailer_segment - 1] if scan.trailer_segment > 0 else scan.segments[0]
    if commands:
        return commands[-1]
    return scan.segments[-1]


def _real(scan: Scanner, seg: Segment) -> Segment:
    """``seg``, or the command before it when ``seg`` is only a Jenkins stage (the post actions
    that run after the failed step, before Jenkins prints its mark)."""
    while seg.command.startswith("[Pipeline] stage") and seg.index > 0:
        seg = scan.segments[seg.index - 1]
    return seg


_PATH = re.compile(r"\s*(?:\./)?([\w./-]+\.\w+)[:(]\d")


def _named(candidate: Candidate, command: str) -> bool:
    """True when the block is about a file the command names (``mypy src/x.py``: its errors first)."""
    if "." not in command:  # the path the pattern finds holds a dot (most commands name none)
        return False
    found = _PATH.match(candidate.head)
    return found is not None and found.group(1) in command


def _demote_listings(scan: Scanner) -> None:
    """Numbered test lines (``1) suite test``) that a runner printed while running, before its
    ``N failing`` summary, are a listing; the numbered blocks after the summary are the failures."""
    summaries: dict[int, int] = {}
    for candidate in scan.candidates:
        if candidate.kind == "mocha" and candidate.segment not in summaries:
            summaries[candidate.segment] = candidate.line
    if not summaries:
        return
    for candidate in scan.candidates:
        summary = summaries.get(candidate.segment)
        if candidate.kind == "test" and summary is not None and candidate.line < summary:
            candidate.tier = 3


def _promote_werror(scan: Scanner, failing: Segment) -> None:
    """Under -Werror (``error: warnings found and -Werror specified``) the failing command's first
    warning is the cause; elsewhere warnings stay last."""
    here = [c for c in scan.candidates if c.segment == failing.index]
    if any(c.kind == "werror" for c in here):
        first = next((c for c in here if c.kind == "warning"), None)
        if first is not None:
            first.tier = 1


_NEW = object.__new__
_SET_LINE, _SET_END, _SET_KIND, _SET_TEXT = (getattr(ErrorBlock, name).__set__ for name in ("line", "end", "kind", "text"))
"""The slots of a frozen :class:`ErrorBlock`, set directly: its ``__init__`` sets each through
``object.__setattr__``, which cost more than the rest of ranking a log's blocks."""


def _block(candidate: Candidate) -> ErrorBlock:
    block: ErrorBlock = _NEW(ErrorBlock)
    _SET_LINE(block, candidate.line + 1)
    _SET_END(block, candidate.end + 1)
    _SET_KIND(block, candidate.kind)
    _SET_TEXT(block, candidate.text)
    return block


def answer(scan: Scanner) -> LogAnswer:
    """The :class:`LogAnswer` of a finished scan."""
    failing = failing_segment(scan)
    passing = scan.passing
    _demote_listings(scan)
    _promote_werror(scan, failing)

    # Each candidate's place (0: the failing command's, 1: a later command's, 2: an earlier one's,
    # 3: the trailer's) and whether the passing log printed its first line, worked out once.
    index = failing.index
    trailer = scan.trailer_segment
    command = failing.command
    candidates = scan.candidates
    places: list[int] = []
    seens: list[bool] = []
    keys: list[tuple[bool, int, int, bool, int]] = []
    for c in candidates:
        segment = c.segment
        here = (0 if segment == index else 3 if trailer is not None and segment >= trailer
                else 1 if segment > index else 2)
        seen = passing is not None and comparable(c.head) in passing
        places.append(here)
        seens.append(seen)
        if here == 0:
            # A consequence (``make: *** Error 1``) after a report of what failed (``FAILED tests/x.py::t``).
            tier = c.tier + (1 if c.tier == 3 and c.kind not in _REPORTS else 0)
            keys.append((seen, 0, tier, not _named(c, command), c.line))
        else:
            keys.append((seen, here, 0, False, c.line))

    order = sorted(range(len(candidates)), key=keys.__getitem__)  # stable, as sorting the candidates is
    blocks = [_block(candidates[at]) for at in order]
    heads = [candidates[at].head for at in order]
    strong = [at for at in order if places[at] == 0 and candidates[at].tier < 3 and not seens[at]]
    if not strong:
        tail = _tail(failing, scan)
        if tail is not None:
            # A test runner's own report of what failed (``FAILED tests/x.py::t``) is read before
            # the end of the output; a consequence (``make: *** Error 1``) after it.
            position = sum(1 for at in order if places[at] == 0 and not seens[at] and candidates[at].kind in _REPORTS)
            blocks.insert(position, tail[0])
            heads.insert(position, tail[1])
    error, head = (blocks[0], heads[0]) if blocks and not scan.succeeded else (None, "")
    signature = normalize(head) if error is not None else ""
    # A job that succeeded had no failure, the platform's or its own.
    hit = _platform(scan, bool(strong)) if not scan.succeeded else None
    new_lines = frozenset(line + 1 for line in scan.new_lines) if scan.new_lines is not None else None
    return LogAnswer(error, signature, hit, tuple(blocks), new_lines, scan.line_count,
                     scan.succeeded)


_SAYS_WRONG = re.compile(
    r"\b(?:mismatch|[Ee]xpected\b.*\b(?:got|but|found)|[Cc]annot|[Cc]an't|[Cc]ould ?n(?:o|')t|[Uu]nable|[Ii]nvalid|"
    r"[Mm]issing|[Rr]efused|must be|out of date|not (?:found|allowed|supported|set|defined|applied|match)|"
    r"does(?: not|n't)|did(?: not|n't)|gave up|[Ff]ail(?:ed|ure|s)?|[Ee]rrors?|[Dd]enied|[Ii]ncorrect|[Ww]rong|"
    r"[Aa]bort(?:ed|ing)?|[Tt]imed out|[Tt]imeout|[Uu]nexpected|[Nn]o such)\b")
"""Words of a line that says something went wrong, in prose (the end of a command without error shapes)."""


def _tail(failing: Segment, scan: Scanner) -> tuple[ErrorBlock, str] | None:
    """The end of the failing command's output (or, when it printed nothing, of the log)."""
    tail = scan.tail(failing)
    if not tail and failing.where == "command" and failing.command and not failing.command.startswith("[Pipeline]"):
        # The command printed nothing before it failed: the command itself is what to read.
        line = failing.start + 1
        return ErrorBlock(line, line, "command", failing.command[:MAX_BLOCK_TEXT]), failing.command
    if not tail:
        for seg in reversed(scan.segments):
            if seg.where != "trailer" and scan.tail(seg):
                tail = scan.tail(seg)
                break
        else:
            tail = next((scan.tail(seg) for seg in reversed(scan.segments) if scan.tail(seg)), [])
    if not tail:
        return None
    # The last of the tail's lines that says what went wrong, not a cleanup that ran after it
    # (``checksum mismatch …`` then a trap's ``cleaning up /tmp/x``).
    last_line, last_text = next((entry for entry in reversed(tail) if _SAYS_WRONG.search(entry[1])), tail[-1])
    # Unless the output ends with one-line findings (``path:1: trailing whitespace.``): the first.
    last_line, last_text = next((entry for entry in tail if FINDING.match(entry[1])), (last_line, last_text))
    text = "\n".join(text for _, text in tail)
    if len(text) > MAX_BLOCK_TEXT:
        text = text[: MAX_BLOCK_TEXT - 1] + "…"
    return ErrorBlock(last_line + 1, last_line + 1, "tail", last_text[:MAX_BLOCK_TEXT]), last_text


def _platform(scan: Scanner, strong_cause: bool) -> PlatformHit | None:
    """The first platform failure; a weak one (a warning, a retry, an artifact transfer) only when
    the failing command printed no cause of its own."""
    for hit in scan.platforms:
        if not hit.weak:
            return PlatformHit(hit.label, hit.line + 1, hit.text)
    if not strong_cause and scan.platforms:
        hit = scan.platforms[0]
        return PlatformHit(hit.label, hit.line + 1, hit.text)
    return None
