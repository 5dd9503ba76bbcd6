"""Terminal side of alerts: the exact strings to write, as pure functions.

They travel to the engineer's own terminal over SSH (that is the point: a notification on the
laptop, not on the bastion). The UI writes them through Textual's driver; nothing here writes.

- bell: ``BEL``;
- desktop notification: OSC 9 (``ESC ] 9 ; text BEL``: iTerm2, WezTerm, Ghostty, kitty, Windows
  Terminal) and/or OSC 777 (``ESC ] 777 ; notify ; title ; body BEL``: foot, urxvt, VTE
  terminals, Ghostty, WezTerm); terminals ignore the one they do not know. ``auto`` picks one from
  ``$TERM``/``$TERM_PROGRAM`` when they tell (a terminal knowing both would show two), else both;
- inside tmux (``$TMUX`` set) notifications are wrapped for passthrough
  (``ESC P tmux; <sequence with every ESC doubled> ESC \\``; tmux 3.3+ needs
  ``set -g allow-passthrough on``); the bell and the title are left to tmux, which handles both
  (``bell-action``, ``set-titles``);
- title: OSC 2 (``ESC ] 2 ; text BEL``), e.g. ``✗ 2 failed · labdeck``; ``push_title``/``pop_title``
  (xterm's title stack) restore the user's title on exit.

Every piece of server text (job names, project paths, refs) goes through :func:`sanitize`, which
removes every control and format character: nothing a server sends can end a sequence early, start
a new one, or reorder what is shown (bidi overrides).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping
from typing import Literal

BEL = "\x07"
ESC = "\x1b"
ST = ESC + "\\"
NotifyForm = Literal["auto", "osc9", "osc777", "both"]
_SPACES = re.compile(r"\s+")
_UNSAFE_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"})


def sanitize(text: object, limit: int = 200) -> str:
    """Printable text only: control, format (bidi, zero-width), surrogate, private-use and
    unassigned characters become spaces, runs of whitespace one space, trimmed, at most ``limit``
    characters (``…`` marks a cut)."""
    raw = str(text)
    cleaned = "".join(" " if unicodedata.category(char) in _UNSAFE_CATEGORIES else char for char in raw)
    cleaned = _SPACES.sub(" ", cleaned).strip()
    if len(cleaned) > limit:
        cleaned = cleaned[: max(limit - 1, 0)].rstrip() + "…"
    return cleaned


def _field(text: object, limit: int) -> str:
    # ';' separates OSC parameters: inside a field it would shift title into body.
    return sanitize(text, limit).replace(";", ",")


def bell() -> str:
    """The terminal bell."""
    return BEL


def osc9(message: object) -> str:
    """``ESC ] 9 ; message BEL`` (iTerm2-style notification)."""
    text = sanitize(message)
    if text[:1].isdigit():
        # ConEmu and Windows Terminal read "9;4;…" as a progress command: never start with a digit.
        text = "· " + text
    return f"{ESC}]9;{text}{BEL}"


def osc777(title: object, body: object) -> str:
    """``ESC ] 777 ; notify ; title ; body BEL`` (urxvt-style notification)."""
    return f"{ESC}]777;notify;{_field(title, 80)};{_field(body, 200)}{BEL}"


def tmux_wrap(sequence: str) -> str:
    """Wrap for tmux passthrough: ``ESC P tmux; <sequence, ESC doubled> ESC \\``."""
    return f"{ESC}Ptmux;{sequence.replace(ESC, ESC + ESC)}{ST}"


def title_sequence(text: object, code: int = 2) -> str:
    """Set the window title: OSC 2 (``code=0`` also sets the icon name)."""
    if code not in (0, 2):
        raise ValueError("title code must be 0 or 2")
    return f"{ESC}]{code};{sanitize(text, 120)}{BEL}"


def push_title() -> str:
    """Save the current title on xterm's title stack (before the first :func:`title_sequence`)."""
    return f"{ESC}[22;0t"


def pop_title() -> str:
    """Restore the title saved by :func:`push_title` (on exit)."""
    return f"{ESC}[23;0t"


def title_text(failed: int, app: str = "labdeck") -> str:
    """``✗ 2 failed · labdeck``, or just the app name when nothing fails."""
    return f"✗ {failed} failed · {app}" if failed > 0 else app


def in_tmux(env: Mapping[str, str]) -> bool:
    """True inside tmux (``$TMUX`` set and not empty)."""
    return bool(env.get("TMUX"))


def notify_form(form: NotifyForm, env: Mapping[str, str]) -> Literal["osc9", "osc777", "both"]:
    """Which notification escape(s) to send; ``auto`` decides from the environment."""
    if form != "auto":
        return form
    if in_tmux(env):
        return "both"  # $TERM describes tmux, not the terminal the wrapped sequence reaches
    program = env.get("TERM_PROGRAM", "").lower()
    term = env.get("TERM", "").lower()
    if program in ("iterm.app", "wezterm", "ghostty") or term in ("xterm-ghostty", "xterm-kitty", "wezterm"):
        return "osc9"
    if term.startswith(("foot", "rxvt")) or env.get("VTE_VERSION"):
        return "osc777"
    return "both"


def desktop_notification(title: object, body: object, env: Mapping[str, str], form: NotifyForm = "auto") -> str:
    """The notification escape(s) for ``title``/``body``, wrapped for tmux when inside it."""
    chosen = notify_form(form, env)
    parts: list[str] = []
    if chosen in ("osc9", "both"):
        parts.append(osc9(f"{sanitize(title, 80)}: {sanitize(body)}"))
    if chosen in ("osc777", "both"):
        parts.append(osc777(title, body))
    if in_tmux(env):
        parts = [tmux_wrap(part) for part in parts]
    return "".join(parts)
