"""How far a block reads: from the line that opens it (its shape's ``grow`` rule) to its last line,
and the line its signature reads; and the tier a block's own words refine.

:func:`grow` reads the scan's kept lines (text, or UTF-8 bytes decoded where read) forward from the
opening line, at most :data:`~labdeck.logtext.cause.model.MAX_BLOCK_LINES` lines (a traceback
:data:`~labdeck.logtext.cause.model.MAX_TRACEBACK_LINES`).
"""

from __future__ import annotations

import re

from labdeck.logtext.cause import ends, shapes
from labdeck.logtext.cause.model import MAX_BLOCK_LINES, MAX_LINE, MAX_TRACEBACK_LINES
from labdeck.logtext.cause.segment import PREFIX_FIRST, clean


def grow(shape: shapes.Shape, buffer: list[str] | list[bytes], offset: int, text: str,
          cleaned: list[str] | None = None) -> tuple[int, str]:
    """The last buffer offset of the block that opens at ``offset`` in ``buffer`` (the scan's
    lines, text or UTF-8 bytes), and the line its signature reads; ``cleaned`` receives each line
    looked at (cleaned), from ``offset + 1`` on."""
    grow = shape.grow
    seen = cleaned if cleaned is not None else []
    if grow == "single":
        if shape.tier >= 3:
            # A summary or a consequence: its line alone (the deeper lines under jest's ``FAIL
            # test/x.test.js`` are its ``● test`` failures, blocks of their own).
            return offset, text
        return ends.extend(shape, text, offset, offset, buffer, seen), text
    # A traceback under a prefix (pytest's ``INTERNALERROR>``) runs as long as a bare one.
    limit = min(len(buffer), offset + (MAX_TRACEBACK_LINES if grow == "traceback" or shape.kind == "traceback"
                                       else MAX_BLOCK_LINES))
    indent = len(text) - len(text.lstrip())
    end = offset
    head = text
    blanks = 0
    last = ""
    raised: tuple[int, str] | None = None
    cause: str | None = None
    prefix = ("" if grow != "prefix" else text[:8] if text.startswith("npm")
              else "ERROR: " if text.startswith("ERROR: ") else text.lstrip()[:1])
    keep = seen.append
    for index in range(offset + 1, limit):
        # As Scanner._raw() reads a line and segment.clean() cleans it (inlined: the loop's cost).
        line = buffer[index][:MAX_LINE]
        if not isinstance(line, str):
            line = line.decode("utf-8", "replace")
        line = (line.rstrip() if "\x1b" not in line and "\r" not in line and line[:1] not in PREFIX_FIRST
                else clean(line))
        keep(line)
        stripped = line.lstrip()
        deeper = len(line) - len(stripped) > indent
        if grow == "traceback":
            if not stripped:
                continue
            if deeper:
                if raised is not None:
                    return raised
                continue
            if stripped.startswith(("During handling", "The above exception")):
                raised, end = None, index  # a chained traceback: the next one is read too
                continue
            if stripped.startswith("Traceback "):
                if raised is not None:
                    return raised  # another traceback, not chained to this one
                end = index
                continue
            if raised is not None:
                return raised
            # The exception line ends the block unless a chained traceback follows it; the first
            # exception (the root cause) names it.
            cause = cause or stripped
            raised = (index, cause)
            continue
        if grow == "indent":
            if not stripped:
                blanks += 1
                if blanks >= 2:
                    break
                continue
            if not deeper and not stripped.startswith(("Caused by: ", "Suppressed: ")):
                break  # (a JVM trace's causes stand at its own indent: the trace goes on)
            if (end == offset and head is text and stripped.endswith(":") and _NUMBERED.match(text)
                    and not _LABEL.fullmatch(stripped)):
                # mocha: ``1) suite`` then, deeper, ``test name:``: the test is named on both lines
                # (not a one-word label such as jasmine's ``Message:``).
                head = f"{text.strip()} {stripped}"
            blanks = 0
            end = index
        elif grow == "named":
            if not stripped:
                break
            if head is text:
                head = stripped  # the first line under the header names what failed
            end = index
        elif grow == "section":
            if not stripped:
                if end > offset and not _SECTION_GOES_ON.match(last):
                    break
                continue  # the blank line right under the header (or a doctest's stderr label)
            if stripped.startswith(("stack backtrace:", "note: run with `RUST_BACKTRACE")):
                break  # the frames of the panic read above
            end, last = index, stripped
        elif grow == "para" or grow == "box":
            if not stripped or (line[:1] in _FRAMING_FIRST and ends.framing(line)):
                break  # (a paragraph at the end of a step's output runs into the CI system's lines)
            end = index
            if grow == "box" and stripped.startswith("╵"):
                break  # the box's closing corner, its last line
        elif grow == "prefix":
            if not (line.startswith(prefix) or line == "E") or stripped == "[ERROR]":
                break  # Maven's bare ``[ERROR]`` line ends its message (its advice follows)
            end = index
            if head is text and _NPM_MESSAGE.match(line) and _NPM_CODE.match(text):
                head = line  # `code E404` names the class; the next message names the package
        elif grow == "hash":
            if not stripped.startswith("#"):
                break
            end = index
        elif grow == "linker":
            if not stripped or not (deeper or _LINKER_DETAIL.search(stripped)):
                break
            if head is text and _LINKER_CAUSE.search(stripped):
                head = stripped  # the symbol's line names the failure; "in function" only where
            end = index
            if _LINKER_END.match(stripped):
                break
        elif grow == "rust":
            if not stripped or not (deeper or stripped.startswith(("-->", "|", "=", "note:", "help:", "..."))
                                    or _SOURCE_LINE.match(stripped) or stripped == "compilation terminated."):
                break  # (gcc's last word after a fatal error: ``compilation terminated.``)
            end = index
    if raised is not None:
        return raised
    if grow in _TAILED or shape.kind in _OWN_LAYOUT or text[:1] in _REPORT_FIRST:  # (else nothing follows)
        return ends.extend(shape, text, offset, end, buffer, seen), head
    return end, head


