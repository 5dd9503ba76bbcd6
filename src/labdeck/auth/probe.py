"""Checks against the instance before the console starts: TLS settings, who the token belongs to,
and whether the token may write (a request the server refuses before acting on it)."""

from __future__ import annotations

import asyncio
import os
import ssl
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, TypeVar

import httpx

from labdeck.api import ApiClient, RetryPolicy, errors
from labdeck.api.core import describe_transport_error
from labdeck.base.secret import Secret
from labdeck.base.trust import TrustStoreError, chosen_ca_file, expand, shared_context

_Answer = TypeVar("_Answer")

PROBE_TIMEOUT = httpx.Timeout(10.0, connect=5.0)


@dataclass
class TlsSettings:
    """How server certificates are verified."""

    verify: ssl.SSLContext | bool
    description: str
    ca_file: str | None = None
    problem: str | None = None
    """Why the CA setting cannot work (missing or unreadable file), with the fix."""


def tls_settings(ca_file: str | None = None, insecure: bool = False, origin: str = "--ca-file") -> TlsSettings:
    """Resolve certificate verification: ``--insecure`` > CA file > SSL_CERT_FILE > REQUESTS_CA_BUNDLE
    > the default trust store. Only ``--insecure`` turns verification off."""
    if insecure:
        return TlsSettings(False, "verification OFF (--insecure): anyone on the path can read the token")
    chosen, source = chosen_ca_file(ca_file, origin, os.environ)
    if not chosen:
        return TlsSettings(True, "default trust store (certifi)")
    path = expand(chosen)
    if not path.is_file():
        return TlsSettings(True, f"CA file {path} ({source})", str(path),
                           f"CA file {path} ({source}) does not exist: fix the path or remove the setting")
    try:
        # The transport's shared context: the console's clients reuse it instead of reading the file again.
        context = shared_context((str(path),))
    except TrustStoreError as error:
        return TlsSettings(True, f"CA file {path} ({source})", str(path),
                           f"CA file {path} ({source}) is not a PEM certificate bundle ({error.reason})")
    return TlsSettings(context, f"CA file {path} ({source})", str(path))


@dataclass
class UserCheck:
    """Outcome of ``GET /user``."""

    outcome: str
    """``ok``, ``rejected`` (401), ``unreachable``, ``tls``, ``redirect``, ``error``."""
    message: str
    user: dict[str, Any] | None = None
    latency_ms: float | None = None

    @property
    def username(self) -> str:
        return str((self.user or {}).get("username") or "?")

    @property
    def is_admin(self) -> bool:
        return bool((self.user or {}).get("is_admin", False))


@dataclass
class WriteCheck:
    """Whether the token may write: ``read-write``, ``read-only``, ``unknown``, or ``not-checked``
    (read-only by choice: no write request is sent at all)."""

    access: str
    reason: str


def _client(base_url: str, token: Secret | None, tls: TlsSettings) -> ApiClient:
    # The console's own client (same auth header, TLS and proxy handling), without retries: a
    # check should answer quickly and report the first failure as it is.
    return ApiClient(base_url, token, verify=tls.verify is not False, ca_file=tls.ca_file,
                     timeout=PROBE_TIMEOUT, retry=RetryPolicy(max_attempts=1))


NOT_CHECKED = WriteCheck("not-checked", "read-only by choice: no write request was sent")


def _transport_outcome(message: str, base_url: str) -> tuple[str, str]:
    lowered = message.lower()
    if "certificate" in lowered or "ssl" in lowered or "tls" in lowered:
        return "tls", f"TLS certificate of {base_url} not trusted ({message[:160]})"
    return "unreachable", f"cannot connect to {base_url} ({message[:160]})"


def check_user(base_url: str, token: Secret, tls: TlsSettings) -> UserCheck:
    """``GET /user`` through :class:`ApiClient`: reachability, latency, token accepted, who it is."""
    return asyncio.run(_with_client(base_url, token, tls, lambda client: _check_user(client, base_url)))


