"""The cause finder on the corpus of real CI logs (``tests/logtext/corpus``, see
``tests/support/log_corpus.py``).

"Right" means: the answer's ``error.line`` (the first line of the block to read first) lies within
the sidecar's ``[line, end]`` (1-based, inclusive), reading the case's passing log too when it
has one. Overall, at least 90 % of the cases must be right; each case is also its own test, so a
shape that regresses fails a test with its name, unless it is a known miss listed below.
"""

from __future__ import annotations

import pytest

from labdeck.logtext.cause import read_cause

log_corpus = pytest.importorskip("tests.support.log_corpus")

KNOWN_MISSES: frozenset[str] = frozenset({
    # None now: heldout8.py's batch EIGHTH's 15 misses were fixed by general rules (corpus README).
})
"""Cases the finder is known to get wrong (each with the reason)."""

CASES = log_corpus.load_corpus() if log_corpus.CORPUS.is_dir() else []


def _right(case: object) -> bool:
    answer = read_cause(case.text, case.passing_text)  # type: ignore[attr-defined]
    return answer.error is not None and case.line <= answer.error.line <= case.end  # type: ignore[attr-defined]


def test_first_block_accuracy_is_at_least_90_percent() -> None:
    if not CASES:
        pytest.skip("no corpus in this checkout")
    right = [case.name for case in CASES if _right(case)]
    accuracy = len(right) / len(CASES)
    assert accuracy >= 0.9, f"{accuracy:.1%} of {len(CASES)}: {sorted(set(c.name for c in CASES) - set(right))}"


@pytest.mark.parametrize("case", CASES, ids=[case.name for case in CASES])
def test_each_case(case: object) -> None:
    name = case.name  # type: ignore[attr-defined]
    answer = read_cause(case.text, case.passing_text)  # type: ignore[attr-defined]
    right = answer.error is not None and case.line <= answer.error.line <= case.end  # type: ignore[attr-defined]
    if name in KNOWN_MISSES:
        assert not right, f"{name} is right now: take it off KNOWN_MISSES"
        pytest.xfail("known miss")
    assert answer.error is not None
    assert right, f"{name}: want {case.line}-{case.end} {case.block()[:1]}, got {answer.error}"  # type: ignore[attr-defined]
    assert "Job failed" not in answer.signature
