"""Which shape a line opens, in one call into C for most lines (the precise patterns run only on
the few shapes that could match).

The table's patterns are Python ``re`` patterns. :func:`widen` rewrites each into a pattern for
google-re2 that matches *at least* every text the Python one matches (lookarounds and word
boundaries dropped, ``\\s``, ``\\w`` and ``\\d`` widened to Python's Unicode classes), and one
RE2 set holds them all: a line is matched against the set once, and only the shapes it names are
tried with Python's ``re``, in the table's order. The answer is therefore exactly the Python
patterns' answer; the set only skips the shapes that cannot match. A pattern that cannot be
widened (or that RE2 refuses) is always tried. Without google-re2 every shape is tried in order
(one combined pattern for those matched at the start of the line).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from functools import cache
from typing import Any

from labdeck.logtext.cause.shapes import SHAPES, Shape

_OUTSIDE = {"\\s": "[\\s\\x0b\\x1c-\\x1f\\x{85}\\x{a0}\\p{Z}]", "\\w": "[\\w\\pL\\pN]", "\\d": "\\p{Nd}",
            "\\Z": "\\z"}
_INSIDE = {"\\s": "\\s\\x0b\\x1c-\\x1f\\x{85}\\x{a0}\\p{Z}", "\\w": "\\w\\pL\\pN", "\\d": "\\p{Nd}"}
_LOOKAROUND = ("(?=", "(?!", "(?<=", "(?<!")
_SET_MEMORY = 64 << 20
"""RE2's memory budget for the set's automaton (built lazily, only for the texts met)."""


class Unwidenable(ValueError):
    """A pattern :func:`widen` cannot rewrite safely (it is then always tried)."""


def _class_end(pattern: str, start: int) -> int:
    index = start + 1
    if pattern.startswith("^", index):
        index += 1
    if pattern.startswith("]", index):
        index += 1
    while index < len(pattern):
        if pattern[index] == "\\":
            index += 2
            continue
        if pattern[index] == "]":
            return index
        index += 1
    raise Unwidenable(pattern)


def _group_end(pattern: str, start: int) -> int:
    depth = 0
    index = start
    while index < len(pattern):
        char = pattern[index]
        if char == "\\":
            index += 2
            continue
        if char == "[":
            index = _class_end(pattern, index) + 1
            continue
        if char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
            if depth == 0:
                return index
        index += 1
    raise Unwidenable(pattern)


def _widen_class(body: str, pattern: str) -> str:
    negated = body.startswith("^")
    parts: list[str] = []
    index = 0
    while index < len(body):
        if body[index] == "\\":
            escape = body[index:index + 2]
            # In a negated class RE2's narrower \s, \w, \d leave a wider complement (fine), but its
            # wider \S, \W, \D would leave a narrower one.
            if negated and escape in ("\\S", "\\W", "\\D"):
                raise Unwidenable(pattern)
            parts.append(escape if negated else _INSIDE.get(escape, escape))
            index += 2
        else:
            parts.append(body[index])
            index += 1
    return "[" + "".join(parts) + "]"


def widen(pattern: str) -> str:
    """An RE2 pattern that matches at least every text ``pattern`` (Python ``re``, no flags)
    matches; raises :class:`Unwidenable` when that cannot be promised."""
    out: list[str] = []
    index = 0
    while index < len(pattern):
        char = pattern[index]
        if char == "\\":
            escape = pattern[index:index + 2]
            if escape[1:].isdigit():
                raise Unwidenable(pattern)  # a back reference
            if escape not in ("\\b", "\\B"):  # an assertion dropped matches more, never less
                out.append(_OUTSIDE.get(escape, escape))
            index += 2
        elif char == "[":
            end = _class_end(pattern, index)
            out.append(_widen_class(pattern[index + 1:end], pattern))
            index = end + 1
        elif char == "(" and pattern.startswith(_LOOKAROUND, index):
            index = _group_end(pattern, index) + 1
        elif char == "(" and pattern.startswith(("(?P=", "(?("), index):
            raise Unwidenable(pattern)
        elif char == "{" and pattern.startswith("{,", index):
            out.append("{0")  # Python's {,n} is {0,n}; RE2 reads {,n} as text
            index += 1
        else:
            out.append(char)
            index += 1
    return "".join(out)


def _source(shape: Shape) -> tuple[str, int]:
    """A shape's pattern text and flags, without compiling it."""
    source = shape.source
    return (source, 0) if isinstance(source, str) else (source.pattern, source.flags & ~re.UNICODE)


