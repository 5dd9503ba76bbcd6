"""``labdeck login`` / ``logout`` against the simulator, with working and missing keyrings."""

from __future__ import annotations

import os
import stat
from collections.abc import Callable
from pathlib import Path

import pytest
from keyring.backend import KeyringBackend
from keyring.backends import null

from labdeck.auth.keyring_store import account
from labdeck.base import paths
from labdeck.base.config import load_config
from labdeck.commands import cli
from tests.support.credentials import Canaries, files_containing
from tests.support.keyring_backend import InMemoryKeyring, LockedKeyring
from tests.support.process import Run, login_in_process


def test_login_validates_stores_in_the_keyring_and_writes_the_profile(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], canaries: Canaries,
        isolated_machine: InMemoryKeyring, home: Path) -> None:
    code = login_in_process(monkeypatch, canaries.admin, "--profile", "lab", "--url", canaries.url, "--token-stdin")
    out = capsys.readouterr()
    assert code == 0, out.err
    assert "as @root" in out.out and "an administrator" in out.out and "read-write" in out.out
    assert "Token stored in the OS keyring (tests.support.keyring_backend.InMemoryKeyring)" in out.out
    assert isolated_machine.store[("labdeck", account("lab", canaries.url))] == canaries.admin
    config = load_config()
    assert config.default_profile == "lab" and config.profiles["lab"].token_store == "keyring"
    assert files_containing(home, canaries.admin) == []
    assert canaries.admin not in out.out + out.err

    assert cli.main(["logout", "--profile", "lab"]) == 0
    out = capsys.readouterr()
    assert "Removed the token of profile 'lab'" in out.out and "OS keyring" in out.out
    assert isolated_machine.store == {}
    assert load_config().profiles["lab"].token_store is None
    assert cli.main(["logout", "--profile", "lab"]) == 0
    assert "No stored token for profile 'lab'" in capsys.readouterr().out


def test_login_with_a_read_only_token_says_so(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
                                              canaries: Canaries) -> None:
    assert login_in_process(monkeypatch, canaries.readonly, "--url", canaries.url, "--token-stdin") == 0
    out = capsys.readouterr().out
    assert "as @viewer" in out and "not an administrator" in out and "read-only" in out


def test_a_rejected_token_is_not_stored(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
                                        canaries: Canaries, isolated_machine: InMemoryKeyring) -> None:
    code = login_in_process(monkeypatch, "glpat-wrongwrongwrongwrong00", "--url", canaries.url, "--token-stdin")
    err = capsys.readouterr().err
    assert code == 1 and "rejected (401" in err and "Nothing was stored" in err
    assert isolated_machine.store == {} and not paths.config_file().exists()


def test_no_keyring_login_explains_and_stores_nothing(run_labdeck: Callable[..., Run], canaries: Canaries,
                                                       home: Path) -> None:
    # This machine's own situation: no Secret Service, keyring picks the 'fail' backend.
    result = run_labdeck("login", "--url", canaries.url, "--token-stdin", stdin=canaries.admin,
                         backend="keyring.backends.fail.Keyring")
    assert result.returncode == 1, result.output
    assert "The token was NOT stored" in result.stderr and "Nothing was written" in result.stderr
    for hint in ("LABDECK_TOKEN", "--encrypted-store", "--insecure-storage", "dbus-run-session"):
        assert hint in result.stderr
    assert canaries.admin not in result.output
    assert files_containing(home, canaries.admin) == []
    assert not paths.config_file().exists()


@pytest.mark.parametrize("backend", [null.Keyring(), LockedKeyring()])
def test_a_null_or_locked_keyring_stores_nothing(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
                                                 use_keyring: Callable[[KeyringBackend], KeyringBackend],
                                                 backend: KeyringBackend, canaries: Canaries, home: Path) -> None:
    use_keyring(backend)
    assert login_in_process(monkeypatch, canaries.admin, "--url", canaries.url, "--token-stdin") == 1
    err = capsys.readouterr().err
    assert "The token was NOT stored" in err and ("disabled" in err or "locked" in err)
    assert files_containing(home, canaries.admin) == [] and not paths.config_file().exists()


def test_a_hanging_keyring_does_not_hang_login(run_labdeck: Callable[..., Run], canaries: Canaries,
                                               home: Path) -> None:
    result = run_labdeck("login", "--url", canaries.url, "--token-stdin", stdin=canaries.admin,
                         backend="tests.support.keyring_backend.HangingKeyring", env={"LABDECK_KEYRING_TIMEOUT": "0.3"})
    assert result.returncode == 1 and "did not answer within 0.3 s" in result.stderr
    assert files_containing(home, canaries.admin) == []


