"""The poller's ear on the client: :class:`WireTap`, an ``httpx`` request and response hook that feeds
the :class:`~labdeck.watch.budget.RequestBudget`, the :class:`~labdeck.watch.clock.ServerClock` and
:class:`~labdeck.watch.budget.PollStats` (split out of :mod:`labdeck.watch.budget`).

Requests are attributed to the poller through a context variable (``with tap.attributed(kind):``),
so the count is exact (pages and the API layer's own retries included) and other screens' requests
are not counted as the poller's. Each attributed request waits its turn in the budget's minute's
window before it leaves; one not planned by the poller (``pay``: triage's pages and logs) first
waits for a token the board's own reads leave to spare (:meth:`RequestBudget.spare_turn`).
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import time
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass

import httpx

from labdeck.api.holding import held_before_sending
from labdeck.watch.budget import PollStats, RequestBudget, WindowPlace
from labdeck.watch.clock import ServerClock, WallClock
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
    """Not planned by the poller (triage's reads): each request waits for a token to spare
    (:meth:`RequestBudget.spare_turn`) and takes it."""
    urgent: bool = False
    """A change source or a read of a change it saw: may take the places of the minute's window
    every other request leaves (:attr:`RequestBudget.check_room`)."""


_PLACE = "labdeck_window_place"
"""The request's extension that holds its place in the minute's window (:class:`~labdeck.watch.budget.WindowPlace`)."""

_CURRENT: contextvars.ContextVar[Attribution | None] = contextvars.ContextVar("labdeck_watch_tap", default=None)


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
    def attributed(self, kind: str, *, startup: bool = False, pay: bool = False,
                   urgent: bool = False) -> Iterator[Attribution]:
        """Count the requests made in this block (this task and tasks it starts) as ``kind``; each
        waits its turn in the minute's window (unless ``startup``); ``pay``: each waits for a token the
        board's own reads leave to spare, and takes it (reads the poller did not plan, such as
        triage's); ``urgent``: see :attr:`Attribution.urgent`."""
        attribution = Attribution(self, kind, startup=startup, pay=pay, urgent=urgent)
        token = _CURRENT.set(attribution)
        try:
            yield attribution
        finally:
            _CURRENT.reset(token)

    async def _before(self, request: httpx.Request) -> None:
        current = _CURRENT.get()
        if current is None or current.tap is not self or current.startup:
            return
        turn = self._turn(current.pay, urgent=current.urgent)
        request.extensions[_PLACE] = await held_before_sending(request, turn)

    async def _turn(self, pay: bool, *, urgent: bool) -> WindowPlace:
        sleep = self._sleep or asyncio.sleep
        if pay:
            await self.budget.spare_turn(sleep)
        return await self.budget.turn(sleep, urgent=urgent)

    async def _hook(self, response: httpx.Response) -> None:
        place = response.request.extensions.get(_PLACE)
        if isinstance(place, WindowPlace):
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
