"""The command line: the console start path (token chain → Session → run_console), --demo, serve,
--version, and the promise that no option takes a token value."""

from __future__ import annotations

import io
import sys
import types
from collections.abc import Iterator
from typing import Any

import pytest

from labdeck.base.secret import Secret
from labdeck.base.session import Session
from labdeck.commands import cli, session_setup
from labdeck.sim.server import SimServer


@pytest.fixture
def console(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[Session]]:
    """Replace the TUI with a recorder of the Session it would have been given."""
    started: list[Session] = []
    module = types.ModuleType("labdeck.ui.app")

    def run_console(session: Session, **kwargs: Any) -> int:
        started.append(session)
        module.kwargs = kwargs  # type: ignore[attr-defined]
        return 0

    module.run_console = run_console  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "labdeck.ui.app", module)
    monkeypatch.setattr(sys, "excepthook", sys.excepthook)
    import threading

    monkeypatch.setattr(threading, "excepthook", threading.excepthook)
    yield started


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        cli.main(["--version"])
    assert exited.value.code == 0 and capsys.readouterr().out.strip() == "labdeck 0.1.0"


def test_no_option_takes_a_token_value() -> None:
    parser = cli.build_parser()
    parsers = [parser, *parser._subparsers._group_actions[0].choices.values()]  # type: ignore[union-attr]
    for each in parsers:
        for action in each._actions:
            if any("token" in flag for flag in action.option_strings):
                assert action.nargs == 0, action.option_strings  # --token-stdin is a switch


