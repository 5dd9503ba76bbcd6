"""The token chain: precedence, environment names, stores, the prompt, and no plaintext by default."""

from __future__ import annotations

import io
import os
import stat
from collections.abc import Callable
from pathlib import Path

import pytest
from keyring.backend import KeyringBackend
from keyring.backends import fail, null

from labdeck.auth.chain import TokenChain, TokenInputError, read_token_stream, resolve_url
from labdeck.auth.file_stores import EncryptedStore, PlaintextStore, StoreError
from labdeck.auth.keyring_store import KeyringStore, account
from labdeck.base.config import Config, Profile
from labdeck.base.secret import Secret
from tests.support.credentials import files_containing
from tests.support.keyring_backend import HangingKeyring, InMemoryKeyring, LockedKeyring

URL = "https://gitlab.example.com"
UseKeyring = Callable[[KeyringBackend], KeyringBackend]


def no_prompt(text: str) -> str:
    raise AssertionError(f"unexpected prompt: {text}")


def fill_every_source(keyring_backend: InMemoryKeyring, passphrase: str = "pass phrase") -> None:
    keyring_backend.set_password("labdeck", account("p", URL), "from-keyring")
    encrypted = EncryptedStore()
    encrypted.unlock(Secret(passphrase))
    encrypted.set(account("p", URL), "from-encrypted")
    PlaintextStore().set(account("p", URL), "from-plaintext")


def test_precedence_first_hit_wins(isolated_machine: InMemoryKeyring) -> None:
    fill_every_source(isolated_machine)
    env = {"LABDECK_TOKEN": "from-labdeck-env", "GITLAB_TOKEN": "from-gitlab-env",
           "LABDECK_STORE_PASSPHRASE": "pass phrase"}

    def resolve(environ: dict[str, str], stdin: Secret | None = None) -> tuple[str, str]:
        chain = TokenChain(environ=environ, interactive=True, prompt=lambda _: "from-prompt")
        found = chain.resolve("p", URL, stdin_token=stdin)
        assert found.token is not None
        return found.token.reveal(), found.source

    assert resolve(env, Secret("from-stdin")) == ("from-stdin", "stdin")
    assert resolve(env) == ("from-labdeck-env", "env:LABDECK_TOKEN")
    env.pop("LABDECK_TOKEN")
    assert resolve(env) == ("from-gitlab-env", "env:GITLAB_TOKEN")
    env.pop("GITLAB_TOKEN")
    assert resolve(env) == ("from-keyring", "keyring")
    isolated_machine.store.clear()
    assert resolve(env) == ("from-encrypted", "encrypted file")
    EncryptedStore().delete(account("p", URL))
    found = TokenChain(environ=env, interactive=False).resolve("p", URL)
    assert (found.token, found.source, found.insecure_storage) == (Secret("from-plaintext"), "file (insecure)", True)
    PlaintextStore().delete(account("p", URL))
    assert resolve(env) == ("from-prompt", "prompt")
    nothing = TokenChain(environ=env, interactive=False, prompt=no_prompt).resolve("p", URL)
    assert nothing.token is None and nothing.source == "none"


def test_url_comes_from_the_explicit_profile_then_env_then_the_default() -> None:
    config = Config(path=Path("c.toml"), default_profile="main",
                    profiles={"main": Profile("main", "https://main.example"),
                              "other": Profile("other", "https://other.example")})
    assert resolve_url(config, None, {})[1] == "https://main.example"
    assert resolve_url(config, None, {"GITLAB_URL": "https://g.example/"})[1:] == ("https://g.example",
                                                                                  "env GITLAB_URL")
    both = {"GITLAB_URL": "https://g.example", "LABDECK_URL": "https://l.example/api/v4"}
    assert resolve_url(config, None, both)[1] == "https://l.example"
    assert resolve_url(config, "other", both)[1] == "https://other.example"
    assert resolve_url(Config(path=Path("c.toml")), None, {})[1] is None


def test_the_encrypted_store_needs_the_passphrase(isolated_machine: InMemoryKeyring) -> None:
    fill_every_source(isolated_machine)
    isolated_machine.store.clear()
    PlaintextStore().delete(account("p", URL))
    locked = TokenChain(environ={}, interactive=False).resolve("p", URL)
    assert locked.token is None and any("locked" in note for note in locked.notes)
    prompted = TokenChain(environ={}, interactive=True, prompt=lambda _: "pass phrase").resolve("p", URL)
    assert prompted.token == Secret("from-encrypted")
    wrong = TokenChain(environ={}, interactive=True, prompt=lambda text: "nope" if "Passphrase" in text else "")
    result = wrong.resolve("p", URL)
    assert result.token is None and any("wrong passphrase" in note for note in result.notes)


@pytest.mark.parametrize("backend", [fail.Keyring(), null.Keyring(), LockedKeyring()])
def test_without_a_keyring_the_chain_falls_back_and_writes_nothing(
        use_keyring: UseKeyring, backend: KeyringBackend, home: Path) -> None:
    use_keyring(backend)
    found = TokenChain(environ={}, interactive=True, prompt=lambda _: "typed-canary-token-0001").resolve("p", URL)
    assert found.token == Secret("typed-canary-token-0001") and found.source == "prompt"
    assert any(note.startswith("keyring:") for note in found.notes)
    assert files_containing(home, "typed-canary-token-0001") == []


def test_a_hanging_keyring_falls_back_to_the_environment_token(use_keyring: UseKeyring) -> None:
    use_keyring(HangingKeyring())
    chain = TokenChain(keyring_store=KeyringStore(timeout=0.2), environ={}, interactive=False)
    found = chain.resolve("p", URL)
    assert found.token is None and "did not answer" in found.notes[0]
    with_env = TokenChain(keyring_store=KeyringStore(timeout=0.2), environ={"GITLAB_TOKEN": "t-env-1"})
    assert with_env.resolve("p", URL).source == "env:GITLAB_TOKEN"


def test_token_stdin_takes_one_line() -> None:
    assert read_token_stream(io.StringIO("  tok-abc \n")) == Secret("tok-abc")
    with pytest.raises(TokenInputError, match="empty"):
        read_token_stream(io.StringIO("\n"))
    with pytest.raises(TokenInputError, match="one token"):
        read_token_stream(io.StringIO("a\nb\n"))


def test_encrypted_file_holds_no_plaintext_and_rejects_a_wrong_passphrase(home: Path) -> None:
    store = EncryptedStore()
    store.unlock(Secret("correct horse"))
    store.set("k", "encrypted-canary-token-42")
    assert files_containing(home, "encrypted-canary-token-42") == []
    assert stat.S_IMODE(os.stat(store.path).st_mode) == 0o600
    again = EncryptedStore()
    assert again.has("k") and not again.unlocked
    with pytest.raises(StoreError, match="wrong passphrase"):
        again.unlock(Secret("battery staple"))
    again.unlock(Secret("correct horse"))
    assert again.get("k") == "encrypted-canary-token-42"
    assert EncryptedStore().delete("k") is True and not EncryptedStore().has("k")


def test_the_plaintext_file_is_private_and_refused_when_others_can_read_it() -> None:
    store = PlaintextStore()
    store.set("k", "tok-1234")
    assert stat.S_IMODE(os.stat(store.path).st_mode) == 0o600
    os.chmod(store.path, 0o644)
    with pytest.raises(StoreError, match="chmod 600"):
        store.get("k")
    os.chmod(store.path, 0o600)
    assert store.delete("k") and not store.path.exists()
