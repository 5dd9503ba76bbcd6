"""A log line's body looks the same in both viewers and whether or not it holds escapes: the
shortcut for lines without control characters gives what ``Text.from_ansi`` gives."""

from __future__ import annotations

import random

from rich.text import Text

from labdeck.ui.widgets.trace.lines import body_text

PIECES = ["a", " ", "\t", "é", "字", "\x1b[31m", "\x1b[0m", "\x1b[1;32m", "\x1b[38;5;208m", "\x07", "\r",
          "\x08", "\x0c", "x", "│"]


def reference(line: str) -> Text:
    text = Text.from_ansi(line)
    text.expand_tabs(8)
    return text


def test_body_text_is_what_the_ansi_decoder_makes_of_the_line() -> None:
    chosen = random.Random(31)
    lines = ["plain words", "tab\tstop", "\x1b[32mPASSED\x1b[0m tests/test_a.py", ""]
    lines += ["".join(chosen.choice(PIECES) for _ in range(chosen.randint(0, 16))) for _ in range(3000)]
    for line in lines:
        mine, theirs = body_text(line), reference(line)
        assert (mine.plain, mine.spans) == (theirs.plain, theirs.spans), repr(line)


def test_a_long_line_is_cut() -> None:
    assert body_text("x" * 50, max_chars=20).plain == "x" * 20
