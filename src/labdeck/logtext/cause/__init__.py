"""Reading a log for its cause (``logtext/cause``): pure, no I/O, one pass.

The pipeline, one module per step (design.md, "Reading a log for its cause"):

1. :mod:`.segment`: the commands that ran, the mark of the one that failed, the trailer;
2. :mod:`.shapes`: error-shaped lines and the blocks they open, one entry per tool;
3. :mod:`.scan`: the one pass that finds both (a prefilter in C, precise patterns on picked
   lines), plus platform lines (:mod:`.platform`) and, with a passing log, the new lines;
4. :mod:`.rank`: the failing command's blocks first, noise and lines the green run printed last;
   the answer.

:func:`read_cause` reads a whole text, :func:`read_cause_lines` any iterable of lines and
:func:`read_cause_blocks` any iterable of byte blocks (a huge log streamed from disk) in bounded
memory. :func:`normalize` is the one normalization used for
signatures and for matching against the passing log.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from itertools import islice

from labdeck.logtext.cause.model import ErrorBlock, LogAnswer, PlatformHit
from labdeck.logtext.cause.normalize import comparable, normalize
from labdeck.logtext.cause.rank import answer
from labdeck.logtext.cause.scan import CHUNK, Scanner
from labdeck.logtext.cause.segment import clean

__all__ = ["ErrorBlock", "LogAnswer", "PlatformHit", "normalize", "passing_lines", "read_cause", "read_cause_blocks",
           "read_cause_lines"]


def _lines_of(data: str | bytes) -> list[str]:
    text = data.decode("utf-8", "replace") if isinstance(data, bytes) else data
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return lines


def passing_lines(lines: Iterable[str] | Iterable[bytes]) -> frozenset[str]:
    """The normalized lines of a passing log (text or UTF-8 bytes), to compare a failing log against."""
    texts = (line if isinstance(line, str) else line.decode("utf-8", "replace") for line in lines)
    return frozenset(comparable(text) for text in map(clean, texts) if text)


def _passing(passing: str | bytes | Iterable[str] | frozenset[str] | None) -> frozenset[str] | None:
    if passing is None:
        return None
    if isinstance(passing, frozenset):
        return passing
    if isinstance(passing, (str, bytes)):
        return passing_lines(_lines_of(passing))
    return passing_lines(passing)


def read_cause(text: str | bytes, passing: str | bytes | None = None) -> LogAnswer:
    """The cause of a failed log: the block to read first, its signature, any platform failure,
    the ranked candidates and, given the ``passing`` log of the same job, the new lines."""
    if isinstance(text, bytes):
        return read_cause_blocks((text,), passing)
    return read_cause_lines(_lines_of(text), passing)


def read_cause_blocks(blocks: Iterable[bytes],
                      passing: str | bytes | Iterable[str] | frozenset[str] | None = None) -> LogAnswer:
    """:func:`read_cause_lines` over a log's bytes in blocks of any size cut anywhere (a file read
    a megabyte at a time): each block's whole lines are picked in place, never split and joined
    again."""
    scanner = Scanner(_passing(passing))
    rest = b""
    for block in blocks:
        if rest:
            block = rest + block
        cut = block.rfind(b"\n")
        if cut < 0:
            rest = block
            continue
        rest = block[cut + 1:]
        whole = block[:cut]
        scanner.feed(whole.split(b"\n"), whole)
    if rest:
        scanner.feed([rest], rest)
    scanner.finish()
    return answer(scanner)


def _chunks(lines: Iterable[str] | Iterable[bytes]) -> Iterator[list[str] | list[bytes]]:
    iterator = iter(lines)
    while chunk := list(islice(iterator, CHUNK)):
        yield chunk  # type: ignore[misc]


def read_cause_lines(lines: Iterable[str] | Iterable[bytes],
                     passing: str | bytes | Iterable[str] | frozenset[str] | None = None) -> LogAnswer:
    """:func:`read_cause` over lines (text, or UTF-8 bytes; without ``\\n``) read one after the
    other, in bounded memory whatever the log's size. ``passing`` may be the passing log's text, its lines, or
    :func:`passing_lines` of it."""
    scanner = Scanner(_passing(passing))
    if isinstance(lines, list):
        for start in range(0, len(lines), CHUNK):
            scanner.feed(lines[start:start + CHUNK])
    else:
        for chunk in _chunks(lines):
            scanner.feed(chunk)
    scanner.finish()
    return answer(scanner)
