"""``logsafe.printable``: what reaches a terminal from server or log text."""

from __future__ import annotations

import re
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


def test_credentials_are_masked_whatever_letters_spell_them() -> None:
    """A credential header is masked however its name is spelled to a case-insensitive match,
    non-ASCII look-alike letters included (``ı``, ``İ``, the Kelvin sign), and so is a token query."""
    for name in ("Authorization", "AUTHORİZATİON", "authorıze".replace("ze", "zation"), "PRIVATE-TOKEN",
                 "private-to\u212aen", "Job_Token"):
        masked = logsafe.redact(f"héader {{'{name}': 's3cr3tvalue'}} …")
        assert "s3cr3tvalue" not in masked and logsafe.MASK in masked
    masked = logsafe.redact("GET https://gitlab.example/api?private_to\u212aen=s3cr3tvalue ✓")
    assert "s3cr3tvalue" not in masked


def test_redaction_looks_for_every_spelling_of_its_words() -> None:
    """What the cheap test before the credential patterns folds, for every code point: each
    character that ``(?i)`` matches to a letter of the patterns' words becomes that letter."""
    everything = "".join(map(chr, range(sys.maxunicode + 1))).replace("\ud800", "")
    for letter in sorted(set("".join(logsafe._GATE_WORDS))):
        for char in re.findall(f"(?i){re.escape(letter)}", everything):
            assert char.translate(logsafe._FOLD).lower() == letter, (letter, hex(ord(char)))


def test_an_unquoted_bearer_or_basic_credential_is_masked_whole() -> None:
    """``curl -v`` prints ``> Authorization: Bearer <token>``: the pattern's ``b`` (meant for a bytes
    repr, ``b'…'``) took the B of ``Bearer``, masked ``earer`` and left the token itself in view."""
    for line, secret in (("> Authorization: Bearer oauth2-abcdef123456", "oauth2-abcdef123456"),
                         ("authorization: Basic dXNlcjpwYXNzd29yZA==", "dXNlcjpwYXNzd29yZA=="),
                         ("Proxy-Authorization: bearer s3cr3tvalue", "s3cr3tvalue"),
                         ("(b'authorization', b'Bearer s3cr3tvalue')", "s3cr3tvalue"),
                         ("private_token=bs3cr3tvalue", "bs3cr3tvalue")):
        masked = logsafe.redact(line)
        assert secret not in masked and secret[1:] not in masked and logsafe.MASK in masked, masked
    assert logsafe.redact("> Authorization: Bearer oauth2-abcdef123456") == "> Authorization: Bearer ********"
