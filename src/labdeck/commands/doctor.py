"""``labdeck doctor``: one line per finding, each with a fix; non-zero exit when labdeck cannot work."""

from __future__ import annotations

import ipaddress
import time
import urllib.request
from dataclasses import dataclass
from typing import IO
from urllib.parse import urlsplit

import httpx

from labdeck.auth import probe
from labdeck.auth.chain import TokenChain, TokenInputError, TokenResolution, resolve_url
from labdeck.auth.keyring_store import KeyringStore, KeyringUnavailable, backend_name
from labdeck.base import logsafe
from labdeck.base.config import Config, ConfigError, load_config
from labdeck.base.secret import Secret

LEVELS = {"ok": "[ ok ]", "warn": "[warn]", "fail": "[FAIL]", "info": "[info]"}


@dataclass
class Finding:
    level: str
    """``ok``, ``info``, ``warn`` or ``fail`` (labdeck cannot work)."""
    topic: str
    text: str
    fix: str | None = None

    def line(self) -> str:
        tail = f" — fix: {self.fix}" if self.fix else ""
        return f"{LEVELS[self.level]} {self.topic}: {self.text}{tail}"


@dataclass
class DoctorOptions:
    profile: str | None = None
    ca_file: str | None = None
    insecure: bool = False
    stdin_token: Secret | None = None
    read_only: bool = False


def is_loopback(url: str) -> bool:
    """Whether ``url`` points at this machine (plain HTTP is fine there)."""
    host = urlsplit(url).hostname or ""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def diagnose(options: DoctorOptions, keyring_store: KeyringStore | None = None) -> list[Finding]:
    """Run every check in order; later checks are skipped when an earlier one makes them pointless."""
    findings: list[Finding] = []
    keyring_store = keyring_store or KeyringStore()
    config = _check_config(findings)
    profile, url, url_origin = resolve_url(config, options.profile)
    if options.profile and profile is None:
        findings.append(Finding("fail", "profile", f"no profile named '{options.profile}' in {config.path}",
                                f"labdeck login --profile {options.profile} --url https://…"))
    if not url:
        findings.append(Finding("fail", "instance", "no instance URL (no profile, no LABDECK_URL/GITLAB_URL)",
                                "labdeck login --url https://gitlab.example.com --token-stdin"))
    else:
        findings.append(Finding("ok", "instance", f"{url} (from {url_origin})"))
    keyring_ok = _check_keyring(findings, keyring_store, profile.token_store if profile else None)
    token: Secret | None = None
    if url:
        profile_name = profile.name if profile else config.selected_profile_name(options.profile)
        chain = TokenChain(keyring_store=keyring_store, interactive=False)
        if not keyring_ok:
            chain.keyring = _SilentKeyring(keyring_store)
        try:
            resolution = chain.resolve(profile_name, url, stdin_token=options.stdin_token, allow_prompt=False)
        except TokenInputError as error:
            findings.append(Finding("fail", "token", str(error),
                                    f"labdeck login --profile {profile_name} --url {url} --token-stdin with the "
                                    "token exactly as the instance showed it (or fix LABDECK_TOKEN)"))
        else:
            token = resolution.token
            _report_token(findings, resolution, profile_name, url)
    ca_file = options.ca_file or (profile.ca_file if profile else None)
    tls = probe.tls_settings(ca_file, options.insecure, "--ca-file" if options.ca_file else "profile ca_file")
    _check_tls(findings, tls, url)
    if url:
        _check_proxy(findings, url)
    if url and tls.problem is None:
        _check_server(findings, url, token, tls, options.read_only or bool(profile and profile.read_only))
    _check_audit_log(findings)
    return findings


