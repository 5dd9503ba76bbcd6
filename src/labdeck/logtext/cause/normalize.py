"""One normalization for signatures and for matching a failing log's lines against a passing log.

Volatile parts become stand-ins (times, dates, durations, UUIDs, hex ids and shas, IP addresses
and ports, temporary paths, numbers); names are kept, so ``No module named 'yaml'`` and ``No
module named 'toml'`` stay two signatures, and so do ``src/sync.c:3: expected ';'`` and
``src/cache.c:3: expected ';'``. A number glued to letters is part of a name (``py311``,
``test_add2``, ``sha256``) and is kept.
"""

from __future__ import annotations

import re

MAX_SIGNATURE = 200

_ANSI = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?|\r")
_SECTION = re.compile(r"section_(?:start|end):\d+:[\w.-]+(?:\[[^\]]*\])?\r")
_REPLACEMENTS: tuple[tuple[re.Pattern[str], str, str, int, bool, re.Pattern[str] | None], ...] = (
    # (pattern, stand-in, a text every match holds, how many times at least, whether every match
    # holds a digit, what the text must hold, searched first): a pattern runs only on text that
    # could hold a match (most signature lines hold no time, uuid or ip; counting a character, or
    # one quick scan for a run of seven hex digits or a colon and two digits, is much cheaper
    # than the search of a pattern that starts with assertions).
    # A pattern that starts with a look-behind is written to start with the digit it needs, the
    # look-behind right after it (``\d(?<!\w\d)`` is ``(?<!\w)\d``): Python's re then skips to
    # the next digit instead of trying the look-behind at every position (a test compares them).
    (re.compile(r"\b\d{4}-\d\d-\d\d(?:[T ]\d\d:\d\d(?::\d\d(?:[.,]\d+)?)?(?:Z|[+-]\d\d:?\d\d)?)?"), "<time>",
     "-", 2, True, None),
    (re.compile(r"\b\d\d?:\d\d:\d\d(?:[.,]\d+)?\b"), "<time>", ":", 2, True, None),
    (re.compile(r"\b[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\b"), "<uuid>", "-",
     4, False, None),
    (re.compile(r"\bsha\d+:[0-9a-fA-F]{16,}\b"), "<hex>", "sha", 1, True, None),
    (re.compile(r"\b0x[0-9a-fA-F]+\b"), "<hex>", "0x", 1, True, None),
    (re.compile(r"\b(?=[0-9a-fA-F]*\d)(?=[0-9a-fA-F]*[a-fA-F])[0-9a-fA-F]{7,}\b"), "<hex>", "", 0, True,
     re.compile(r"[0-9a-fA-F]{7}")),
    (re.compile(r"\b(?:\d{1,3}\.){3}\d{1,3}(?::\d{1,5})?\b"), "<ip>", ".", 3, True, None),
    (re.compile(r"\[[0-9a-fA-F:]*:[0-9a-fA-F:]+\](?::\d{1,5})?"), "<ip>", "[", 1, False, None),
    # ``:`` first, the look-behinds (which end with it) after: Python's re then jumps from colon to colon.
    (re.compile(r":(?:(?<=[A-Za-z0-9]\.[a-z]{2}:)|(?<=[A-Za-z0-9]\.[a-z]{3}:)|(?<=localhost:))\d{2,5}\b"), ":<port>",
     ":", 1, True, re.compile(r":\d\d")),
    (re.compile(r"\d(?<![\w.]\d)\d*(?:\.\d+)?\s?(?:ms|µs|us|ns|s|sec|secs|seconds?|m|min|minutes?|h)\b"), "<dur>",
     "", 0, True, None),
    # A number on its own (not glued to a letter or underscore: those are names such as py311).
    (re.compile(r"\d(?<!\w\d)\d*(?:\.\d+)*(?![A-Za-z_])"), "<n>", "", 0, True, None),
)
_DIGIT = re.compile(r"\d")
_WITHOUT_DIGITS = tuple(replacement for replacement in _REPLACEMENTS if not replacement[4])
"""The replacements whose matches need no digit (the only ones a text without a digit may need)."""
_TEMP_PATH = re.compile(r"(?<![\w.])(?:/tmp|/var/tmp|/private/var/folders|/var/folders|[A-Z]:\\(?:Users\\[^\\\s]+\\)?"
                        r"AppData\\Local\\Temp|[A-Z]:\\Windows\\Temp)(?:[/\\][^\s'\":\[\]()]*)?")
