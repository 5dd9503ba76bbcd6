"""Attach the token to requests, and keep it out of logs.

The token lives in a :class:`labdeck.secret.Secret` and is revealed only inside
:meth:`TokenAuth.auth_flow`, the one place it goes on the wire. It is sent as ``PRIVATE-TOKEN``
(what GitLab 10.x/11.x accept for personal tokens, wire-facts §7) and only to the origin the
client was configured for, so a pagination link or redirect to another host never receives it.
"""

from __future__ import annotations

import logging
from collections.abc import Generator

import httpx

from labdeck.secret import Secret

TOKEN_HEADER = "PRIVATE-TOKEN"


def _origin(url: httpx.URL) -> tuple[str, str, int | None]:
    port = url.port or (443 if url.scheme == "https" else 80)
    return url.scheme, url.host, port


class TokenAuth(httpx.Auth):
    """Adds ``PRIVATE-TOKEN`` to requests bound for ``base_url``'s origin."""

    def __init__(self, token: Secret, base_url: str) -> None:
        self._token = token
        self._origin = _origin(httpx.URL(base_url))

    def __repr__(self) -> str:
        return "TokenAuth(token=Secret('********'))"

    def auth_flow(self, request: httpx.Request) -> Generator[httpx.Request, httpx.Response, None]:
        """Set the header for same-origin requests; other hosts never see the token."""
        if _origin(request.url) == self._origin:
            request.headers[TOKEN_HEADER] = self._token.reveal()
        yield request


class RedactingFilter(logging.Filter):
    """Replaces known token values (and token-shaped strings) in log records."""

    def __init__(self) -> None:
        super().__init__("labdeck.redact")
        self._secrets: list[Secret] = []

    def add(self, secret: Secret) -> None:
        if secret and secret not in self._secrets:
            self._secrets.append(secret)

    def remove(self, secret: Secret) -> None:
        if secret in self._secrets:
            self._secrets.remove(secret)

    def filter(self, record: logging.LogRecord) -> bool:
        from labdeck.api.errors import redact_text

        try:
            text = record.getMessage()
        except Exception:  # a broken format string must not break logging
            return True
        cleaned = text
        for secret in self._secrets:
            value = secret.reveal()
            if value and value in cleaned:
                cleaned = cleaned.replace(value, "********")
        cleaned = redact_text(cleaned)
        if cleaned != text:
            record.msg = cleaned
            record.args = None
        return True


REDACTOR = RedactingFilter()
# Logger filters do not apply to records propagated from child loggers, so name each one.
_LOGGERS = ("httpx", "httpcore", "httpcore.connection", "httpcore.http11", "httpcore.http2", "httpcore.proxy",
            "labdeck", "labdeck.api")


def install_redactor(token: Secret | None) -> None:
    """Register ``token`` for masking and attach the filter to the HTTP loggers (idempotent)."""
    if token is not None:
        REDACTOR.add(token)
    for name in _LOGGERS:
        logger = logging.getLogger(name)
        if REDACTOR not in logger.filters:
            logger.addFilter(REDACTOR)
