"""Theme files: TOML in ``themes/`` (packaged as ``labdeck/_themes``) and the user's theme folder.

A theme file holds the fields of :class:`textual.theme.Theme` plus a ``[variables]`` table::

    name = "labdeck-dark"
    dark = true
    primary = "#4f9fe8"
    background = "#14171c"
    [variables]
    ld-env-accent = "#4f9fe8"

Unknown keys and unparsable colours are rejected; every problem of a file is reported in one
message. App-specific variables (``ld-*``, ``job-*``) have defaults derived from the theme's own
colours (:func:`app_variable_defaults`), so Textual's built-in themes work too.
"""

from __future__ import annotations

import tomllib
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from platformdirs import user_config_dir
from textual.color import Color, ColorParseError
from textual.design import ColorSystem
from textual.theme import BUILTIN_THEMES, Theme

from labdeck.ui.themes.contrast import contrast_problems, readable

DEFAULT_THEME = "labdeck-dark"

_COLOUR_FIELDS = (
    "primary", "secondary", "warning", "error", "success", "accent",
    "foreground", "background", "surface", "panel", "boost",
)
_OTHER_FIELDS = {"name": str, "dark": bool, "luminosity_spread": float, "text_alpha": float, "ansi": bool}
_TEXT_STYLE_WORDS = {"bold", "italic", "underline", "reverse", "dim", "strike", "none", "not"}

INSTANCE_COLOURS = 4
"""Theme variables ``ld-instance-1`` … ``ld-instance-4``: the marks of the instances on one board."""

APP_VARIABLES = (
    "ld-env-accent", "ld-env-accent-text", "ld-mode-write", "ld-mode-readonly", "ld-star",
    "ld-archived", "ld-warning-banner", "ld-table-header", "ld-table-cursor", "ld-table-cursor-text",
    "ld-status-background", "ld-status-text", "ld-match", "ld-match-text", "ld-current-match",
    "ld-current-match-text", "ld-warning-banner-text", "ld-mode-write-text", "ld-mode-readonly-text",
    "ld-text-warning", "ld-text-error", "ld-text-accent", "ld-text-muted", "ld-on", "ld-key", "ld-key-text",
    "job-success", "job-failed", "job-running", "job-pending", "job-canceled", "job-skipped", "job-manual",
    *(f"ld-instance-{number}" for number in range(1, INSTANCE_COLOURS + 1)),
)
"""Variables the console's CSS uses on top of Textual's own (a theme may set any of them)."""


_derived: dict[int, tuple[Theme, dict[str, str]]] = {}


def app_variable_defaults(theme: Theme) -> dict[str, str]:
    """Values for :data:`APP_VARIABLES` derived from ``theme``'s colours (for themes that omit them),
    each text colour made readable (4.5:1) on the background the console draws it on."""
    # Worked out once per theme object (~4 ms of colour maths): checking a theme file and styling
    # the console with it ask for the same values.
    known = _derived.get(id(theme))  # the entry keeps its theme alive: the id stays its own
    if known is not None:
        return dict(known[1])
    values = _derive_app_variables(theme)
    if len(_derived) >= 64:
        _derived.clear()
    _derived[id(theme)] = (theme, values)
    return dict(values)


def _derive_app_variables(theme: Theme) -> dict[str, str]:
    colours = theme.to_color_system().generate()
    if theme.ansi:
        # The terminal's own palette: colours are names the terminal resolves, nothing to adjust.
        def on(name: str, background: Color | None = None) -> str:
            return colours[name]

        def on_both(name: str) -> str:
            return colours[name]

        def against(background: str) -> str:
            return colours["foreground"]

        def on_panel(name: str) -> str:
            return colours[name]

        surface = panel = None
    else:
        surface = Color.parse(colours["surface"])
        panel = Color.parse(colours["panel"])

        def on(name: str, background: Color | None = None) -> str:
            assert background is not None
            return readable(Color.parse(colours[name]), background).hex

        def on_both(name: str) -> str:
            # Readable on tables (surface) and on panels and the status line (panel).
            assert surface is not None and panel is not None
            behind = surface if name != "text-accent" else panel
            colour = _opaque(colours[name], behind)
            return readable(readable(colour, panel), surface).hex

        def against(background: str) -> str:
            return Color.parse(colours[background]).get_contrast_text(1.0).hex

        def on_panel(name: str) -> str:
            # Textual's footer colours may be see-through or "auto": as drawn on the key bar's panel.
            assert panel is not None
            return readable(_opaque(colours[name], panel), panel).hex

    return {
        "ld-env-accent": colours["primary"],
        "ld-env-accent-text": against("primary"),
        "ld-mode-write": colours["warning"],
        "ld-mode-readonly": colours["success"],
        "ld-star": on("warning", surface),
        "ld-archived": on("foreground", surface),
        "ld-warning-banner": colours["warning"],
        "ld-warning-banner-text": against("warning"),
        "ld-mode-write-text": against("warning"),
        "ld-mode-readonly-text": against("success"),
        "ld-text-warning": on_both("text-warning"),
        "ld-text-error": on_both("text-error"),
        "ld-text-accent": on_both("text-accent"),
        "ld-text-muted": on_both("text-muted"),
        "ld-on": on_both("success"),
        "ld-table-header": on("foreground", surface),
        "ld-table-cursor": colours["primary"],
        "ld-table-cursor-text": against("primary"),
        "ld-status-background": colours["panel"],
        "ld-status-text": on("foreground", panel),
        "ld-key": on_panel("footer-key-foreground"),
        "ld-key-text": on_panel("footer-description-foreground"),
        "ld-match": colours["warning"],
        "ld-match-text": against("warning"),
        "ld-current-match": colours["accent"],
        "ld-current-match-text": against("accent"),
        "job-success": on("success", surface),
        "job-failed": on("error", surface),
        "job-running": on("primary", surface),
        "job-pending": on("warning", surface),
        "job-canceled": on("foreground", surface),
        "job-skipped": on("foreground", surface),
        "job-manual": on("accent", surface),
        # Instance marks: drawn on tables (surface) and in dialogs (panel).
        "ld-instance-1": on_both("primary"),
        "ld-instance-2": on_both("accent"),
        "ld-instance-3": on_both("secondary"),
        "ld-instance-4": on_both("success"),
    }


