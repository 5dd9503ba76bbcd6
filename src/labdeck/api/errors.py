"""The client's exception tree: one class per failure a user can act on.

Every error carries the HTTP method and the URL *without* credentials, and offers a one-line
:meth:`ApiError.user_message` for the status bar, safe to display or print (no control characters,
no bidi overrides). Tokens never reach these objects: the client sends the token in a header
attached by :class:`labdeck.api.auth.TokenAuth`, URLs are passed through :func:`redact_url`, and
every message is masked with :mod:`labdeck.base.logsafe`'s registry of known secrets.
"""

from __future__ import annotations

import re
from http import HTTPStatus
from typing import Any

from labdeck.base import logsafe
from labdeck.base.logsafe import redact_text, redact_url

# C0/C1 controls (ESC starts terminal escape sequences) and the bidi overrides/isolates that
# reorder displayed text: a server message must not be able to disguise or restyle itself.
_UNSAFE = re.compile("[\x00-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def _one_line(text: str, limit: int = 200) -> str:
    cleaned = _UNSAFE.sub(lambda match: " " if match.group().isspace() else "", str(text))
    flat = " ".join(cleaned.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def _beyond_status(status: int, message: str) -> str:
    """`` — message`` when the server's message says more than the status (GitLab's bodies are
    often ``{"message": "401 Unauthorized"}``: shown after "Not authorized (401)" it said it twice)."""
    words = re.findall(r"[^\W\d_]+", message.replace(str(status), " ").lower())
    reason = re.findall(r"[^\W\d_]+", HTTPStatus(status).phrase.lower())
    return "" if not words or words == reason else f" — {message}"


class ApiError(Exception):
    """Base of every error raised by :mod:`labdeck.api`."""

    def __init__(self, message: str, *, method: str = "", url: str = "") -> None:
        self.method = method
        self.url = logsafe.redact(redact_url(url)) if url else ""
        self.message = logsafe.redact(redact_text(message))
        super().__init__(self.__str__())

    def __str__(self) -> str:
        where = f"{self.method} {self.url}: " if self.method else ""
        return f"{where}{self.message}"

    def __repr__(self) -> str:
        return f"{type(self).__name__}(method={self.method!r}, url={self.url!r}, message={self.message!r})"

    def user_message(self) -> str:
        """One line for the status bar: what happened, without secrets."""
        return _one_line(self.message)


class TransportError(ApiError):
    """The server could not be reached or the connection broke (wraps the httpx exception)."""

    def user_message(self) -> str:
        return _one_line(f"Cannot reach the server: {self.message}")


class TlsConfigError(ApiError):
    """A CA bundle or certificate directory could not be loaded."""

    def user_message(self) -> str:
        return _one_line(f"TLS setup failed: {self.message}")


class InvalidToken(ApiError):
    """The token holds characters no token has (space, control, non-ASCII): nothing was sent."""

    def user_message(self) -> str:
        return "The token contains characters a token cannot have (spaces or control characters): sign in again"


class OutcomeUnknown(ApiError):
    """A POST/PUT/DELETE may have reached the server but no answer came back.

    It is never retried automatically; re-read the resource to learn what happened.
    """

    def user_message(self) -> str:
        return _one_line(f"{self.method} may or may not have been applied ({self.message}); refresh to check")

    def what_happened(self) -> str:
        """What came back, in a few words: ``no answer from the server`` (the answer was lost on
        the way), or for a 5xx ``the server answered 502 Bad Gateway``."""
        return "no answer from the server"


class AuditUnavailable(ApiError):
    """A change was not sent because its audit record could not be written first (the audit log's
    folder is not writable, the disk is full…). Nothing left: safe to do again once allowed."""

    def __init__(self, method: str, url: str, reason: str) -> None:
        super().__init__(f"not sent: {reason}", method=method, url=url)
        self.reason = reason

    def user_message(self) -> str:
        return _one_line(f"Not sent: every change is recorded in the audit log before it leaves, and {self.reason}",
                         300)


class ReadOnlyError(ApiError):
    """A state-changing request was refused locally because the client is read-only."""

    def __init__(self, method: str, url: str) -> None:
        super().__init__("read-only mode: changes are disabled", method=method, url=url)

    def user_message(self) -> str:
        return "Read-only mode: this action is disabled"


class UnexpectedResponse(ApiError):
    """The server answered 2xx with a body that does not fit the expected shape."""

    def user_message(self) -> str:
        return _one_line(f"Unexpected answer from the server ({self.method} {self.url})")


class WrongAnswer(UnexpectedResponse):
    """A 2xx that is not the API's answer (:mod:`labdeck.api.answers`): a sign-in or proxy page,
    another JSON shape, a body cut off. A failed read like any other: the data is not believed,
    not cached, and the caller keeps what it had, marked stale. ``message`` is the reason."""

    def user_message(self) -> str:
        return _one_line(self.message)


class HttpError(ApiError):
    """The server answered with an error status."""

    def __init__(self, status: int, method: str, url: str, message: str, body: Any = None) -> None:
        self.status = status
        self.body = body
        super().__init__(message, method=method, url=url)

    def __str__(self) -> str:
        return f"{self.method} {self.url}: HTTP {self.status}: {self.message}"

    def __repr__(self) -> str:
        return (f"{type(self).__name__}(status={self.status}, method={self.method!r}, "
                f"url={self.url!r}, message={self.message!r})")

    def user_message(self) -> str:
        return _one_line(f"Server error {self.status}: {self.message}")


class Unauthorized(HttpError):
    """401: the token is missing, wrong, expired or revoked."""

    def user_message(self) -> str:
        return _one_line(f"Not authorized (401): check or renew the token{_beyond_status(401, self.message)}")


class Forbidden(HttpError):
    """403: authenticated, but not allowed."""

    def user_message(self) -> str:
        return _one_line(f"Forbidden (403){_beyond_status(403, self.message).replace(' — ', ': ', 1)}")


class NotFound(HttpError):
    """404: missing, or invisible to this account (GitLab answers 404 for private resources)."""

    def user_message(self) -> str:
        return _one_line(f"Not found (404): {self.message}")


class Conflict(HttpError):
    """409: the change conflicts with the current state."""

    def user_message(self) -> str:
        return _one_line(f"Conflict (409): {self.message}")


class ValidationError(HttpError):
    """400/422: the server rejected parameters; ``fields`` maps a field to its messages."""

    def __init__(self, status: int, method: str, url: str, message: str, body: Any = None,
                 fields: dict[str, list[str]] | None = None) -> None:
        self.fields: dict[str, list[str]] = fields or {}
        super().__init__(status, method, url, message, body)

    def user_message(self) -> str:
        if self.fields:
            parts = [f"{name} {'; '.join(msgs)}" for name, msgs in self.fields.items()]
            return _one_line(f"Invalid request ({self.status}): " + ", ".join(parts))
        return _one_line(f"Invalid request ({self.status}): {self.message}")


class RateLimited(HttpError):
    """429: too many requests; ``retry_after`` is the wait in seconds when the server said."""

    def __init__(self, status: int, method: str, url: str, message: str, body: Any = None,
                 retry_after: float | None = None) -> None:
        self.retry_after = retry_after
        super().__init__(status, method, url, message, body)

    def user_message(self) -> str:
        wait = f"; retry in {max(0, round(self.retry_after))} s" if self.retry_after is not None else ""
        return _one_line(f"Rate limited (429){wait}")


class ServerError(HttpError):
    """5xx: the server failed."""

    def user_message(self) -> str:
        return _one_line(f"Server failure ({self.status}): {self.message}")


AMBIGUOUS_STATUSES = frozenset({500, 502, 503, 504})
"""Answers to a POST/PUT/DELETE that do not say whether the change happened: the application may
have acted before failing, or a gateway may have timed out while it was still working."""


class AmbiguousServerError(ServerError, OutcomeUnknown):
    """500/502/503/504 to a POST/PUT/DELETE: a server failure whose outcome is unknown.

    It is both a :class:`ServerError` (``status``, ``body``) and an :class:`OutcomeUnknown`, so
    callers that re-read the resource after an ambiguous failure do so. Never retried automatically.
    """

    def user_message(self) -> str:
        return _one_line(f"{self.method} answered {self.status}: the outcome is unknown, the change may or may "
                         f"not have been applied; refresh to check ({self.message})")

    def what_happened(self) -> str:
        phrase = _REASON_PHRASES.get(self.status, "")
        return f"the server answered {self.status} {phrase}".rstrip()


_REASON_PHRASES = {500: "Internal Server Error", 502: "Bad Gateway", 503: "Service Unavailable",
                   504: "Gateway Timeout"}


def server_message(body: Any, fallback: str) -> str:
    """The human message of a GitLab error body (``message`` or ``error`` shape)."""
    if isinstance(body, dict):
        if "message" in body:
            message = body["message"]
            if isinstance(message, str):
                return message
            if isinstance(message, dict):
                if set(message) == {"error"} and isinstance(message["error"], str):
                    return message["error"]
                flat = _flatten_fields(message)
                return ", ".join(f"{k} {'; '.join(v)}" for k, v in flat.items()) or fallback
            if isinstance(message, list):
                return "; ".join(str(item) for item in message) or fallback
            return str(message)
        if "error" in body:
            text = str(body["error"])
            if body.get("error_description"):
                text = f"{text}: {body['error_description']}"
            return text
    if isinstance(body, str) and body.strip():
        page = html_page_summary(body)
        return page if page is not None else body.strip()
    return fallback


_HTML_START = re.compile(r"^\s*(<!doctype html|<html|<head|<body)", re.IGNORECASE)
_TITLE = re.compile(r"<title[^>]*>(.*?)</title>", re.IGNORECASE | re.DOTALL)
_HEADING = re.compile(r"<h1[^>]*>(.*?)</h1>", re.IGNORECASE | re.DOTALL)
_SIGNATURE = re.compile(r"<hr[^>]*>\s*<center[^>]*>(.*?)</center>", re.IGNORECASE | re.DOTALL)
_TAGS = re.compile(r"<[^>]*>")


def html_page_summary(text: str, server: str | None = None) -> str | None:
    """``502 Bad Gateway (nginx)`` for a proxy's HTML error page (its title or first heading, and
    the server's signature or ``Server`` header); None when ``text`` is not an HTML page.

    A gateway's page must never reach a toast or the status line as markup soup."""
    if not _HTML_START.match(text):
        return None
    found = _TITLE.search(text) or _HEADING.search(text)
    title = " ".join(_TAGS.sub(" ", found.group(1)).split()) if found else ""
    signature = _SIGNATURE.search(text)
    name = " ".join(_TAGS.sub(" ", signature.group(1)).split()) if signature else (server or "").strip()
    name = name.split("/", 1)[0][:40]  # "nginx/1.25.3": the product is enough
    title = _one_line(title or "an HTML error page", 80)
    return f"{title} ({_one_line(name, 40)})" if name else title


def _flatten_fields(data: dict[str, Any], prefix: str = "") -> dict[str, list[str]]:
    fields: dict[str, list[str]] = {}
    for key, value in data.items():
        name = f"{prefix}.{key}" if prefix else str(key)
        if isinstance(value, dict):
            fields.update(_flatten_fields(value, name))
        elif isinstance(value, list):
            fields[name] = [str(item) for item in value]
        else:
            fields[name] = [str(value)]
    return fields


_MISSING = re.compile(r"^(?P<names>[\w\[\], ]+?) (?P<what>is missing|are missing|is invalid|is empty|does not have a valid value)")


def validation_fields(body: Any) -> dict[str, list[str]]:
    """Field errors of a 400/422 body: the ``message`` hash, or Grape's ``"x is missing"``."""
    if isinstance(body, dict):
        message = body.get("message")
        if isinstance(message, dict):
            return _flatten_fields(message)
        if isinstance(message, list):
            return {"base": [str(item) for item in message]}
        error = body.get("error")
        if isinstance(error, str):
            match = _MISSING.match(error)
            if match:
                what = match.group("what").replace("are ", "is ")
                names = [n.strip() for n in match.group("names").split(",") if n.strip()]
                return {name: [what] for name in names}
    return {}


def error_for_status(status: int, method: str, url: str, body: Any, *,
                     retry_after: float | None = None, ambiguous: bool = False) -> HttpError:
    """Build the exception matching ``status`` from a parsed response body.

    ``ambiguous`` (a request that may have changed something, i.e. not GET/HEAD/OPTIONS) turns a
    500/502/503/504 into :class:`AmbiguousServerError`.
    """
    message = server_message(body, f"HTTP {status}")
    if ambiguous and status in AMBIGUOUS_STATUSES:
        return AmbiguousServerError(status, method, url, message, body)
    if status == 401:
        return Unauthorized(status, method, url, message, body)
    if status == 403:
        return Forbidden(status, method, url, message, body)
    if status == 404:
        return NotFound(status, method, url, message, body)
    if status == 409:
        return Conflict(status, method, url, message, body)
    if status in (400, 422):
        return ValidationError(status, method, url, message, body, fields=validation_fields(body))
    if status == 429:
        return RateLimited(status, method, url, message, body, retry_after=retry_after)
    if status >= 500:
        return ServerError(status, method, url, message, body)
    return HttpError(status, method, url, message, body)
