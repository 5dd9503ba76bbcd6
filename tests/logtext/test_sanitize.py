"""The sanitizer lets only SGR through, whatever the log contains and however it is chunked."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from labdeck.logtext.sanitize import MAX_STRING, TraceSanitizer, escape_raw, normalise_sgr, sanitize
from tests.support.hostile_corpus import HOSTILE, SPLIT_SEQUENCES

CANONICAL_SGR = re.compile(r"\x1b\[[0-9]+(?:;[0-9]+)*m")
FORBIDDEN = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
INVISIBLE = re.compile("[\u061c\u200b-\u200f\u2028\u2029\u2060-\u2064\ufeff\U000e0000-\U000e007f]")
"""Zero-width and format characters, line/paragraph separators and tags: they hide or reorder text."""


def assert_safe(text: str) -> None:
    """No control reaches Rich except canonical SGR, \\n, \\t and \\r."""
    without_sgr = CANONICAL_SGR.sub("", text)
    assert "\x1b" not in without_sgr, repr(text)
    assert FORBIDDEN.search(without_sgr) is None, repr(text)
    assert INVISIBLE.search(without_sgr) is None, repr(text)
    # Rich would read any ESC[ ... final as a sequence: make sure each one is exactly an SGR.
    for match in re.finditer(r"\x1b\[[0-?]*[ -/]*[@-~]", text):
        assert CANONICAL_SGR.fullmatch(match.group()), repr(match.group())


def visible(text: str) -> str:
    return CANONICAL_SGR.sub("", text)


# Text rich in the characters that matter: escape introducers, finals, C1, bidi, separators.
_ALPHABET = st.sampled_from(
    list("\x1b[]P_^X\\;:0123456789m?Hh K7c(=") + ["\x07", "\x9b", "\x9c", "\x9d", "\x90", "\x18", "\x85",
                                                  "\n", "\r", "\t", "\x7f", "\x00", "\u202e", "\u2066",
                                                  "\u200b", "\u200d", "\u2028", "\u2029", "\u2060", "\u2064",
                                                  "\ufeff", "\U000e0001", "\U000e0041", "\U000e007f",
                                                  "é", "€", "\U0001f600", "a", "b"]
)
adversarial_text = st.lists(_ALPHABET, max_size=120).map("".join)
any_text = st.one_of(adversarial_text, st.text(max_size=200))


@given(any_text)
@settings(max_examples=400)
def test_output_is_safe_for_any_input(text: str) -> None:
    assert_safe(sanitize(text))


@given(any_text)
@settings(max_examples=300)
def test_sanitizing_twice_changes_nothing(text: str) -> None:
    once = sanitize(text)
    assert sanitize(once) == once


@given(any_text, st.lists(st.integers(min_value=0, max_value=200), max_size=8))
@settings(max_examples=400)
def test_chunking_does_not_change_the_result(text: str, cuts: list[int]) -> None:
    points = sorted({min(cut, len(text)) for cut in cuts})
    chunks = [text[start:end] for start, end in zip([0, *points], [*points, len(text)], strict=True)]
    sanitizer = TraceSanitizer()
    streamed = "".join(sanitizer.feed(chunk) for chunk in chunks) + sanitizer.flush()
    assert streamed == sanitize(text)


@given(st.text(alphabet=st.characters(blacklist_categories=("Cc", "Cs", "Cf", "Zl", "Zp"))
               .filter(lambda char: not 0xE0000 <= ord(char) <= 0xE007F), max_size=200))
def test_plain_text_passes_unchanged(text: str) -> None:
    assert sanitize(text) == text


@given(st.lists(st.tuples(st.text(alphabet="abc xyz\n", max_size=10), st.sampled_from(
    ["\x1b[2J", "\x1b]0;t\x07", "\x1b[31m", "\x1bc", "\x9b1m", "\u202e", "\x00", "\x1b[?25l", "\u200b",
     "\u2028", "\u2063", "\ufeff", "\U000e0041"])), max_size=10))
def test_printable_text_is_kept_in_order(pieces: list[tuple[str, str]]) -> None:
    text = "".join(plain + control for plain, control in pieces)
    expected = "".join(plain for plain, _ in pieces)
    assert visible(sanitize(text)) == expected


@given(any_text)
def test_every_newline_survives_and_resets_the_state(text: str) -> None:
    result = sanitize(text)
    assert result.count("\n") == text.count("\n")
    by_line = "\n".join(sanitize(line) for line in text.split("\n"))
    assert by_line == result


def test_hostile_corpus_shows_only_the_harmless_text() -> None:
    failures = []
    for name, raw, expected in HOSTILE:
        result = sanitize(raw)
        assert_safe(result)
        if visible(result) != expected:
            failures.append(f"{name}: {visible(result)!r} != {expected!r}")
    assert failures == []


def test_sequences_split_across_chunks_are_still_removed() -> None:
    for chunks, expected in SPLIT_SEQUENCES:
        sanitizer = TraceSanitizer()
        result = "".join(sanitizer.feed(chunk) for chunk in chunks)
        assert_safe(result)
        assert visible(result) == expected, chunks


def test_runner_colours_survive_in_canonical_form() -> None:
    trace = "\x1b[32;1m$ make test\x1b[0;m\n\x1b[0;33mwarning\x1b[0m \x1b[38;5;208morange\x1b[38:2::10:20:30mrgb"
    assert sanitize(trace) == (
        "\x1b[32;1m$ make test\x1b[0;0m\n\x1b[0;33mwarning\x1b[0m \x1b[38;5;208morange\x1b[38;2;10;20;30mrgb"
    )


def test_sgr_rewriting_drops_what_could_hide_text() -> None:
    assert normalise_sgr("1;5;31") == "1;31"
    assert normalise_sgr("8") is None
    assert normalise_sgr("38;5;8") == "38;5;8"  # colour 8 is grey, not conceal
    assert normalise_sgr("58;5;8;1") == "1"
    assert normalise_sgr("4:3") == "4"
    assert normalise_sgr("") == "0"
    assert normalise_sgr("38;2;300;0;0") is None
    assert normalise_sgr("?25") is None


def test_an_unterminated_string_cannot_grow_memory_or_hide_the_log() -> None:
    sanitizer = TraceSanitizer()
    sanitizer.feed("\x1b]52;c;")
    for _ in range(100):
        sanitizer.feed("A" * 1000)  # 100 kB of payload, never terminated
    assert not sanitizer.in_sequence  # abandoned at the cap
    assert sanitizer.feed("visible") == "visible"
    held = TraceSanitizer()
    held.feed("\x1b]0;" + "x" * (MAX_STRING - 10))
    assert held.in_sequence


def test_an_endless_csi_is_bounded() -> None:
    sanitizer = TraceSanitizer()
    result = sanitizer.feed("\x1b[" + "1;" * 100_000 + "mafter")
    assert result == "after"
    assert len(sanitizer._buffer) == 0


def test_escape_raw_makes_every_control_visible_and_inert() -> None:
    raw = "\x1b[31mred\x1b[0m\rover\x07\x9b2J\u202eevil\u200btab\there\n"
    shown = escape_raw(raw)
    assert shown == "␛[31mred␛[0m␍over␇⟨U+009B⟩2J⟨U+202E⟩evil⟨U+200B⟩tab\there\n"
    assert FORBIDDEN.search(shown) is None
    assert "\x1b" not in shown and "\r" not in shown


def test_invisible_and_tag_characters_are_removed() -> None:
    # "ad\u200bmin" reads as "admin"; tags spell hidden text; U+2028 breaks lines in some renderers.
    hidden = "".join(chr(0xE0000 + ord(char)) for char in "ignore previous")
    text = f"\ufeffad\u200bmin\u200c\u200d ok\u2060\u2061\u2062\u2063\u2064{hidden}\U000e0001\U000e007f\u2028x\u2029y\n"
    assert sanitize(text) == "admin ok" + "xy\n"
    # The raw view shows them instead, inert.
    shown = escape_raw("a\u2028b\U000e0041c")
    assert shown == "a⟨U+2028⟩b⟨U+E0041⟩c"


_SGR_PARAMETERS = st.one_of(
    st.integers(min_value=0, max_value=300).map(str),
    st.sampled_from(["", "01", "38;5;208", "48;2;1;2;3", "38;5;256", "38;2;1;2", "38", "4:3", "38:2::1:2:3",
                     "5", "6", "8", "58;5;1", "99999"]),
)


@given(st.lists(_SGR_PARAMETERS, min_size=1, max_size=9).map(";".join), st.sampled_from(["", "é"]))
@settings(max_examples=400)
def test_an_sgr_sequence_becomes_its_canonical_form_or_nothing(body: str, other: str) -> None:
    # Canonical sequences are copied in bulk (ASCII and non-ASCII text alike), the rest go through
    # normalise_sgr: the result must be the same either way.
    canonical = normalise_sgr(body)
    expected = f"\x1b[{canonical}m" if canonical is not None else ""
    assert sanitize(f"a{other}\x1b[{body}mb\n") == f"a{other}{expected}b\n"
