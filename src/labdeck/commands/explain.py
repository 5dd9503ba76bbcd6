"""``labdeck explain [--json] [--passing LOG] LOG …``: the cause of failed logs from anywhere (a
downloaded trace, an incident bundle, another CI system's log), with no server.

The same analysis as triage (:func:`labdeck.logtext.cause.read_cause_blocks`), on files read one
after the other in one process, each streamed in bounded memory (``-`` reads standard input).
People get, per file, the error block with its line numbers, the signature and any platform
failure; ``--json`` prints one object per line per file::

    {"file": "build.log", "error": {"line": 412, "end": 419, "kind": "junit", "text": "…"} | null,
     "signature": "…", "platform": {"label": "…", "line": 40, "text": "…"} | null, "lines": 5120}

A missing or unreadable file is one line on stderr and makes the exit code 1; the other files are
still answered.
"""

from __future__ import annotations

import json
import os
import stat
import sys
from collections.abc import Callable, Iterator, Sequence
from typing import BinaryIO, TextIO

from labdeck.base import logsafe
from labdeck.logtext.cause import LogAnswer, passing_lines, read_cause_blocks

EXIT_OK, EXIT_FAILURE = 0, 1
_READ = 1 << 20
_FLAGS = os.O_RDONLY | getattr(os, "O_BINARY", 0) | getattr(os, "O_CLOEXEC", 0)
_STRING: Callable[[str], str] = json.encoder.encode_basestring
"""How ``json.dumps(…, ensure_ascii=False)`` writes a string (the same C function)."""


def stream_lines(source: BinaryIO) -> Iterator[bytes]:
    """The lines of a binary stream, without their ``\\n``, read a megabyte at a time (left as
    bytes: the reader decodes only the lines it looks at)."""
    rest = b""
    while block := source.read(_READ):
        lines = (rest + block).split(b"\n")
        rest = lines.pop()
        yield from lines
    if rest:
        yield rest


def _open(name: str, stdin: BinaryIO) -> BinaryIO:
    # Unbuffered: every read is a megabyte anyway, and a buffered reader's own buffer costs more
    # than reading a small log (a corpus is mostly small logs).
    return stdin if name == "-" else open(name, "rb", buffering=0)


def _blocks(source: BinaryIO) -> Iterator[bytes]:
    """The blocks of ``source``, a megabyte at most each. A regular file smaller than that is read
    in reads of its own size: a read of a megabyte allocates (and maps) a megabyte first, which
    costs more than reading a small log."""
    size = _READ
    try:
        status = os.fstat(source.fileno())
    except (OSError, ValueError):  # not a file (a test's BytesIO, a closed descriptor)
        pass
    else:
        if status.st_size and stat.S_ISREG(status.st_mode):
            size = min(_READ, status.st_size + 1)
    read = source.read
    while block := read(size):
        yield block
        if len(block) == size:  # more may follow: full-sized reads from now on
            size = _READ


def _file_blocks(descriptor: int) -> Iterator[bytes]:
    """:func:`_blocks` of a file opened with :func:`os.open`: the same reads, without a file object
    (making one costs more than reading a small log)."""
    size = _READ
    status = os.fstat(descriptor)
    if status.st_size and stat.S_ISREG(status.st_mode):
        size = min(_READ, status.st_size + 1)
    read = os.read
    while block := read(descriptor, size):
        yield block
        if len(block) == size:  # more may follow: full-sized reads from now on
            size = _READ


def _answer(name: str, stdin: BinaryIO, passing: frozenset[str] | None) -> LogAnswer:
    if name == "-":
        return read_cause_blocks(_blocks(stdin), passing)
    # A directory opens, and its first read fails with EISDIR (as reading it through open() does).
    descriptor = os.open(name, _FLAGS)
    try:
        return read_cause_blocks(_file_blocks(descriptor), passing)
    finally:
        os.close(descriptor)


