"""The config file: profiles, keymap, ui; every problem reported at once; never a token."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from labdeck.base import paths
from labdeck.base.config import Config, ConfigError, Profile, load_config, save_config


def write_config(text: str) -> Path:
    path = paths.config_file()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def test_labdeck_config_variable_chooses_the_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    custom = tmp_path / "elsewhere.toml"
    custom.write_text('default_profile = "x"\n[profiles.x]\nurl = "https://x.example"\n')
    monkeypatch.setenv("LABDECK_CONFIG", str(custom))
    assert load_config().profile().url == "https://x.example"  # type: ignore[union-attr]


def test_a_full_config_is_read() -> None:
    write_config(
        'default_profile = "work"\n'
        '[profiles.work]\nurl = "https://gitlab.example.com/api/v4/"\ntheme = "ops-light"\n'
        'read_only = true\nca_file = "/etc/ssl/corp.pem"\ntoken_store = "keyring"\n'
        '[profiles.lab]\nurl = "http://127.0.0.1:8929"\n'
        '[keymap]\n"app.mode.jobs" = "3,j"\n"jobs.retry" = ["ctrl+r", "R"]\n'
        '[ui]\ntheme = "ops-dark"\nrefresh_interval = 2\n'
    )
    config = load_config()
    work = config.profile()
    assert work is not None and work.name == "work"
    assert work.url == "https://gitlab.example.com"
    assert (work.theme, work.read_only, work.ca_file, work.token_store) == (
        "ops-light", True, "/etc/ssl/corp.pem", "keyring")
    assert config.profile("lab").url == "http://127.0.0.1:8929"  # type: ignore[union-attr]
    assert config.keymap == {"app.mode.jobs": "3,j", "jobs.retry": "ctrl+r,R"}
    assert config.ui.theme == "ops-dark" and config.ui.refresh_interval == 2.0


def test_every_problem_is_reported_in_one_message_with_file_and_key() -> None:
    path = write_config(
        'default_profile = "missing"\ncolour = "red"\n'
        '[profiles.work]\nurl = "gitlab.example.com"\nread_only = "yes"\nprivate_token = "abc"\n'
        '[ui]\nrefresh_interval = -1\n'
    )
    with pytest.raises(ConfigError) as caught:
        load_config()
    message = str(caught.value)
    assert str(path) in message
    for expected in ("profiles.work.url", "profiles.work.read_only", "profiles.work.private_token",
                     "colour: unknown setting", "ui.refresh_interval", "default_profile: no profile named"):
        assert expected in message, expected
    assert len(caught.value.problems) == 6
    assert "abc" not in message


def test_a_toml_syntax_error_names_the_file() -> None:
    path = write_config("[profiles.work\nurl = 1\n")
    with pytest.raises(ConfigError) as caught:
        load_config()
    assert str(path) in str(caught.value) and "not valid TOML" in str(caught.value)


def test_missing_file_gives_defaults() -> None:
    config = load_config()
    assert not config.exists and config.profiles == {} and config.profile() is None


def test_saved_config_reads_back_is_private_and_has_no_token() -> None:
    config = Config(path=paths.config_file(), default_profile="a b")
    config.profiles["a b"] = Profile(name="a b", url="https://h.example", token_store="encrypted",
                                     theme='we"ird', read_only=True)
    config.keymap["app.quit"] = "ctrl+q"
    with pytest.raises(ConfigError):  # "a b" is not a valid profile name: the writer must not hide it
        save_config(config)
        load_config()
    config.profiles = {"ab": Profile(name="ab", url="https://h.example", token_store="encrypted",
                                     theme='we"ird', read_only=True)}
    config.default_profile = "ab"
    save_config(config)
    again = load_config()
    assert again.profiles["ab"] == config.profiles["ab"] and again.keymap == {"app.quit": "ctrl+q"}
    assert stat.S_IMODE(os.stat(config.path).st_mode) == 0o600