def check_write_access(base_url: str, token: Secret, tls: TlsSettings, *, read_only: bool = False) -> WriteCheck:
    """Probe write access without changing anything: ``POST /projects`` with no parameters.

    The server rejects it before acting: 403 ``insufficient_scope`` for a token without the ``api``
    scope (read-only), 400 "name, path are missing" for a token that may write. With ``read_only``
    (the user chose read-only) nothing is sent and the answer is :data:`NOT_CHECKED`.
    """
    if read_only:
        return NOT_CHECKED
    return asyncio.run(_with_client(base_url, token, tls, lambda client: _check_write_access(client, base_url)))


@dataclass
class TokenCheck:
    """:func:`check_token`'s answers: who the token belongs to, then (only when it was accepted)
    whether it may write."""

    user: UserCheck
    write: WriteCheck | None


def check_token(base_url: str, token: Secret, tls: TlsSettings, *, read_only: bool = False) -> TokenCheck:
    """:func:`check_user`, then :func:`check_write_access` when the token was accepted, over one
    connection (one client, one TLS handshake: this runs before the console can start)."""

    async def both(client: ApiClient) -> TokenCheck:
        user = await _check_user(client, base_url)
        if user.outcome != "ok":
            return TokenCheck(user, None)
        return TokenCheck(user, NOT_CHECKED if read_only else await _check_write_access(client, base_url))

    return asyncio.run(_with_client(base_url, token, tls, both))


async def _with_client(base_url: str, token: Secret, tls: TlsSettings,
                       check: Callable[[ApiClient], Awaitable[_Answer]]) -> _Answer:
    async with _client(base_url, token, tls) as client:
        return await check(client)


async def _check_user(client: ApiClient, base_url: str) -> UserCheck:
    started = time.perf_counter()
    try:
        user = await client.users.current()
    except errors.TransportError as error:
        return UserCheck(*_transport_outcome(error.message, base_url))
    except errors.Unauthorized as error:
        return UserCheck("rejected", f"the token was rejected (401: {error.message})",
                         latency_ms=_since(started))
    except errors.HttpError as error:
        if 300 <= error.status < 400:
            return UserCheck("redirect", f"the API answered {error.status} (a redirect): use the "
                             "instance root URL, e.g. https://gitlab.example.com", latency_ms=_since(started))
        return UserCheck("error", f"GET /user answered {error.status} ({error.message})",
                         latency_ms=_since(started))
    except errors.ApiError:
        return UserCheck("error", "GET /user did not return a user: is this a GitLab API URL?",
                         latency_ms=_since(started))
    latency = _since(started)
    details = {"username": user.username, "name": user.name, "is_admin": bool(user.is_admin)}
    return UserCheck("ok", "token accepted", details, latency)


def _since(started: float) -> float:
    return (time.perf_counter() - started) * 1000


async def write_access(client: ApiClient) -> WriteCheck:
    """:func:`check_write_access` on a client already open (the console's, after its first frame)."""
    return await _check_write_access(client, client.base_url)


async def _check_write_access(client: ApiClient, base_url: str) -> WriteCheck:
    try:
        # Straight on the client's connection, past its read-only refusal and its retries: the
        # request must be sent exactly as is, once.
        response = await client.http.post("projects", json={})
    except httpx.HTTPError as error:
        return WriteCheck("unknown", _transport_outcome(describe_transport_error(error), base_url)[1])
    status = response.status_code
    body: Any
    try:
        body = response.json()
    except ValueError:
        body = None
    error_code = body.get("error") if isinstance(body, dict) else None
    if status == 403 and error_code == "insufficient_scope":
        return WriteCheck("read-only", "the token lacks the 'api' scope, so writes are refused")
    if status in (400, 422):
        return WriteCheck("read-write", "the token may write")
    if status == 401:
        return WriteCheck("unknown", "the token was rejected (401)")
    if status == 403:
        return WriteCheck("unknown", "the write probe was refused (403); some writes may still work")
    return WriteCheck("unknown", f"the write probe answered {status}")
