"""Build the one ``httpx.AsyncClient``: TLS trust, timeouts, pool limits and proxies.

Proxies: httpx only honours ``HTTPS_PROXY``/``NO_PROXY`` when no ``transport=`` is passed
(reliability.md §0.4), so retries live above the client (:mod:`labdeck.api.retry`) and the
production client is built with ``trust_env=True`` and no custom transport. A transport is
accepted only as a test seam.

TLS: verification is always on unless the caller passes ``verify=False`` explicitly (the
``--insecure`` flag); environment variables can add trust anchors but never disable checks.
"""

from __future__ import annotations

import functools
import os
import ssl
from collections.abc import Mapping
from pathlib import Path

import certifi
import httpx

from labdeck.api.errors import TlsConfigError

DEFAULT_TIMEOUT = httpx.Timeout(connect=5.0, read=30.0, write=30.0, pool=5.0)
# Keep-alive shorter than common server idle timeouts (uvicorn/nginx: 5 s+) so a POST is not
# written into a connection the server is closing, which would make its outcome ambiguous.
DEFAULT_LIMITS = httpx.Limits(max_connections=16, max_keepalive_connections=16, keepalive_expiry=4.0)


def _load_location(context: ssl.SSLContext, location: str) -> None:
    path = Path(location).expanduser()
    try:
        if path.is_dir():
            context.load_verify_locations(capath=str(path))
        else:
            context.load_verify_locations(cafile=str(path))
    except (OSError, ssl.SSLError, ValueError) as exc:
        raise TlsConfigError(f"cannot load CA certificates from {path}: {exc}") from None


def _verifying_context() -> ssl.SSLContext:
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    context.check_hostname = True
    context.verify_mode = ssl.CERT_REQUIRED
    context.minimum_version = ssl.TLSVersion.TLSv1_2
    return context


def _trust_locations(verify: bool | str, ca_file: str | None, env: Mapping[str, str]) -> tuple[str, ...]:
    """Where the trust anchors come from, first match wins (see :func:`build_ssl_context`)."""
    explicit = verify if isinstance(verify, str) else ca_file
    if explicit:
        return (explicit,)
    cert_file, cert_dir = env.get("SSL_CERT_FILE"), env.get("SSL_CERT_DIR")
    if cert_file or cert_dir:
        return tuple(location for location in (cert_file, cert_dir) if location)
    return (env.get("REQUESTS_CA_BUNDLE") or env.get("CURL_CA_BUNDLE") or certifi.where(),)


def _version(location: str) -> tuple[int, int]:
    """What tells a changed CA file apart (a new bundle must be read again, not served from memory)."""
    try:
        stat = Path(location).expanduser().stat()
    except OSError:
        return (-1, -1)
    return (stat.st_mtime_ns, stat.st_size)


@functools.lru_cache(maxsize=8)
def _shared_context(locations: tuple[str, ...], versions: tuple[tuple[int, int], ...]) -> ssl.SSLContext:
    # Reading a CA bundle costs ~15-30 ms; the start-up check, the console and a profile switch each
    # build a client, and one context can serve them all (an SSLContext is made to be shared).
    context = _verifying_context()
    for location in locations:
        _load_location(context, location)
    return context


def build_ssl_context(verify: bool | str = True, *, ca_file: str | None = None,
                      environ: Mapping[str, str] | None = None) -> ssl.SSLContext | bool:
    """The ``verify`` value for httpx: a verifying context, or False.

    Trust anchors, first match wins: ``verify`` given as a path, ``ca_file`` (a per-profile CA
    bundle), ``SSL_CERT_FILE``/``SSL_CERT_DIR``, ``REQUESTS_CA_BUNDLE`` (what python-gitlab users
    already set), then certifi. Only ``verify=False`` turns verification off; no variable can.
    The context is shared by every client with the same trust anchors (read again when a file
    changes); treat it as read-only.
    """
    if verify is False:
        return False
    locations = _trust_locations(verify, ca_file, os.environ if environ is None else environ)
    return _shared_context(locations, tuple(_version(location) for location in locations))


def build_http_client(base_url: str, *, auth: httpx.Auth | None, verify: bool | str = True,
                      ca_file: str | None = None, timeout: httpx.Timeout | float | None = None,
                      transport: httpx.AsyncBaseTransport | None = None,
                      user_agent: str = "labdeck") -> httpx.AsyncClient:
    """One long-lived client. Redirects are not followed: a 3xx from the API is an error."""
    return httpx.AsyncClient(
        base_url=base_url,
        auth=auth,
        verify=build_ssl_context(verify, ca_file=ca_file),
        timeout=DEFAULT_TIMEOUT if timeout is None else timeout,
        limits=DEFAULT_LIMITS,
        transport=transport,
        trust_env=True,
        follow_redirects=False,
        headers={"User-Agent": user_agent, "Accept": "application/json"},
    )
