"""The OS keyring, used safely over SSH: every call in a thread with a timeout, unusable backends
refused, every write read back.

A locked Secret Service collection can block forever on an unlock prompt nobody sees; the ``fail``
backend raises; the ``null`` backend accepts writes and forgets them. None of these may lose a
token silently or hang the console.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from typing import Any, TypeVar

SERVICE = "labdeck"
DEFAULT_TIMEOUT = 3.0
_T = TypeVar("_T")


class KeyringUnavailable(Exception):
    """The keyring cannot be used; ``str()`` says why in one line (never contains a token)."""


def default_timeout() -> float:
    """3 s, or ``$LABDECK_KEYRING_TIMEOUT`` seconds."""
    raw = os.environ.get("LABDECK_KEYRING_TIMEOUT")
    if raw:
        try:
            value = float(raw)
        except ValueError:
            return DEFAULT_TIMEOUT
        if value > 0:
            return value
    return DEFAULT_TIMEOUT


def account(profile: str, url: str) -> str:
    """The keyring user name of a profile's token."""
    return f"{profile}@{url}"


def backend_name(backend: Any) -> str:
    """``module.Class`` of a keyring backend, e.g. ``keyring.backends.SecretService.Keyring``."""
    cls = type(backend)
    return f"{cls.__module__}.{cls.__qualname__}"


def unusable_reason(backend: Any) -> str | None:
    """Why ``backend`` must not hold a token (``fail``, ``null``, plaintext, empty chainer), or None."""
    from keyring.backends import chainer, fail, null

    name = backend_name(backend)
    if isinstance(backend, fail.Keyring):
        return ("no keyring service is available (keyring chose the 'fail' backend: no Secret "
                "Service/D-Bus on this machine)")
    if isinstance(backend, null.Keyring):
        return "the keyring is disabled (the 'null' backend stores nothing)"
    if "plaintext" in name.lower() or type(backend).__module__.startswith("keyrings.alt.file"):
        return f"the keyring backend {name} stores passwords unencrypted"
    if isinstance(backend, chainer.ChainerBackend):
        children = list(getattr(backend, "backends", []) or [])
        if not any(unusable_reason(child) is None for child in children):
            return "the keyring chainer has no usable backend (no Secret Service/D-Bus, no Keychain)"
    return None


def _call_with_timeout(function: Callable[[], _T], timeout: float, what: str) -> _T:
    # A daemon thread, not an executor: a hung D-Bus call must not block interpreter exit.
    result: list[_T] = []
    failure: list[BaseException] = []

    def run() -> None:
        try:
            result.append(function())
        except BaseException as error:
            failure.append(error)

    worker = threading.Thread(target=run, name=f"labdeck-keyring-{what}", daemon=True)
    worker.start()
    worker.join(timeout)
    if worker.is_alive():
        raise KeyringUnavailable(
            f"the keyring did not answer within {timeout:g} s while trying to {what} (a locked "
            "collection waiting for an unlock prompt nobody can see over SSH?)"
        )
    if failure:
        error = failure[0]
        raise KeyringUnavailable(_describe_error(error, what)) from None
    return result[0]


def _describe_error(error: BaseException, what: str) -> str:
    from keyring import errors

    if isinstance(error, errors.KeyringLocked):
        return f"the keyring is locked and could not be unlocked to {what}"
    if isinstance(error, errors.NoKeyringError):
        return "no keyring service is available (no Secret Service/D-Bus on this machine)"
    if isinstance(error, errors.InitError):
        return f"the keyring could not be initialised ({type(error).__name__})"
    if isinstance(error, errors.PasswordSetError):
        return "the keyring refused to store the token"
    # Other messages could echo arguments; name the type only.
    return f"the keyring failed to {what} ({type(error).__name__})"


class KeyringStore:
    """The token of each profile in the OS keyring (service ``labdeck``)."""

    label = "OS keyring"

    def __init__(self, timeout: float | None = None) -> None:
        self.timeout = default_timeout() if timeout is None else timeout
        self._backend: Any = None

    def backend(self) -> Any:
        """The usable backend, or raise :class:`KeyringUnavailable` explaining why not."""
        if self._backend is None:
            import keyring

            backend = _call_with_timeout(keyring.get_keyring, self.timeout, "open the keyring")
            reason = unusable_reason(backend)
            if reason is not None:
                raise KeyringUnavailable(reason)
            self._backend = backend
        return self._backend

    def describe(self) -> str:
        """``OS keyring (<backend>)`` for messages."""
        try:
            return f"OS keyring ({backend_name(self.backend())})"
        except KeyringUnavailable:
            return "OS keyring"

    def get(self, profile: str, url: str) -> str | None:
        """The stored token, ``None`` when there is none; raises :class:`KeyringUnavailable`."""
        backend = self.backend()
        name = account(profile, url)
        value = _call_with_timeout(lambda: backend.get_password(SERVICE, name), self.timeout,
                                   "read the token")
        return value or None

    def set(self, profile: str, url: str, token: str) -> None:
        """Store and read back; raises :class:`KeyringUnavailable` unless the token is really kept."""
        backend = self.backend()
        name = account(profile, url)
        _call_with_timeout(lambda: backend.set_password(SERVICE, name, token), self.timeout,
                           "store the token")
        stored = _call_with_timeout(lambda: backend.get_password(SERVICE, name), self.timeout,
                                    "read the token back")
        if stored != token:
            raise KeyringUnavailable(
                f"the keyring backend {backend_name(backend)} accepted the token but did not keep it "
                "(read-back mismatch)"
            )

    def delete(self, profile: str, url: str) -> bool:
        """Remove the token; ``True`` when one was there."""
        from keyring import errors

        backend = self.backend()
        name = account(profile, url)
        if _call_with_timeout(lambda: backend.get_password(SERVICE, name), self.timeout,
                              "read the token") is None:
            return False

        def remove() -> bool:
            try:
                backend.delete_password(SERVICE, name)
            except errors.PasswordDeleteError:
                return False
            return True

        return _call_with_timeout(remove, self.timeout, "delete the token")