def as_json(name: str, answer: LogAnswer) -> dict[str, object]:
    """The ``--json`` object of one file."""
    error = answer.error
    hit = answer.platform
    return {
        "file": name,
        "error": None if error is None else {
            "line": error.line, "end": error.end, "kind": error.kind,
            "text": logsafe.printable(error.text, keep_newlines=True)},
        "signature": logsafe.printable(answer.signature),
        "platform": None if hit is None else {"label": hit.label, "line": hit.line,
                                              "text": logsafe.printable(hit.text)},
        "lines": answer.line_count,
        "new_lines": None if answer.new_lines is None else len(answer.new_lines),
        "succeeded": answer.succeeded,
    }


def json_line(name: str, answer: LogAnswer) -> str:
    """``json.dumps(as_json(name, answer), ensure_ascii=False)``, byte for byte, written directly:
    the encoder's set-up per object cost more than a small log's whole analysis."""
    error = answer.error
    hit = answer.platform
    string = _STRING
    error_json = "null" if error is None else (
        f'{{"line": {error.line}, "end": {error.end}, "kind": {string(error.kind)}, '
        f'"text": {string(logsafe.printable(error.text, keep_newlines=True))}}}')
    hit_json = "null" if hit is None else (
        f'{{"label": {string(hit.label)}, "line": {hit.line}, "text": {string(logsafe.printable(hit.text))}}}')
    new_lines = "null" if answer.new_lines is None else str(len(answer.new_lines))
    return (f'{{"file": {string(name)}, "error": {error_json}, '
            f'"signature": {string(logsafe.printable(answer.signature))}, "platform": {hit_json}, '
            f'"lines": {answer.line_count}, "new_lines": {new_lines}, '
            f'"succeeded": {"true" if answer.succeeded else "false"}}}')


def as_text(name: str, answer: LogAnswer) -> str:
    """The human report of one file: the block with line numbers, the signature, any platform failure."""
    out = [f"{logsafe.printable(name)}:"]
    error = answer.error
    if error is None:
        if answer.succeeded:
            out.append("  no error: the job succeeded")
        elif answer.line_count == 0:
            out.append("  no error found (empty log)")
        else:  # every line was the CI system's own (a log cut short, or one glued into a single line)
            lines = "its 1 line is" if answer.line_count == 1 else f"all {answer.line_count:,} lines are"
            out.append(f"  no error found: {lines} the CI system's own")
    else:
        span = f"line {error.line}" if error.end == error.line else f"lines {error.line}-{error.end}"
        out.append(f"  error at {span} ({error.kind}):")
        width = len(str(error.end))
        first = error.line if error.kind != "tail" else error.end
        for offset, text in enumerate(error.text.split("\n")):
            out.append(f"  {first + offset:>{width}} | {logsafe.printable(text)}")
        out.append(f"  signature: {logsafe.printable(answer.signature)}")
    if answer.platform is not None:
        hit = answer.platform
        out.append(f"  platform: {hit.label} (line {hit.line}: {logsafe.printable(hit.text)})")
    if answer.new_lines is not None:
        out.append(f"  new since the passing log: {len(answer.new_lines)} of {answer.line_count} lines")
    return "\n".join(out) + "\n"


def _describe(error: OSError) -> str:
    return error.strerror or type(error).__name__


def run_explain(files: Sequence[str], *, as_json_lines: bool, passing: str | None, out: TextIO, err: TextIO,
                stdin: BinaryIO | None = None) -> int:
    """Explain each file in turn; returns the exit code (1 when any file could not be read)."""
    stdin = stdin if stdin is not None else sys.stdin.buffer
    baseline: frozenset[str] | None = None
    if passing is not None:
        try:
            with _open(passing, stdin) as source:
                baseline = passing_lines(stream_lines(source))
        except OSError as error:
            err.write(f"labdeck explain: {logsafe.printable(passing)}: passing log not read: {_describe(error)}\n")
            return EXIT_FAILURE
    status = EXIT_OK
    for name in files:
        try:
            answer = _answer(name, stdin, baseline)
        except OSError as error:
            err.write(f"labdeck explain: {logsafe.printable(name)}: not read: {_describe(error)}\n")
            status = EXIT_FAILURE
            continue
        if as_json_lines:
            out.write(json_line(name, answer) + "\n")
        else:
            out.write(as_text(name, answer))
        out.flush()
    return status
