"""Tests start about a thousand consoles; each one's stylesheet parsed the same CSS again (Textual
keeps parsed rules per stylesheet, and a new app has a new one): about 34 ms of a console's
~300 ms start. Parsed rules are kept per worker instead, keyed by the CSS, where it came from and
the theme's variables: a test sees the rules its own theme's CSS gives, parsed once."""

from __future__ import annotations

from typing import Any

from textual.css.model import RuleSet
from textual.css.stylesheet import CSSLocation, Stylesheet

_parsed: dict[tuple[Any, ...], list[RuleSet]] = {}


def install() -> None:
    """Share parsed rules between the stylesheets of this process (a parse error is not kept)."""
    original = Stylesheet._parse_rules
    if getattr(original, "labdeck_shared", False):
        return

    def parse_rules(self: Stylesheet, css: str, read_from: CSSLocation, is_default_rules: bool = False,
                    tie_breaker: int = 0, scope: str = "") -> list[RuleSet]:
        key = (css, read_from, is_default_rules, tie_breaker, scope, frozenset(self._variables.items()))
        rules = _parsed.get(key)
        if rules is None:
            rules = _parsed[key] = original(self, css, read_from, is_default_rules, tie_breaker, scope)
        return rules

    parse_rules.labdeck_shared = True  # type: ignore[attr-defined]
    Stylesheet._parse_rules = parse_rules  # type: ignore[method-assign]
