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
- Reads the poller did not plan (triage's pages and logs) take only what the board's own reads
  leave to spare (:meth:`RequestBudget.spare_turn`): a token beyond half the burst and as many
  free places in the window. Where the board's reads take the whole budget (hundreds of projects)
  nothing is ever spare, so one such read at least every :data:`SPARE_PATIENCE` claims the next
  token, which the board's reads leave to it: triage is slowed, never stopped.
- :class:`~labdeck.watch.tap.WireTap` is the ``httpx`` hook on the client that feeds the budget
  (and counts the poller's requests).
"""

from __future__ import annotations

import math
import time
from collections import Counter, deque
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

import httpx

from labdeck.api.retry import RateLimit, server_wait
from labdeck.watch.clock import Clock, WallClock

_ROUNDING = 1e-6
"""Tokens short of a whole one by no more than this count as one: a caller that slept exactly
:meth:`RequestBudget.wait_time` must find its token, not wake again for a rounding error."""

_SPARE_LOOK = 5.0
"""Longest wait between two looks at the budget for a spare token (a 429's pause, a reserve the
bucket cannot hold: the next look decides again)."""

SPARE_PATIENCE = 6.0
"""Seconds a read the poller did not plan waits for a spare token (since it began to wait, or since
the last such read took its token, whichever is later) before it claims the next one: where the
board's own reads take the whole budget, triage still reads a page or a log every 6 s (10 a minute,
a sixth of the default budget) and its verdicts come, later."""

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
class WindowPlace:
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
        self._sent: deque[WindowPlace] = deque()
        """The steady requests still holding a place in the window, in the order they left."""
        self.on_the_way: Clock = on_the_way
        """Measures how long a request was on its way (the real clock in the console)."""
        self._claimed = False
        """A read the poller did not plan waited :data:`SPARE_PATIENCE`: the next token and the next
        place in the window are its (the board's reads leave them)."""
        self._spare_at = -math.inf
        """When the last read the poller did not plan took its token."""
        self.spare_reserve = self.burst / 2
        """Tokens (and places of the window) a read the poller did not plan leaves to the board's
        own: half the burst, as background work such as the sweep does; the poller raises it to
        what its busy and failing projects may want at once."""
        self.check_room = 0
        """Places of the minute's window the board's change check keeps for its next round (the
        poller sets it to what a round costs): every other steady request leaves them free. Where
        the board's reads fill the minute, the check would otherwise wait with them, and a push it
        sees at its cadence (5-7 s) was seen 22 s late."""

    # --- the minute's window -----------------------------------------------------------------------

    def _ends(self, now: float) -> list[float]:
        """When each place in the window frees (dropping those already free): 60 s after its
        answer; a request still on its way holds its place until 60 s after now at the least."""
        sent = self._sent
        while sent and sent[0].until(self.on_the_way) <= now:
            sent.popleft()
        return [cell.until(self.on_the_way) for cell in sent]

    def window_wait(self, *, room: int = 0) -> float:
        """Seconds until one more steady request fits the last 60 s (0: now); ``room``: with that
        many places left free beside it (see :meth:`spare_turn`)."""
        now = self._clock()
        cap = max(1, self.per_minute - room)
        if len(self._sent) < cap:
            return 0.0
        ends = [end for end in self._ends(now) if end > now]
        if len(ends) < cap:
            return 0.0
        ends.sort()
        return max(0.0, ends[len(ends) - cap] - now) + _ROUNDING

    def sent_in_window(self) -> int:
        """Steady requests holding a place in the window (answered within the last 60 s, or on
        their way)."""
        now = self._clock()
        return sum(1 for end in self._ends(now) if end > now)

    def _room(self, urgent: bool) -> int:
        """Places a steady request leaves free: none for an ``urgent`` one (a change source, or the
        read of a project one saw move), the check's own (:attr:`check_room`) for any other."""
        return 0 if urgent else self.check_room

    async def turn(self, sleep: Callable[[float], Awaitable[None]], *, urgent: bool = False) -> WindowPlace:
        """Wait until a steady request fits the minute's window, and count it as sent; the cell
        returned is given to :meth:`answered` when its answer comes. ``urgent``: a change source's
        request or the read of what one saw move, which may take the places every other one leaves
        (:attr:`check_room`)."""
        room = self._room(urgent)
        while (wait := self.window_wait(room=room)) > 0:
            await sleep(wait)
        cell = WindowPlace(self._clock(), self.on_the_way())
        self._sent.append(cell)
        return cell

    async def spare_turn(self, sleep: Callable[[float], Awaitable[None]]) -> None:
        """Wait until the budget has a token to spare for a read the poller did not plan (triage's
        pages and logs), and take it: one beyond :attr:`spare_reserve` tokens, with as many places
        of the minute's window left free. The board's own reads, due at the cadence their rows
        promise, keep that much; a triage round that took its tokens after the fact (the bucket
        went below zero) held them back 10 s, and failed rows read every 25 s went 35 s old.
        Nothing is spare while the board's reads take the whole budget: after
        :data:`SPARE_PATIENCE` the read claims the next token and place, which the board leaves."""
        since = self._clock()
        claim = False
        try:
            while True:
                reserve = min(self.spare_reserve, self.burst - 1.0)
                room = int(reserve) + self.check_room
                patience = max(since, self._spare_at) + SPARE_PATIENCE - self._clock()
                if not claim and not self._claimed and patience <= 0:
                    claim = self._claimed = True
                if claim:
                    taken = self.paused() <= 0 and self._take(0.0, self.check_room)
                else:
                    taken = self.window_wait(room=room) <= 0 and self.try_take(reserve=reserve)
                if taken:
                    self._spare_at = self._clock()
                    return
                if claim:
                    wait = self.paused() or self._steady_wait(1.0, self.check_room)
                else:
                    wait = max(self.wait_time(reserve=reserve), self.window_wait(room=room))
                    if not self._claimed:
                        wait = min(wait, patience)
                await sleep(min(max(wait, 0.05), _SPARE_LOOK))
        finally:
            if claim:
                self._claimed = False

    def answered(self, cell: WindowPlace) -> None:
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

    def try_take(self, *, startup: bool = False, reserve: float = 0.0, urgent: bool = False) -> bool:
        """Take one token (from the startup bucket for a project's first read); False when empty
        or paused. ``reserve``: leave at least this many tokens (background work such as the sweep
        only runs while the budget has room to spare, so urgent reads get it under load). A steady
        read leaves a claimed token and place (:meth:`spare_turn`) too, and unless ``urgent`` (a
        change source, or the read of what one saw move) the places the check keeps
        (:attr:`check_room`)."""
        if self.paused() > 0:
            return False
        self._refill()
        if startup:
            if self._startup_tokens >= 1.0 - _ROUNDING:
                self._startup_tokens -= 1.0
                return True
            return False
        hold = 1 if self._claimed else 0
        return self._take(reserve + hold, hold + self._room(urgent))

    def _take(self, reserve: float, room: int) -> bool:
        """Take a steady token beyond ``reserve``, with ``room`` places of the window left free."""
        self._refill()
        if self.window_wait(room=room) > 0:
            return False
        if self._tokens >= 1.0 + reserve - _ROUNDING:
            self._tokens -= 1.0
            return True
        return False

    def wait_time(self, *, startup: bool = False, reserve: float = 0.0, urgent: bool = False) -> float:
        """Seconds until the (startup or steady) bucket holds a token again, or the pause ends;
        ``reserve``, ``urgent``: as for :meth:`try_take`."""
        pause = self.paused()
        if pause > 0:
            return pause
        self._refill()
        if startup:
            if self._startup_tokens >= 1.0 - _ROUNDING:
                return 0.0
            return (1.0 - self._startup_tokens) / (self.startup_rate * self.factor)
        hold = 1 if self._claimed else 0
        # A claimed token goes first; past the burst the claim is taken by then, and the caller looks again.
        wanted = min(1.0 + reserve + hold, max(1.0 + reserve, self.burst))
        return self._steady_wait(wanted, hold + self._room(urgent))

    def _steady_wait(self, wanted: float, room: int) -> float:
        """Seconds until the steady bucket holds ``wanted`` tokens and the window ``room`` + 1 places."""
        self._refill()
        window = self.window_wait(room=room)
        if self._tokens >= wanted - _ROUNDING:
            return window
        if wanted > self.burst:
            return math.inf  # the bucket never holds that much: only other work can wake the caller
        return max(window, (wanted - self._tokens) / (self.rate * self.factor))

    def charge(self, requests: int, *, startup: bool = False) -> None:
        """Take ``requests`` more tokens after the fact (extra pages of a listing); the bucket may
        go below zero, which delays what comes next: the average stays within the budget. A
        negative ``requests`` gives tokens back (a read that sent fewer requests than it took).
        ``startup``: the first read of a project (a big pipeline's scoped reads with it) is paid
        from the start-up bucket, not from the steady one the board lives on afterwards."""
        if requests > 0:
            self._refill()
            if startup:
                self._startup_tokens -= requests
            else:
                self._tokens -= requests
        elif requests < 0:
            # A read that sent nothing (what a GraphQL batch vouched for needed no probe) gives its
            # token back: thirty busy projects' empty rounds had kept the bucket dry, and the reads
            # of new failures waited 3 s each for tokens the minute never spent.
            self._refill()
            if startup:
                self._startup_tokens = min(self.startup_burst, self._startup_tokens - requests)
            else:
                self._tokens = min(self.burst, self._tokens - requests)

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
