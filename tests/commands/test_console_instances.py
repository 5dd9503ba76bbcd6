"""``labdeck --profile prod,staging`` and ``boards`` in the config (issue 30): one session per
profile, each with its own URL, short name and token from its own profile's store only."""

from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import Any

import pytest

from labdeck.auth.keyring_store import KeyringStore
from labdeck.base.config import ConfigError, load_config
from labdeck.base.session import Session
from labdeck.commands import cli
from labdeck.commands.instances import console_profiles, profile_names, run_console_instances
from labdeck.sim.demo_process import child_main
from labdeck.sim.server import SimServer

CONFIG = """
boards = ["prod", "staging"]

[profiles.prod]
url = "{prod}"
short = "P"

[profiles.staging]
url = "{staging}"
"""


def write_config(text: str) -> Path:
    path = Path(os.environ["LABDECK_CONFIG"])
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def args(*argv: str) -> argparse.Namespace:
    return cli.build_parser().parse_args(list(argv))


def test_the_config_names_boards_and_short_names() -> None:
    write_config(CONFIG.format(prod="https://prod.example.com", staging="https://staging.example.com"))
    config = load_config()
    assert config.boards == ["prod", "staging"]
    assert config.profiles["prod"].short == "P" and config.profiles["staging"].short is None
    write_config('boards = "prod"\n')
    with pytest.raises(ConfigError, match="boards: must be a list of profile names"):
        load_config()


def test_which_profiles_the_console_opens() -> None:
    assert profile_names("prod, staging,prod") == ["prod", "staging"]
    write_config(CONFIG.format(prod="https://prod.example.com", staging="https://staging.example.com"))
    assert console_profiles(args("--profile", "staging,prod")) == ["staging", "prod"]
    assert console_profiles(args()) == ["prod", "staging"]  # the config's boards
    assert console_profiles(args("--url", "https://other.example.com")) == []
    assert console_profiles(args("--profile", "prod")) == ["prod"]


def test_each_profile_gets_its_own_token_never_the_environments(
        sim_factory: Any, tokens: dict[str, str], monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    prod: SimServer = sim_factory(seed=42)
    staging: SimServer = sim_factory(seed=43, dialect="gitlab")
    write_config(CONFIG.format(prod=prod.base_url, staging=staging.base_url))
    monkeypatch.setenv("LABDECK_TOKEN", tokens["readonly"])
    # No stored token for staging: the environment's token is not lent to it.
    KeyringStore().set("prod", prod.base_url, tokens["admin"])
    ran: list[tuple[Session, list[Session]]] = []

    def run(first: Session, options: Any, more: list[Session]) -> int:
        ran.append((first, list(more)))
        return 0

    parsed = args("--profile", "prod,staging")
    code = run_console_instances(parsed, ["prod", "staging"], cli.resolve_session, cli.SessionOptions,
                                 cli.SessionError, run)
    assert code == 1 and not ran
    assert "LABDECK_TOKEN not used with several profiles" in capsys.readouterr().err
    KeyringStore().set("staging", staging.base_url, tokens["user"])
    code = run_console_instances(parsed, ["prod", "staging"], cli.resolve_session, cli.SessionOptions,
                                 cli.SessionError, run)
    assert code == 0
    first, more = ran[-1]
    assert (first.profile, first.base_url, first.short_name) == ("prod", prod.base_url, "P")
    assert first.token is not None and first.token.reveal() == tokens["admin"]
    assert [(s.profile, s.base_url, s.short_name) for s in more] == [("staging", staging.base_url, None)]
    assert more[0].token is not None and more[0].token.reveal() == tokens["user"]
    # A token given for one instance never goes to several.
    assert run_console_instances(args("--profile", "prod,staging", "--token-stdin"), ["prod", "staging"],
                                 cli.resolve_session, cli.SessionOptions, cli.SessionError, run) == 2


def test_the_demo_child_takes_a_seed_and_a_dialect(monkeypatch: pytest.MonkeyPatch) -> None:
    started: list[dict[str, Any]] = []

    class Stop(Exception):
        pass

    def start_demo(**options: Any) -> Any:
        started.append(options)
        raise Stop

    monkeypatch.setattr("labdeck.sim.demo.start_demo", start_demo)
    with pytest.raises(Stop):
        child_main(["--seed", "43", "--dialect", "gitlab"])
    assert started == [{"seed": 43, "dialect": "gitlab"}]
