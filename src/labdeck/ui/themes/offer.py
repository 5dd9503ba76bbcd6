"""Which themes the console offers: the theme files and Textual's own themes, each only when every
text style the console uses is legible in it (:mod:`labdeck.ui.themes.contrast`).

Checking a theme is ~4 ms of colour maths, and there are two dozen: the theme the session asks for
(and the fallback, if needed) is checked before the first screen, the others once it is up
(:data:`THEME_CHECK_DELAY`) or as soon as themes are listed, whichever comes first.
"""

from __future__ import annotations

from pathlib import Path

from textual.app import App
from textual.theme import Theme

from labdeck.ui.themes.files import (
    DEFAULT_THEME,
    ThemeFileError,
    app_variable_defaults,
    legibility_problems,
    load_theme_dirs,
    resolve_theme_name,
)

THEME_CHECK_DELAY = 1.0
"""Seconds after start-up at which the themes not checked yet are (off the path to the first screen)."""

Notice = tuple[str, str, float | None]
"""Title, message and timeout of a toast about themes."""


class ThemeOffer(App[int]):
    """An app whose themes are the theme files plus Textual's, the illegible ones withdrawn."""

    def __init__(self) -> None:
        super().__init__()
        self._unchecked: dict[str, Path | None] = {}
        """Themes registered but not checked yet: name → its file (None for Textual's own)."""

    def get_theme_variable_defaults(self) -> dict[str, str]:
        """labdeck's variables (``ld-*``, ``job-*``), derived from the active theme's colours."""
        return app_variable_defaults(self.current_theme)

    def install_themes(self, asked: str | None) -> list[Notice]:
        """Register the theme files and choose the ``asked`` theme (or the default); returns what
        to tell the user once the app runs.

        Called from ``__init__``: the stylesheet is then first parsed with the chosen theme's
        variables, instead of once with Textual's default theme and again after the switch."""
        notices: list[Notice] = []
        result = load_theme_dirs(check_contrast=False)
        if result.failed:
            notices.append(("Some theme files were skipped", result.failure_message(), 12))
        self._unchecked = {name: None for name in self.available_themes if name not in result.loaded}
        for theme in result.loaded.values():
            self.register_theme(theme)
        self._unchecked.update(result.unchecked)
        wanted = resolve_theme_name(asked or DEFAULT_THEME, self.available_themes)
        if wanted is not None and self._check_theme(wanted, notices):
            self.theme = wanted
            return notices
        fallback = DEFAULT_THEME if self._check_theme(DEFAULT_THEME, notices) else "textual-dark"
        self.theme = fallback
        if asked:
            why = "Unknown theme" if wanted is None else "Unreadable theme"
            notices.append(("", f"{why} {asked!r}; using {fallback}.", None))
        return notices

    def _check_theme(self, name: str, notices: list[Notice]) -> bool:
        """Check one theme if not done yet; an illegible one is withdrawn (a theme file's problems
        are added to ``notices``). True when ``name`` is on offer and legible."""
        theme = self.get_theme(name)
        if theme is None:
            return False
        if name not in self._unchecked:
            return True
        path = self._unchecked.pop(name)
        problems = legibility_problems(theme)
        if not problems:
            return True
        self.unregister_theme(name)  # a new name: nothing else goes with it (load_theme_dirs)
        if path is not None:
            notices.append(("Some theme files were skipped", str(ThemeFileError(path, problems)), 12))
        return False

    def tell_theme_notices(self, notices: list[Notice]) -> None:
        """Show ``notices`` as warning toasts (their text is never read as markup)."""
        for title, message, timeout in notices:
            self.notify(message, title=title, severity="warning", timeout=timeout, markup=False)

    def offered_themes(self) -> dict[str, Theme]:
        """Every theme on offer by name, all checked by now (the one in use stays regardless)."""
        notices: list[Notice] = []
        for name in list(self._unchecked):
            if name != self.theme:
                self._check_theme(name, notices)
        self._unchecked.clear()
        self.tell_theme_notices(notices)
        return self.available_themes

    def search_themes(self) -> None:
        """The theme picker, offering only legible themes."""
        self.offered_themes()
        super().search_themes()
