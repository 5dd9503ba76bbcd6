"""Build the one ``httpx.AsyncClient``: TLS trust, timeouts, pool limits and proxies.

Proxies: httpx only honours ``HTTPS_PROXY``/``NO_PROXY`` when no ``transport=`` is passed
(reliability.md §0.4), so retries live above the client (:mod:`labdeck.api.retry`) and the
production client is built with ``trust_env=True`` and no custom transport. A transport is
accepted only as a test seam.

TLS: verification is always on unless the caller passes ``verify=False`` explicitly (the
``--insecure`` flag); environment variables can add trust anchors but never disable checks.
"""

from __future__ import annotations

import os
import ssl
from collections.abc import Mapping

import httpx

from labdeck.api.errors import TlsConfigError
from labdeck.api.netstream import keep_sockets
from labdeck.base.trust import TrustStoreError, shared_context, trust_locations

DEFAULT_TIMEOUT = httpx.Timeout(connect=5.0, read=30.0, write=30.0, pool=5.0)
READ_KEEPALIVE = 50.0
"""Seconds an idle connection for reads is kept: longer than the poller's slowest regular round
(the board's 5 s, the CI column's overview) and shorter than the servers' own idle timeouts
(GitLab's nginx: 65 s), so a board left open over TLS pays no new handshake per poll (issue 24).
A server that closes sooner costs nothing but a new connection: httpx drops a connection the
server closed before reusing it, and a read that meets one closing anyway is retried."""
WRITE_KEEPALIVE = 4.0
"""Changes go on their own connections, kept shorter than common server idle timeouts
(uvicorn/nginx: 5 s+): a POST must not be written into a connection the server is closing,
which would make its outcome ambiguous."""
DEFAULT_LIMITS = httpx.Limits(max_connections=16, max_keepalive_connections=16, keepalive_expiry=READ_KEEPALIVE)
WRITE_LIMITS = httpx.Limits(max_connections=8, max_keepalive_connections=4, keepalive_expiry=WRITE_KEEPALIVE)


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
    locations = trust_locations(verify, ca_file, os.environ if environ is None else environ)
    try:
        return shared_context(locations)
    except TrustStoreError as error:
        raise TlsConfigError(str(error)) from None


def build_http_client(base_url: str, *, auth: httpx.Auth | None, verify: bool | str = True,
                      ca_file: str | None = None, timeout: httpx.Timeout | float | None = None,
                      transport: httpx.AsyncBaseTransport | None = None,
                      user_agent: str = "labdeck", limits: httpx.Limits = DEFAULT_LIMITS) -> httpx.AsyncClient:
    """One long-lived client. Redirects are not followed: a 3xx from the API is an error.
    ``limits``: :data:`DEFAULT_LIMITS` for reads, :data:`WRITE_LIMITS` for changes."""
    client = httpx.AsyncClient(
        base_url=base_url,
        auth=auth,
        verify=build_ssl_context(verify, ca_file=ca_file),
        timeout=DEFAULT_TIMEOUT if timeout is None else timeout,
        limits=limits,
        transport=transport,
        trust_env=True,
        follow_redirects=False,
        headers={"User-Agent": user_agent, "Accept": "application/json"},
    )
    keep_sockets(client)
    return client


def share_event_hooks(source: httpx.AsyncClient, target: httpx.AsyncClient) -> None:
    """Make ``target`` run ``source``'s request and response hooks, now and as they change (the
    write pool answers to the same observers as the read pool: the poller's tap, tests' spies).
    httpx copies the hook lists it is given, so the one dict is shared instead."""
    target._event_hooks = source._event_hooks
