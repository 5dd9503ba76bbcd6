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
