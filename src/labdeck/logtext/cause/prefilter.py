"""The one prefilter: which lines of a chunk could be a marker, an error or a platform line.

One pass over the joined chunk (UTF-8 bytes) with one alternation of every keyword the later
steps need (:data:`KEYWORDS`; a test checks that every shape's samples contain one). With
``google-re2`` (a DFA: linear time whatever the number of keywords) the pass runs at a few
hundred MB/s and returns one match per picked line. Without it, Python's ``re`` runs the plain
alternation, correct but several times slower (backtracking engines try each keyword at each
position).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import cache
from typing import Any

from labdeck.logtext.cause.shapes import TEXT_TOOL

# Lines may carry a raw GitHub log's or a GitLab runner's timestamp before the text.
_AT_START = r"(?m:^(?:\[?\d{4}-\d\d-\d\d[T ][\d:.,]+(?:Z|[+-]\d\d:?\d\d)?\]? (?:[0-9a-f]{2}[OE]\+? )?)?"

KEYWORDS: tuple[str, ...] = (
    # Errors and failures: whole words (``test_error_handling PASSED`` is not an error line).
    r"(?:[Ee]rror|ERROR)(?:s|ed)?\b", r"[Ff]ail(?:s|ed|ure|ures|ing)?\b", r"FAIL", r"[Ff]atal|FATAL",
    r"Traceback", r"[Pp]anic", r"xception", r"denied", r"not found", r"No such", r"egmentation", r"dumped",
    r"ndefined", r"not ok", r"went wrong", r"Caused by", r"●", r"✖", r"✘", r"\*\*\*", r"ERR[!_:]", r"Killed",
    r"halted", r"Dubious", r"level=", r"but was", r"but found", r"Interrupt", r"Fault", r"Illegal instruction",
    r"offense", r"===> ", r"Impossible", r"nsatisfiable", r"non-zero", r"In \S+ line \d+:",
    r"Diff in ", r" : (?:fatal )?error ", r"(?m: \[E\]$)", r"could not be resolved", r"Could not ",
    r"(?m:^[ \t]*Problem \d+$)", r"unbound variable", r"bad substitution", r"parameter not set", r"curl: \(", r"\"(?:severity|level)\": ?\"(?:error|fatal)\"", r"\.(?:py|rb):\d+:\d+: ", r"\.py:\d+: (?:\w+(?:Error|Exception|Exit|Failure)\b|assert |Failed: )", r"\.(?:go|erl|hs|ex|exs|swift|lua):\d+",
    _AT_START + r"[ \t]*\d+\) )", _AT_START + r"[A-Z]{1,4}\d{3,4} )", r"stdout ----",
    _AT_START + r"[Ee]  )", _AT_START + r"[Ee]: )", _AT_START + r"E$)",
    _AT_START + r"#[ \t])", r"\| FAIL \|", r"\.\.\. (?:failed|undefined) in",
    # Linkers, checkers, coverage gates, formatters, shells and GNU-style tools (see shapes.py).
    r"\b(?:ld|lld|mold|ld\.\w+|ld64(?:\.lld)?)(?:\.exe)?: ", r"Assertion", r"==\d+== ?(?:Invalid |Conditional jump|Use of uninit|Mismatched free|Syscall param"
    r"|Source and destination|Process terminating|[\d,]+ (?:\([^)\n]*\) )?bytes in)", r"DATA RACE|ThreadSanitizer",
    r"overage (?:failure|for|threshold)|test coverage of|Rule violated", r"[Ww]ould (?:have )?reformat",
    r"warn(?:\x1b\[[0-9;]*m)?\] ", r"Code style issues", r": line \d+: ", _AT_START + r"(?:sh|dash|\S+\.(?:sh|bash)): \d+: )",
    _AT_START + TEXT_TOOL + ")", r"failed with ", r"exception (?:error|exit|throw): ",
    r"(?m: line \d+(?:, <[^>\n]*> (?:line|chunk) \d+)?\.$)", r"column \d+ \(char \d+\)", r"(?:[Pp]arse|[Ss]yntax) error",
    _AT_START + r"_{3,} \S)", r"Docker daemon|error during connect", r"Bail ?out", r">> Issue: ", r":\d+:in [`']",
    _AT_START + r"(?:diff --git a/|--- (?:a|old)/|--- \S+\t\d{4}-|\+?diff \S+\.orig |\+?--- \S+\.orig$))", r"✗|❌", r"\[!\] ", r"terminate called", _AT_START + r'File "[^"\n]+", line \d+, in )', _AT_START + r"[ \t]*× )",
    r"CRITICAL:", r"\d+/\d+ [\w.]+\.test\.", r"required (?:but not available|and available but unsuitable)", r"At line \d+ of file", r"\[ *FAILED *\]", r"\.(?:java|kts?|scala):\d+(?::\d+)?: warning: ", r"warnings being treated as errors",
    r": WARNING: |: \(WARNING/\d\)",
    # Sub-commands (tox environments, nox sessions): where each starts and whether it succeeded.
    r"commands\[\d+\]> ", r"nox > (?:Running s|S)ession ", r": OK (?:✔|\(\d)",
    # Framing.
    # Only the framing lines that mark something (``##[endgroup]``, ``[Pipeline] }`` and the
    # runner's own ``Running with gitlab-runner`` are most of a log's framing and mark nothing).
    r"\$ ", _AT_START + r"\+ )", r"##\[(?:group\]Run |section\]|error\])", r"~~~ ", r"\+\+\+ ",
    r"\[Pipeline\] (?:sh|bat|powershell|stage)\b", r"exit code", r"exited with",
    r"exit status", r"marked build", r"Exited with", r"Running after", r"Uploading artifacts", r"Cleaning up",
    r"Finished: ", r"Post job", r"Job succeeded", r"Cleaning up orphan processes",
    r"section_start:\d+:(?:after_script|upload_artifacts_on_failure|cleanup_file_variables)", r"Done\. Your build",
    # Platform words.
    r"(?i:runner (?:was )?lost|job's runner)", r"imeout", r"imed out", r"resolve host", r"name resolution", r"[Ff]ailed to resolve",
    r"NameResolution", r"resolve hostname", r"reset by peer", r"ECONN", r"ETIMEDOUT", r"ESOCKET", r"EAI_AGAIN",
    r"space left", r"OOM", r"oom-kill", r"ut of memory", r"ImagePull", r"pull access", r"manifest unknown",
    r"toomanyrequests", r"such host", r"nodename", r"nknown host", r"ame or service", r"handshake", r"xceeded",
    r"execution took", r"shutdown signal", r"lost communication", r"Too Many Requests", r"Bad Gateway",
    r"Service Unavailable", r"Gateway Time", r" 429\b", r"E429", r"HTTP 5", r"status 137",
)

_ALTERNATION = "|".join(KEYWORDS)


@cache
def _engine() -> Callable[[bytes], list[int]]:
    """The line picker, compiled at its first use (importing the finder compiles nothing)."""
    try:
        import re2  # type: ignore[import-not-found, import-untyped, unused-ignore]
    except ImportError:  # pragma: no cover - exercised where google-re2 is missing
        return _with_re(re.compile(_ALTERNATION.encode()))
    # No leading ``^.*``: the first keyword's position is on the line it picks (no keyword spans
    # a line). Its automaton is a third cheaper to build (the first log's cost).
    return _with_re2(re2.compile(_searching("m", _ALTERNATION)), re2)


def _searching(flags: str, alternation: str) -> bytes:
    """``alternation`` (with ``flags``) searched for from where a match call starts, anchored there: ``(?s:.*?)`` (what
    RE2 puts before an unanchored pattern) written out, so that the match's start is known (the
    call's start) and RE2 runs only its forward pass, not a second, backward pass to find where
    the keyword started. The keyword ends on the line it starts on (no keyword matches a line
    break, a test checks), and its end is what tells the line."""
    return f"(?{flags})(?s:.*?)(?:{alternation})".encode()


def _with_re2(compiled: Any, re2: Any) -> Callable[[bytes], list[int]]:
    # RE2's own match call, without the wrapper's match objects: one call per picked line, each
    # resumed at the start of the next line.
    match = compiled._regexp.Match
    anchor = re2._Anchor.ANCHOR_START

    def picked(joined: bytes) -> list[int]:
        lines: list[int] = []
        append = lines.append
        count = joined.count
        find = joined.find
        end = len(joined)
        line = -1  # the line before ``position``'s
        position = 0
        while True:
            stop = match(anchor, joined, position, end)[0][1]
            if stop < 0:
                return lines
            # ``position`` starts the line after the last one picked.
            line += 1 + count(b"\n", position, stop)
            append(line)
            position = find(b"\n", stop) + 1
            if not position:
                return lines

    return picked


def _with_re(compiled: re.Pattern[bytes]) -> Callable[[bytes], list[int]]:
    def picked(joined: bytes) -> list[int]:
        lines: list[int] = []
        count = joined.count
        line = 0
        last = 0
        previous = -1
        for found in compiled.finditer(joined):
            start = found.start()
            line += count(b"\n", last, start)
            last = start
            if line != previous:
                lines.append(line)
                previous = line
        return lines

    return picked


def picked(joined: bytes) -> list[int]:
    """The 0-based indices of the lines of ``joined`` (lines joined by ``\\n``) the prefilter picks."""
    return _engine()(joined)


@cache
def _words_engine(words: tuple[str, ...]) -> Callable[[bytes], list[int]] | None:
    try:
        import re2  # type: ignore[import-not-found, import-untyped, unused-ignore]
    except ImportError:  # pragma: no cover - exercised where google-re2 is missing
        return None
    alternation = "|".join(re.escape(word) for word in words)
    return _with_re2(re2.compile(_searching("mi", alternation)), re2)


def lines_with(joined: bytes, words: tuple[str, ...]) -> list[int] | None:
    """The 0-based indices of the lines of ``joined`` that hold one of ``words`` in any case
    (Unicode case folding: every line whose lowered text holds one is among them), or None when
    that cannot be told cheaply (without google-re2): then any line may."""
    engine = _words_engine(words)
    return None if engine is None else engine(joined)


def __getattr__(name: str) -> Any:
    # ``PYTHON``: the same alternation for one line of text (tests, and lines met one at a time),
    # compiled only when asked for.
    if name == "PYTHON":
        return _python()
    raise AttributeError(name)


@cache
def _python() -> re.Pattern[str]:
    return re.compile(_ALTERNATION)