def _matches(shape: Shape, text: str) -> bool:
    if shape.anywhere:
        return any(needle in text for needle in shape.needles) and shape.pattern.search(text) is not None
    return shape.pattern.match(text) is not None


def _with_set(table: Sequence[Shape]) -> Callable[[str], Shape | None] | None:
    try:
        import re2  # type: ignore[import-not-found, import-untyped, unused-ignore]
    except ImportError:  # pragma: no cover - exercised where google-re2 is missing
        return None
    options = re2.Options()
    options.max_mem = _SET_MEMORY
    options.log_errors = False
    engine: Any = re2._re2.Set(re2._Anchor.UNANCHORED, options)
    always: list[int] = []
    for index, shape in enumerate(table):
        try:
            source, flags = _source(shape)
            if flags & ~re.IGNORECASE:
                raise Unwidenable(source)  # MULTILINE, DOTALL, VERBOSE …: tried always
            widened = ("(?i)" if flags else "") + widen(source)
            added = engine.Add((widened if shape.anywhere else f"^(?:{widened})").encode())
        except Unwidenable:
            added = -1
        if added == -1:
            always.append(index)
            # Keep the set's numbering equal to the table's.
            engine.Add(b"[^\\x00-\\x{10ffff}]")
    if not engine.Compile():  # pragma: no cover - RE2 refuses the whole set
        return None
    match = engine.Match
    slow = _in_order(table)
    # Each shape's test, made when first needed: its compiled pattern's bound match (or search)
    # and, for a shape matched anywhere, its needles (one is in every line it matches).
    tests: list[tuple[Callable[[str], object], tuple[str, ...] | None] | None] = [None] * len(table)

    def first(text: str) -> Shape | None:
        try:
            data = text.encode()
        except UnicodeEncodeError:  # a lone surrogate: RE2 reads UTF-8 only
            return slow(text)
        found = match(data)
        if always:
            found = sorted([*found, *always])
        elif not found:
            return None
        elif len(found) > 1:
            found.sort()
        for index in found:
            test = tests[index]
            if test is None:
                shape = table[index]
                test = tests[index] = ((shape.pattern.search, shape.needles) if shape.anywhere
                                       else (shape.pattern.match, None))
            call, needles = test
            if needles is not None:
                for needle in needles:
                    if needle in text:
                        break
                else:
                    continue
            if call(text) is not None:
                return table[index]
        return None

    return first


def _in_order(table: Sequence[Shape]) -> Callable[[str], Shape | None]:
    """Every shape tried in order: one combined pattern for those matched at the line's start."""
    combined: re.Pattern[str] | None = None
    anywhere = tuple((index, shape) for index, shape in enumerate(table) if shape.anywhere)

    def first(text: str) -> Shape | None:
        nonlocal combined
        if combined is None:
            combined = re.compile("|".join(f"(?P<s{index}>{_source(shape)[0]})"
                                           for index, shape in enumerate(table) if not shape.anywhere))
        found = combined.match(text)
        at = int(found.lastgroup[1:]) if found is not None and found.lastgroup is not None else len(table)
        for index, shape in anywhere:
            if index >= at:
                break
            if _matches(shape, text):
                return shape
        return table[at] if at < len(table) else None

    return first


@cache
def _matcher() -> Callable[[str], Shape | None]:
    return _with_set(SHAPES) or _in_order(SHAPES)


def shape_of(text: str) -> Shape | None:
    """The first shape of :data:`~labdeck.logtext.cause.shapes.SHAPES` that ``text`` (a cleaned
    line) opens, if any."""
    return _matcher()(text)


def slow_shape_of(text: str) -> Shape | None:
    """:func:`shape_of` by trying every shape in order (what the set must agree with)."""
    return _slow()(text)


@cache
def _slow() -> Callable[[str], Shape | None]:
    return _in_order(SHAPES)