def _check_audit_log(findings: list[Finding]) -> None:
    """Every change is recorded before it leaves: the audit log's folder must be writable."""
    from labdeck.audit.log import writable_problem
    from labdeck.base import paths

    path = paths.audit_file()
    problem = writable_problem(path)
    if problem is None:
        findings.append(Finding("ok", "audit log", f"{path} is writable"))
    else:
        findings.append(Finding("warn", "audit log", f"{problem}: changes will be refused (or sent without a "
                                "record if you agree in the console)",
                                f"make {path.parent} writable (chmod u+w), or point XDG_STATE_HOME elsewhere"))


def _report_token(findings: list[Finding], resolution: TokenResolution, profile_name: str, url: str) -> None:
    for note in resolution.notes:
        if not note.startswith("keyring:"):
            findings.append(Finding("warn", "token store", note))
    if resolution.token is None:
        locked = any("locked" in note for note in resolution.notes)
        fix = ("export LABDECK_STORE_PASSPHRASE (or run labdeck in a terminal) to unlock the encrypted file"
               if locked else f"labdeck login --profile {profile_name} --url {url} --token-stdin, or "
               "export LABDECK_TOKEN")
        findings.append(Finding("fail", "token", "no usable token (looked at stdin, env, keyring, encrypted "
                                "and plaintext files)", fix))
    elif resolution.insecure_storage:
        findings.append(Finding("warn", "token", "from a PLAINTEXT file (--insecure-storage)",
                                "labdeck login --encrypted-store (or use a keyring) to replace it"))
    else:
        findings.append(Finding("ok", "token", f"from {resolution.source}"))


class _SilentKeyring(KeyringStore):
    """A keyring already reported unusable: the chain skips it without waiting again."""

    def __init__(self, inner: KeyringStore) -> None:
        super().__init__(inner.timeout)

    def get(self, profile: str, url: str) -> str | None:
        raise KeyringUnavailable("already reported")


def _check_config(findings: list[Finding]) -> Config:
    try:
        config = load_config()
    except ConfigError as error:
        problems = "; ".join(error.problems)
        findings.append(Finding("fail", "config", f"{error.path} is invalid: {problems}",
                                f"edit {error.path}"))
        return Config(path=error.path)
    if not config.exists:
        findings.append(Finding("warn", "config", f"no config file at {config.path}",
                                "labdeck login --url https://… --token-stdin creates it"))
    else:
        default = f", default '{config.default_profile}'" if config.default_profile else ""
        findings.append(Finding("ok", "config", f"{config.path} is valid ({len(config.profiles)} "
                                f"profile(s){default})"))
    return config


def _check_keyring(findings: list[Finding], store: KeyringStore, token_store: str | None) -> bool:
    try:
        backend = store.backend()
    except KeyringUnavailable as error:
        level = "fail" if token_store == "keyring" else "warn"
        findings.append(Finding(level, "keyring", f"not usable: {error}",
                                "use LABDECK_TOKEN, labdeck login --encrypted-store, or start a Secret "
                                "Service (dbus-run-session + gnome-keyring-daemon --unlock)"))
        return False
    findings.append(Finding("ok", "keyring", f"{backend_name(backend)} is usable"))
    return True


def _check_tls(findings: list[Finding], tls: probe.TlsSettings, url: str | None) -> None:
    if tls.problem:
        findings.append(Finding("fail", "tls", tls.problem))
        return
    if tls.verify is False:
        findings.append(Finding("warn", "tls", tls.description, "drop --insecure and use --ca-file"))
        return
    if url and url.startswith("http://"):
        if is_loopback(url):
            findings.append(Finding("ok", "tls", "plain HTTP to this machine (loopback)"))
        else:
            findings.append(Finding("warn", "tls", "plain HTTP: the token crosses the network unencrypted",
                                    "use the https:// URL of the instance"))
        return
    findings.append(Finding("ok", "tls", f"certificates checked against {tls.description}"))