def _opaque(value: str, behind: Color) -> Color:
    """A colour of the colour system (possibly ``auto N%`` or see-through) as drawn on ``behind``."""
    value = value.strip()
    if value.startswith("auto"):
        text = behind.get_contrast_text(float(value.removeprefix("auto").strip().rstrip("%") or 100) / 100)
        return behind.blend(text.with_alpha(1.0), text.a)
    colour = Color.parse(value)
    return behind.blend(colour.with_alpha(1.0), colour.a) if colour.a < 1 else colour


@lru_cache(maxsize=1)
def _textual_variable_names() -> frozenset[str]:
    return frozenset(ColorSystem(primary="#000000").generate())


class ThemeFileError(ValueError):
    """A theme file is invalid; the message lists every problem found in it."""

    def __init__(self, path: Path, problems: list[str]) -> None:
        self.path = path
        self.problems = problems
        super().__init__(f"{path.name}: " + "; ".join(problems))


def _check_colour(label: str, value: object, problems: list[str]) -> str | None:
    if not isinstance(value, str):
        problems.append(f"{label} must be a colour string")
        return None
    try:
        Color.parse(value)
    except ColorParseError:
        problems.append(f"{label}: {value!r} is not a colour")
        return None
    return value


def parse_theme(data: dict[str, object], path: Path, *, check_contrast: bool = True) -> Theme:
    """Validate one parsed theme file and build the Textual theme; raise :class:`ThemeFileError`.
    ``check_contrast=False`` leaves :func:`check_readable` (the costly part) to the caller."""
    problems: list[str] = []
    known = set(_COLOUR_FIELDS) | set(_OTHER_FIELDS) | {"variables"}
    for key in data:
        if key not in known:
            problems.append(f"unknown key {key!r}")
    kwargs: dict[str, object] = {}
    name = data.get("name")
    if not isinstance(name, str) or not name.strip():
        problems.append("'name' is required (a non-empty string)")
    if "primary" not in data:
        problems.append("'primary' is required")
    for key in _COLOUR_FIELDS:
        if key in data:
            kwargs[key] = _check_colour(key, data[key], problems)
    for key, kind in _OTHER_FIELDS.items():
        if key not in data:
            continue
        value = data[key]
        if kind is float and isinstance(value, int | float) and not isinstance(value, bool):
            kwargs[key] = float(value)
        elif isinstance(value, kind) and not (kind is not bool and isinstance(value, bool)):
            kwargs[key] = value
        else:
            problems.append(f"{key} must be a {kind.__name__}")
    variables: dict[str, str] = {}
    raw_variables = data.get("variables", {})
    if not isinstance(raw_variables, dict):
        problems.append("[variables] must be a table")
        raw_variables = {}
    allowed = set(APP_VARIABLES) | _textual_variable_names()
    for key, value in raw_variables.items():
        if key not in allowed:
            problems.append(f"unknown variable {key!r}")
            continue
        if key.endswith("style"):
            words = str(value).split()
            if not isinstance(value, str) or not words or set(words) - _TEXT_STYLE_WORDS:
                problems.append(f"variables.{key}: {value!r} is not a text style")
            else:
                variables[key] = value
            continue
        checked = _check_colour(f"variables.{key}", value, problems)
        if checked is not None:
            variables[key] = checked
    if problems:
        raise ThemeFileError(path, problems)
    kwargs["variables"] = variables
    theme = Theme(**kwargs)  # type: ignore[arg-type]
    if check_contrast:
        check_readable(theme, path)
    return theme


