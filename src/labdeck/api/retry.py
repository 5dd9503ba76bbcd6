"""Retry maths: which failures are retried, how long to wait, and the per-call time budget.

Rules (reliability.md §3.2–3.3):
- GET/HEAD retry on connect errors, timeouts, dropped connections, 429, 502, 503 and 504.
- POST/PUT/DELETE retry only when the request never left (connect failure or pool timeout).
- Waits use full-jitter exponential backoff ``U(0, min(cap, base * 2**n))``; a server-given
  ``Retry-After`` (seconds or HTTP date) or, for a 429, ``RateLimit-Reset`` (epoch seconds)
  replaces it and is never shortened. A wait longer than ``max_wait`` or the remaining budget is not attempted:
  the error goes to the caller with the wait, so the UI can show a countdown.
"""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime

import httpx

IDEMPOTENT_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
RETRY_STATUSES = frozenset({429, 502, 503, 504})

Sleep = Callable[[float], Awaitable[None]]
Clock = Callable[[], float]


@dataclass
class RetryPolicy:
    """How hard a call tries. ``sleep``, ``clock`` and ``rng`` are injectable for tests.

    ``clock`` is monotonic seconds (budget), ``wall`` is Unix seconds (HTTP dates, RateLimit-Reset).
    """

    max_attempts: int = 4
    base: float = 0.5
    cap: float = 8.0
    max_wait: float = 60.0
    budget: float = 30.0
    statuses: frozenset[int] = RETRY_STATUSES
    sleep: Sleep = field(default=asyncio.sleep, repr=False)
    clock: Clock = field(default=time.monotonic, repr=False)
    wall: Clock = field(default=time.time, repr=False)
    rng: random.Random = field(default_factory=random.Random, repr=False)

    def backoff(self, attempt: int) -> float:
        """Full-jitter wait before retry number ``attempt`` (0 for the first retry)."""
        return self.rng.uniform(0.0, min(self.cap, self.base * (2**attempt)))


def never_left(exc: BaseException) -> bool:
    """True when the request certainly did not reach the server (safe to resend any method)."""
    return isinstance(exc, httpx.ConnectError | httpx.ConnectTimeout | httpx.PoolTimeout)


def retryable_exception(exc: BaseException, method: str) -> bool:
    """Whether a transport failure may be retried for ``method``."""
    if never_left(exc):
        return True
    if method.upper() not in IDEMPOTENT_METHODS:
        return False
    return isinstance(exc, httpx.TimeoutException | httpx.NetworkError | httpx.RemoteProtocolError)


def parse_retry_after(value: str | None, now: float) -> float | None:
    """Seconds to wait from a ``Retry-After`` value (delay-seconds or HTTP-date); None if malformed."""
    if value is None:
        return None
    text = value.strip()
    if not text:
        return None
    try:
        seconds = float(text)
    except ValueError:
        try:
            when = parsedate_to_datetime(text)
        except (TypeError, ValueError, IndexError):
            return None
        if when is None:
            return None
        if when.tzinfo is None:
            when = when.replace(tzinfo=UTC)
        return max(0.0, when.timestamp() - now)
    if seconds != seconds or seconds in (float("inf"), float("-inf")):
        return None
    return max(0.0, seconds)


def server_wait(headers: httpx.Headers, now: float, status: int) -> float | None:
    """The wait the server asked for: ``Retry-After``, else (for a 429 only) ``RateLimit-Reset``
    minus now.

    ``RateLimit-Reset`` says when the rate-limit window resets; GitLab sends it on every response,
    so on a 502/503/504 it says nothing about when the server will be back (the backoff applies).
    """
    wait = parse_retry_after(headers.get("retry-after"), now)
    if wait is not None:
        return wait
    if status != 429:
        return None
    reset = headers.get("ratelimit-reset")
    if reset:
        try:
            epoch = float(reset)
        except ValueError:
            return None
        if epoch > 1e9:
            return max(0.0, epoch - now)
        return max(0.0, epoch)  # a small number is a delta (some proxies send one)
    return None


GATED_STATUSES = frozenset({429, 502, 503, 504})
"""Answers after which the whole client holds back (the server, not one request, is in trouble)."""


