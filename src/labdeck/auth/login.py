"""``labdeck login`` and ``labdeck logout``."""

from __future__ import annotations

import getpass
from collections.abc import Callable
from dataclasses import dataclass
from typing import IO

from labdeck.auth import probe, python_gitlab
from labdeck.auth.chain import TokenInputError, checked_token, read_token_stream
from labdeck.auth.storage import (
    StorageUnavailable,
    TokenStores,
    has_terminal,
    no_keyring_help,
    storage_choice,
)
from labdeck.base import logsafe
from labdeck.base.config import (
    Config,
    ConfigError,
    Profile,
    load_config,
    normalise_url,
    save_config,
    url_problem,
)
from labdeck.base.secret import Secret

STORE_LABELS = {"keyring": "keyring", "encrypted": "encrypted file", "insecure-file": "plaintext file"}


@dataclass
class LoginRequest:
    """The parsed ``labdeck login`` options."""

    profile: str | None
    url: str | None
    token_stdin: bool = False
    insecure_storage: bool = False
    encrypted_store: bool = False
    import_python_gitlab: bool = False
    ca_file: str | None = None
    insecure: bool = False


class Output:
    """Where a command writes: ``out`` for results, ``err`` for problems."""

    def __init__(self, out: IO[str], err: IO[str]) -> None:
        self.out = out
        self.err = err

    # Lines may quote the server (user names, error messages): secrets masked, and no control
    # character or bidi override reaches the terminal.
    def say(self, text: str) -> None:
        self.out.write(logsafe.printable(text, keep_newlines=True) + "\n")

    def warn(self, text: str) -> None:
        self.err.write(logsafe.printable(text, keep_newlines=True) + "\n")


def run_login(request: LoginRequest, out: Output, stdin: IO[str], *,
              stores: TokenStores | None = None,
              prompt: Callable[[str], str] = getpass.getpass) -> int:
    """Validate the token with ``GET /user``, store it, write the profile. Returns the exit code."""
    stores = stores or TokenStores.default()
    try:
        config = load_config()
    except ConfigError as error:
        out.warn(f"labdeck login: {error}\nFix the config file first; nothing was stored.")
        return 1
    if request.import_python_gitlab:
        return _import_python_gitlab(request, config, out, stores, prompt)
    name = config.selected_profile_name(request.profile)
    existing = config.profiles.get(name)
    url = normalise_url(request.url) if request.url else (existing.url if existing else None)
    if not url:
        out.warn("labdeck login: --url is required for a new profile (e.g. --url https://gitlab.example.com)")
        return 2
    if (problem := url_problem(url)) is not None:
        out.warn(f"labdeck login: --url {problem}")
        return 2
    try:
        token = _read_token(request, stdin, url, prompt)
    except TokenInputError as error:
        out.warn(f"labdeck login: {error}")
        return 2
    storage = storage_choice(request.insecure_storage, request.encrypted_store)
    try:
        stores.check(storage, prompt)
    except StorageUnavailable as error:
        if storage == "keyring":
            out.warn(no_keyring_help(str(error), name, url, str(stores.plaintext.path)))
        else:
            out.warn(f"The token was NOT stored: {error}. Nothing was written.")
        return 1
    ca_file = request.ca_file or (existing.ca_file if existing else None)
    tls = probe.tls_settings(ca_file, request.insecure)
    if tls.problem:
        out.warn(f"labdeck login: {tls.problem}. Nothing was stored.")
        return 1
    if not _validate_and_store(name, url, token, tls, storage, stores, out,
                               read_only=bool(existing and existing.read_only)):
        return 1
    profile = existing or Profile(name=name, url=url)
    profile.url = url
    profile.token_store = storage
    if request.ca_file:
        profile.ca_file = request.ca_file
    config.profiles[name] = profile
    if not config.default_profile:
        config.default_profile = name
    save_config(config)
    out.say(f"Profile '{name}' saved in {config.path} (the config file holds no token).")
    if storage == "insecure-file":
        out.warn("WARNING: the token is stored unencrypted. The console will show a permanent warning. "
                 "Prefer the OS keyring or --encrypted-store.")
    return 0


def _read_token(request: LoginRequest, stdin: IO[str], url: str, prompt: Callable[[str], str]) -> Secret:
    if request.token_stdin:
        return read_token_stream(stdin)
    if not has_terminal():
        raise TokenInputError("no terminal to ask for the token: pipe it with --token-stdin")
    typed = prompt(f"Personal access token for {url} (input hidden): ").strip()
    if not typed:
        raise TokenInputError("no token given")
    return checked_token(typed, "the typed token")


