"""Injected faults: latency, server errors and rate limiting, for testing a client's resilience.

A :class:`FaultConfig` lives on ``state.extra["faults"]``; it can come from ``labdeck serve
--faults SPEC`` (``latency=100,error_rate=0.1,rate_limit=0.05,retry_after=2,retry_after_format=date``)
or be replaced at run time through ``PUT /-/sim/faults``. Draws come from a ``random.Random``
seeded with the data set's seed, so a sequence of requests meets the same faults every run.

Throttled requests get what Rack::Attack sends (docs/wire-facts.md §2.4): 429, ``text/plain`` body
``Retry later``, ``Retry-After`` (seconds or an HTTP date) and the ``RateLimit-*`` headers.
"""

from __future__ import annotations

import asyncio
import json
import random
import time
from dataclasses import asdict, dataclass, field
from email.utils import formatdate
from typing import Any

from starlette.types import ASGIApp, Receive, Scope, Send

from labdeck.sim.core.state import SimState

_KEY = "faults"
_RNG_KEY = "faults_rng"
_FLOAT_FIELDS = ("latency_ms", "error_rate", "rate_limit")
_INT_FIELDS = ("retry_after", "limit")
_RETRY_FORMATS = ("seconds", "date")


@dataclass
class FaultConfig:
    """What to inject, and where.

    ``latency_ms`` delays every matching request; ``error_rate`` is the share answered with a 5xx
    (cycling through ``error_statuses``); ``rate_limit`` the share answered 429 with ``Retry-After:
    retry_after`` in ``retry_after_format`` (``seconds`` or ``date``). ``path_prefix`` (relative to
    ``/api/v4``, e.g. ``/projects``) and ``methods`` narrow the scope; ``limit`` is the quota reported
    in ``RateLimit-Limit``.
    """

    latency_ms: float = 0.0
    error_rate: float = 0.0
    rate_limit: float = 0.0
    retry_after: int = 1
    retry_after_format: str = "seconds"
    path_prefix: str | None = None
    methods: list[str] = field(default_factory=list)
    error_statuses: list[int] = field(default_factory=lambda: [500, 502, 503])
    limit: int = 600

    @property
    def active(self) -> bool:
        return self.latency_ms > 0 or self.error_rate > 0 or self.rate_limit > 0

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> FaultConfig:
        """Build from JSON (``PUT /-/sim/faults``); ``ValueError`` on an unknown key or bad value."""
        config = cls()
        for key, value in data.items():
            config.set(key, value)
        config.validate()
        return config

    @classmethod
    def parse(cls, spec: str) -> FaultConfig:
        """Parse ``key=value,key=value``; ``methods`` and ``error_statuses`` take ``|``-separated lists."""
        config = cls()
        for part in spec.split(","):
            part = part.strip()
            if not part:
                continue
            key, sep, value = part.partition("=")
            if not sep:
                raise ValueError(f"fault {part!r} is not key=value")
            config.set(key.strip(), value.strip())
        config.validate()
        return config

    def set(self, key: str, value: Any) -> None:
        key = {"latency": "latency_ms", "path": "path_prefix", "method": "methods"}.get(key, key)
        try:
            if key in _FLOAT_FIELDS:
                setattr(self, key, float(value))
            elif key in _INT_FIELDS:
                setattr(self, key, int(value))
            elif key == "retry_after_format":
                self.retry_after_format = str(value)
            elif key == "path_prefix":
                self.path_prefix = str(value) if value else None
            elif key == "methods":
                items = value if isinstance(value, list) else str(value).split("|")
                self.methods = [str(item).upper() for item in items if str(item)]
            elif key == "error_statuses":
                items = value if isinstance(value, list) else str(value).split("|")
                self.error_statuses = [int(item) for item in items if str(item)]
            else:
                raise ValueError(f"unknown fault setting {key!r}")
        except (TypeError, ValueError) as error:
            if "unknown fault" in str(error):
                raise
            raise ValueError(f"bad value for {key}: {value!r}") from None

    def validate(self) -> None:
        for name in ("error_rate", "rate_limit"):
            if not 0.0 <= getattr(self, name) <= 1.0:
                raise ValueError(f"{name} must be between 0 and 1")
        if self.latency_ms < 0 or self.retry_after < 0 or self.limit < 1:
            raise ValueError("latency, retry_after and limit must be positive")
        if self.retry_after_format not in _RETRY_FORMATS:
            raise ValueError("retry_after_format must be 'seconds' or 'date'")
        if any(status < 500 or status > 599 for status in self.error_statuses) or not self.error_statuses:
            raise ValueError("error_statuses must be 5xx codes")

    def matches(self, method: str, api_path: str) -> bool:
        if self.methods and method.upper() not in self.methods:
            return False
        return not self.path_prefix or api_path.startswith(self.path_prefix)


