"""The shape matcher (an RE2 set in front of the Python patterns) answers exactly what trying
every shape in order answers, on the corpus's lines and on tricky text."""

from __future__ import annotations

from pathlib import Path

import pytest

from labdeck.logtext.cause import segment
from labdeck.logtext.cause.matcher import Unwidenable, shape_of, slow_shape_of, widen

CORPUS = Path(__file__).resolve().parent.parent / "corpus"


def test_every_corpus_line_gets_the_same_shape_as_trying_every_shape() -> None:
    lines = {segment.clean(line) for path in CORPUS.rglob("*.log")
             for line in path.read_text(encoding="utf-8", errors="replace").split("\n")}
    assert len(lines) > 5000
    assert [line for line in lines if shape_of(line) is not slow_shape_of(line)] == []


@pytest.mark.parametrize("text", [
    "src/main.c:12:5: error: expected ';'",
    "src/main.c:12: warning: unused",           # a lookahead refuses it
    "error[E0308]: mismatched types",
    "error: could not compile `app`",           # a lookahead refuses it
    "Ünïcödé_tëst.py:3:1: E501 line too long",  # Python's \w is Unicode, RE2's is not
    "E\u2003\u2003x",                            # Unicode spaces
    "\u0661\u0662) fails",                       # Arabic-Indic digits match Python's \d
    "FAIL\tgithub.com/x/y\t0.01s",
    "lone surrogate \udc80 error: x",
    "",
])
def test_tricky_lines(text: str) -> None:
    assert shape_of(text) is slow_shape_of(text)


def test_widen_keeps_every_match_and_refuses_what_it_cannot_promise() -> None:
    assert widen(r"\bfoo(?!bar)\s\w\d[\s\w]") == \
        r"foo[\s\x0b\x1c-\x1f\x{85}\x{a0}\p{Z}][\w\pL\pN]\p{Nd}[\s\x0b\x1c-\x1f\x{85}\x{a0}\p{Z}\w\pL\pN]"
    assert widen(r"[^\s]x(?<=a)") == r"[^\s]x"
    assert widen(r"a{,3}b{2,}") == r"a{0,3}b{2,}"
    for pattern in (r"(a)\1", r"[^\S]", r"(?P<n>a)(?P=n)"):
        with pytest.raises(Unwidenable):
            widen(pattern)


def test_flags_and_what_re2_refuses_still_answer_like_python() -> None:
    """A shape compiled with flags, or in syntax RE2 does not read, is still found."""
    import re

    from labdeck.logtext.cause.matcher import _with_set
    from labdeck.logtext.cause.shapes import Shape

    table = (Shape("a", re.compile(r"broken\s+build", re.IGNORECASE), 1),
             Shape("b", re.compile(r"x{,2}y$", re.MULTILINE), 1),
             Shape("c", re.compile(r"(?>ato)mic"), 1),
             Shape("d", re.compile(r"\u00e9t\u00e9 failed"), 1))
    first = _with_set(table)
    assert first is not None
    assert [getattr(first(text), "kind", None) for text in ("BROKEN  Build", "xxy", "atomic", "été failed", "no")] \
        == ["a", "b", "c", "d", None]
