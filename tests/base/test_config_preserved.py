"""``labdeck login`` / ``logout`` edit a hand-written config file in place: comments, key order,
blank lines and unrelated sections survive; only the keys that change are touched."""

from __future__ import annotations

import io
import tomllib
from pathlib import Path

import pytest

from labdeck.base import paths
from labdeck.base.config import Config, Profile, load_config, save_config
from labdeck.commands import cli
from tests.support.credentials import Canaries
from tests.support.process import login_in_process

HAND_WRITTEN = """\
# My labdeck setup -- edited by hand, please keep these notes.
default_profile = "work"   # the one I use most

[ui]
# slower refresh on the jump host
refresh_interval = 12.5
theme = "ops-dark"

[keymap]
"jobs.cancel" = "x"   # muscle memory from k9s
"app.mode.jobs" = ["3", "j"]

# Production: read-only on purpose!
[profiles.work]
url = "https://gitlab.work.example"   # via VPN
read_only = true
ca_file = "/etc/ssl/corp-ca.pem"

[profiles.lab]
# the simulator on my laptop
url = "{lab}"
read_only = false
theme = "ops-light"
"""


def _write(url: str) -> Path:
    path = paths.config_file()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(HAND_WRITTEN.format(lab=url), encoding="utf-8")
    return path


def _comments(text: str) -> list[str]:
    return [line[line.index("#"):] for line in text.splitlines() if "#" in line and "://" not in line.split("#")[0]
            or line.lstrip().startswith("#")]


def _keys_in_order(text: str) -> list[str]:
    return [line.split("=")[0].strip() for line in text.splitlines()
            if "=" in line and not line.lstrip().startswith("#")]


def test_login_and_logout_keep_comments_order_and_other_sections(
        monkeypatch: pytest.MonkeyPatch, canaries: Canaries) -> None:
    path = _write(canaries.url)
    before = path.read_text()
    assert login_in_process(monkeypatch, canaries.admin, "--profile", "lab", "--token-stdin") == 0
    after_login = path.read_text()
    # Exactly one line more: the token store of the profile that logged in.
    assert [line for line in after_login.splitlines() if line not in before.splitlines()] == ['token_store = "keyring"']
    assert _comments(after_login) == _comments(before)
    assert _keys_in_order(after_login) == _keys_in_order(before)[:-1] + ["theme", "token_store"]
    assert after_login.startswith(before.split("\n\n")[0])  # the header block and its comment untouched

    assert cli.main(["logout", "--profile", "lab"]) == 0
    assert path.read_text() == before  # logout removes only what login added
    config = load_config()
    assert config.profiles["work"].read_only and config.ui.refresh_interval == 12.5
    assert config.keymap == {"jobs.cancel": "x", "app.mode.jobs": "3,j"}


def test_login_with_a_new_profile_adds_a_section_and_changes_nothing_else(
        monkeypatch: pytest.MonkeyPatch, canaries: Canaries) -> None:
    path = _write("https://lab.invalid")
    before = path.read_text()
    assert login_in_process(monkeypatch, canaries.admin, "--profile", "sim", "--url", canaries.url, "--token-stdin") == 0
    after = path.read_text()
    assert after.startswith(before.rstrip("\n"))  # everything that was there is there, in order
    added = tomllib.loads(after[len(before.rstrip("\n")):])
    assert added == {"profiles": {"sim": {"url": canaries.url, "token_store": "keyring"}}}
    assert load_config().default_profile == "work"  # not taken over by the new profile


def test_import_python_gitlab_keeps_the_config_as_written(monkeypatch: pytest.MonkeyPatch, canaries: Canaries,
                                                          home: Path) -> None:
    path = _write("https://lab.invalid")
    before = path.read_text()
    (home / ".python-gitlab.cfg").write_text(
        f"[global]\ndefault = ci\n\n[ci]\nurl = {canaries.url}\nprivate_token = {canaries.admin}\n")
    monkeypatch.setattr("sys.stdin", io.StringIO(""))
    assert cli.main(["login", "--import-python-gitlab"]) == 0
    after = path.read_text()
    assert after.startswith(before.rstrip("\n")) and _comments(after) == _comments(before)
    assert tomllib.loads(after)["profiles"]["ci"] == {"url": canaries.url, "token_store": "keyring"}
    assert canaries.admin not in after


def test_a_changed_url_is_rewritten_in_place_keeping_its_comment(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text(HAND_WRITTEN.format(lab="https://lab.invalid"))
    config = load_config(path)
    config.profiles["work"].url = "https://gitlab2.work.example"
    config.profiles["work"].read_only = False
    save_config(config)
    text = path.read_text()
    assert 'url = "https://gitlab2.work.example"   # via VPN' in text
    assert "read_only = false\n" in text and "# Production: read-only on purpose!" in text
    assert load_config(path).profiles["work"].url == "https://gitlab2.work.example"


def test_a_new_file_is_written_with_the_commented_layout(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    save_config(Config(path=path, default_profile="a", profiles={"a": Profile("a", "https://a.example")}))
    text = path.read_text()
    assert text.startswith("# labdeck configuration. Tokens are never stored here.")
    assert load_config(path).profiles["a"].url == "https://a.example"
    assert oct(path.stat().st_mode & 0o777) == "0o600"
