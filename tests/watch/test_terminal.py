"""The exact escape strings alerts write, tmux passthrough, and that server text stays inert."""

from __future__ import annotations

import pytest

from labdeck.watch.terminal import (
    desktop_notification,
    notify_form,
    osc9,
    osc777,
    pop_title,
    push_title,
    sanitize,
    title_sequence,
    title_text,
    tmux_wrap,
)

ESC, BEL = "\x1b", "\x07"

HOSTILE = [
    "unit\x1b]0;pwned\x07tests",       # a title change hidden in a job name
    "lint\x1b[2J\x1b[H",               # clear screen
    "e2e\x9b31mred",                   # C1 CSI
    "deploy\x1bP+q\x1b\\",             # DCS (a terminal query)
    "a\nb\rc\td",                      # line breaks and tabs
    "safe\u202etxt.exe",               # bidi override
    "zero\u200bwidth\ufeff",           # zero width, BOM
    "semi;colon;777",                  # OSC parameter separators
    "\x07bell\x00nul\x7fdel",
]


def test_osc9_exact() -> None:
    assert osc9("✗ pipeline failed: platform/api #45") == f"{ESC}]9;✗ pipeline failed: platform/api #45{BEL}"


def test_osc9_never_starts_with_a_digit() -> None:
    # "9;4;…" is a progress command for ConEmu and Windows Terminal.
    assert osc9("4;3;50") == f"{ESC}]9;· 4;3;50{BEL}"


def test_osc777_exact() -> None:
    assert osc777("✗ job failed", "platform/api #45 unit-tests") == \
        f"{ESC}]777;notify;✗ job failed;platform/api #45 unit-tests{BEL}"


def test_osc777_fields_cannot_shift() -> None:
    assert osc777("a;b", "c;d") == f"{ESC}]777;notify;a,b;c,d{BEL}"


def test_tmux_wrap_doubles_every_escape() -> None:
    inner = osc9("hi")
    assert tmux_wrap(inner) == f"{ESC}Ptmux;{ESC}{ESC}]9;hi{BEL}{ESC}\\"
    assert tmux_wrap(f"{ESC}]2;t{ESC}\\") == f"{ESC}Ptmux;{ESC}{ESC}]2;t{ESC}{ESC}\\{ESC}\\"


def test_title_sequences() -> None:
    assert title_sequence(title_text(2)) == f"{ESC}]2;✗ 2 failed · labdeck{BEL}"
    assert title_sequence(title_text(0), code=0) == f"{ESC}]0;labdeck{BEL}"
    assert push_title() == f"{ESC}[22;0t" and pop_title() == f"{ESC}[23;0t"
    with pytest.raises(ValueError):
        title_sequence("x", code=1)


@pytest.mark.parametrize("name", HOSTILE)
def test_hostile_names_are_inert(name: str) -> None:
    for out in (osc9(name), osc777(name, name), title_sequence(name),
                desktop_notification(name, name, {"TMUX": "/tmp/tmux-1/default,1,0"}, "both")):
        unwrapped = out.replace(f"{ESC}Ptmux;", "").replace(f"{ESC}{ESC}", ESC)
        # Exactly the escapes we put there: one ESC opens each sequence, one BEL ends it, nothing else.
        assert unwrapped.count(BEL) == unwrapped.count(f"{ESC}]")
        assert all(ch >= " " or ch in (ESC, BEL) for ch in out)
        assert not any("\x80" <= ch <= "\x9f" for ch in out)
        assert "\u202e" not in out and "\u200b" not in out and "\n" not in out
    text = sanitize(name)
    assert ESC not in text and BEL not in text and all(ch.isprintable() for ch in text)


def test_sanitize_keeps_readable_text_and_cuts_long_text() -> None:
    assert sanitize("  platform/api  ·  ✓ passed  ") == "platform/api · ✓ passed"
    assert sanitize("x" * 300, limit=10) == "x" * 9 + "…"


def test_desktop_notification_forms_and_tmux() -> None:
    plain = desktop_notification("✗ job failed", "p #1 lint", {}, "both")
    assert plain == f"{ESC}]9;✗ job failed: p #1 lint{BEL}{ESC}]777;notify;✗ job failed;p #1 lint{BEL}"
    assert desktop_notification("t", "b", {}, "osc9") == f"{ESC}]9;t: b{BEL}"
    assert desktop_notification("t", "b", {}, "osc777") == f"{ESC}]777;notify;t;b{BEL}"
    wrapped = desktop_notification("t", "b", {"TMUX": "/tmp/tmux-1000/default,42,0"}, "osc9")
    assert wrapped == f"{ESC}Ptmux;{ESC}{ESC}]9;t: b{BEL}{ESC}\\"


@pytest.mark.parametrize(("env", "expected"), [
    ({"TERM_PROGRAM": "iTerm.app"}, "osc9"),
    ({"TERM": "xterm-ghostty"}, "osc9"),
    ({"TERM": "foot"}, "osc777"),
    ({"TERM": "rxvt-unicode-256color"}, "osc777"),
    ({"TERM": "xterm-256color", "VTE_VERSION": "7600"}, "osc777"),
    ({"TERM": "xterm-256color"}, "both"),
    ({"TMUX": "/tmp/x,1,0", "TERM_PROGRAM": "tmux", "TERM": "tmux-256color"}, "both"),
])
def test_auto_form(env: dict[str, str], expected: str) -> None:
    assert notify_form("auto", env) == expected