def _check_proxy(findings: list[Finding], url: str) -> None:
    proxies = urllib.request.getproxies_environment()
    host = urlsplit(url).hostname or ""
    scheme = urlsplit(url).scheme
    proxy = proxies.get(scheme) or proxies.get("all")
    if not proxy:
        findings.append(Finding("info", "proxy", "none configured (direct connection)"))
        return
    shown = logsafe.redact(_hide_password(proxy))
    if urllib.request.proxy_bypass_environment(host, proxies):  # type: ignore[attr-defined]
        findings.append(Finding("info", "proxy", f"{shown} is bypassed for {host} (NO_PROXY)"))
    else:
        findings.append(Finding("info", "proxy", f"requests go through {shown} ({scheme.upper()}_PROXY)"))


def _hide_password(proxy: str) -> str:
    parts = urlsplit(proxy)
    if parts.password:
        return proxy.replace(f":{parts.password}@", ":****@")
    return proxy


def _check_server(findings: list[Finding], url: str, token: Secret | None, tls: probe.TlsSettings,
                  read_only_by_choice: bool) -> None:
    if token is None:
        _check_reachable(findings, url, tls)
        return
    check = probe.check_user(url, token, tls)
    if check.outcome in ("unreachable", "tls"):
        fix = ("check the CA: --ca-file or profile ca_file (or SSL_CERT_FILE)" if check.outcome == "tls"
               else "check the URL, VPN and proxy settings")
        findings.append(Finding("fail", "reachability", check.message, fix))
        return
    findings.append(Finding("ok", "reachability", f"{url} answered in {check.latency_ms or 0:.0f} ms"))
    if check.outcome == "redirect":
        findings.append(Finding("fail", "api", check.message, "fix the profile url"))
        return
    if check.outcome == "rejected":
        findings.append(Finding("fail", "token", check.message,
                                "create a new token and run labdeck login (or update LABDECK_TOKEN)"))
        return
    if check.outcome != "ok":
        findings.append(Finding("fail", "api", check.message, "check that the URL is the instance root"))
        return
    role = "administrator" if check.is_admin else "not an administrator"
    findings.append(Finding("ok", "user", f"token valid for @{check.username} ({role})"))
    if read_only_by_choice:
        # Read-only means no write request at all, not even the probe (which a server could act on).
        findings.append(Finding("ok", "access", "read-only by choice (--read-only or profile read_only)"))
        findings.append(Finding("info", "write access", "not checked (read-only by choice)"))
        return
    write = probe.check_write_access(url, token, tls)
    if write.access == "read-only":
        findings.append(Finding("ok", "access", f"read-only: {write.reason}; the console starts read-only",
                                "use a token with the 'api' scope to act on jobs and projects"))
    elif write.access == "read-write":
        findings.append(Finding("ok", "access", "read-write (the token has the 'api' scope)"))
    else:
        findings.append(Finding("warn", "access", f"write access not determined: {write.reason}"))


def _check_reachable(findings: list[Finding], url: str, tls: probe.TlsSettings) -> None:
    started = time.perf_counter()
    try:
        with httpx.Client(verify=tls.verify, timeout=probe.PROBE_TIMEOUT, follow_redirects=False) as client:
            client.get(f"{url}/api/v4/version")
    except httpx.HTTPError as error:
        findings.append(Finding("fail", "reachability", f"cannot connect to {url} ({type(error).__name__})",
                                "check the URL, VPN and proxy settings"))
        return
    latency = (time.perf_counter() - started) * 1000
    findings.append(Finding("ok", "reachability", f"{url} answered in {latency:.0f} ms"))


def run_doctor(options: DoctorOptions, out: IO[str]) -> int:
    """Print the findings; exit code 1 when any check failed, else 0."""
    findings = diagnose(options)
    for finding in findings:
        # Findings quote the server (user name, error messages): print no control characters.
        out.write(logsafe.printable(finding.line()) + "\n")
    failed = [f for f in findings if f.level == "fail"]
    if failed:
        out.write(f"labdeck cannot work: {len(failed)} problem(s) above.\n")
        return 1
    out.write("labdeck is ready.\n")
    return 0
