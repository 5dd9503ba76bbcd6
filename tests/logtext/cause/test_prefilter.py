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