def check_readable(theme: Theme, path: Path) -> None:
    """Readability is part of a theme file's validity: raise :class:`ThemeFileError` naming every
    text style the console could not show legibly in ``theme``."""
    problems = legibility_problems(theme)
    if problems:
        raise ThemeFileError(path, problems)


def legibility_problems(theme: Theme) -> list[str]:
    """Every text style the console uses that is not legible in ``theme`` (empty: all are)."""
    # Kept by the theme's every field (its repr): the same colours give the same answer, and
    # working them out costs 5 ms a theme, 0.13 s for the 27 on offer at each console start.
    key = repr(theme)
    known = _LEGIBILITY.get(key)
    if known is None:
        known = _LEGIBILITY[key] = tuple(contrast_problems(theme, app_variable_defaults(theme)))
    return list(known)


_LEGIBILITY: dict[str, tuple[str, ...]] = {}


def readable_theme(theme: Theme) -> bool:
    """True when every text colour the console uses is legible in ``theme`` (Textual's built-in
    themes that are not are not offered)."""
    return not legibility_problems(theme)


def load_theme_file(path: Path, *, check_contrast: bool = True) -> Theme:
    """Read and validate one ``.toml`` theme file (see :func:`parse_theme` for ``check_contrast``)."""
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as error:
        raise ThemeFileError(path, [f"cannot read: {error}"]) from error
    except tomllib.TOMLDecodeError as error:
        raise ThemeFileError(path, [f"not valid TOML: {error}"]) from error
    return parse_theme(data, path, check_contrast=check_contrast)


@dataclass
class ThemeLoadResult:
    """Themes that loaded (by name; later folders override earlier ones) and the files that failed."""

    loaded: dict[str, Theme] = field(default_factory=dict)
    failed: list[ThemeFileError] = field(default_factory=list)
    unchecked: dict[str, Path] = field(default_factory=dict)
    """Loaded themes whose legibility is still to be checked (``check_contrast=False``), by name,
    with the file each came from."""

    def failure_message(self) -> str:
        """One message listing every failed file (empty when none failed)."""
        return "\n".join(str(error) for error in self.failed)


SHIPPED_PREFIX = "labdeck-"
"""The shipped themes are called ``labdeck-<short name>``; users may give the short name."""


def resolve_theme_name(name: str, available: Iterable[str]) -> str | None:
    """The registered theme ``name`` means: itself, or ``labdeck-<name>`` for the shipped themes
    (``light`` → ``labdeck-light``); None when there is no such theme."""
    known = set(available)
    wanted = name.strip()
    for candidate in (wanted, wanted.lower(), SHIPPED_PREFIX + wanted.lower()):
        if candidate in known:
            return candidate
    return None


def short_theme_names(available: Iterable[str]) -> list[str]:
    """Theme names as users type them: shipped themes by short name, the others in full."""
    return sorted({name.removeprefix(SHIPPED_PREFIX) for name in available})


def theme_dirs() -> list[Path]:
    """Where themes are looked up, lowest priority first: the packaged copy, the checkout's
    top-level ``themes/``, then the user's ``<config dir>/labdeck/themes``."""
    package = Path(__file__).resolve().parents[2]
    dirs = [package / "_themes", package.parents[1] / "themes"]
    dirs.append(Path(user_config_dir("labdeck")) / "themes")
    return dirs


def load_theme_dirs(dirs: Iterable[Path] | None = None, *, check_contrast: bool = True) -> ThemeLoadResult:
    """Load every ``*.toml`` in ``dirs`` (default :func:`theme_dirs`); missing folders are skipped.

    ``check_contrast=False`` leaves the legibility check of the themes with new names to the
    caller (:attr:`ThemeLoadResult.unchecked`). A file that takes the name of an earlier folder's
    theme or of one of Textual's is checked here all the same: an illegible one is skipped, so the
    theme it would have replaced stays."""
    result = ThemeLoadResult()
    seen: set[Path] = set()
    for folder in theme_dirs() if dirs is None else dirs:
        try:
            resolved = folder.resolve()
        except OSError:
            continue
        if resolved in seen or not folder.is_dir():
            continue
        seen.add(resolved)
        for path in sorted(folder.glob("*.toml")):
            try:
                theme = load_theme_file(path, check_contrast=False)
                replaces = theme.name in result.loaded or theme.name in BUILTIN_THEMES
                if check_contrast or replaces:
                    check_readable(theme, path)
            except ThemeFileError as error:
                result.failed.append(error)
                continue
            result.loaded[theme.name] = theme
            result.unchecked.pop(theme.name, None)
            if not (check_contrast or replaces):
                result.unchecked[theme.name] = path
    return result