def test_console_gets_a_session_from_the_environment(console: list[Session], sim: SimServer,
                                                     tokens: dict[str, str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LABDECK_URL", sim.base_url)
    monkeypatch.setenv("LABDECK_TOKEN", tokens["admin"])
    assert cli.main(["--theme", "ops-light"]) == 0
    session = console[0]
    assert (session.base_url, session.token, session.token_source) == (sim.base_url, Secret(tokens["admin"]),
                                                                       "env:LABDECK_TOKEN")
    assert session.theme == "ops-light" and not session.read_only and not session.insecure_storage


def test_a_read_only_token_starts_the_console_read_only(console: list[Session], sim: SimServer,
                                                        tokens: dict[str, str],
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GITLAB_URL", sim.base_url)
    monkeypatch.setenv("GITLAB_TOKEN", tokens["readonly"])
    assert cli.main([]) == 0
    # One round trip before the console starts (GET /user); the console probes write access after
    # its first frame and turns read-only then (tests/ui/test_server_faults.py).
    assert not console[0].read_only and console[0].token_source == "env:GITLAB_TOKEN"
    assert sys.modules["labdeck.ui.app"].kwargs["check_write"] is True  # type: ignore[attr-defined]


def test_read_only_by_choice(console: list[Session], sim: SimServer, tokens: dict[str, str],
                             monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LABDECK_URL", sim.base_url)
    monkeypatch.setenv("LABDECK_TOKEN", tokens["admin"])
    assert cli.main(["--read-only"]) == 0
    assert console[0].read_only


def test_token_stdin_is_read_before_the_console(console: list[Session], sim: SimServer, tokens: dict[str, str],
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LABDECK_URL", sim.base_url)
    monkeypatch.setenv("LABDECK_TOKEN", tokens["readonly"])  # stdin wins over the environment
    monkeypatch.setattr(sys, "stdin", io.StringIO(tokens["admin"] + "\n"))
    monkeypatch.setattr(cli, "_reattach_terminal", lambda: None)
    assert cli.main(["--token-stdin"]) == 0
    assert console[0].token == Secret(tokens["admin"]) and console[0].token_source == "stdin"


def test_a_rejected_token_stops_before_the_console_and_names_its_source(
        console: list[Session], sim: SimServer, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("LABDECK_URL", sim.base_url)
    monkeypatch.setenv("LABDECK_TOKEN", "glpat-expiredexpiredexpired00")
    assert cli.main([]) == 1
    err = capsys.readouterr().err
    assert "token from env:LABDECK_TOKEN was rejected" in err and "glpat-" not in err
    assert console == []


def test_the_insecure_file_token_marks_the_session(console: list[Session], sim: SimServer, tokens: dict[str, str],
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    from labdeck.auth.file_stores import PlaintextStore
    from labdeck.auth.keyring_store import account
    from labdeck.base.config import Config, Profile, save_config
    from labdeck.base.paths import config_file

    save_config(Config(path=config_file(), default_profile="lab",
                       profiles={"lab": Profile("lab", sim.base_url, token_store="insecure-file")}))
    PlaintextStore().set(account("lab", sim.base_url), tokens["user"])
    assert cli.main([]) == 0
    assert console[0].insecure_storage and console[0].token_source == "file (insecure)"
    assert console[0].profile == "lab"


def test_switching_profile_inside_the_console_never_prompts(console: list[Session], sim: SimServer,
                                                           tokens: dict[str, str], isolated_machine: Any,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    from labdeck.auth.keyring_store import account
    from labdeck.base.config import Config, Profile, save_config
    from labdeck.base.paths import config_file

    save_config(Config(path=config_file(), default_profile="a",
                       profiles={"a": Profile("a", sim.base_url), "b": Profile("b", sim.base_url),
                                 "c": Profile("c", sim.base_url)}))
    isolated_machine.set_password("labdeck", account("a", sim.base_url), tokens["admin"])
    isolated_machine.set_password("labdeck", account("b", sim.base_url), tokens["readonly"])
    monkeypatch.setattr("getpass.getpass", lambda *a: pytest.fail("prompted while the TUI runs"))
    monkeypatch.setattr(sys, "stdin", io.StringIO(""))
    assert cli.main([]) == 0
    switch = sys.modules["labdeck.ui.app"].kwargs["session_for_profile"]
    other = switch("b")
    assert other.profile == "b" and other.read_only and other.token_source == "keyring"
    with pytest.raises(cli.SessionError, match="no token"):
        switch("c")


def test_no_instance_explains_how_to_start(console: list[Session], capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main([]) == 1
    assert "labdeck login --url" in capsys.readouterr().err and console == []


def test_demo_runs_the_console_against_a_simulator_process_then_stops_it(
        monkeypatch: pytest.MonkeyPatch) -> None:
    import json
    import urllib.request

    from labdeck.sim.dataset.build import DEMO_TOKENS
    from labdeck.sim.demo_process import DemoProcess

    spawned: list[DemoProcess] = []
    real_spawn = DemoProcess.spawn

    def spawn() -> DemoProcess:
        spawned.append(real_spawn())
        return spawned[-1]

    monkeypatch.setattr(DemoProcess, "spawn", staticmethod(spawn))
    seen: list[tuple[Session, dict[str, Any]]] = []
    module = types.ModuleType("labdeck.ui.app")

    def run_console(session: Session, **kwargs: Any) -> int:
        # While the console runs, the simulator answers as the demo admin.
        request = urllib.request.Request(f"{session.base_url}/api/v4/user",
                                         headers={"PRIVATE-TOKEN": DEMO_TOKENS["admin"]})
        with urllib.request.urlopen(request, timeout=10) as answer:
            seen.append((session, json.load(answer)))
        return 0

    module.run_console = run_console  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "labdeck.ui.app", module)
    assert cli.main(["--demo"]) == 0
    session, user = seen[0]
    assert session.demo and session.token_source == "demo" and session.token == Secret(DEMO_TOKENS["admin"])
    assert user["username"] == "root" and session.base_url == spawned[0].base_url
    assert spawned[0]._process.poll() is not None  # the simulator process ended with the console


def test_the_demo_simulator_process_ends_when_its_console_is_killed() -> None:
    import os
    import signal
    import subprocess
    import time

    # A stand-in console: starts the demo simulator process, prints its pid, then waits to be killed.
    script = ("import sys, time\nfrom labdeck.sim.demo_process import DemoProcess\n"
              "demo = DemoProcess.spawn(); demo.wait_ready(); print(demo.pid, flush=True); time.sleep(60)\n")
    console = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    assert console.stdout is not None
    child = int(console.stdout.readline())
    os.kill(console.pid, signal.SIGKILL)
    console.wait()
    deadline = time.monotonic() + 2.0
    while time.monotonic() < deadline:
        try:
            os.kill(child, 0)
        except ProcessLookupError:
            break
        try:
            with open(f"/proc/{child}/stat", encoding="ascii") as stat:
                if stat.read().rsplit(")", 1)[1].split()[0] == "Z":  # ended, not yet reaped
                    break
        except FileNotFoundError:
            break
        time.sleep(0.02)
    else:
        os.kill(child, signal.SIGKILL)
        pytest.fail("the demo simulator outlived its console by 2 s")


def test_serve_hands_the_rest_of_the_arguments_to_the_simulator(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[list[str]] = []
    module = types.ModuleType("labdeck.sim.cli")

    def serve_main(argv: list[str]) -> int:
        seen.append(argv)
        return 0

    module.serve_main = serve_main  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "labdeck.sim.cli", module)
    assert cli.main(["serve", "--port", "8929", "--seed", "7"]) == 0
    assert seen == [["--port", "8929", "--seed", "7"]]


def test_global_and_command_options_combine() -> None:
    parser = cli.build_parser()
    args = parser.parse_args(["--token-stdin", "--profile", "p", "login", "--url", "https://h.example"])
    assert (args.command, args.token_stdin, args.profile, args.url) == ("login", True, "p", "https://h.example")
    args = parser.parse_args(["doctor", "--profile", "q", "--token-stdin"])
    assert (args.profile, args.token_stdin) == ("q", True)


# --- --url and LABDECK_URL -------------------------------------------------------------------------


def _profiles(**profiles: Any) -> None:
    from labdeck.base.config import Config, save_config
    from labdeck.base.paths import config_file

    save_config(Config(path=config_file(), default_profile=next(iter(profiles)), profiles=dict(profiles)))


def test_url_option_opens_the_console_on_that_instance(console: list[Session], sim: SimServer,
                                                        tokens: dict[str, str],
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LABDECK_TOKEN", tokens["admin"])
    assert cli.main(["--url", sim.base_url + "/api/v4/"]) == 0
    assert console[0].base_url == sim.base_url and console[0].token_source == "env:LABDECK_TOKEN"


def test_url_option_beats_the_environment_and_the_default_profile(console: list[Session], sim: SimServer,
                                                                   tokens: dict[str, str],
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    from labdeck.base.config import Profile

    # The default profile is another (read-only) instance: neither its URL nor its settings follow --url.
    _profiles(other=Profile("other", "https://other.example", read_only=True, ca_file="/nonexistent/ca.pem"))
    monkeypatch.setenv("LABDECK_URL", "https://elsewhere.example")
    monkeypatch.setenv("LABDECK_TOKEN", tokens["admin"])
    assert cli.main(["--url", sim.base_url]) == 0
    session = console[0]
    assert session.base_url == sim.base_url and not session.read_only
    assert session.ca_file != "/nonexistent/ca.pem" and session.profile == sim.base_url.split("//")[1].replace(":", "-")


def test_url_option_uses_the_profile_configured_for_that_url(console: list[Session], sim: SimServer,
                                                             tokens: dict[str, str], isolated_machine: Any) -> None:
    from labdeck.auth.keyring_store import account
    from labdeck.base.config import Profile

    _profiles(main=Profile("main", "https://main.example"), lab=Profile("lab", sim.base_url, theme="ops-light"))
    isolated_machine.set_password("labdeck", account("lab", sim.base_url), tokens["user"])
    assert cli.main(["--url", sim.base_url + "/"]) == 0
    session = console[0]
    assert (session.profile, session.token_source, session.theme) == ("lab", "keyring", "ops-light")
    assert session.token == Secret(tokens["user"])


def test_labdeck_url_environment_variable_opens_that_instance(console: list[Session], sim: SimServer,
                                                              tokens: dict[str, str],
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    from labdeck.base.config import Profile

    _profiles(other=Profile("other", "https://other.example", read_only=True))
    monkeypatch.setenv("LABDECK_URL", sim.base_url)
    monkeypatch.setenv("LABDECK_TOKEN", tokens["admin"])
    assert cli.main([]) == 0
    assert console[0].base_url == sim.base_url and not console[0].read_only


@pytest.mark.parametrize(("argv", "env", "expected"), [
    (["--url", "gitlab.example.com"], {}, "--url must start with https://"),
    ([], {"LABDECK_URL": "ftp://gitlab.example.com"}, "LABDECK_URL must start with https://"),
])
def test_a_malformed_url_is_refused_with_its_source(console: list[Session], monkeypatch: pytest.MonkeyPatch,
                                                    capsys: pytest.CaptureFixture[str], argv: list[str],
                                                    env: dict[str, str], expected: str) -> None:
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setenv("LABDECK_TOKEN", "glpat-0123456789abcdefghij")
    assert cli.main(argv) == 1
    assert expected in capsys.readouterr().err and console == []


def test_help_lists_url_and_the_environment(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        cli.main(["--help"])
    out = capsys.readouterr().out
    assert "--url URL" in out and "LABDECK_URL" in out and "GITLAB_URL" in out and "LABDECK_TOKEN" in out
    args = cli.build_parser().parse_args(["--url", "https://a.example", "login", "--token-stdin"])
    assert (args.command, args.url) == ("login", "https://a.example")


def test_switching_profile_after_url_goes_to_that_profiles_instance(console: list[Session], sim: SimServer,
                                                                   tokens: dict[str, str],
                                                                   isolated_machine: Any,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    from labdeck.auth.keyring_store import account
    from labdeck.base.config import Profile

    _profiles(b=Profile("b", "https://b.example"))
    isolated_machine.set_password("labdeck", account("b", "https://b.example"), tokens["readonly"])
    monkeypatch.setenv("LABDECK_TOKEN", tokens["admin"])
    monkeypatch.setattr(session_setup, "startup_check", lambda session, tls, **options: None)
    assert cli.main(["--url", sim.base_url]) == 0
    switched = sys.modules["labdeck.ui.app"].kwargs["session_for_profile"]("b")
    # The switch resolves profile b (its URL and stored token); the startup probe is skipped here.
    assert console[0].base_url == sim.base_url and switched.base_url == "https://b.example"


def test_the_collector_is_paused_while_the_console_starts_and_on_again_however_it_ends(
        console: list[Session], sim: SimServer, tokens: dict[str, str], monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    import gc

    seen: list[bool] = []
    recorder = sys.modules["labdeck.ui.app"].run_console

    def run_console(session: Session, **kwargs: Any) -> int:
        seen.append(gc.isenabled())
        return int(recorder(session, **kwargs))

    monkeypatch.setattr(sys.modules["labdeck.ui.app"], "run_console", run_console)
    monkeypatch.setenv("LABDECK_URL", sim.base_url)
    monkeypatch.setenv("LABDECK_TOKEN", tokens["admin"])
    assert gc.isenabled()
    assert cli.main([]) == 0 and seen == [False]  # the app turns it on after its first screen
    assert gc.isenabled()
    monkeypatch.setenv("LABDECK_TOKEN", "not-a-valid-token")
    assert cli.main([]) == 1 and "rejected" in capsys.readouterr().err
    assert gc.isenabled() and seen == [False]


async def test_the_console_turns_the_collector_on_after_its_first_screen(sim: SimServer, tokens: dict[str, str]) -> None:
    import gc

    from labdeck.ui.app import FREEZE_DELAY, LabdeckApp

    session = Session(base_url=sim.base_url, token=Secret(tokens["admin"]), token_source="test", profile="t")
    gc.disable()  # as the command line leaves it
    try:
        app = LabdeckApp(session)
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.pause(0.2)
            assert not gc.isenabled()  # the start-up is not interrupted by collections
            await pilot.pause(FREEZE_DELAY)
            assert gc.isenabled()
    finally:
        gc.enable()


def test_a_ca_file_that_cannot_be_used_is_explained_in_one_clean_line(
        console: list[Session], sim: SimServer, tokens: dict[str, str], monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str], tmp_path: Any) -> None:
    monkeypatch.setenv("LABDECK_URL", sim.base_url)
    monkeypatch.setenv("LABDECK_TOKEN", tokens["admin"])
    assert cli.main(["--ca-file", "~nosuchuser-labdeck/ca.pem"]) == 1  # no traceback for an unknown ~user
    assert "CA file ~nosuchuser-labdeck/ca.pem (--ca-file) does not exist" in capsys.readouterr().err
    bad = tmp_path / "bad.pem"
    bad.write_text("not a certificate\n")
    assert cli.main(["--ca-file", str(bad)]) == 1
    error = capsys.readouterr().err
    assert f"CA file {bad} (--ca-file) is not a PEM certificate bundle (" in error
    # OpenSSL's whole reason ("[X509: …] no certificate …"), not a piece cut at its first ": ".
    assert error.count("[") == error.count("]") and error.count("(") == error.count(")")
    assert console == []
