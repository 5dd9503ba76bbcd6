"""Where a block goes on past the lines its shape's own growth reads: the parts of a report that
tools print after the opening line's run, in a shape of their own.

:func:`extend` is asked at most once per block (not per line of the log), with the block's last line from
:func:`labdeck.logtext.cause.grow.grow`, and reads at most a few lines past it, except for a report
whose tool prints its own end marker (a sanitizer's ``SUMMARY:``), read up to that marker.

- The deeper lines right under a one-line error: its details.
- A quoted source line and its caret marker (``      ^~~~``): kotlinc, gcc, erlc, rubocop, tsc and
  esbuild quote the code under the message, with at most one blank line before it.
- A stack trace under the error: Lua's ``stack traceback:``, PHP's ``Stack trace:`` (``#0 …`` frames),
  OCaml's ``Raised at …``/``Called from …``.
- pytest's failure: after its ``E`` lines (and the ``>`` lines of a missing fixture's message), a
  blank line and the place it was raised, ``path.py:12: AssertionError`` (or ``path.py:9``).
- A report the tool closes with a line of its own: a sanitizer's report through its ``SUMMARY:``
  line, pip's dependency conflict through ``ERROR: ResolutionImpossible``, a doctest failure up to
  the ``*****`` line between failures.
- A diff's header: ``diff --git``, ``index``, ``---`` and ``+++`` read together.
- Go's test log: the test's other ``x_test.go:N:`` lines at the same indent and, in ``go test -v``,
  the ``--- FAIL:`` line that closes them.
- A pytest section's lines under its ``____ name ____`` header, up to its ``E`` lines; robot's and
  behave's message under the failed test; Terraform's plain ``Error:`` diagnostic (a blank line,
  then its place and detail) up to the next one.
- A follow-up line a tool prints under its error: perl's ``BEGIN failed--compilation aborted``.

The CI system's own lines (a command, the failure mark, the trailer, Jenkins' ``[Pipeline]`` steps)
end a paragraph read here (:func:`framing`).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import cache

from labdeck.logtext.cause import segment, shapes
from labdeck.logtext.cause.model import MAX_BLOCK_LINES, MAX_LINE
from labdeck.logtext.cause.segment import PREFIX_FIRST

_WINDOW = 2048
"""Characters (bytes) of the raw lines after a block looked at before they are cleaned (a line of
megabytes is looked at by its start: the lines after it are then not)."""
_AHEAD = 4
"""Lines past a long block that may still be read (pytest's ``path.py:12: Error`` two lines under
the last ``E`` line)."""
REPORT_LINES = 120
"""Lines read ahead for a report's end marker (a sanitizer's report with its stacks runs to ~100)."""


def extend(shape: shapes.Shape, text: str, offset: int, end: int, buffer: list[str] | list[bytes],
           seen: list[str]) -> int:
    """The last offset of the block that opens at ``offset`` in ``buffer`` (its line ``text``) and
    that its shape's growth ended at ``end``; ``seen`` holds the lines growth cleaned, in order from
    ``offset + 1``, and receives those cleaned here. Asked only for a block of a growth in
    :data:`TAILED`, of a kind in :data:`OWN_LAYOUT` or opening with one of :data:`REPORT_FIRST`
    (grow() looks before asking: a call per block costs)."""
    size = len(buffer)
    stop = offset + MAX_BLOCK_LINES if end + _AHEAD <= offset + MAX_BLOCK_LINES else end + _AHEAD
    if stop > size:
        stop = size
    if shape.kind in OWN_LAYOUT or text[:1] in REPORT_FIRST:
        end, final = _own_layout(shape, text, offset, end, _reader(buffer, seen, offset), stop, size)
        if final or shape.grow not in TAILED:
            return end
    if end + 1 >= stop:
        return end
    # Most blocks are followed by none of these: a look at the next raw lines first (no cleaning).
    window = _window(buffer, end + 1)
    read = None
    if end == offset and shape.grow == "single" and (window[:1].isspace() or window[:1] in _CLEANED_FIRST):
        read = _reader(buffer, seen, offset)
        end = _under(text, read, end, stop)
        if end != offset:
            if end + 1 >= stop:
                return end
            window = _window(buffer, end + 1)
    if not ("^" in window or "~" in window or "trace" in window or "aised " in window or "Called " in window
            or "BEGIN failed" in window):
        return end
    read = read or _reader(buffer, seen, offset)
    after, _, rest = window.partition("\n")
    if "^" in rest or "~" in rest:
        grown = _snippet(read, end, stop)
        if grown != end:
            end = grown
            if end + 1 >= stop:
                return end
            after = _window(buffer, end + 1).partition("\n")[0]
    if "trace" in after or "aised " in after or "Called " in after:  # (a part of each heading)
        end = _trace(read, end, stop)
    elif "BEGIN failed" in after and read(end + 1).startswith("BEGIN failed--compilation aborted"):
        end += 1  # perl's word that the ``use`` above it failed
    return end


def _reader(buffer: list[str] | list[bytes], seen: list[str], offset: int) -> Callable[[int], str]:
    """The cleaned line at an index past ``offset``: from ``seen`` (the lines cleaned so far, in
    order from ``offset + 1``), cleaning and keeping the next ones as they are asked for."""

    def read(index: int) -> str:
        while len(seen) < index - offset:
            line = buffer[offset + 1 + len(seen)][:MAX_LINE]
            if not isinstance(line, str):
                line = line.decode("utf-8", "replace")
            # As grow() cleans a line (segment.clean(), skipped where it would only strip).
            seen.append(line.rstrip() if "\x1b" not in line and "\r" not in line and line[:1] not in PREFIX_FIRST
                        else segment.clean(line))
        return seen[index - offset - 1]

    return read


def _own_layout(shape: shapes.Shape, text: str, offset: int, end: int, read: Callable[[int], str],
                stop: int, size: int) -> tuple[int, bool]:
    """Where a block of a tool with a layout of its own ends (:data:`OWN_LAYOUT`, :data:`_REPORTS`,
    Terraform's plain diagnostic), and whether that is final (a report's end marker: nothing past it
    is read; ``size``: the lines there are)."""
    kind = shape.kind
    if kind == "pytest":
        if shape.grow == "prefix":
            end = _pytest_place(read, end, stop)
        elif end == offset and text.startswith("_") and text.endswith("_"):
            end = _pytest_section(read, end, stop)
    elif kind == "diff":
        end = _diff_header(text, read, end, stop)
    elif kind == "go":
        if shape.grow == "indent" and "_test.go:" in text:
            end = _go_log(text, read, end, stop)
    elif kind == "robot" or kind == "behave":
        if end == offset:
            # Both print the failure's message at the margin under the test's line: robot up to its
            # ``-----`` rule, behave up to a blank line.
            end = _paragraph(read, end, stop)
    if text[:1] in REPORT_FIRST:
        for opener, follow, closer, inclusive in _REPORTS:
            if _re(opener).match(text) and (not follow or (offset + 1 < stop and read(offset + 1).startswith(follow))):
                found = _report_end(read, end, min(size, offset + REPORT_LINES), closer, inclusive)
                if found is not None:
                    return found, True
                break
        if (end == offset and text.startswith("Error: ") and end + 2 < stop and not read(end + 1)
                and _re(_DIAGNOSTIC_BODY).match(read(end + 2))):
            end = _diagnostic(read, end, stop)
    return end, False


def _window(buffer: list[str] | list[bytes], at: int) -> str:
    """The start of the raw lines from ``at`` (four, joined by newlines), as read (not cleaned): a
    cheap look at what they may be."""
    lines = buffer[at:at + 4]
    if isinstance(lines[0], str):
        return "\n".join(lines)[:_WINDOW]
    return b"\n".join(lines)[:_WINDOW].decode("utf-8", "replace")


def _snippet(read: Callable[[int], str], end: int, stop: int) -> int:
    """Through a quoted source line and its caret line right after ``end`` (the code's own line may
    stand at the margin; a line before it is indented, as esbuild's location, or the message's
    wrapped end, never the next message's ``file:line:``)."""
    at = end + 1
    if at < stop and not read(at):
        at += 1  # tsc --pretty and esbuild leave a blank line before the code
    if at + 1 >= stop:
        return end
    first, second = read(at), read(at + 1)
    if not first.strip():
        return end
    if _is_caret(second):
        return at + 1
    if (at + 2 < stop and second[:1].isspace() and (first[:1].isspace() or not _re(_LOCATION).match(first))
            and _is_caret(read(at + 2))):
        return at + 2  # (mypy --pretty wraps its message at the margin before the code)
    return end


def _is_caret(line: str) -> bool:
    """Whether a line is a caret line under quoted code: ``      ^~~~`` (gcc, kotlinc, mypy),
    ``%     |   ^`` (erlc), ``   |   ^^^`` (rustc), ``  ╵   ~~~`` (esbuild); indented or behind a
    gutter, never at the margin. (Read by hand: a pattern's nested blanks would backtrack on a long
    blank line.)"""
    if not (line[:1].isspace() or line[:1] == "%"):
        return False
    rest = line.lstrip()
    if rest[:1] == "%":
        rest = rest[1:].lstrip()
    if rest[:1] in ("|", "│", "╵"):
        rest = rest[1:].lstrip()
    return rest[:1] == "^" or rest[:2] == "~~" or rest == "~"


def _under(text: str, read: Callable[[int], str], end: int, stop: int) -> int:
    """Through the deeper lines right under a one-line error: its details (pip's package, expected
    and got hashes; a check's values), not the frames of a stack (``at …``: read with the trace, when
    the tool prints one)."""
    indent = len(text) - len(text.lstrip())
    for index in range(end + 1, stop):
        line = read(index)
        stripped = line.lstrip()
        if not stripped or len(line) - len(stripped) <= indent or stripped.startswith("at "):
            break
        end = index
    return end


def _paragraph(read: Callable[[int], str], end: int, stop: int) -> int:
    """Through the lines right under ``end``, up to a blank line, a rule or the CI system's framing."""
    for index in range(end + 1, stop):
        line = read(index)
        if not line or _re(_RULE).match(line) or framing(line):
            break
        end = index
    return end


def _pytest_section(read: Callable[[int], str], end: int, stop: int) -> int:
    """Through the lines right under a pytest section's ``____ name ____`` header (an XPASS(strict)'s
    reason, a collection error's message), up to its ``E`` or ``>`` lines or a traceback (``--tb=native``),
    blocks of their own."""
    for index in range(end + 1, stop):
        line = read(index)
        if not line or line[:1] in "E>" or line.startswith("Traceback") or _re(_RULE).match(line) or framing(line):
            break
        end = index
    return end


def _diagnostic(read: Callable[[int], str], end: int, stop: int) -> int:
    """Through a diagnostic in Terraform's plain layout: ``Error: summary``, a blank line, then
    paragraphs (``on main.tf line 5:`` with the code, the detail) up to two blank lines, the next
    ``Error:``/``Warning:`` or the CI system's framing."""
    blank = False
    for index in range(end + 2, stop):
        line = read(index)
        if not line:
            if blank:
                break
            blank = True
            continue
        if line.startswith(("Error: ", "Warning: ")) or framing(line):
            break
        blank = False
        end = index
    return end


def framing(line: str) -> bool:
    """Whether a line is the CI system's, not the tool's (a command, the failure mark, the trailer,
    a Jenkins pipeline step)."""
    return line.startswith("[Pipeline] ") or segment.mark(line, line) is not None


def _trace(read: Callable[[int], str], end: int, stop: int) -> int:
    """Through a stack trace that starts right under ``end``: its heading, then its frames (deeper
    lines, or frames in the runtime's own words)."""
    at = end + 1
    if at >= stop:
        return end
    line = read(at)
    stripped = line.lstrip()
    if not _re(_TRACE_HEADING).match(stripped):
        return end
    indent = len(line) - len(stripped)
    end = at
    for index in range(at + 1, stop):
        line = read(index)
        stripped = line.lstrip()
        if not stripped or not (len(line) - len(stripped) > indent or _re(_FRAME).match(stripped)):
            break
        end = index
    return end


def _pytest_place(read: Callable[[int], str], end: int, stop: int) -> int:
    """Through the ``path.py:12: Error`` line under a pytest failure's ``E`` lines."""
    at = end + 1
    while at < stop and read(at).startswith(">"):
        at += 1  # a missing fixture: ``E  fixture 'x' not found``, then ``>  available fixtures: …``
    if at < stop and not read(at):
        at += 1
    if at < stop and _re(_PYTEST_PLACE).match(read(at)):
        return at
    return end


@cache
def _re(source: str) -> re.Pattern[str]:
    """A pattern of this module, compiled at its first use (importing the finder compiles nothing:
    most logs never need most of them)."""
    return re.compile(source)


def _report_end(read: Callable[[int], str], end: int, stop: int, closer: str,
                inclusive: bool) -> int | None:
    for index in range(end + 1, stop):
        if _re(closer).match(read(index)):
            return index if inclusive else index - 1
    return None


def _diff_header(text: str, read: Callable[[int], str], end: int, stop: int) -> int:
    """Through a diff's header lines (``+``-prefixed as well when the diff itself is)."""
    skip = 1 if text.startswith("+") else 0
    for index in range(end + 1, stop):
        line = read(index)
        if not _re(_DIFF_HEADER).match(line, skip if line[:skip] == "+" else 0):
            break
        end = index
    return end


def _go_log(text: str, read: Callable[[int], str], end: int, stop: int) -> int:
    """Through the test's other log lines at the same indent and the ``--- FAIL:`` line that follows
    them (``go test -v`` prints the verdict after the test's output)."""
    indent = len(text) - len(text.lstrip())
    for index in range(end + 1, stop):
        line = read(index)
        stripped = line.lstrip()
        depth = len(line) - len(stripped)
        if depth < indent and stripped.startswith("--- FAIL: "):
            return index
        if not stripped or depth < indent or (depth == indent and not _re(_GO_LOG).match(stripped)):
            break
        end = index
    return end


_CLEANED_FIRST = PREFIX_FIRST | {"\r", "\x1b"}
"""First characters of a raw line whose visible text may start later (a CI prefix, a carriage return)."""
_LOCATION = r"\S+?:\d+[:\s(]|\S+\(\d+"
"""The start of a compiler's next message (``src/a.c:9:1: error: …``, ``x.cs(9,1): …``)."""
_TRACE_HEADING = r"(?:stack traceback|Stack trace):$|(?:Raised|Re-raised|Called) (?:at|from|by) "
_FRAME = r"#\d+ |(?:Raised|Re-raised|Called) (?:at|from|by) "
"""A frame at the trace's own indent: PHP's ``#0 {main}``, OCaml's ``Called from …``."""
_PYTEST_PLACE = r"\S+:\d+(?:: \S.*)?$"
_DIFF_HEADER = (r"diff |index [0-9a-f]|--- |\+\+\+ |(?:new|deleted) file mode |old mode |new mode "
                r"|similarity index |rename (?:from|to) ")
_DIAGNOSTIC_BODY = r"  on \S.* line \d+\b|[A-Z]"
"""What follows the blank line under Terraform's ``Error: summary``: the place (``  on main.tf line
5, in locals:``) or the detail's prose at the margin (another tool's unrelated output, as a test
runner's indented ``✓ …``, is not read)."""
_RULE = r"[-=_*]{10,}$|={3,} .* ={3,}$"
"""A rule between sections (robot's ``-----``, pytest's ``==== short test summary info ====``)."""
_GO_LOG = r"\S+\.go:\d+: "
REPORT_FIRST = frozenset("=EF")
"""The first characters of every report's opening line in :data:`_REPORTS` (and of ``Error: ``)."""
TAILED = frozenset(("single", "rust"))
"""The growths whose block may be followed by its details, a quoted line with its caret or a stack
trace (a compiler's message, a one-line error); the others read their own lines to their end."""
OWN_LAYOUT = frozenset(("pytest", "diff", "go", "robot", "behave"))
_REPORTS: tuple[tuple[str, str, str, bool], ...] = (
    (r"==\d+== ?ERROR: \w+Sanitizer\b", "", r"SUMMARY: \w+Sanitizer\b", True),
    (r"ERROR: Cannot install\b.*conflicting dependencies", "", r"ERROR: ResolutionImpossible\b", True),
    (r"File \"[^\"]+\", line \d+, in [\w.]+$", "Failed example:", r"\*{20,}$", False),
)
"""Reports a tool closes with a line of its own: the line that opens one, the start of the line
right under it (when the opening line alone could be another tool's), the line that closes it,
and whether that line is the report's (a sanitizer's ``SUMMARY:``) or the next one's (doctest's
``*****`` between failures)."""
