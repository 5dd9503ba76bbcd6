"""Token files for machines without a keyring: an opt-in encrypted file, and a plaintext file that
exists only with ``--insecure-storage``.

Both are JSON maps keyed by the keyring account name (``profile@url``), written atomically with
mode 0600. The encrypted file holds one Fernet token per entry under a key derived with scrypt from
a passphrase (prompted before the TUI starts, or ``$LABDECK_STORE_PASSPHRASE``); entry names are
not secret, so an entry can be listed or removed without the passphrase.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import secrets
import stat
from pathlib import Path
from typing import Any

from labdeck.base import paths
from labdeck.base.secret import Secret
from labdeck.base.statefile import write_private

PASSPHRASE_ENV = "LABDECK_STORE_PASSPHRASE"
_CHECK_PLAINTEXT = b"labdeck-token-store"
_SCRYPT = {"n": 2**15, "r": 8, "p": 1}


class StoreError(Exception):
    """A token file cannot be used; ``str()`` says why and what to do (never contains a token)."""


def _read_json(path: Path) -> dict[str, Any] | None:
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return None
    except OSError as error:
        raise StoreError(f"{path} cannot be read: {error.strerror or error}") from None
    try:
        data = json.loads(raw)
    except ValueError:
        raise StoreError(f"{path} is damaged (not JSON); remove it and log in again") from None
    if not isinstance(data, dict):
        raise StoreError(f"{path} is damaged; remove it and log in again")
    return data


def _check_private(path: Path) -> None:
    mode = stat.S_IMODE(path.stat().st_mode)
    if mode & 0o077:
        raise StoreError(f"{path} is readable by other users (mode {mode:04o}); run chmod 600 {path}")


class PlaintextStore:
    """``--insecure-storage``: tokens in a plaintext file (mode 0600). The console warns permanently."""

    label = "plaintext file (insecure)"

    def __init__(self, path: Path | None = None) -> None:
        self.path = path or paths.plaintext_store_file()

    def _entries(self) -> dict[str, str]:
        data = _read_json(self.path)
        if data is None:
            return {}
        _check_private(self.path)
        entries = data.get("tokens")
        return {str(k): str(v) for k, v in entries.items()} if isinstance(entries, dict) else {}

    def has(self, account: str) -> bool:
        """Whether the file holds a token for ``account``."""
        try:
            return account in self._entries()
        except StoreError:
            return False

    def get(self, account: str) -> str | None:
        """The stored token or ``None``."""
        return self._entries().get(account)

    def set(self, account: str, token: str) -> None:
        """Store (atomically, mode 0600) and read back."""
        entries = self._entries()
        entries[account] = token
        write_private(self.path, json.dumps({"version": 1, "tokens": entries}, indent=1).encode())
        if self.get(account) != token:
            raise StoreError(f"{self.path} did not keep the token (read-back mismatch)")

    def delete(self, account: str) -> bool:
        """Remove the entry (the file too when it is the last); ``True`` when one was there."""
        entries = self._entries()
        if account not in entries:
            return False
        del entries[account]
        if entries:
            write_private(self.path, json.dumps({"version": 1, "tokens": entries}, indent=1).encode())
        else:
            self.path.unlink()
        return True


def _fernet(key: bytes) -> Any:
    try:
        from cryptography.fernet import Fernet
    except ImportError:
        raise StoreError(
            "the encrypted store needs the optional 'cryptography' package: "
            "pip install 'labdeck[encrypted]'"
        ) from None
    return Fernet(key)


def _derive(passphrase: Secret, salt: bytes, params: dict[str, int]) -> bytes:
    raw = hashlib.scrypt(passphrase.reveal().encode("utf-8"), salt=salt, n=params["n"], r=params["r"],
                         p=params["p"], maxmem=256 * 1024 * 1024, dklen=32)
    return base64.urlsafe_b64encode(raw)


class EncryptedStore:
    """Opt-in encrypted token file: Fernet with a scrypt-derived key."""

    label = "encrypted file"

    def __init__(self, path: Path | None = None) -> None:
        self.path = path or paths.encrypted_store_file()
        self._key: bytes | None = None

    def exists(self) -> bool:
        """Whether the store file exists."""
        return self.path.exists()

    def has(self, account: str) -> bool:
        """Whether an entry exists (no passphrase needed)."""
        try:
            data = _read_json(self.path)
        except StoreError:
            return False
        entries = data.get("entries") if data else None
        return isinstance(entries, dict) and account in entries

    def unlock(self, passphrase: Secret) -> None:
        """Derive the key (creating the file on first use); wrong passphrase → :class:`StoreError`."""
        if not passphrase:
            raise StoreError("the encrypted store needs a non-empty passphrase")
        data = _read_json(self.path)
        if data is None:
            salt = secrets.token_bytes(16)
            key = _derive(passphrase, salt, _SCRYPT)
            check = _fernet(key).encrypt(_CHECK_PLAINTEXT).decode()
            document = {"version": 1, "kdf": {"name": "scrypt", "salt": base64.b64encode(salt).decode(),
                                              **_SCRYPT}, "check": check, "entries": {}}
            write_private(self.path, json.dumps(document, indent=1).encode())
            self._key = key
            return
        try:
            kdf = data["kdf"]
            salt = base64.b64decode(kdf["salt"])
            params = {"n": int(kdf["n"]), "r": int(kdf["r"]), "p": int(kdf["p"])}
            check = str(data["check"])
        except (KeyError, TypeError, ValueError):
            raise StoreError(f"{self.path} is damaged; remove it and log in again") from None
        key = _derive(passphrase, salt, params)
        from cryptography.fernet import InvalidToken

        try:
            _fernet(key).decrypt(check.encode())
        except InvalidToken:
            raise StoreError(f"wrong passphrase for the encrypted token store {self.path}") from None
        self._key = key

    @property
    def unlocked(self) -> bool:
        return self._key is not None

    def _require_key(self) -> bytes:
        if self._key is None:
            raise StoreError("the encrypted store is locked (no passphrase given)")
        return self._key

    def get(self, account: str) -> str | None:
        """Decrypt the entry for ``account``."""
        key = self._require_key()
        data = _read_json(self.path) or {}
        entries = data.get("entries")
        if not isinstance(entries, dict) or account not in entries:
            return None
        from cryptography.fernet import InvalidToken

        try:
            return str(_fernet(key).decrypt(str(entries[account]).encode()).decode("utf-8"))
        except InvalidToken:
            raise StoreError(f"the entry for {account} in {self.path} cannot be decrypted") from None

    def set(self, account: str, token: str) -> None:
        """Encrypt and store, then read back."""
        key = self._require_key()
        data = _read_json(self.path)
        if data is None:
            raise StoreError("the encrypted store must be unlocked before storing")
        entries = data.get("entries") if isinstance(data.get("entries"), dict) else {}
        assert isinstance(entries, dict)
        entries[account] = _fernet(key).encrypt(token.encode("utf-8")).decode()
        data["entries"] = entries
        write_private(self.path, json.dumps(data, indent=1).encode())
        if self.get(account) != token:
            raise StoreError(f"{self.path} did not keep the token (read-back mismatch)")

    def delete(self, account: str) -> bool:
        """Remove the entry (no passphrase needed); ``True`` when one was there."""
        data = _read_json(self.path)
        entries = data.get("entries") if data else None
        if data is None or not isinstance(entries, dict) or account not in entries:
            return False
        del entries[account]
        write_private(self.path, json.dumps(data, indent=1).encode())
        return True


def passphrase_from_env() -> Secret | None:
    """``$LABDECK_STORE_PASSPHRASE`` as a Secret, if set and non-empty."""
    value = os.environ.get(PASSPHRASE_ENV)
    return Secret(value) if value else None
