"""The keyring over SSH: unusable backends refused, a hang bounded by the timeout, writes read back."""

from __future__ import annotations

import time
from collections.abc import Callable

import pytest
from keyring.backend import KeyringBackend
from keyring.backends import chainer, fail, null

from labdeck.auth.keyring_store import DEFAULT_TIMEOUT, KeyringStore, KeyringUnavailable, unusable_reason
from tests.support.keyring_backend import ForgetfulKeyring, HangingKeyring, InMemoryKeyring, LockedKeyring

UseKeyring = Callable[[KeyringBackend], KeyringBackend]


def test_a_working_keyring_stores_reads_and_deletes(isolated_machine: InMemoryKeyring) -> None:
    store = KeyringStore()
    store.set("work", "https://h.example", "tok-123456")
    assert isolated_machine.store == {("labdeck", "work@https://h.example"): "tok-123456"}
    assert store.get("work", "https://h.example") == "tok-123456"
    assert store.delete("work", "https://h.example") is True
    assert store.get("work", "https://h.example") is None
    assert store.delete("work", "https://h.example") is False


@pytest.mark.parametrize(
    ("backend", "reason"),
    [
        (fail.Keyring(), "no keyring service is available"),
        (null.Keyring(), "disabled"),
        (LockedKeyring(), "locked"),
    ],
)
def test_unusable_backends_are_refused_with_a_reason(use_keyring: UseKeyring, backend: KeyringBackend,
                                                     reason: str) -> None:
    use_keyring(backend)
    store = KeyringStore(timeout=1)
    with pytest.raises(KeyringUnavailable, match=reason):
        store.set("p", "https://h.example", "tok-123456")
    with pytest.raises(KeyringUnavailable, match=reason):
        store.get("p", "https://h.example")


class _EmptyChainer(chainer.ChainerBackend):
    backends: list[KeyringBackend] = []  # what a headless box discovers


class _NullOnlyChainer(chainer.ChainerBackend):
    backends: list[KeyringBackend] = [null.Keyring(), fail.Keyring()]


class _UsefulChainer(chainer.ChainerBackend):
    backends: list[KeyringBackend] = [null.Keyring(), InMemoryKeyring()]


def test_a_chainer_without_usable_backends_is_refused(use_keyring: UseKeyring) -> None:
    assert "no usable backend" in (unusable_reason(_EmptyChainer()) or "")
    assert "no usable backend" in (unusable_reason(_NullOnlyChainer()) or "")
    assert unusable_reason(_UsefulChainer()) is None
    use_keyring(_EmptyChainer())
    with pytest.raises(KeyringUnavailable, match="no usable backend"):
        KeyringStore().set("p", "https://h.example", "tok-123456")


def test_a_write_that_does_not_read_back_is_a_failure(use_keyring: UseKeyring) -> None:
    use_keyring(ForgetfulKeyring())
    with pytest.raises(KeyringUnavailable, match="read-back mismatch"):
        KeyringStore().set("p", "https://h.example", "tok-123456")


def test_a_hanging_keyring_gives_up_after_the_timeout(use_keyring: UseKeyring) -> None:
    use_keyring(HangingKeyring())
    with pytest.raises(KeyringUnavailable, match="did not answer within 0.2 s"):
        KeyringStore(timeout=0.2).get("p", "https://h.example")


def test_the_default_timeout_bounds_a_hang_to_about_three_seconds(use_keyring: UseKeyring) -> None:
    # The one slow test: the real 3 s default, as an SSH user would meet it.
    use_keyring(HangingKeyring())
    store = KeyringStore()
    assert store.timeout == DEFAULT_TIMEOUT == 3.0
    started = time.monotonic()
    with pytest.raises(KeyringUnavailable):
        store.get("p", "https://h.example")
    assert time.monotonic() - started < 3.5


def test_the_timeout_can_be_set_by_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LABDECK_KEYRING_TIMEOUT", "0.5")
    assert KeyringStore().timeout == 0.5
    monkeypatch.setenv("LABDECK_KEYRING_TIMEOUT", "soon")
    assert KeyringStore().timeout == 3.0
