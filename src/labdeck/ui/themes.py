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
from textual.theme import Theme

DEFAULT_THEME = "labdeck-dark"

_COLOUR_FIELDS = (
    "primary", "secondary", "warning", "error", "success", "accent",
    "foreground", "background", "surface", "panel", "boost",
)
_OTHER_FIELDS = {"name": str, "dark": bool, "luminosity_spread": float, "text_alpha": float, "ansi": bool}
_TEXT_STYLE_WORDS = {"bold", "italic", "underline", "reverse", "dim", "strike", "none", "not"}

APP_VARIABLES = (
    "ld-env-accent", "ld-env-accent-text", "ld-mode-write", "ld-mode-readonly", "ld-star",
    "ld-archived", "ld-warning-banner", "ld-table-header", "ld-table-cursor", "ld-table-cursor-text",
    "ld-status-background", "ld-status-text",
    "job-success", "job-failed", "job-running", "job-pending", "job-canceled", "job-skipped", "job-manual",
)
"""Variables the console's CSS uses on top of Textual's own (a theme may set any of them)."""


def app_variable_defaults(theme: Theme) -> dict[str, str]:
    """Values for :data:`APP_VARIABLES` derived from ``theme``'s colours (for themes that omit them)."""
    colours = theme.to_color_system().generate()
    return {
        "ld-env-accent": colours["primary"],
        "ld-env-accent-text": colours["text"] if "text" in colours else colours["foreground"],
        "ld-mode-write": colours["warning"],
        "ld-mode-readonly": colours["success"],
        "ld-star": colours["warning"],
        "ld-archived": colours["text-muted"],
        "ld-warning-banner": colours["warning"],
        "ld-table-header": colours["foreground"],
        "ld-table-cursor": colours["primary"],
        "ld-table-cursor-text": colours["foreground"],
        "ld-status-background": colours["panel"],
        "ld-status-text": colours["foreground"],
        "job-success": colours["success"],
        "job-failed": colours["error"],
        "job-running": colours["primary"],
        "job-pending": colours["warning"],
        "job-canceled": colours["text-muted"],
        "job-skipped": colours["text-muted"],
        "job-manual": colours["accent"],
    }


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


def parse_theme(data: dict[str, object], path: Path) -> Theme:
    """Validate one parsed theme file and build the Textual theme; raise :class:`ThemeFileError`."""
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
    return Theme(**kwargs)  # type: ignore[arg-type]


def load_theme_file(path: Path) -> Theme:
    """Read and validate one ``.toml`` theme file."""
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as error:
        raise ThemeFileError(path, [f"cannot read: {error}"]) from error
    except tomllib.TOMLDecodeError as error:
        raise ThemeFileError(path, [f"not valid TOML: {error}"]) from error
    return parse_theme(data, path)


@dataclass
class ThemeLoadResult:
    """Themes that loaded (by name; later folders override earlier ones) and the files that failed."""

    loaded: dict[str, Theme] = field(default_factory=dict)
    failed: list[ThemeFileError] = field(default_factory=list)

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
    package = Path(__file__).resolve().parents[1]
    dirs = [package / "_themes", package.parents[1] / "themes"]
    dirs.append(Path(user_config_dir("labdeck")) / "themes")
    return dirs


def load_theme_dirs(dirs: Iterable[Path] | None = None) -> ThemeLoadResult:
    """Load every ``*.toml`` in ``dirs`` (default :func:`theme_dirs`); missing folders are skipped."""
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
                theme = load_theme_file(path)
            except ThemeFileError as error:
                result.failed.append(error)
                continue
            result.loaded[theme.name] = theme
    return result
