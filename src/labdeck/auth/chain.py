"""The token chain: where the console's token comes from, first hit wins.

1. ``--token-stdin`` (read before the TUI starts)
2. environment: ``LABDECK_TOKEN``, then ``GITLAB_TOKEN``
3. the OS keyring (3 s timeout; unusable backends refused)
4. the opt-in encrypted file (passphrase from ``LABDECK_STORE_PASSPHRASE`` or a prompt)
5. the ``--insecure-storage`` plaintext file, if ``labdeck login`` wrote one
6. an interactive masked prompt (memory only), when a terminal is attached
"""

from __future__ import annotations

import getpass
import os
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import IO

from labdeck.api.auth import token_problem
from labdeck.auth.file_stores import PASSPHRASE_ENV, EncryptedStore, PlaintextStore, StoreError
from labdeck.auth.keyring_store import KeyringStore, KeyringUnavailable, account
from labdeck.base import logsafe
from labdeck.base.config import Config, Profile, normalise_url
from labdeck.base.secret import Secret

TOKEN_ENV = ("LABDECK_TOKEN", "GITLAB_TOKEN")
URL_ENV = ("LABDECK_URL", "GITLAB_URL")


class TokenInputError(Exception):
    """A token (typed, piped, or found in the environment or a store) is unusable; ``str()`` says
    why and where it came from, never the value."""


def checked_token(value: str, source: str) -> Secret:
    """``value`` as a :class:`Secret`, registered for masking; :class:`TokenInputError` naming
    ``source`` when it holds characters no token has (space, control, non-ASCII)."""
    logsafe.register_secret(value)
    problem = token_problem(value)
    if problem is not None:
        raise TokenInputError(f"{source}: {problem}")
    return Secret(value)


@dataclass
class TokenResolution:
    """The token found by the chain, where it came from, and what went wrong along the way."""

    token: Secret | None
    source: str = "none"
    insecure_storage: bool = False
    notes: list[str] = field(default_factory=list)
    """One line per source that could not be used (e.g. why the keyring is unavailable)."""


def read_token_stream(stream: IO[str]) -> Secret:
    """The token from a pipe (``--token-stdin``): the first non-empty line, whitespace stripped."""
    text = stream.read()
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    if not lines:
        raise TokenInputError("--token-stdin: standard input was empty (pipe the token, e.g. "
                              "`printenv MY_TOKEN | labdeck login --token-stdin …`)")
    token = lines[0]
    logsafe.register_secret(token)
    if len(lines) > 1:
        raise TokenInputError("--token-stdin: expected one token on one line")
    return checked_token(token, "--token-stdin")


def profile_for_url(config: Config, url: str) -> Profile | None:
    """The profile configured for ``url`` (the default profile first), or None."""
    wanted = normalise_url(url)
    default = config.profile(None)
    candidates = ([default] if default is not None else []) + list(config.profiles.values())
    return next((profile for profile in candidates if normalise_url(profile.url) == wanted), None)


def resolve_url(config: Config, profile_name: str | None, environ: Mapping[str, str] | None = None,
                *, url: str | None = None) -> tuple[Profile | None, str | None, str]:
    """The profile and instance URL to use, and where the URL came from.

    URL: ``--url`` (``url``) wins, then an explicit ``--profile``, then ``LABDECK_URL``/``GITLAB_URL``,
    then the default profile. Profile (settings and stored token): the one named by ``--profile``,
    else the one configured for that URL; a URL no profile has gets none (the settings of
    another instance, such as its CA bundle, must not follow it).
    """
    env = os.environ if environ is None else environ
    if url:
        chosen = normalise_url(url)
        profile = config.profiles.get(profile_name) if profile_name else profile_for_url(config, chosen)
        return profile, chosen, "--url"
    profile = config.profile(profile_name)
    if profile_name:
        return profile, (profile.url if profile else None), f"profile {profile_name}"
    for name in URL_ENV:
        if env.get(name):
            chosen = normalise_url(env[name])
            return profile_for_url(config, chosen), chosen, f"env {name}"
    if profile is not None:
        return profile, profile.url, f"profile {profile.name}"
    return None, None, "none"


class TokenChain:
    """Resolve a profile's token through the chain (see module docstring)."""

    def __init__(
        self,
        *,
        keyring_store: KeyringStore | None = None,
        encrypted_store: EncryptedStore | None = None,
        plaintext_store: PlaintextStore | None = None,
        environ: Mapping[str, str] | None = None,
        interactive: bool | None = None,
        prompt: Callable[[str], str] = getpass.getpass,
    ) -> None:
        self.keyring = keyring_store or KeyringStore()
        self.encrypted = encrypted_store or EncryptedStore()
        self.plaintext = plaintext_store or PlaintextStore()
        self.environ = os.environ if environ is None else environ
        self.interactive = sys.stdin.isatty() if interactive is None else interactive
        self.prompt = prompt

    def resolve(self, profile: str, url: str, *, stdin_token: Secret | None = None,
                allow_prompt: bool = True) -> TokenResolution:
        """Walk the chain for ``profile`` at ``url``; the result's notes say why sources were skipped.

        Raises :class:`TokenInputError` when the first token found holds characters no token has
        (rather than silently trying the next source, which could be another account's token).
        """
        notes: list[str] = []
        if stdin_token is not None:
            return self._found(stdin_token, "stdin", notes)
        for name in TOKEN_ENV:
            from_env = self.environ.get(name, "").strip()
            if from_env:
                return self._found(checked_token(from_env, name), f"env:{name}", notes)
        key = account(profile, url)
        value: str | None
        try:
            value = self.keyring.get(profile, url)
        except KeyringUnavailable as error:
            notes.append(f"keyring: {error}")
        else:
            if value:
                return self._found(checked_token(value, "the token stored in the OS keyring"), "keyring", notes)
        found = self._from_encrypted(key, notes, allow_prompt)
        if found is not None:
            return self._found(found, "encrypted file", notes)
        try:
            value = self.plaintext.get(key)
        except StoreError as error:
            notes.append(f"plaintext file: {error}")
        else:
            if value:
                token = checked_token(value, f"the token stored in {self.plaintext.path}")
                resolution = self._found(token, "file (insecure)", notes)
                resolution.insecure_storage = True
                return resolution
        if allow_prompt and self.interactive:
            typed = self.prompt(f"Token for {url} (input hidden, kept in memory only): ").strip()
            if typed:
                return self._found(checked_token(typed, "the typed token"), "prompt", notes)
        return TokenResolution(None, "none", notes=notes)

    def _from_encrypted(self, key: str, notes: list[str], allow_prompt: bool) -> Secret | None:
        if not self.encrypted.has(key):
            return None
        raw = self.environ.get(PASSPHRASE_ENV)
        passphrase = Secret(raw) if raw else None
        if passphrase is None and allow_prompt and self.interactive:
            passphrase = Secret(self.prompt(f"Passphrase for the encrypted token store {self.encrypted.path}: "))
        if passphrase is None:
            notes.append("encrypted file: holds a token but is locked (set LABDECK_STORE_PASSPHRASE or "
                         "run in a terminal to be asked)")
            return None
        logsafe.register_secret(passphrase)
        try:
            self.encrypted.unlock(passphrase)
            value = self.encrypted.get(key)
        except StoreError as error:
            notes.append(f"encrypted file: {error}")
            return None
        return checked_token(value, f"the token stored in {self.encrypted.path}") if value else None

    @staticmethod
    def _found(token: Secret, source: str, notes: list[str]) -> TokenResolution:
        logsafe.register_secret(token)
        return TokenResolution(token, source, notes=notes)
