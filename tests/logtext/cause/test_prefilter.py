"""The prefilter picks the same lines with google-re2 and with Python's re (the fallback)."""

from __future__ import annotations

import re

from labdeck.logtext.cause import prefilter
from tests.support.cause_samples import SAMPLES, job


def _with_re(joined: bytes) -> list[int]:
    pattern = re.compile(prefilter._ALTERNATION.encode())
    return sorted({joined.count(b"\n", 0, found.start()) for found in pattern.finditer(joined)})


def test_both_engines_pick_the_same_lines() -> None:
    for _, command, output, _, _ in SAMPLES:
        text, _ = job(command, output)
        joined = text.encode()
        assert prefilter.picked(joined) == _with_re(joined), command


def test_a_word_inside_a_name_is_not_picked() -> None:
    joined = b"tests/test_error_handling.py::test_error_paths PASSED\nsee the details in mail\nFAILED tests/x.py::t"
    assert prefilter.picked(joined) == [2]


def test_framing_that_marks_nothing_is_not_picked() -> None:
    """Most of a log's framing (``[Pipeline] }``, ``##[endgroup]``, the runner's banner) marks
    nothing: not picked, so not read twice."""
    joined = (b"[Pipeline] }\n##[endgroup]\nRunning with gitlab-runner 17.2.0\nsection_start:1:step_script\r\x1b[0K"
              b"\n[Pipeline] sh\n##[group]Run make\nsection_start:2:after_script\r\x1b[0K\nERROR: Job's runner was lost")
    assert prefilter.picked(joined) == [4, 5, 6, 7]


def test_lines_with_platform_words_in_any_case() -> None:
    joined = "ok\nConnection TIMED OUT\nfine\n\u212aill? no: oom-\u212aill".encode()
    assert prefilter.lines_with(joined, ("timed out", "oom-kill")) in ([1, 3], None)


def _may_match_a_line_break(pattern: str) -> bool:
    """Whether any part of ``pattern`` (Python syntax, no DOTALL) could match ``\\n``."""
    from re import _constants as c  # type: ignore[attr-defined]
    from re import _parser  # type: ignore[attr-defined]

    def items(node: object) -> object:
        for op, value in node:  # type: ignore[attr-defined]
            if op is c.IN:
                negated = any(o is c.NEGATE for o, _ in value)
                has_break = any((o is c.LITERAL and v == 10) or (o is c.RANGE and v[0] <= 10 <= v[1])
                                or (o is c.CATEGORY and v in (c.CATEGORY_SPACE, c.CATEGORY_NOT_DIGIT,
                                                              c.CATEGORY_NOT_WORD))
                                for o, v in value)
                if negated != has_break:
                    return True
            elif op is c.LITERAL and value == 10:
                return True
            elif op is c.NOT_LITERAL and value != 10:
                return True
            elif op is c.ANY and node.state.flags & re.DOTALL:  # type: ignore[attr-defined]
                return True
            elif op in (c.SUBPATTERN,):
                if items(value[-1]):
                    return True
            elif op in (c.MAX_REPEAT, c.MIN_REPEAT, c.POSSESSIVE_REPEAT):
                if items(value[2]):
                    return True
            elif op is c.BRANCH:
                if any(items(branch) for branch in value[1]):
                    return True
        return False

    return bool(items(_parser.parse(pattern)))


def test_no_keyword_matches_a_line_break() -> None:
    """The picker reads a match's end to tell its line (RE2 then runs only its forward pass): no
    keyword may match a line break, so that a match ends on the line it starts on."""
    assert _may_match_a_line_break(r"a\s+b") and _may_match_a_line_break(r"x[^)]*y")
    assert not _may_match_a_line_break(r"x[^)\n]*y(?m: \[E\]$)")
    for keyword in prefilter.KEYWORDS:
        assert not _may_match_a_line_break(keyword), keyword
    from labdeck.logtext.cause import platform

    assert not any("\n" in word for word in platform._GATE)  # the platform words, searched the same way
