"""Readable themes: every text colour the console draws, on the background it is drawn on, must reach
a WCAG contrast ratio of 4.5:1.

:data:`PAIRS` lists the combinations the console's styles use (statuses, highlights, the status
line, search matches, switches and check boxes …); :func:`contrast_problems` resolves them through
the theme's own colour system, the way Textual computes them (``auto 87%`` text, colours with
alpha blended over what is behind them), and names each pair that falls short.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from textual.color import Color
from textual.theme import Theme

MINIMUM_RATIO = 4.5


@dataclass(frozen=True)
class Pair:
    """Text ``fg`` drawn on ``bg``; ``over`` is what a see-through ``bg`` lies on, ``alpha`` a
    fraction applied to ``bg`` as the CSS does (``$warning 60%``)."""

    label: str
    fg: str
    bg: str
    over: str = "surface"
    alpha: float = 1.0


PAIRS: tuple[Pair, ...] = (
    Pair("text", "foreground", "surface"),
    Pair("text on the screen background", "foreground", "background"),
    Pair("text on panels and title rows", "foreground", "panel"),
    Pair("muted text (gutter, help, durations)", "ld-text-muted", "surface"),
    *(Pair(f"status {name}", f"job-{name}", "surface")
      for name in ("success", "failed", "running", "pending", "manual", "canceled", "skipped")),
    Pair("failed section of a log", "ld-text-error", "surface"),
    Pair("long section of a log", "ld-text-warning", "surface"),
    Pair("filter text", "ld-text-accent", "panel"),
    Pair("status line", "ld-status-text", "ld-status-background"),
    Pair("status line: muted", "ld-text-muted", "ld-status-background"),
    Pair("status line: warning", "ld-text-warning", "ld-status-background"),
    Pair("status line: error", "ld-text-error", "ld-status-background"),
    Pair("profile badge", "ld-env-accent-text", "ld-env-accent"),
    Pair("READ-ONLY badge", "ld-mode-readonly-text", "ld-mode-readonly"),
    Pair("WRITE badge", "ld-mode-write-text", "ld-mode-write"),
    Pair("warning banner", "ld-warning-banner-text", "ld-warning-banner"),
    Pair("table header", "ld-table-header", "surface"),
    Pair("table cursor", "ld-table-cursor-text", "ld-table-cursor"),
    Pair("search match", "ld-match-text", "ld-match"),
    Pair("current search match", "ld-current-match-text", "ld-current-match"),
    Pair("changed row", "foreground", "warning-muted"),
    Pair("switch or check box that is on", "ld-on", "surface"),
    Pair("check box that is on, on a panel", "ld-on", "panel"),
    Pair("star mark", "ld-star", "surface"),
    Pair("keys at the bottom", "ld-key", "panel"),
    Pair("key descriptions at the bottom", "ld-key-text", "panel"),
    *(Pair(f"instance mark {number}", f"ld-instance-{number}", "surface") for number in range(1, 5)),
    *(Pair(f"instance mark {number} in a dialog", f"ld-instance-{number}", "panel") for number in range(1, 5)),
)
"""Every text/background combination the console's styles use."""


def _luminance(colour: Color) -> float:
    def channel(value: int) -> float:
        c = value / 255
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4

    return 0.2126 * channel(colour.r) + 0.7152 * channel(colour.g) + 0.0722 * channel(colour.b)


def readable(colour: Color, background: Color, minimum: float = MINIMUM_RATIO + 0.1) -> Color:
    """``colour``, lightened or darkened as little as needed to reach ``minimum`` on ``background``
    (toward white on a dark background, toward black on a light one)."""
    if contrast_ratio(colour, background) >= minimum:
        return colour
    target = Color(255, 255, 255) if _luminance(background) < 0.18 else Color(0, 0, 0)
    for step in range(1, 21):
        candidate = colour.blend(target, step / 20)
        if contrast_ratio(candidate, background) >= minimum:
            return candidate
    return target


def contrast_ratio(one: Color, other: Color) -> float:
    """The WCAG 2 contrast ratio of two opaque colours (1 to 21)."""
    bright, dark = sorted((_luminance(one), _luminance(other)), reverse=True)
    return (bright + 0.05) / (dark + 0.05)


class _Palette:
    def __init__(self, theme: Theme, app_defaults: Mapping[str, str]) -> None:
        self.values: dict[str, str] = {**theme.to_color_system().generate(), **app_defaults, **theme.variables}

    def colour(self, name: str, behind: Color) -> Color:
        """``name`` as drawn on ``behind`` (opaque)."""
        value = self.values[name].strip()
        if value.startswith("auto"):
            percent = value.removeprefix("auto").strip().rstrip("%") or "100"
            text = behind.get_contrast_text(float(percent) / 100)
            return behind.blend(text.with_alpha(1.0), text.a)
        colour = Color.parse(value)
        return behind.blend(colour.with_alpha(1.0), colour.a) if colour.a < 1 else colour


def contrast_problems(theme: Theme, app_defaults: Mapping[str, str]) -> list[str]:
    """One message per pair of :data:`PAIRS` below :data:`MINIMUM_RATIO` in ``theme``
    (``app_defaults``: the console's own variables the theme does not set). An ANSI theme (the
    terminal's own palette, unknown here) is not checked."""
    if theme.ansi:
        return []
    palette = _Palette(theme, app_defaults)
    problems: list[str] = []
    for pair in PAIRS:
        if pair.fg not in palette.values or pair.bg not in palette.values:
            continue
        base = palette.colour(pair.over, palette.colour("background", Color(0, 0, 0)))
        background = palette.colour(pair.bg, base)
        if pair.alpha < 1:
            background = base.blend(background, pair.alpha)
        foreground = palette.colour(pair.fg, background)
        ratio = contrast_ratio(foreground, background)
        if ratio < MINIMUM_RATIO:
            problems.append(f"{pair.label}: {pair.fg} on {pair.bg} has contrast {ratio:.2f}:1 "
                            f"(at least {MINIMUM_RATIO}:1 is needed)")
    return problems
