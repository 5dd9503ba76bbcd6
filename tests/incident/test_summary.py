"""The summary for the clipboard: within one OSC 52 sequence, cut at a line, and saying so."""

from __future__ import annotations

import base64

from hypothesis import given, settings
from hypothesis import strategies as st

from labdeck.incident.summary import CLIPBOARD_LIMIT, clipboard_summary, code


def test_a_short_summary_is_copied_whole() -> None:
    result = clipboard_summary("# Incident\n\n- line 3: `error: x`\n")
    assert result == type(result)("# Incident\n\n- line 3: `error: x`\n", False, 33)


def test_a_long_summary_is_cut_at_a_line_and_says_so() -> None:
    lines = [f"- line {n}: `src/app.c:{n}:1: error: é… {'x' * 400}`" for n in range(400)]
    markdown = "# Incident\n\n" + "\n".join(lines) + "\n"
    result = clipboard_summary(markdown, full_at="/home/me/Downloads/incident.tar.gz")
    data = result.text.encode("utf-8")
    assert result.cut and result.full_bytes == len(markdown.encode("utf-8")) > CLIPBOARD_LIMIT
    assert len(data) <= CLIPBOARD_LIMIT
    # The whole OSC 52 sequence (ESC ] 52 ; c ; <base64> BEL) stays within 100,000 bytes.
    assert len(b"\x1b]52;c;" + base64.b64encode(data) + b"\x07") <= 100_000
    body, note = result.text.rsplit("\n\n[Cut here", 1)
    assert markdown.startswith(body + "\n")  # whole lines only
    assert note == (f": the summary is {result.full_bytes} bytes, the clipboard takes {CLIPBOARD_LIMIT}. "
                    "The full summary is in /home/me/Downloads/incident.tar.gz.]\n")


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=3000), st.integers(300, 2000))
def test_never_over_the_limit(markdown: str, limit: int) -> None:
    result = clipboard_summary(markdown, limit)
    assert len(result.text.encode("utf-8")) <= limit
    assert result.cut == (len(markdown.encode("utf-8")) > limit)
    if result.cut:
        assert "[Cut here: the summary is" in result.text


def test_code_spans_cannot_be_broken_out_of() -> None:
    assert code("plain") == "`plain`"
    assert code("a `b` c") == "``a `b` c``"
    assert code("`edge`") == "`` `edge` ``"
    assert code("bell\x07 esc\x1b[31m red \u202eevil") == "`bell esc[31m red evil`"