def _validate_and_store(name: str, url: str, token: Secret, tls: probe.TlsSettings, storage: str,
                        stores: TokenStores, out: Output, *, read_only: bool = False) -> bool:
    checked = probe.check_token(url, token, tls, read_only=read_only)
    check = checked.user
    if check.outcome != "ok" or checked.write is None:
        out.warn(f"labdeck login: {logsafe.printable(check.message)}. Nothing was stored for profile '{name}'.")
        return False
    admin = "an administrator" if check.is_admin else "not an administrator"
    username = logsafe.printable(check.username)
    full_name = logsafe.printable(str((check.user or {}).get("name") or ""))
    shown_name = f" ({full_name})" if full_name else ""
    out.say(f"Logged in to {url} as @{username}{shown_name}, {admin}.")
    write = checked.write
    if write.access == "not-checked":
        out.say("Token access: not checked (the profile is read-only by choice).")
    elif write.access == "read-only":
        out.say(f"Token access: read-only ({write.reason}); the console will start in read-only mode.")
    elif write.access == "read-write":
        out.say("Token access: read-write.")
    else:
        out.say(f"Token access: not determined ({write.reason}).")
    try:
        stores.store(storage, name, url, token)
    except StorageUnavailable as error:
        if storage == "keyring":
            out.warn(no_keyring_help(str(error), name, url, str(stores.plaintext.path)))
        else:
            out.warn(f"The token was NOT stored: {error}. Nothing was written.")
        return False
    out.say(f"Token stored in {stores.describe(storage)}.")
    return True


def _import_python_gitlab(request: LoginRequest, config: Config, out: Output, stores: TokenStores,
                          prompt: Callable[[str], str]) -> int:
    try:
        source = python_gitlab.read_config()
    except python_gitlab.PythonGitlabConfigError as error:
        out.warn(f"labdeck login: {error}")
        return 1
    wanted = [p for p in source.profiles if request.profile in (None, p.name)]
    if not wanted:
        out.warn(f"labdeck login: no profile {request.profile!r} in {source.path}")
        return 1
    storage = storage_choice(request.insecure_storage, request.encrypted_store)
    if any(p.token is not None for p in wanted):
        try:
            stores.check(storage, prompt)
        except StorageUnavailable as error:
            first = wanted[0]
            if storage == "keyring":
                out.warn(no_keyring_help(str(error), first.name, first.url or "URL", str(stores.plaintext.path)))
            else:
                out.warn(f"The tokens were NOT stored: {error}. Nothing was written.")
            return 1
    out.say(f"Importing from {source.path} (that file is left unchanged).")
    failures = 0
    for item in wanted:
        if not item.url:
            out.warn(f"  {item.name}: {item.note}")
            continue
        profile = config.profiles.get(item.name) or Profile(name=item.name, url=item.url)
        profile.url = item.url
        if item.ca_file:
            profile.ca_file = item.ca_file
        out.say(f"Profile '{item.name}': {item.url}")
        if item.note:
            out.say(f"  note: {item.note}")
        if item.token is not None:
            tls = probe.tls_settings(profile.ca_file, request.insecure, origin="ssl_verify")
            if tls.problem or not _validate_and_store(item.name, item.url, item.token, tls, storage, stores, out,
                                                      read_only=profile.read_only):
                if tls.problem:
                    out.warn(f"  {tls.problem}")
                failures += 1
                out.warn(f"  profile '{item.name}' imported without a token")
            else:
                profile.token_store = storage
        config.profiles[item.name] = profile
    if not config.default_profile and config.profiles:
        config.default_profile = source.default if source.default in config.profiles else next(iter(config.profiles))
    save_config(config)
    out.say(f"Profiles saved in {config.path} (the config file holds no token).")
    return 1 if failures else 0


def run_logout(profile_name: str | None, out: Output, *, stores: TokenStores | None = None) -> int:
    """Remove the profile's token from every store and say where it was."""
    import os

    stores = stores or TokenStores.default()
    try:
        config = load_config()
    except ConfigError as error:
        out.warn(f"labdeck logout: {error}")
        return 1
    name = config.selected_profile_name(profile_name)
    profile = config.profiles.get(name)
    if profile is None:
        known = ", ".join(sorted(config.profiles)) or "none"
        out.warn(f"labdeck logout: no profile named '{name}' in {config.path} (profiles: {known})")
        return 1
    removed, unchecked = stores.remove_everywhere(name, profile.url)
    if removed:
        out.say(f"Removed the token of profile '{name}' ({profile.url}) from: {'; '.join(removed)}.")
    else:
        out.say(f"No stored token for profile '{name}' ({profile.url}); nothing to remove.")
    for line in unchecked:
        out.warn(f"Not checked: {line}")
    recorded = profile.token_store or ""
    stuck = bool(recorded) and any(line.lower().startswith(STORE_LABELS.get(recorded, "?").split()[0].lower())
                                         or (recorded == "keyring" and line.startswith("OS keyring"))
                                         for line in unchecked)
    if stuck:
        out.warn(f"The token may still be in the {STORE_LABELS.get(recorded, recorded)}: remove it there by hand.")
    if profile.token_store is not None:
        profile.token_store = None
        save_config(config)
    out.say(f"Profile '{name}' kept in {config.path} (URL and settings only).")
    for variable in ("LABDECK_TOKEN", "GITLAB_TOKEN"):
        if os.environ.get(variable):
            out.warn(f"Note: {variable} is set in this environment; labdeck will keep using it until you "
                     f"unset it.")
    return 1 if stuck else 0
