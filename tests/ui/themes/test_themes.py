"""Theme files: the shipped ones, good, bad and partial files, user folders, and the app's use."""

from __future__ import annotations

from pathlib import Path

import pytest

from labdeck.ui.themes.files import (
    APP_VARIABLES,
    ThemeFileError,
    load_theme_dirs,
    load_theme_file,
    theme_dirs,
)
from labdeck.ui.themes.offer import THEME_CHECK_DELAY
from tests.support.pilot import settle
from tests.support.process import REPO
from tests.ui.conftest import SimConsole, shared_sim

REPO_THEMES = REPO / "themes"


def _write(folder: Path, name: str, text: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text(text, encoding="utf-8")
    return path


def test_shipped_themes_load() -> None:
    result = load_theme_dirs([REPO_THEMES])
    assert result.failed == []
    assert {"labdeck-dark", "labdeck-light", "labdeck-high-contrast", "labdeck-production"} <= set(result.loaded)
    assert not result.loaded["labdeck-light"].dark
    assert result.loaded["labdeck-production"].variables["ld-env-accent"].lower().startswith("#d8")


def test_partial_theme_gets_defaults(tmp_path: Path) -> None:
    path = _write(tmp_path, "mini.toml", 'name = "mini"\nprimary = "#336699"\n')
    theme = load_theme_file(path)
    assert theme.name == "mini" and theme.primary == "#336699" and theme.variables == {}


def test_bad_theme_reports_every_problem_at_once(tmp_path: Path) -> None:
    path = _write(tmp_path, "bad.toml", """
name = "bad"
primary = "not-a-colour"
backgrond = "#000000"
dark = "yes"
[variables]
ld-star = "#zzzzzz"
made-up-variable = "#ffffff"
""")
    with pytest.raises(ThemeFileError) as caught:
        load_theme_file(path)
    problems = caught.value.problems
    assert len(problems) == 5
    message = str(caught.value)
    for fragment in ("'not-a-colour' is not a colour", "unknown key 'backgrond'", "dark must be a bool",
                     "variables.ld-star", "unknown variable 'made-up-variable'"):
        assert fragment in message


def test_missing_required_and_broken_toml(tmp_path: Path) -> None:
    with pytest.raises(ThemeFileError, match="'name' is required.*'primary' is required"):
        load_theme_file(_write(tmp_path, "empty.toml", "dark = true\n"))
    with pytest.raises(ThemeFileError, match="not valid TOML"):
        load_theme_file(_write(tmp_path, "broken.toml", "name = \n"))


def test_later_folders_override_and_failures_are_collected(tmp_path: Path) -> None:
    first = tmp_path / "a"
    second = tmp_path / "b"
    _write(first, "x.toml", 'name = "x"\nprimary = "#111111"\n')
    _write(second, "x.toml", 'name = "x"\nprimary = "#222222"\n')
    _write(second, "y.toml", 'name = "y"\nprimary = "nope"\n')
    result = load_theme_dirs([first, second, tmp_path / "missing"])
    assert result.loaded["x"].primary == "#222222"
    assert [error.path.name for error in result.failed] == ["y.toml"]
    assert "y.toml" in result.failure_message()


def test_user_theme_folder_is_searched() -> None:
    folders = theme_dirs()
    assert folders[-1].parts[-2:] == ("labdeck", "themes")
    assert any(folder.name == "_themes" for folder in folders)


@shared_sim
async def test_app_uses_profile_theme_user_themes_and_reports_bad_files(console: SimConsole) -> None:
    user_dir = theme_dirs()[-1]
    _write(user_dir, "ocean.toml", 'name = "ocean"\nprimary = "#0077be"\n[variables]\nld-star = "#ffcc00"\n')
    _write(user_dir, "typo.toml", 'name = "typo"\nprimray = "#0077be"\n')
    async with console.run(theme="ocean", size=(100, 30)) as (app, pilot):
        await settle(app, pilot, rounds=3)
        assert app.theme == "ocean"
        assert app.theme_variables["ld-star"] == "#ffcc00"
        assert all(name in app.theme_variables for name in APP_VARIABLES)
        assert any("typo.toml" in str(n.message) and "primray" in str(n.message) for n in app._notifications)


@shared_sim
async def test_unknown_profile_theme_falls_back(console: SimConsole) -> None:
    async with console.run(theme="no-such-theme", size=(100, 30)) as (app, pilot):
        await settle(app, pilot, rounds=3)
        assert app.theme == "labdeck-dark"
        assert any("no-such-theme" in str(n.message) for n in app._notifications)


@shared_sim
async def test_builtin_textual_theme_has_app_variables(console: SimConsole) -> None:
    async with console.run(theme="textual-light", size=(100, 30)) as (app, pilot):
        await settle(app, pilot, rounds=3)
        assert app.theme == "textual-light"
        assert all(name in app.theme_variables for name in APP_VARIABLES)


def test_every_shipped_theme_is_readable_for_every_style_the_console_uses() -> None:
    from labdeck.ui.themes.contrast import PAIRS, contrast_problems
    from labdeck.ui.themes.files import app_variable_defaults

    result = load_theme_dirs([REPO_THEMES])
    assert len(result.loaded) == 4
    for theme in result.loaded.values():
        assert contrast_problems(theme, app_variable_defaults(theme)) == [], theme.name
    labels = " ".join(pair.label for pair in PAIRS)
    for style in ("status failed", "status success", "search match", "current search match", "switch",
                  "check box", "status line", "table cursor", "changed row", "keys at the bottom",
                  "key descriptions at the bottom"):
        assert style in labels


MURKY = """
name = "murky"
primary = "#336699"
background = "#101010"
surface = "#141414"
[variables]
job-failed = "#3a1010"
"""
"""A theme whose failed-job colour cannot be read on its surface."""


def test_an_unreadable_theme_file_is_refused_naming_the_style(tmp_path: Path) -> None:
    path = _write(tmp_path, "murky.toml", MURKY + 'ld-current-match = "#777777"\nld-current-match-text = "#888888"\n')
    with pytest.raises(ThemeFileError) as caught:
        load_theme_file(path)
    message = str(caught.value)
    assert "status failed: job-failed on surface" in message
    assert "current search match" in message


@shared_sim
async def test_unreadable_textual_themes_are_not_offered(console: SimConsole) -> None:
    async with console.run(size=(80, 24)) as (app, pilot):
        await settle(app, pilot, rounds=3)
        from labdeck.ui.themes.files import readable_theme

        offered = app.offered_themes()  # what the theme picker and `:theme` list
        assert "solarized-light" not in offered  # its own text is 4.4:1 on its surface
        assert all(readable_theme(theme) for theme in offered.values())
        assert "labdeck-light" in offered
    later = console.app()
    async with later.run_test(size=(80, 24)) as pilot:
        await settle(later, pilot, rounds=3)
        # Checked by themselves soon after start-up too (off the first screen's path).
        await pilot.pause(THEME_CHECK_DELAY + 0.3)
        assert "solarized-light" not in later.available_themes and "labdeck-light" in later.available_themes



@shared_sim
async def test_an_unreadable_user_theme_is_withdrawn_with_a_notice_chosen_or_not(console: SimConsole) -> None:
    _write(theme_dirs()[-1], "murky.toml", MURKY)
    chosen = console.app(theme="murky")
    async with chosen.run_test(size=(100, 30)) as pilot:
        await settle(chosen, pilot, rounds=3)
        # Checked before the first screen: never shown, the default instead, and the user told why.
        assert chosen.theme == "labdeck-dark"
        assert "murky" not in chosen.available_themes
        assert any("murky.toml" in str(n.message) and "job-failed" in str(n.message) for n in chosen._notifications)
        assert any("Unreadable theme 'murky'; using labdeck-dark" in str(n.message) for n in chosen._notifications)
    other = console.app()
    async with other.run_test(size=(100, 30)) as pilot:
        await settle(other, pilot, rounds=3)
        assert other.theme == "labdeck-dark"
        offered = other.offered_themes()  # the picker's list: checked by then
        assert "murky" not in offered and "labdeck-light" in offered
        await pilot.pause()
        assert any("murky.toml" in str(n.message) for n in other._notifications)
    later = console.app()
    async with later.run_test(size=(100, 30)) as pilot:
        await settle(later, pilot, rounds=3)
        await pilot.pause(THEME_CHECK_DELAY + 0.3)  # or by itself soon after start-up
        assert "murky" not in later.available_themes
        assert any("murky.toml" in str(n.message) for n in later._notifications)


@shared_sim
async def test_an_unreadable_user_theme_never_takes_the_place_of_the_theme_it_names(
        console: SimConsole) -> None:
    user_dir = theme_dirs()[-1]
    _write(user_dir, "mine.toml", MURKY.replace('"murky"', '"labdeck-dark"'))
    _write(user_dir, "nord.toml", MURKY.replace('"murky"', '"nord"'))
    async with console.run(size=(100, 30)) as (app, pilot):
        await settle(app, pilot, rounds=3)
        # The shipped labdeck-dark and Textual's own nord stay, told apart from the refused files.
        assert app.theme == "labdeck-dark" and app.current_theme.primary != "#336699"
        offered = app.offered_themes()
        assert "nord" in offered and offered["nord"].primary != "#336699"
        skipped = " ".join(str(n.message) for n in app._notifications)
        assert "mine.toml" in skipped and "nord.toml" in skipped
