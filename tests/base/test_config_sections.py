"""``[board]`` and ``[alerts]`` in the config file: parsed, validated with every problem listed,
and written back without touching what the user wrote elsewhere."""

from __future__ import annotations

from pathlib import Path

import pytest

from labdeck.base.config import AlertSettings, BoardSettings, ConfigError, load_config, save_config
from labdeck.watch import PollerSettings


def write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def test_defaults_without_the_sections(tmp_path: Path) -> None:
    config = load_config(write(tmp_path / "c.toml", "[ui]\ntheme = \"ops-dark\"\n"))
    assert config.board == BoardSettings() and config.alerts == AlertSettings()
    settings = PollerSettings.from_config(config.board)
    assert (settings.interval, settings.requests_per_minute, settings.max_in_flight) == (5.0, 60.0, 4)


def test_sections_are_read(tmp_path: Path) -> None:
    config = load_config(write(tmp_path / "c.toml", """
[board]
interval = 10
requests_per_minute = 30
max_in_flight = 2

[alerts]
bell = false
desktop = true
notify = "osc777"
keep_log = true
"""))
    assert config.board == BoardSettings(10.0, 30.0, 2)
    assert config.alerts == AlertSettings(bell=False, desktop=True, notify="osc777", keep_log=True)
    assert config.alerts.enabled("bell", interactive=True) is False
    assert config.alerts.enabled("desktop", interactive=False) is True
    assert config.alerts.enabled("toast", interactive=False) is False
    assert config.alerts.enabled("toast", interactive=True) is True


def test_every_problem_is_listed(tmp_path: Path) -> None:
    with pytest.raises(ConfigError) as caught:
        load_config(write(tmp_path / "c.toml", """
[board]
interval = 0
requests_per_minute = true
max_in_flight = 99
colour = "red"

[alerts]
bell = "yes"
notify = "osc52"
sound = true
"""))
    problems = caught.value.problems
    assert len(problems) == 7
    assert any(p.startswith("board.interval") for p in problems)
    assert any(p.startswith("alerts.notify") for p in problems)
    assert any("board.colour: unknown setting" in p for p in problems)


def test_saving_keeps_the_users_text(tmp_path: Path) -> None:
    path = write(tmp_path / "c.toml", "# mine\n[alerts]\nbell = false  # the office is quiet\n\n[ui]\ntheme = \"x\"\n")
    config = load_config(path)
    config.board.requests_per_minute = 40.0
    save_config(config)
    text = path.read_text()
    assert "bell = false  # the office is quiet" in text and text.startswith("# mine")
    again = load_config(path)
    assert again.board.requests_per_minute == 40.0 and again.alerts.bell is False


def test_a_new_file_holds_only_what_differs(tmp_path: Path) -> None:
    from labdeck.base.config import Config, dump_config

    config = Config(path=tmp_path / "new.toml")
    assert "[board]" not in dump_config(config) and "[alerts]" not in dump_config(config)
    config.alerts.title = False
    text = dump_config(config)
    assert "[alerts]\ntitle = false\n" in text and "[board]" not in text
