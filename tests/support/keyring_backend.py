"""Keyring backends for tests: an in-memory one, so that tests never touch the machine's real keyring,
and ones that misbehave the way real ones do over SSH (importable by name, so that a subprocess
can use them through ``PYTHON_KEYRING_BACKEND=tests.support.keyring_backend.…``)."""

from __future__ import annotations

import threading

from keyring.backend import KeyringBackend
from keyring.errors import KeyringLocked

_never = threading.Event()


class InMemoryKeyring(KeyringBackend):
    """A dict-backed keyring."""

    priority = 1  # type: ignore[assignment]

    def __init__(self) -> None:
        super().__init__()
        self.store: dict[tuple[str, str], str] = {}

    def get_password(self, service: str, username: str) -> str | None:
        return self.store.get((service, username))

    def set_password(self, service: str, username: str, password: str) -> None:
        self.store[(service, username)] = password

    def delete_password(self, service: str, username: str) -> None:
        from keyring.errors import PasswordDeleteError

        if (service, username) not in self.store:
            raise PasswordDeleteError("not found")
        del self.store[(service, username)]


class HangingKeyring(KeyringBackend):
    """A locked Secret Service waiting for an unlock prompt nobody sees: every call blocks."""

    priority = 1

    def get_password(self, service: str, username: str) -> str | None:
        _never.wait(60)
        return None

    def set_password(self, service: str, username: str, password: str) -> None:
        _never.wait(60)

    def delete_password(self, service: str, username: str) -> None:
        _never.wait(60)


class LockedKeyring(KeyringBackend):
    """A collection that stays locked: every call raises ``KeyringLocked``."""

    priority = 1

    def get_password(self, service: str, username: str) -> str | None:
        raise KeyringLocked("Failed to unlock the collection!")

    def set_password(self, service: str, username: str, password: str) -> None:
        raise KeyringLocked("Failed to unlock the collection!")

    def delete_password(self, service: str, username: str) -> None:
        raise KeyringLocked("Failed to unlock the collection!")


class ForgetfulKeyring(KeyringBackend):
    """Accepts writes and keeps something else (what the read-back check must catch)."""

    priority = 1

    def __init__(self) -> None:
        super().__init__()
        self.store: dict[tuple[str, str], str] = {}

    def get_password(self, service: str, username: str) -> str | None:
        return self.store.get((service, username))

    def set_password(self, service: str, username: str, password: str) -> None:
        self.store[(service, username)] = password[:-1]

    def delete_password(self, service: str, username: str) -> None:
        self.store.pop((service, username), None)
