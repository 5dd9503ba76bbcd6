"""Choosing and writing a token store for ``labdeck login``; removing tokens for ``labdeck logout``."""

from __future__ import annotations

import getpass
import sys
from collections.abc import Callable
from dataclasses import dataclass

from labdeck.auth.file_stores import EncryptedStore, PlaintextStore, StoreError, passphrase_from_env
from labdeck.auth.keyring_store import KeyringStore, KeyringUnavailable, account
from labdeck.base import logsafe
from labdeck.base.secret import Secret


class StorageUnavailable(Exception):
    """The chosen store cannot keep the token; ``str()`` is the reason (one line)."""


def has_terminal() -> bool:
    """Whether a person can answer a prompt (stdin is a terminal, or stderr is and /dev/tty opens)."""
    if sys.stdin is not None and sys.stdin.isatty():
        return True
    if sys.stderr is None or not sys.stderr.isatty():
        return False
    try:
        with open("/dev/tty"):
            return True
    except OSError:
        return False


@dataclass
class TokenStores:
    """The three places a token can be written."""

    keyring: KeyringStore
    encrypted: EncryptedStore
    plaintext: PlaintextStore

    @classmethod
    def default(cls) -> TokenStores:
        return cls(KeyringStore(), EncryptedStore(), PlaintextStore())

    def describe(self, storage: str) -> str:
        """Plain words for where ``storage`` puts a token."""
        if storage == "keyring":
            return f"the {self.keyring.describe()}, service 'labdeck'"
        if storage == "encrypted":
            return f"the encrypted file {self.encrypted.path}"
        return f"the PLAINTEXT file {self.plaintext.path} (mode 0600; not encrypted)"

    def check(self, storage: str, prompt: Callable[[str], str] = getpass.getpass) -> None:
        """Make sure ``storage`` can be written before anything is validated or stored."""
        if storage == "keyring":
            try:
                self.keyring.backend()
            except KeyringUnavailable as error:
                raise StorageUnavailable(str(error)) from None
        elif storage == "encrypted" and not self.encrypted.unlocked:
            passphrase = passphrase_from_env()
            if passphrase is None:
                if not has_terminal():
                    raise StorageUnavailable(
                        "the encrypted store needs a passphrase: set LABDECK_STORE_PASSPHRASE or run "
                        "in a terminal")
                passphrase = Secret(prompt(f"Passphrase for {self.encrypted.path}: "))
                if not self.encrypted.exists():
                    again = prompt("Repeat the passphrase: ")
                    if again != passphrase.reveal():
                        raise StorageUnavailable("the passphrases did not match")
            logsafe.register_secret(passphrase)
            try:
                self.encrypted.unlock(passphrase)
            except StoreError as error:
                raise StorageUnavailable(str(error)) from None

    def store(self, storage: str, profile: str, url: str, token: Secret) -> None:
        """Write (and read back) the token; stale copies in the other stores are removed."""
        key = account(profile, url)
        try:
            if storage == "keyring":
                self.keyring.set(profile, url, token.reveal())
            elif storage == "encrypted":
                self.encrypted.set(key, token.reveal())
            else:
                self.plaintext.set(key, token.reveal())
        except (KeyringUnavailable, StoreError) as error:
            raise StorageUnavailable(str(error)) from None
        self._remove_others(storage, profile, url)

    def _remove_others(self, keep: str, profile: str, url: str) -> None:
        key = account(profile, url)
        if keep != "insecure-file":
            try:
                self.plaintext.delete(key)
            except (StoreError, OSError):
                pass
        if keep != "encrypted":
            try:
                self.encrypted.delete(key)
            except (StoreError, OSError):
                pass
        if keep != "keyring":
            try:
                self.keyring.delete(profile, url)
            except KeyringUnavailable:
                pass

    def remove_everywhere(self, profile: str, url: str) -> tuple[list[str], list[str]]:
        """Delete the token from every store: (where it was removed, what could not be checked)."""
        key = account(profile, url)
        removed: list[str] = []
        unchecked: list[str] = []
        try:
            if self.keyring.delete(profile, url):
                removed.append(f"the {self.keyring.describe()}")
        except KeyringUnavailable as error:
            unchecked.append(f"OS keyring: {error}")
        try:
            if self.encrypted.delete(key):
                removed.append(f"the encrypted file {self.encrypted.path}")
        except (StoreError, OSError) as error:
            unchecked.append(f"encrypted file: {error}")
        try:
            if self.plaintext.delete(key):
                removed.append(f"the plaintext file {self.plaintext.path}")
        except (StoreError, OSError) as error:
            unchecked.append(f"plaintext file: {error}")
        return removed, unchecked


def storage_choice(insecure_storage: bool, encrypted_store: bool) -> str:
    """``insecure-file``, ``encrypted`` or ``keyring`` from the login flags."""
    if insecure_storage:
        return "insecure-file"
    if encrypted_store:
        return "encrypted"
    return "keyring"


def no_keyring_help(reason: str, profile: str, url: str, plaintext_path: str) -> str:
    """What to do when the keyring cannot store the token (the token was not stored)."""
    flags = f"--profile {profile} --url {url} --token-stdin"
    return "\n".join([
        f"The token was NOT stored: the OS keyring is unusable here: {reason}.",
        "Nothing was written. Choose one of:",
        "  1. No storage: give the token per session (not in shell history):",
        f"       export LABDECK_URL={url}; read -rs LABDECK_TOKEN; export LABDECK_TOKEN",
        f"       or: printenv MY_TOKEN | LABDECK_URL={url} labdeck --token-stdin",
        "  2. An encrypted file (passphrase asked now, or from LABDECK_STORE_PASSPHRASE; needs the",
        "     'cryptography' package: pip install 'labdeck[encrypted]'):",
        f"       labdeck login {flags} --encrypted-store",
        f"  3. A plaintext file {plaintext_path} (mode 0600, permanent warning in the console):",
        f"       labdeck login {flags} --insecure-storage",
        "  4. Start a keyring service for this session: dbus-run-session -- sh, then",
        "       echo 'pw' | gnome-keyring-daemon --unlock, and log in again.",
    ])