def get_config(state: SimState) -> FaultConfig:
    config = state.extra.get(_KEY)
    return config if isinstance(config, FaultConfig) else FaultConfig()


def set_config(state: SimState, config: FaultConfig) -> None:
    """Install ``config`` (the random sequence restarts from the seed)."""
    state.extra[_KEY] = config
    state.extra[_RNG_KEY] = random.Random(int(state.extra.get("seed", 0)))


def _rng(state: SimState) -> random.Random:
    rng = state.extra.get(_RNG_KEY)
    if not isinstance(rng, random.Random):
        rng = random.Random(int(state.extra.get("seed", 0)))
        state.extra[_RNG_KEY] = rng
    return rng


class FaultMiddleware:
    """Applies the state's :class:`FaultConfig` to ``/api/v4`` and ``/api/graphql`` requests (never
    to ``/-/sim``)."""

    def __init__(self, app: ASGIApp, state: SimState) -> None:
        self.app = app
        self.state = state
        self._window_start = time.time()
        self._observed = 0

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        path = scope.get("path", "") if scope["type"] == "http" else ""
        config = get_config(self.state)
        # GraphQL (``/api/graphql``) meets the same faults, as ``/graphql`` for ``path_prefix``.
        api = path.startswith("/api/v4") or path == "/api/graphql"
        if not api or not config.active:
            await self.app(scope, receive, send)
            return
        api_path = (path[len("/api/v4"):] or "/") if path.startswith("/api/v4") else "/graphql"
        if not config.matches(scope["method"], api_path):
            await self.app(scope, receive, send)
            return
        rng = _rng(self.state)
        throttle = rng.random() < config.rate_limit
        fail = rng.random() < config.error_rate
        status = config.error_statuses[rng.randrange(len(config.error_statuses))]
        if config.latency_ms > 0:
            await asyncio.sleep(config.latency_ms / 1000.0)
        self._count()
        if throttle:
            await self._send(send, 429, b"Retry later", "text/plain", self._rate_headers(config))
        elif fail:
            if status == 500:
                body = json.dumps({"message": "500 Internal Server Error"}).encode()
                await self._send(send, 500, body, "application/json", [])
            else:
                text = {502: "502 Bad Gateway", 503: "503 Service Unavailable"}.get(status, f"{status} Server Error")
                body = f"<html><body><h1>{text}</h1></body></html>".encode()
                await self._send(send, status, body, "text/html", [])
        else:
            await self.app(scope, receive, send)

    def _count(self) -> None:
        now = time.time()
        if now - self._window_start >= 60:
            self._window_start = now
            self._observed = 0
        self._observed += 1

    def _rate_headers(self, config: FaultConfig) -> list[tuple[bytes, bytes]]:
        now = time.time()
        reset_at = now + config.retry_after
        retry_after = formatdate(reset_at, usegmt=True) if config.retry_after_format == "date" \
            else str(config.retry_after)
        observed = max(self._observed, config.limit + 1)
        pairs = {
            "Retry-After": retry_after,
            "RateLimit-Name": "throttle_authenticated_api",
            "RateLimit-Limit": str(config.limit),
            "RateLimit-Observed": str(observed),
            "RateLimit-Remaining": "0",
            "RateLimit-Reset": str(int(reset_at)),
            "RateLimit-ResetTime": formatdate(reset_at, usegmt=True),
        }
        return [(k.lower().encode(), v.encode()) for k, v in pairs.items()]

    @staticmethod
    async def _send(send: Send, status: int, body: bytes, content_type: str,
                    headers: list[tuple[bytes, bytes]]) -> None:
        all_headers = [(b"content-type", content_type.encode()), (b"content-length", str(len(body)).encode()),
                       *headers]
        await send({"type": "http.response.start", "status": status, "headers": all_headers})
        await send({"type": "http.response.body", "body": body})
