"""A request held back before it leaves (a budget's turn): not yet the server's to answer.

The exchange starts a request's clocks when it hands the request to ``httpx``, whose request hooks
run first; a hook that waits there (the board's budget: a place in the minute's window, a token to
spare for triage) would otherwise count as the server's silence (the status line's `no answer for
24 s`) and be taken from the request's time budget (`no answer within 30 s`, and every read held
back as if the server were gone). A hook waits through :func:`held_before_sending`, which stops both
clocks while it waits.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable
from dataclasses import dataclass
from typing import TypeVar

import httpx

T = TypeVar("T")

_HOLD = "labdeck_hold"
"""The request's extension that holds its :class:`SendClock`."""


@dataclass
class SendClock:
    """When a request left (or was handed over), whether it is held back now, and its deadline."""

    deadline: asyncio.Timeout | None
    left_at: float
    held: bool = False

    def attach(self, request: httpx.Request) -> None:
        """Make this the clock of ``request`` (read by :func:`held_before_sending`)."""
        request.extensions[_HOLD] = self


async def held_before_sending(request: httpx.Request, wait: Awaitable[T]) -> T:
    """Await ``wait`` before ``request`` leaves; the time it takes is neither the server's silence
    nor part of the request's time budget (its deadline moves on by as much)."""
    clock = request.extensions.get(_HOLD)
    if not isinstance(clock, SendClock):
        return await wait
    began = time.monotonic()
    deadline = clock.deadline
    # The deadline stops while the request waits (it may wait longer than its whole time budget),
    # and moves on by as much afterwards.
    when = deadline.when() if deadline is not None and not deadline.expired() else None
    if deadline is not None and when is not None:
        deadline.reschedule(None)
    clock.held = True
    try:
        return await wait
    finally:
        now = time.monotonic()
        clock.held, clock.left_at = False, now
        if deadline is not None and when is not None:
            deadline.reschedule(when + (now - began))
