"""A token holds printable ASCII only: every place a token enters labdeck refuses anything else with
one clear message that never repeats the value."""

from __future__ import annotations

import io
from collections.abc import Callable
from pathlib import Path

import pytest

from labdeck.auth.chain import TokenChain, TokenInputError, read_token_stream
from labdeck.auth.file_stores import EncryptedStore, PlaintextStore
from labdeck.auth.keyring_store import account
from labdeck.base.secret import Secret
from labdeck.commands import cli
from labdeck.commands.doctor import DoctorOptions, diagnose
from tests.support.credentials import Canaries
from tests.support.keyring_backend import InMemoryKeyring
from tests.support.process import login_in_process

URL = "https://gitlab.example.com"
MESSAGE = "the token contains characters a token cannot have (spaces or control characters)"
# Each carries a marker that must never be echoed back.
BAD_TOKENS = ["glpat-ab\nLEAKnewline0123", "glpat-ab\x00LEAKnul01234567", "glpat-ab\x1b[2JLEAKesc0123",
              "glpat-ab LEAKspace0123456", "glpat-ab\u202eLEAKbidi012345", "glpat-\u00e4bLEAKumlaut01234",
              "glpat-ab\x7fLEAKdel01234567"]


def _refused(call: Callable[[], object]) -> str:
    with pytest.raises(TokenInputError) as caught:
        call()
    text = str(caught.value)
    assert MESSAGE in text and "LEAK" not in text
    return text


@pytest.mark.parametrize("bad", BAD_TOKENS)
@pytest.mark.parametrize("variable", ["LABDECK_TOKEN", "GITLAB_TOKEN"])
def test_an_environment_token_with_bad_characters_is_refused(bad: str, variable: str) -> None:
    chain = TokenChain(environ={variable: bad}, interactive=False)
    assert variable in _refused(lambda: chain.resolve("p", URL))


@pytest.mark.parametrize("bad", BAD_TOKENS)
def test_stored_and_typed_tokens_with_bad_characters_are_refused(bad: str, isolated_machine: InMemoryKeyring) -> None:
    isolated_machine.set_password("labdeck", account("p", URL), bad)
    assert "keyring" in _refused(lambda: TokenChain(environ={}, interactive=False).resolve("p", URL))
    isolated_machine.store.clear()

    encrypted = EncryptedStore()
    encrypted.unlock(Secret("pass phrase"))
    encrypted.set(account("p", URL), bad)
    chain = TokenChain(environ={"LABDECK_STORE_PASSPHRASE": "pass phrase"}, interactive=False)
    assert str(encrypted.path) in _refused(lambda: chain.resolve("p", URL))
    EncryptedStore().delete(account("p", URL))

    PlaintextStore().set(account("p", URL), bad)
    assert "stored in" in _refused(lambda: TokenChain(environ={}, interactive=False).resolve("p", URL))
    PlaintextStore().delete(account("p", URL))

    typed = TokenChain(environ={}, interactive=True, prompt=lambda _: bad)
    assert "typed" in _refused(lambda: typed.resolve("p", URL))


@pytest.mark.parametrize("bad", [t for t in BAD_TOKENS if "\n" not in t])
def test_token_stdin_with_bad_characters_is_refused(bad: str) -> None:
    assert "--token-stdin" in _refused(lambda: read_token_stream(io.StringIO(bad + "\n")))


def test_good_tokens_still_pass() -> None:
    for good in ("glpat-AbC_12.3=x-yz", "!#$%&'()*+,-./:;<=>?@[]^_`{|}~0123"):
        found = TokenChain(environ={"LABDECK_TOKEN": good}, interactive=False).resolve("p", URL)
        assert found.token == Secret(good)


def test_login_refuses_a_bad_token_and_stores_nothing(monkeypatch: pytest.MonkeyPatch, canaries: Canaries,
                                                      capsys: pytest.CaptureFixture[str],
                                                      isolated_machine: InMemoryKeyring) -> None:
    assert login_in_process(monkeypatch, "glpat-ab\x01LEAKctrl0123456", "--url", canaries.url, "--token-stdin") == 2
    out = capsys.readouterr()
    assert MESSAGE in out.err and "LEAK" not in out.out + out.err
    assert isolated_machine.store == {}


def test_login_refuses_a_bad_typed_token(monkeypatch: pytest.MonkeyPatch, canaries: Canaries,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    from labdeck.auth import login

    monkeypatch.setattr(login, "has_terminal", lambda: True)
    request = login.LoginRequest(profile=None, url=canaries.url)
    code = login.run_login(request, login.Output(io.StringIO(), err := io.StringIO()), io.StringIO(),
                           prompt=lambda _: "glpat-ab cdLEAKtyped01234")
    assert code == 2 and MESSAGE in err.getvalue() and "LEAK" not in err.getvalue()


def test_the_console_and_doctor_explain_a_bad_environment_token(monkeypatch: pytest.MonkeyPatch,
                                                                canaries: Canaries,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("LABDECK_URL", canaries.url)
    monkeypatch.setenv("LABDECK_TOKEN", "glpat-ab\x1bLEAKconsole012345")
    with pytest.raises(cli.SessionError) as caught:
        cli.resolve_session(cli.SessionOptions(), interactive=False)
    assert MESSAGE in str(caught.value) and "LEAK" not in str(caught.value)
    assert "labdeck login" in str(caught.value)

    token = {f.topic: f for f in diagnose(DoctorOptions())}["token"]
    assert token.level == "fail" and MESSAGE in token.text and "LEAK" not in token.text + (token.fix or "")


def test_python_gitlab_import_skips_a_bad_token(home: Path) -> None:
    from labdeck.auth import python_gitlab

    source = home / ".python-gitlab.cfg"
    source.write_text("[lab]\nurl = https://gitlab.example.com\nprivate_token = glpat-ab cdLEAKimport0123\n")
    profile = python_gitlab.read_config(source).profiles[0]
    assert profile.token is None and MESSAGE in (profile.note or "") and "LEAK" not in (profile.note or "")