def test_insecure_storage_writes_a_private_plaintext_file_and_logout_removes_it(
        run_labdeck: Callable[..., Run], canaries: Canaries, home: Path) -> None:
    result = run_labdeck("login", "--url", canaries.url, "--token-stdin", "--insecure-storage", stdin=canaries.admin)
    assert result.returncode == 0, result.output
    assert f"PLAINTEXT file {paths.plaintext_store_file()}" in result.stdout and "WARNING" in result.stderr
    assert files_containing(home, canaries.admin) == [paths.plaintext_store_file()]
    assert stat.S_IMODE(os.stat(paths.plaintext_store_file()).st_mode) == 0o600
    assert canaries.admin not in result.output

    result = run_labdeck("logout")
    assert result.returncode == 0, result.output
    assert f"from: the plaintext file {paths.plaintext_store_file()}" in result.stdout
    assert files_containing(home, canaries.admin) == []


def test_encrypted_store_login_keeps_no_plaintext(run_labdeck: Callable[..., Run], canaries: Canaries,
                                                  home: Path) -> None:
    env = {"LABDECK_STORE_PASSPHRASE": "a long pass phrase"}
    result = run_labdeck("login", "--profile", "enc", "--url", canaries.url, "--token-stdin", "--encrypted-store",
                         stdin=canaries.admin, env=env)
    assert result.returncode == 0, result.output
    assert f"the encrypted file {paths.encrypted_store_file()}" in result.stdout
    assert files_containing(home, canaries.admin) == []
    no_passphrase = run_labdeck("login", "--profile", "enc2", "--url", canaries.url, "--token-stdin",
                                "--encrypted-store", stdin=canaries.admin)
    assert no_passphrase.returncode == 1 and "LABDECK_STORE_PASSPHRASE" in no_passphrase.stderr
    doctor = run_labdeck("doctor", "--profile", "enc", env=env)
    assert doctor.returncode == 0 and "token: from encrypted file" in doctor.stdout


def test_login_without_a_url_or_a_pipe_is_a_usage_error(monkeypatch: pytest.MonkeyPatch,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    assert login_in_process(monkeypatch, "x", "--token-stdin") == 2
    assert "--url is required" in capsys.readouterr().err
    assert login_in_process(monkeypatch, "", "--url", "https://h.example") == 2  # stdin is no terminal
    assert "--token-stdin" in capsys.readouterr().err


def test_import_python_gitlab_moves_tokens_to_the_keyring_not_the_config(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], canaries: Canaries,
        isolated_machine: InMemoryKeyring, home: Path) -> None:
    import certifi

    ca = home / "corp-ca.pem"
    ca.write_bytes(Path(certifi.where()).read_bytes())
    source = home / ".python-gitlab.cfg"
    source.write_text(
        "[global]\ndefault = lab\nssl_verify = true\ntimeout = 5\n\n"
        f"[lab]\nurl = {canaries.url}\nprivate_token = {canaries.admin}\napi_version = 4\n\n"
        f"[viewer]\nurl = {canaries.url}/\nprivate_token = {canaries.readonly}\nssl_verify = {ca}\n\n"
        "[helper]\nurl = https://gitlab.example.com\nprivate_token = helper: pass show gitlab\n"
    )
    assert cli.main(["login", "--import-python-gitlab"]) == 0
    out = capsys.readouterr()
    assert canaries.admin not in out.out + out.err
    config = load_config()
    assert sorted(config.profiles) == ["helper", "lab", "viewer"] and config.default_profile == "lab"
    assert config.profiles["viewer"].ca_file == str(ca)
    assert config.profiles["helper"].token_store is None and "helper command" in out.out
    assert isolated_machine.store[("labdeck", account("lab", canaries.url))] == canaries.admin
    assert isolated_machine.store[("labdeck", account("viewer", canaries.url))] == canaries.readonly
    assert files_containing(home, canaries.admin) == [source]  # python-gitlab's own file is left alone


def test_a_new_login_removes_the_old_plaintext_copy(monkeypatch: pytest.MonkeyPatch, canaries: Canaries,
                                                    isolated_machine: InMemoryKeyring, home: Path) -> None:
    assert login_in_process(monkeypatch, canaries.admin, "--url", canaries.url, "--token-stdin",
                            "--insecure-storage") == 0
    assert files_containing(home, canaries.admin) == [paths.plaintext_store_file()]
    assert login_in_process(monkeypatch, canaries.admin, "--url", canaries.url, "--token-stdin") == 0
    assert files_containing(home, canaries.admin) == []
    assert load_config().profiles["default"].token_store == "keyring"
