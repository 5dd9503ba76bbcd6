"""Attach the token to requests, and keep it out of logs.

The token lives in a :class:`labdeck.base.secret.Secret` and is revealed only inside
:meth:`TokenAuth.auth_flow`, the one place it goes on the wire. It is sent as ``PRIVATE-TOKEN``
(what GitLab 10.x/11.x accept for personal tokens, docs/wire-facts.md §7) and only to the origin the
client was configured for, so a pagination link or redirect to another host never receives it.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Generator

import httpx

from labdeck.api.errors import InvalidToken
from labdeck.base import logsafe
from labdeck.base.secret import Secret

TOKEN_HEADER = "PRIVATE-TOKEN"


def _origin(url: httpx.URL) -> tuple[str, str, int | None]:
    port = url.port or (443 if url.scheme == "https" else 80)
    return url.scheme, url.host, port


class TokenAuth(httpx.Auth):
    """Adds ``PRIVATE-TOKEN`` to requests bound for ``base_url``'s origin."""

    def __init__(self, token: Secret, base_url: str) -> None:
        self._token = token
        self._origin = _origin(httpx.URL(base_url))
        self._problem = token_problem(token.reveal())

    def __repr__(self) -> str:
        return "TokenAuth(token=Secret('********'))"

    def auth_flow(self, request: httpx.Request) -> Generator[httpx.Request, httpx.Response, None]:
        """Set the header for same-origin requests; other hosts never see the token.

        Raises :class:`labdeck.api.errors.InvalidToken` (nothing sent) for a token that cannot be
        a header value: the HTTP layer's own refusal would quote it.
        """
        if _origin(request.url) == self._origin:
            if self._problem is not None:
                raise InvalidToken(self._problem, method=request.method, url=str(request.url))
            request.headers[TOKEN_HEADER] = self._token.reveal()
        yield request


TOKEN_CHARACTERS_PROBLEM = "the token contains characters a token cannot have (spaces or control characters)"
_TOKEN_TEXT = re.compile(r"[!-~]+")


def token_problem(value: str) -> str | None:
    """Why ``value`` cannot be a token (anything outside printable ASCII ``!``–``~``), or None.

    The message never quotes the value. A header value with a newline or NUL would be refused by
    the HTTP layer with an error that quotes it; anything else non-ASCII cannot be sent at all.
    """
    if _TOKEN_TEXT.fullmatch(value):
        return None
    return TOKEN_CHARACTERS_PROBLEM


# One registry for every secret: labdeck.base.logsafe's. The filter below masks what it knows in the
# HTTP loggers' records; logsafe.install() (run by the CLI) covers every other record.
REDACTOR = logsafe.RedactingFilter()
# Logger filters do not apply to records propagated from child loggers, so name each one.
_LOGGERS = ("httpx", "httpcore", "httpcore.connection", "httpcore.http11", "httpcore.http2", "httpcore.proxy",
            "labdeck", "labdeck.api")


def install_redactor(token: Secret | None) -> None:
    """Register ``token`` with :mod:`labdeck.base.logsafe` (masked in logs, crash reports and error
    messages) and attach the redacting filter to the HTTP loggers (idempotent)."""
    if token is not None:
        logsafe.register_secret(token.reveal())
    for name in _LOGGERS:
        logger = logging.getLogger(name)
        if REDACTOR not in logger.filters:
            logger.addFilter(REDACTOR)