_TAILED, _OWN_LAYOUT, _REPORT_FIRST = ends.TAILED, ends.OWN_LAYOUT, ends.REPORT_FIRST
_FRAMING_FIRST = frozenset("[$+#~-RUCEJDFPTB")
"""The first characters of the CI system's lines (:func:`ends.framing`)."""


_SOURCE_LINE = re.compile(r"\d+\s+[|+~-](?:\s|$)")
"""A compiler's quoted source line (rustc: ``37 |     let last = …``, at the gutter's indent), or a
line of its suggested change (``45 -     return fee;``, ``45 +     fee``)."""
_SECTION_GOES_ON = re.compile(r"Test executable failed \(|std(?:out|err):$")
"""A libtest doctest's section: ``Test executable failed (exit status: N).``, a blank line,
``stderr:``, a blank line, then the panic; its blank lines do not end it."""



_LINKER_CAUSE = re.compile(r"undefined reference to|multiple definition of|relocation \S+ against|"
                           r"undefined symbol|cannot find -l")
_LINKER_DETAIL = re.compile(_LINKER_CAUSE.pattern + r"|more undefined references|first defined here|"
                            r"\(\.\w+(?:\.\w+)*\+0x[0-9a-fA-F]+\)|" + r"ld returned \d+ exit status|linker command failed")
_LINKER_END = re.compile(r"\S*(?:collect2|clang(?:\+\+)?|ld)(?:\.exe)?: error: ")


_NUMBERED = re.compile(r"\s*\d+\) \S")
_LABEL = re.compile(r"[A-Z][\w/]*:")
_NPM_CODE = re.compile(r"npm (?:ERR!|error) code \w+$")
_NPM_MESSAGE = re.compile(r"npm (?:ERR!|error) (?!(?:code|errno|syscall|path|dest)\b)\S")


_NPM_REAL = re.compile(r"code E(?!LIFECYCLE)[A-Z]|can only install packages|ERESOLVE|E404|ENOTFOUND|ETIMEDOUT|ECONNRESET|EINTEGRITY|ETARGET|peer dep|"
                       r"Missing script|missing script|Could not resolve|ENOENT|EACCES|404 Not Found")



def block_tier(shape: shapes.Shape, texts: list[str]) -> int:
    """The shape's tier, refined by what the block says (npm's real errors, Gradle's consequences)."""
    if shape.kind == "npm":
        return 2 if any(_NPM_REAL.search(text) for text in texts) else 3
    if shape.kind == "gradle" and shape.grow == "para" and len(texts) > 1 and (
            "There were failing tests" in "\n".join(texts) or "Compilation failed" in "\n".join(texts)):
        return 3
    return shape.tier
