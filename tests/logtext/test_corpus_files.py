"""The corpus of real CI logs is whole and its sidecars are sane (the finder's tests rely on it)."""

from __future__ import annotations

import json
import re

import pytest

from tests.support.log_corpus import CORPUS, FRAMINGS, GENERATOR, corpus_logs, load_corpus

ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
CASES = load_corpus()


def _visible(line: str) -> str:
    return ANSI.sub("", line).split("\r")[-1].strip()


def test_the_corpus_is_large_and_broad() -> None:
    assert len(CASES) >= 90
    assert len({case.tool for case in CASES}) >= 22
    assert {case.framing for case in CASES} == set(FRAMINGS)
    assert sum(case.passing_text is not None for case in CASES) >= 15


def test_every_log_has_a_sidecar_and_every_sidecar_a_log() -> None:
    assert list((CORPUS / GENERATOR).glob("*.log")) == [], "no tool's logs in the generator's folder"
    logs = {p.with_suffix("") for p in CORPUS.glob("*/*.log") if not p.name.endswith(".pass.log")}
    sidecars = {p.with_suffix("") for p in CORPUS.glob("*/*.json")}
    assert logs == sidecars


def test_named_passing_logs_exist_and_no_passing_log_is_orphaned() -> None:
    named = set()
    for path in CORPUS.glob("*/*.json"):
        passing = json.loads(path.read_text(encoding="utf-8")).get("passing")
        if passing:
            assert (path.parent / passing).is_file(), path
            named.add(path.parent / passing)
    assert set(CORPUS.glob("*/*.pass.log")) == named


@pytest.mark.parametrize("case", CASES, ids=lambda case: case.name)
def test_the_block_is_inside_the_log_and_is_not_the_runner_trailer(case) -> None:  # type: ignore[no-untyped-def]
    lines = case.text.split("\n")
    if lines[-1] == "":
        lines.pop()
    assert 1 <= case.line <= case.end <= len(lines)
    block = [_visible(line) for line in case.block()]
    assert any(block), "the block is blank"
    for text in block:
        assert "Job failed" not in text
        assert not text.startswith(("##[error]Process completed", "Finished: FAILURE", "Done. Your build exited"))
    assert case.tool == case.path.parent.name
    assert case.framing in FRAMINGS
    assert case.cause.strip() and case.kind.strip()


@pytest.mark.parametrize("case", [c for c in CASES if c.passing_text is not None], ids=lambda case: case.name)
def test_a_passing_log_is_the_same_job_succeeding(case) -> None:  # type: ignore[no-untyped-def]
    passing = case.passing_text or ""
    assert "Job failed" not in passing and "exit code 1." not in passing
    if case.framing == "gitlab":
        assert "Job succeeded" in passing
    if case.framing == "jenkins":
        assert "Finished: SUCCESS" in passing


def test_every_log_is_a_log_file_of_reasonable_size() -> None:
    for path in corpus_logs():
        assert 0 < path.stat().st_size < 1_000_000, path
