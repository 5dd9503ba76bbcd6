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
HURRY_GAP = 2.0
"""Seconds at least between a failure and a probe asked for by hand (``ctrl+r``): however often it
is pressed, at most 30 tries a minute."""


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
        self.asked = False
        """The wait is the server's (``Retry-After``): never shortened."""
        self.failed_at = 0.0
        """When the last failure came (``clock``)."""
        self._probe: asyncio.Event | None = None
        self._cut: asyncio.Event | None = None
        """Set when the wait is cut short (``hurry``, an answer): reads asleep in it go at once."""
        self.hurried = False
        """``ctrl+r`` came while a probe was out: if it fails, the next one follows
        :data:`HURRY_GAP` after it rather than at the end of a longer back-off."""

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
        self.status, self.reason, self.asked, self.failed_at = status, reason, asked is not None, self.clock()
        hurried, self.hurried = self.hurried, False
        if hurried and asked is None:
            self._shorten()  # the press that came during the probe: the next try follows the gap
        self._settle()
        return self.wait()

    def hurry(self) -> float:
        """Someone asks to try now (``ctrl+r``): the back-off's wait ends, and the next read tests
        the server. Never sooner than :data:`HURRY_GAP` after the last failure (at most 30 tries a
        minute however often asked), never two probes at once, and never a wait the server asked
        for. Asked while a probe is out, it is remembered (:attr:`hurried`): should the probe fail,
        the next one follows the gap after it, not the longer back-off (a press is never lost to a
        probe that was on its way). Returns the wait left (0 while a probe is out: trying now)."""
        if self.failures:
            if self._probe is not None:
                self.hurried = True  # the server's wait (if it asked for one) is over: the probe is out
            elif not self.asked:
                self._shorten()
        return self.wait()

    def _shorten(self) -> None:
        until = min(self.open_until, max(self.clock(), self.failed_at + HURRY_GAP))
        if until < self.open_until:
            self.open_until = until
            self._wake_sleepers()

    async def pause(self, sleep: Sleep, wait: float) -> None:
        """Sleep ``wait`` seconds on ``sleep``, or less when the wait is cut short meanwhile."""
        if self._cut is None:
            self._cut = asyncio.Event()
        sleeper = asyncio.ensure_future(sleep(wait))
        woken = asyncio.ensure_future(self._cut.wait())
        try:
            await asyncio.wait({sleeper, woken}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            sleeper.cancel()
            woken.cancel()

    def _wake_sleepers(self) -> None:
        cut, self._cut = self._cut, None
        if cut is not None:
            cut.set()

    def answered(self) -> None:
        """The server answered (anything but a gated status): nothing is held back."""
        self.failures, self.open_until, self.status, self.reason = 0, 0.0, None, None
        self.hurried = False
        self._settle()
        self._wake_sleepers()

    def abandoned(self) -> None:
        """The probe ended without an answer to judge by (cancelled, a transport failure). The wait
        is over, so the next read tests the server at once: a press remembered is answered by it."""
        self.hurried = False
        self._settle()


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
