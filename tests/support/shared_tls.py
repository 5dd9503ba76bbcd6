"""Tests create hundreds of plain httpx clients (control surface, fault proxies, spies); httpx
loads the whole CA bundle for each one (35 ms). The default verifying context is made once per
worker instead: the same trust anchors, so a test of certificate checks sees what users get."""

from __future__ import annotations

import os
import ssl
from typing import Any

import httpx._transports.default as httpx_transports

_shared: dict[tuple[str | None, str | None], ssl.SSLContext] = {}


def install() -> None:
    """Make httpx's default ``verify=True`` context a shared one (other ``verify`` values untouched)."""
    original = httpx_transports.create_ssl_context
    if getattr(original, "labdeck_shared", False):
        return

    def create_ssl_context(verify: Any = True, cert: Any = None, trust_env: bool = True) -> ssl.SSLContext:
        if verify is not True or cert is not None:
            return original(verify=verify, cert=cert, trust_env=trust_env)
        key = (os.environ.get("SSL_CERT_FILE"), os.environ.get("SSL_CERT_DIR")) if trust_env else (None, None)
        if key not in _shared:
            _shared[key] = original(verify=verify, cert=cert, trust_env=trust_env)
        return _shared[key]

    create_ssl_context.labdeck_shared = True  # type: ignore[attr-defined]
    httpx_transports.create_ssl_context = create_ssl_context  # type: ignore[assignment]