class ServerGate:
    """One client's manners towards a server in trouble, shared by every read it makes.

    After a 502/503/504, a refused or dropped connection, a timeout or a sign-in page in place of
    the API, nothing more is sent until a wait is over: exponential with jitter
    (``U(d/2, d)``, ``d = base·2^(n-1)`` up to ``cap``) after the n-th failure in a row, or what
    the server asked for (a 429's ``Retry-After``). Then one request goes (the probe) while the
    others wait for its answer: a storm costs a handful of requests a minute whatever the number
    of screens, projects and retries waiting (issue 24: at most 30 a minute).
    """

    def __init__(self, *, base: float = 1.0, cap: float = 60.0, clock: Clock = time.monotonic,
                 rng: random.Random | None = None) -> None:
        self.base = base
        self.cap = cap
        self.clock = clock
        self.rng = rng or random.Random()
        self.failures = 0
        self.open_until = 0.0
        self.status: int | None = None
        self.reason: str | None = None
        """What the last failure was (``502 Bad Gateway (nginx)``, ``rate limited``)."""
        self._probe: asyncio.Event | None = None
        self._now: asyncio.Event | None = None
        """Set by :meth:`try_now`: the reads sleeping out the wait go at once."""

    @property
    def closed(self) -> bool:
        """True while nothing holds requests back."""
        return self.failures == 0

    def wait(self) -> float:
        """Seconds before the next request may be sent (0: now)."""
        return 0.0 if self.failures == 0 else max(0.0, self.open_until - self.clock())

    @property
    def probing(self) -> bool:
        """A request is testing whether the server is back."""
        return self._probe is not None

    def claim(self) -> bool:
        """Become the probe (True), unless one is under way or nothing is held back."""
        if self.failures == 0:
            return False
        if self._probe is not None:
            return False
        self._probe = asyncio.Event()
        return True

    async def probe_answered(self) -> None:
        """Wait until the probe under way has its answer (at once when there is none)."""
        probe = self._probe
        if probe is not None:
            await probe.wait()

    def _settle(self) -> None:
        probe, self._probe = self._probe, None
        if probe is not None:
            probe.set()

    def failed(self, status: int | None, reason: str, asked: float | None = None, *, probe: bool = True) -> float:
        """The server failed again (``asked``: the wait it asked for); returns the wait.

        ``status`` None: no answer came (refused, reset, timed out); a 2xx: an answer that was not
        the API's (a sign-in page). Every kind of failure goes through this one gate.

        ``probe`` False: a request that left before the gate held anything back (the first burst).
        Its failure confirms the trouble but is not one more failure in a row: six reads failing
        together wait as long as one, and the waits grow with each failed probe."""
        if probe or self.failures == 0:
            self.failures += 1
        if asked is not None:
            delay = asked
        else:
            ceiling = min(self.cap, self.base * 2 ** (self.failures - 1))
            delay = self.rng.uniform(ceiling / 2, ceiling)
        self.open_until = max(self.open_until, self.clock() + delay) if asked is None else self.clock() + delay
        self.status, self.reason = status, reason
        self._settle()
        return self.wait()

    def answered(self) -> None:
        """The server answered (anything but a gated status): nothing is held back."""
        self.failures, self.open_until, self.status, self.reason = 0, 0.0, None, None
        self._settle()

    def abandoned(self) -> None:
        """The probe ended without an answer to judge by (cancelled, a transport failure)."""
        self._settle()

    def try_now(self) -> bool:
        """The user asks to try again (``ctrl+r``): the wait ends now, so the next request is the
        probe. Still one probe at a time, and the failures in a row are kept: if it fails, the
        wait after it is longer than the last. False when nothing is held back or a probe is out."""
        if self.failures == 0 or self._probe is not None:
            return False
        self.open_until = min(self.open_until, self.clock())
        now, self._now = self._now, None
        if now is not None:
            now.set()
        return True

    async def sleep(self, sleep: Callable[[float], Awaitable[None]], seconds: float) -> None:
        """Sleep out ``seconds`` of the wait with ``sleep``, or less when :meth:`try_now` ends it."""
        if self._now is None:
            self._now = asyncio.Event()
        woken = asyncio.ensure_future(self._now.wait())
        slept = asyncio.ensure_future(sleep(seconds))
        try:
            await asyncio.wait((woken, slept), return_when=asyncio.FIRST_COMPLETED)
        finally:
            woken.cancel()
            slept.cancel()
        if slept.done() and not slept.cancelled():
            slept.result()  # a failure of the sleep itself is not swallowed


@dataclass(frozen=True)
class RateLimit:
    """The server's rate-limit state from ``RateLimit-*`` headers (for the status bar)."""

    limit: int | None
    remaining: int | None
    reset_at: datetime | None
    observed: int | None = None

    @classmethod
    def from_headers(cls, headers: httpx.Headers) -> RateLimit | None:
        """Parse the headers; None when the response carried none."""
        def number(name: str) -> int | None:
            raw = headers.get(name)
            if raw is None:
                return None
            try:
                return int(float(raw))
            except ValueError:
                return None

        limit, remaining, observed = number("ratelimit-limit"), number("ratelimit-remaining"), number("ratelimit-observed")
        reset = number("ratelimit-reset")
        if limit is None and remaining is None and reset is None:
            return None
        if remaining is None and limit is not None and observed is not None:
            remaining = max(0, limit - observed)
        reset_at = datetime.fromtimestamp(reset, UTC) if reset is not None and reset > 1e9 else None
        return cls(limit=limit, remaining=remaining, reset_at=reset_at, observed=observed)
