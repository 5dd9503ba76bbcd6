"""The simulator's request log: what each instance was asked, by whom, and what it answered.

Every request (API, GraphQL and control surface) is kept in a bounded in-memory log on the state,
so that tests and trials can check where a request went, e.g. that a retry on a staging row
reached staging only, and that no instance ever received another instance's token. A token is
never kept: a request names the account whose token it carried (``demo-admin``) when this
instance knows the token, and in any case a short fingerprint of it (:func:`token_fingerprint`),
so an unknown token can still be recognised by whoever holds it.

``GET /-/sim/requests`` serves the log; ``labdeck serve --log-requests`` prints each line as well.
"""

from __future__ import annotations

import hashlib
import threading
from collections import deque
from collections.abc import MutableMapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any, TextIO
from urllib.parse import parse_qsl

from starlette.types import ASGIApp, Receive, Scope, Send

from labdeck.sim.core.clock import iso
from labdeck.sim.core.state import SimState

REQUEST_LOG_SIZE = 10_000
"""Requests kept per instance (the oldest go first)."""


def token_fingerprint(token: str) -> str:
    """A short, one-way name for a token (the first 12 hex digits of its SHA-256)."""
    return hashlib.sha256(token.encode("utf-8", "surrogateescape")).hexdigest()[:12]


@dataclass(frozen=True)
class RequestRecord:
    """One request as the instance saw it."""

    at: datetime
    """Simulated time of arrival."""
    method: str
    path: str
    status: int
    account: str
    """The token's name on this instance (``demo-admin``), ``unknown`` for a token it does not
    know, ``""`` without a token."""
    token: str
    """:func:`token_fingerprint` of the token carried, ``""`` without one."""

    def as_json(self) -> dict[str, Any]:
        """The record as ``GET /-/sim/requests`` lists it."""
        return {"at": iso(self.at), "method": self.method, "path": self.path, "status": self.status,
                "account": self.account, "token": self.token}

    def line(self, label: str = "") -> str:
        """One printable line (``[2] 12:00:05 POST /api/v4/… 201 demo-admin``)."""
        prefix = f"[{label}] " if label else ""
        who = self.account or "-"
        return f"{prefix}{self.at:%H:%M:%S} {self.method} {self.path} {self.status} {who}"


class RequestLog:
    """The bounded log of one instance; ``echo`` (a stream) gets each line as it is logged."""

    def __init__(self, size: int = REQUEST_LOG_SIZE, echo: TextIO | None = None, label: str = "") -> None:
        self._records: deque[RequestRecord] = deque(maxlen=size)
        self._lock = threading.Lock()
        self.echo = echo
        self.label = label

    def add(self, record: RequestRecord) -> None:
        """Keep ``record`` (and print it when echoing)."""
        with self._lock:
            self._records.append(record)
        if self.echo is not None:
            print(record.line(self.label), file=self.echo, flush=True)

    def records(self) -> list[RequestRecord]:
        """Every record kept, oldest first."""
        with self._lock:
            return list(self._records)

    def clear(self) -> None:
        """Forget every record."""
        with self._lock:
            self._records.clear()


def request_log(state: SimState) -> RequestLog:
    """The state's request log (created on first use)."""
    log = state.extra.get("request_log")
    if not isinstance(log, RequestLog):
        with state.lock:
            log = state.extra.get("request_log")
            if not isinstance(log, RequestLog):
                log = RequestLog()
                state.extra["request_log"] = log
    return log


def _token(scope: Scope) -> str | None:
    """The token a request carries: as :func:`labdeck.sim.core.context.token_from` finds it."""
    headers = {name.lower(): value for name, value in scope.get("headers", [])}
    token = headers.get(b"private-token", b"").decode("latin-1")
    if not token:
        query = scope.get("query_string", b"").decode("latin-1")
        token = next((value for name, value in parse_qsl(query) if name == "private_token"), "")
    if not token:
        auth = headers.get(b"authorization", b"").decode("latin-1")
        if auth.lower().startswith("bearer "):
            token = auth[7:].strip()
    return token or None


class RequestLogMiddleware:
    """Logs every HTTP request with the status it was answered (0 when none was sent)."""

    def __init__(self, app: ASGIApp, state: SimState) -> None:
        self.app = app
        self.state = state
        self.log = request_log(state)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        logged = False

        def note(status: int) -> None:
            nonlocal logged
            logged = True
            token = _token(scope)
            record = self.state.tokens.get(token) if token else None
            account = (record.name or "known") if record is not None else ("unknown" if token else "")
            self.log.add(RequestRecord(self.state.now(), scope["method"], scope.get("path", ""), status, account,
                                       token_fingerprint(token) if token else ""))

        async def noted(message: MutableMapping[str, Any]) -> None:
            # Logged before the answer leaves: whoever got the answer finds the request in the log.
            if message["type"] == "http.response.start" and not logged:
                note(int(message["status"]))
            await send(message)

        try:
            await self.app(scope, receive, noted)
        finally:
            if not logged:
                note(0)
