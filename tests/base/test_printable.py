"""``logsafe.printable``: what reaches a terminal from server or log text."""

from __future__ import annotations

import sys

from labdeck.base import logsafe


def _by_pattern(text: str, *, keep_newlines: bool) -> str:
    pattern = logsafe._UNPRINTABLE_KEEP_NEWLINES if keep_newlines else logsafe._UNPRINTABLE
    return pattern.sub(lambda match: " " if match.group() in "\t\n\r" else "", logsafe.redact(text))


def test_printable_text_is_kept_and_every_control_is_removed() -> None:
    """Text the terminal can show passes through untouched (one C test, no regex scan); every
    control and bidi override is still removed or made a space, for every code point."""
    everything = "".join(map(chr, range(sys.maxunicode + 1))).replace("\ud800", "")
    for start in range(0, len(everything), 4096):
        piece = "a\n" + everything[start:start + 4096]
        for keep in (False, True):
            assert logsafe.printable(piece, keep_newlines=keep) == _by_pattern(piece, keep_newlines=keep)
    assert logsafe.printable("ok: 3 passed\nnext", keep_newlines=True) == "ok: 3 passed\nnext"
    assert logsafe.printable("a\tb\x1b[31mc\u202ed\ne") == "a b[31mcd e"