_TEMP_SEPARATOR = re.compile(r"[/\\]")


def _temp_path(match: re.Match[str]) -> str:
    # The folders under a temporary root are volatile; the file at the end is a name
    # (`<tmp>/Discounts.java`), so two failures in two files stay two signatures.
    parts = [part for part in _TEMP_SEPARATOR.split(match.group(0)) if part]
    return "<tmp>/" + parts[-1] if len(parts) > 2 and "." in parts[-1] else "<tmp>"


_CUT_FROM = 2 * MAX_SIGNATURE
"""Where a long line's text may be cut before it is normalized (:func:`normalize`)."""
_CUT = re.compile(r"(?<!\d)\s")
"""A place where no replacement's match can span: a space not right after a digit (only a date's
time, ``2026-01-02 03:04``, and a duration, ``5 ms``, hold a space, each right after a digit)."""


def normalize(line: str) -> str:
    """``line`` with its volatile parts replaced by stand-ins (``<time>``, ``<hex>``, ``<n>`` …),
    escape sequences removed, spaces collapsed, cut to :data:`MAX_SIGNATURE` characters.

    Identifiers are kept: two lines that differ in a module, file, test, package or host name
    normalize differently.
    """
    if len(line) > _CUT_FROM and "\x1b" not in line and "\r" not in line:
        # A long line (pip's list of versions, a minified message) is read up to a space that no
        # replacement spans: what comes after it only adds words after the kept characters, so
        # when the part before is already longer than kept, the answer is the same.
        cut = _CUT.search(line, _CUT_FROM)
        if cut is not None:
            head = _normalized(line[:cut.start()])
            if len(head) > MAX_SIGNATURE:
                return head[: MAX_SIGNATURE - 1] + "…"
    text = _normalized(line)
    return text if len(text) <= MAX_SIGNATURE else text[: MAX_SIGNATURE - 1] + "…"


def _normalized(line: str) -> str:
    """:func:`normalize` without the cut to :data:`MAX_SIGNATURE` characters."""
    text = line
    if "\x1b" in text or "\r" in text:
        text = _ANSI.sub("", _SECTION.sub("", text))
    if "tmp" in text or "Temp" in text or "folders" in text:
        text = _TEMP_PATH.sub(_temp_path, text)
    # Computed once: a replacement only removes digits, so a text without one stays without (and
    # only the replacements that need none are tried).
    for pattern, stand_in, needle, least, _, first in (_REPLACEMENTS if _DIGIT.search(text) else _WITHOUT_DIGITS):
        if least and (needle not in text if least == 1 else text.count(needle) < least):
            continue
        if first is not None and first.search(text) is None:
            continue
        text = pattern.sub(stand_in, text)
    # str.split() splits at exactly the characters ``\s`` matches in a str pattern (str.isspace).
    return " ".join(text.split())


_PROGRESS = re.compile(r"((?:\S+\.\w+ +)?)[.FEsxX*]+((?: +\[ *\d+%\])?)")
"""A test runner's progress line (pytest's ``tests/x.py ..F..  [ 40%]``, unittest's and RSpec's
dots): which dots it printed is what changed, never what to read."""


def comparable(line: str) -> str:
    """``line`` as it is matched against the passing log's lines: :func:`normalize`, with a test
    runner's progress dots and its share of the run made stand-ins (``tests/x.py <progress> [<n>%]``)."""
    progress = _PROGRESS.fullmatch(line.strip())
    if progress is not None:
        # Where the file's line falls in the run moves with the tests run before it; ``[100%]``
        # and ``[ 86%]`` pad differently, so the share is one stand-in too.
        line = f"{progress.group(1)}<progress>{' [<n>%]' if progress.group(2) else ''}"
    return normalize(line)
