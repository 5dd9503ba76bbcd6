"""How long a follower without a TUI waits for a server in trouble, and what it says meanwhile.

``labdeck follow`` left running against a server that is gone must not retry in silence for hours:
:class:`Patience` watches the client's health (the same source of truth as the console's status
line) and says, at growing intervals, what is wrong (``no answer from https://gitlab.example.com
for 40 s, retrying in 8 s``); once no read has succeeded for ``give_up_after`` seconds it is
:attr:`~Patience.exhausted`. Reads themselves back off in the client (one gate for every kind of
failure); this only decides what to say and when to stop.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from labdeck.api.core import TOKEN_REFUSED
from labdeck.base.durations import format_duration

GIVE_UP_AFTER = 300.0
"""Seconds without a successful read after which ``labdeck follow`` gives up (``--give-up-after``)."""
FIRST_NOTE = 10.0
"""Seconds of trouble before the first line on stderr (a lone retried hiccup says nothing); the
next ones come each time the silence doubles."""

_WAIT = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([smh]?)\s*$")
_UNITS = {"": 1.0, "s": 1.0, "m": 60.0, "h": 3600.0}


def parse_wait(text: str) -> float:
    """``--give-up-after``: ``300``, ``90s``, ``5m``, ``1h`` in seconds; ValueError otherwise."""
    found = _WAIT.match(text.lower())
    if found is None or float(found.group(1)) <= 0:
        raise ValueError(f"--give-up-after {text!r}: a duration such as 90s, 5m or 1h")
    return float(found.group(1)) * _UNITS[found.group(2)]


def _utc_now() -> datetime:
    return datetime.now(UTC)


class Patience:
    """Watches ``health`` readings (:class:`~labdeck.api.results.ConnectionHealth`) of one client
    talking to ``origin``; call :meth:`observe` every second or so."""

    def __init__(self, origin: str, give_up_after: float = GIVE_UP_AFTER, *,
                 now: Callable[[], datetime] = _utc_now) -> None:
        self.origin = origin
        self.give_up_after = give_up_after
        self._now = now
        self._last_good = now()
        """When a read last succeeded (or following began)."""
        self._next_note = self._first_note()
        self._said = False
        self.trouble = ""
        """What is wrong now, said short (``no answer``, ``502 Bad Gateway (nginx)``); "" when fine."""
        self.refused = False
        """The last failure was the token refused (401): the logs' reads wait for a new client."""

    def _first_note(self) -> float:
        return min(FIRST_NOTE, self.give_up_after / 2)

    @property
    def silent_for(self) -> float:
        """Seconds since the last successful read."""
        return max(0.0, (self._now() - self._last_good).total_seconds())

    @property
    def exhausted(self) -> bool:
        """No read succeeded for ``give_up_after`` seconds."""
        return bool(self.trouble) and self.silent_for >= self.give_up_after

    def observe(self, health: Any) -> str | None:
        """Note the client's health now; a line for stderr when one is due (trouble that lasts,
        or the server answering again after it was said), else None."""
        last_ok = getattr(health, "last_ok_at", None)
        if last_ok is not None and last_ok > self._last_good:
            self._last_good = last_ok
        if health is None or getattr(health, "state", "ok") == "ok":
            self.trouble, self.refused = "", False
            self._next_note = self._first_note()
            if self._said:
                self._said = False
                return f"{self.origin} answers again"
            return None
        reason = getattr(health, "reason", None)
        self.refused = reason == TOKEN_REFUSED
        self.trouble = "no answer" if getattr(health, "waiting", None) or not reason else str(reason)
        silent = self.silent_for
        if silent < self._next_note:
            return None
        while self._next_note <= silent:
            self._next_note *= 2
        self._said = True
        return f"{self._what()} for {int(silent)} s, {self._next(health)}"

    def _what(self) -> str:
        if self.trouble == "no answer":
            return f"no answer from {self.origin}"
        if self.refused:
            return f"{self.origin} refuses the token (401)"
        return f"{self.origin} answered {self.trouble}"

    def _next(self, health: Any) -> str:
        left = self.give_up_after - self.silent_for
        retry_at = getattr(health, "retry_at", None)
        wait = (retry_at - self._now()).total_seconds() if retry_at is not None else 0.0
        retrying = f"retrying in {math.ceil(wait)} s" if wait >= 1 else "retrying"
        return f"{retrying} (giving up in {format_duration(max(0.0, left))})"

    def gave_up(self) -> str:
        """The line that ends following: what was wrong and for how long."""
        return f"gave up: {self._what()} for {format_duration(self.silent_for)}"
