"""The poller's manners: a request budget, a cap on requests in flight, and backing off when the
server says so.

- :class:`RequestBudget` is a token bucket refilled at ``requests_per_minute`` (steady state) and
  a second, faster one for the first read of each project (``startup_per_minute``): opening the
  board on 300 projects must not take five minutes, but staying on it must be cheap. A 304 costs
  a token like a 200: GitLab counts it against the rate limit too (docs/wire-facts.md §8).
- A 429 pauses every request until ``Retry-After`` (else ``RateLimit-Reset``, else an exponential
  wait) and halves the rate; the rate recovers step by step while no 429 comes back. A low
  ``RateLimit-Remaining`` (below ``low_ratio`` of ``RateLimit-Limit``) slows the rate down until
  the window resets. Any response counts, the console's other screens included: they share the
  server's quota.
- A sliding window of 60 s caps what is sent in any minute at ``requests_per_minute`` (the
  bucket alone lets a burst on top of a full minute through: 70 in a minute with a burst of 10,
  more with extra pages charged after the fact). Every steady request the board makes passes it
  just before it leaves (:meth:`RequestBudget.turn`), triage's reads included; first reads of
  projects (the start-up bucket) do not. The server counts a request when it gets it, at some
  moment between its leaving and its answer (a wait for a pooled connection, the network, not
  the same for each): a window of sending times let 61-64 reach the server in one of its
  minutes. So a request holds its place from its leaving until 60 s after its answer (while on
  its way it holds it in any case). How long it was on its way is the shorter of the real clock's
  (:attr:`RequestBudget.on_the_way`) and the poller's: the same in the console, but a test's
  clock stands still during an exchange or jumps while one is out.
- :class:`WireTap` is an ``httpx`` response hook on the client that feeds the budget, the
  :class:`~labdeck.watch.clock.ServerClock` and :class:`PollStats`. Requests are attributed to
  the poller through a context variable, so the count is exact (pages and the API layer's own
  retries included) and other screens' requests are not counted as the poller's.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import math
import time
from collections import Counter, deque
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass, field

import httpx

from labdeck.api.retry import RateLimit, server_wait
from labdeck.watch.clock import Clock, ServerClock, WallClock
from labdeck.watch.hints import acted_on


@dataclass
class Attribution:
    """The requests of one ``with tap.attributed(kind)`` block (``requests`` counts them)."""

    tap: WireTap
    kind: str
    requests: int = 0
    startup: bool = False
    """Paid from the start-up bucket (a project's first read): not held to the minute's window."""
    pay: bool = False
    """Not planned by the poller (triage's reads): each request takes a token itself."""


_ROUNDING = 1e-6
"""Tokens short of a whole one by no more than this count as one: a caller that slept exactly
:meth:`RequestBudget.wait_time` must find its token, not wake again for a rounding error."""

_PLACE = "labdeck_window_place"
"""The request's extension that holds its place in the minute's window (:class:`_Sent`)."""

_CURRENT: contextvars.ContextVar[Attribution | None] = contextvars.ContextVar("labdeck_watch_tap", default=None)


@dataclass
class PollStats:
    """What the poller sent (for the status bar, tests and the benchmark)."""

    requests: int = 0
    """HTTP exchanges the poller made (every page, every retry by the API layer)."""
    not_modified: int = 0
    """Answers 304 (nothing transferred, nothing parsed)."""
    parsed: int = 0
    """Bodies parsed into models (a 304, or a 200 whose ETag the poller already held, parses nothing)."""
    throttled: int = 0
    """Answers 429."""
    errors: int = 0
    """Failed reads (error statuses, transport failures)."""
    by_kind: Counter[str] = field(default_factory=Counter)
    """Requests per kind: ``activity``, ``jobs``, ``watched``, ``runners``."""


_LONGEST_WAY = 40.0
"""No request is on its way longer (the client's timeouts: pool 5 s, connect 5 s, read 30 s): one
whose answer never came (a transport failure) frees its place 60 s after that at the latest."""


@dataclass(slots=True)
class _Sent:
    """A steady request's place in the minute's window."""

    left: float
    """When it left (the poller's clock)."""
    left_real: float
    """When it left (:attr:`RequestBudget.on_the_way`'s clock)."""
    took: float | None = None
    """Seconds on its way, once its answer came."""

    def until(self, on_the_way: Clock) -> float:
        """When its place frees (the poller's clock): 60 s after its answer. While it is on its
        way, 60 s after it left: no request is on its way for 60 s (:data:`_LONGEST_WAY`), so its
        place is still held at any moment it could be; once it has been out that long (its
        answer never came: a transport failure), 60 s after the longest way."""
        if self.took is not None:
            return self.left + self.took + 60.0
        if on_the_way() - self.left_real >= _LONGEST_WAY:
            return self.left + _LONGEST_WAY + 60.0
        return self.left + 60.0


class RequestBudget:
    """Token buckets plus the server's wishes. ``clock`` is monotonic seconds, ``wall`` Unix seconds."""

    def __init__(self, requests_per_minute: float = 60.0, *, burst: float = 10.0,
                 startup_per_minute: float = 1800.0, startup_burst: float = 20.0, low_ratio: float = 0.1,
                 clock: Clock = time.monotonic, wall: WallClock = time.time,
                 on_the_way: Clock = time.monotonic) -> None:
        self.rate = max(requests_per_minute, 1.0) / 60.0
        self.burst = max(burst, 1.0)
        self.startup_rate = max(startup_per_minute, requests_per_minute) / 60.0
        self.startup_burst = max(startup_burst, 1.0)
        self.low_ratio = low_ratio
        self._clock = clock
        self._wall = wall
        now = clock()
        self._tokens = self.burst
        self._startup_tokens = self.startup_burst
        self._filled_at = now
        self.paused_until: float | None = None
        """Monotonic time before which nothing may be sent (a 429)."""
        self.penalty = 1.0
        """Rate factor after 429s (halved on each, recovering ×1.5 per quiet minute)."""
        self._penalised_at = now
        self._low_until: float | None = None
        self._throttles = 0
        self.rate_limit: RateLimit | None = None
        """The last ``RateLimit-*`` state the server sent."""
        self.per_minute = max(1, int(requests_per_minute))
        """The hard cap: steady requests the server gets in any 60 s."""
        self._sent: deque[_Sent] = deque()
        """The steady requests still holding a place in the window, in the order they left."""
        self.on_the_way: Clock = on_the_way
        """Measures how long a request was on its way (the real clock in the console)."""

    # --- the minute's window -----------------------------------------------------------------------

    def _ends(self, now: float) -> list[float]:
        """When each place in the window frees (dropping those already free): 60 s after its
        answer; a request still on its way holds its place until 60 s after now at the least."""
        sent = self._sent
        while sent and sent[0].until(self.on_the_way) <= now:
            sent.popleft()
        return [cell.until(self.on_the_way) for cell in sent]

    def window_wait(self) -> float:
        """Seconds until one more steady request fits the last 60 s (0: now)."""
        now = self._clock()
        if len(self._sent) < self.per_minute:
            return 0.0
        ends = [end for end in self._ends(now) if end > now]
        if len(ends) < self.per_minute:
            return 0.0
        ends.sort()
        return max(0.0, ends[len(ends) - self.per_minute] - now) + _ROUNDING

    def sent_in_window(self) -> int:
        """Steady requests holding a place in the window (answered within the last 60 s, or on
        their way)."""
        now = self._clock()
        return sum(1 for end in self._ends(now) if end > now)

    async def turn(self, sleep: Callable[[float], Awaitable[None]]) -> _Sent:
        """Wait until a steady request fits the minute's window, and count it as sent; the cell
        returned is given to :meth:`answered` when its answer comes."""
        while (wait := self.window_wait()) > 0:
            await sleep(wait)
        cell = _Sent(self._clock(), self.on_the_way())
        self._sent.append(cell)
        return cell

    def answered(self, cell: _Sent) -> None:
        """The answer of ``cell``'s request came: it holds its place until 60 s after now."""
        if cell.took is None:
            # On its way no longer than either clock says: the same clock in the console; in a test
            # the poller's stands still during an exchange, or jumps while one is out.
            took = max(0.0, min(self.on_the_way() - cell.left_real, self._clock() - cell.left))
            # In whole tenths, rounded down: what delays a request's arrival enough to matter (a
            # wait for a pooled connection behind a busy one, 0.1-1 s) is kept, and a few
            # milliseconds of the machine's load do not move the window's edges by themselves
            # (where the poller lives at its budget, they reordered which reads went first).
            cell.took = math.floor(took * 10.0) / 10.0

    # --- tokens ------------------------------------------------------------------------------------

    @property
    def factor(self) -> float:
        """The current share of the configured rate (1.0 when nothing slows the poller down)."""
        now = self._clock()
        low = 0.25 if self._low_until is not None and now < self._low_until else 1.0
        return self.penalty * low

    def _refill(self) -> None:
        now = self._clock()
        elapsed = max(0.0, now - self._filled_at)
        self._filled_at = now
        if self.penalty < 1.0 and now - self._penalised_at >= 60.0:
            self.penalty = min(1.0, self.penalty * 1.5)
            self._penalised_at = now
        factor = self.factor
        self._tokens = min(self.burst, self._tokens + elapsed * self.rate * factor)
        self._startup_tokens = min(self.startup_burst, self._startup_tokens + elapsed * self.startup_rate * factor)

    def paused(self) -> float:
        """Seconds until requests may go again (0 when not paused)."""
        if self.paused_until is None:
            return 0.0
        left = self.paused_until - self._clock()
        if left <= 0:
            self.paused_until = None
            return 0.0
        return left

    def try_take(self, *, startup: bool = False, reserve: float = 0.0) -> bool:
        """Take one token (from the startup bucket for a project's first read); False when empty
        or paused. ``reserve``: leave at least this many tokens (background work such as the sweep
        only runs while the budget has room to spare, so urgent reads get it under load)."""
        if self.paused() > 0:
            return False
        self._refill()
        if startup:
            if self._startup_tokens >= 1.0 - _ROUNDING:
                self._startup_tokens -= 1.0
                return True
            return False
        if self.window_wait() > 0:
            return False
        if self._tokens >= 1.0 + reserve - _ROUNDING:
            self._tokens -= 1.0
            return True
        return False

    def wait_time(self, *, startup: bool = False, reserve: float = 0.0) -> float:
        """Seconds until the (startup or steady) bucket holds a token again, or the pause ends;
        ``reserve``: a token beyond that many (see :meth:`try_take`)."""
        pause = self.paused()
        if pause > 0:
            return pause
        self._refill()
        window = 0.0 if startup else self.window_wait()
        tokens, rate = (self._startup_tokens, self.startup_rate) if startup else (self._tokens, self.rate)
        wanted = 1.0 if startup else 1.0 + reserve
        if tokens >= wanted - _ROUNDING:
            return window
        if wanted > (self.startup_burst if startup else self.burst):
            return math.inf  # the bucket never holds that much: only other work can wake the caller
        return max(window, (wanted - tokens) / (rate * self.factor))

    def charge(self, requests: int, *, startup: bool = False) -> None:
        """Take ``requests`` more tokens after the fact (extra pages of a listing); the bucket may
        go below zero, which delays what comes next: the average stays within the budget.
        ``startup``: the first read of a project (a big pipeline's scoped reads with it) is paid
        from the start-up bucket, not from the steady one the board lives on afterwards."""
        if requests > 0:
            self._refill()
            if startup:
                self._startup_tokens -= requests
            else:
                self._tokens -= requests

    # --- what the server says ----------------------------------------------------------------------

    def observe(self, status: int, headers: httpx.Headers) -> None:
        """Learn from one response: ``RateLimit-*``, and on a 429 pause and slow down."""
        limit = RateLimit.from_headers(headers)
        now = self._clock()
        if limit is not None:
            self.rate_limit = limit
            if limit.limit and limit.remaining is not None and limit.remaining < limit.limit * self.low_ratio:
                reset = limit.reset_at.timestamp() - self._wall() if limit.reset_at is not None else 60.0
                self._low_until = now + min(max(reset, 1.0), 300.0)
        if status != 429:
            return
        self._throttles += 1
        wait = server_wait(headers, self._wall(), 429)
        if wait is None:
            wait = min(2.0 ** self._throttles, 300.0)
        until = now + min(wait, 3600.0)
        self.paused_until = max(self.paused_until or 0.0, until)
        self.penalty = max(0.125, self.penalty * 0.5)
        self._penalised_at = self.paused_until  # recovery counts from the end of the pause

    def succeeded(self) -> None:
        """A request went through: the exponential wait for header-less 429s starts over."""
        self._throttles = 0


class WireTap:
    """An ``httpx`` response hook feeding the budget, the server clock and the statistics.

    ``install(http)`` appends it to ``http.event_hooks["response"]``; ``uninstall`` removes it.
    Requests sent inside ``with tap.attributed(kind):`` count as the poller's.
    """

    def __init__(self, budget: RequestBudget, server_clock: ServerClock, stats: PollStats,
                 *, wall: WallClock = time.time, sleep: Callable[[float], Awaitable[None]] | None = None) -> None:
        self.budget = budget
        self._sleep = sleep
        self.on_action: Callable[[int | str], None] | None = None
        """Told which project a change the console made (any screen's) was about."""
        self.server_clock = server_clock
        self.stats = stats
        self._wall = wall
        self._http: httpx.AsyncClient | None = None

    def install(self, http: httpx.AsyncClient) -> None:
        """Start observing every response of ``http`` (idempotent)."""
        hooks = http.event_hooks["response"]
        if self._hook not in hooks:
            hooks.append(self._hook)
        before = http.event_hooks["request"]
        if self._before not in before:
            before.append(self._before)
        self._http = http

    def uninstall(self) -> None:
        """Stop observing (idempotent)."""
        if self._http is not None:
            hooks = self._http.event_hooks["response"]
            if self._hook in hooks:
                hooks.remove(self._hook)
            before = self._http.event_hooks["request"]
            if self._before in before:
                before.remove(self._before)
            self._http = None

    @contextlib.contextmanager
    def attributed(self, kind: str, *, startup: bool = False, pay: bool = False) -> Iterator[Attribution]:
        """Count the requests made in this block (this task and tasks it starts) as ``kind``; each
        waits its turn in the minute's window (unless ``startup``); ``pay``: each takes a token too
        (reads the poller did not plan, such as triage's)."""
        attribution = Attribution(self, kind, startup=startup, pay=pay)
        token = _CURRENT.set(attribution)
        try:
            yield attribution
        finally:
            _CURRENT.reset(token)

    async def _before(self, request: httpx.Request) -> None:
        current = _CURRENT.get()
        if current is None or current.tap is not self or current.startup:
            return
        if current.pay:
            self.budget.charge(1)
        request.extensions[_PLACE] = await self.budget.turn(self._sleep or asyncio.sleep)

    async def _hook(self, response: httpx.Response) -> None:
        place = response.request.extensions.get(_PLACE)
        if isinstance(place, _Sent):
            self.budget.answered(place)
        self.server_clock.observe(response.headers.get("date"), self._wall())
        self.budget.observe(response.status_code, response.headers)
        if self.on_action is not None:
            request = response.request
            project = acted_on(request.method, request.url.path, response.status_code)
            if project is not None:
                self.on_action(project)
        current = _CURRENT.get()
        if current is None or current.tap is not self:
            return
        current.requests += 1
        stats = self.stats
        stats.requests += 1
        stats.by_kind[current.kind] += 1
        if response.status_code == 304:
            stats.not_modified += 1
        elif response.status_code == 429:
            stats.throttled += 1
