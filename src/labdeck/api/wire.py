"""Words about HTTP exchanges that are safe to show: a transport failure, an error answer (never
its page, never a header), and the body of an answer as JSON or text."""

from __future__ import annotations

import json as jsonlib
from typing import Any

import httpx

from labdeck.api import errors
from labdeck.base import logsafe

TOKEN_REFUSED = "token refused (401)"
"""What the status line and the board say once the server refuses the token."""


def status_reason(response: httpx.Response) -> str:
    """A short, safe name for an error answer: ``502 Bad Gateway (nginx)`` for a proxy's HTML page,
    the server's message otherwise (never the page itself)."""
    status = response.status_code
    try:
        body = body_of(response)
    except httpx.ResponseNotRead:
        body = None
    if isinstance(body, str):
        page = errors.html_page_summary(body, response.headers.get("server"))
        text = page if page is not None else body
    else:
        text = errors.server_message(body, f"HTTP {status}")
    text = " ".join(logsafe.printable(text).split())[:80] or f"HTTP {status}"
    return text if text.startswith(str(status)) else f"HTTP {status}: {text}"


def describe_transport_error(exc: BaseException) -> str:
    """A short description of an httpx transport failure, safe to show (never quotes a header)."""
    names: dict[type[BaseException], str] = {
        httpx.ConnectTimeout: "connection timed out",
        httpx.ReadTimeout: "no answer in time",
        httpx.WriteTimeout: "sending timed out",
        httpx.PoolTimeout: "no free connection in time",
        httpx.ConnectError: "connection failed",
        httpx.RemoteProtocolError: "connection dropped",
        httpx.ReadError: "connection broken while reading",
        httpx.WriteError: "connection broken while sending",
    }
    if isinstance(exc, httpx.LocalProtocolError):
        # h11 quotes the offending header value, and the one header we add holds the token.
        return "invalid request header (check the token)"
    name = names.get(type(exc), type(exc).__name__)
    detail = logsafe.redact(str(exc).strip())
    return f"{name} ({detail})" if detail and detail != name else name


def body_of(response: httpx.Response) -> Any:
    """The parsed JSON body, the text when it is not JSON, or None when empty."""
    content = response.content
    if not content:
        return None
    try:
        return jsonlib.loads(content)
    except ValueError:
        return response.text
