"""A job log as plain text: what the viewer shows, without a single escape sequence.

:func:`plain_log` streams a raw trace file through the trace sanitizer, removes section markers,
resolves carriage returns the way the viewer does (the last segment with visible text) and drops
the remaining SGR colour codes, so line ``N`` of the text file is line ``N`` of the viewer and of
the error finder. Memory stays at one chunk and one line, whatever the size of the log.
"""

from __future__ import annotations

import codecs
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO

from labdeck.logtext.error_lines import ErrorFinder, ErrorIndex
from labdeck.logtext.lines import resolve_carriage_returns
from labdeck.logtext.sanitize import TraceSanitizer
from labdeck.logtext.search import visible
from labdeck.logtext.sections import strip_markers

CHUNK = 256 * 1024


def plain_line(line: str) -> str:
    """One sanitized line (SGR allowed, no ``\\n``) as plain text: no markers, no ``\\r``, no SGR."""
    return visible(resolve_carriage_returns(strip_markers(line)))


def _plain_lines(raw: BinaryIO) -> Iterator[str]:
    decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
    sanitizer = TraceSanitizer()
    partial = ""
    while True:
        chunk = raw.read(CHUNK)
        final = not chunk
        text = sanitizer.feed(decoder.decode(chunk, final=final))
        if final:
            text += sanitizer.flush()
        parts = (partial + text).split("\n")
        partial = parts.pop()
        for line in parts:
            yield plain_line(line)
        if final:
            break
    if partial:
        yield plain_line(partial)


def plain_log(raw_path: Path, text_path: Path) -> tuple[ErrorIndex, int]:
    """Write the plain text of the raw log at ``raw_path`` to ``text_path``; return the errors
    found (line numbers as in the text file) and the number of lines."""
    finder = ErrorFinder()
    count = 0
    with raw_path.open("rb") as raw, text_path.open("w", encoding="utf-8", newline="\n") as out:
        for line in _plain_lines(raw):
            if count:
                out.write("\n")
            out.write(line)
            finder.feed(line)
            count += 1
        if count:
            out.write("\n")
    return finder.index, count
