"""Keys typed in a burst act in the order they were typed.

Over SSH, keys arrive in bursts: ``t 2 h tab 1 5 m`` can reach the console in one read. Textual
posts each key to the widget that has the focus when the app reads it; a key bound to an action
(``t`` opens a form, ``tab`` moves to the next field, ``end`` moves the cursor) acts only when it
comes back up to the app, by which time the keys after it were already posted to the old focus.

So the app hands keys on one at a time through a :class:`KeyOrder`: after posting a key to the
focused widget it posts a :class:`KeyTravelled` marker behind it, which follows the key's way up;
the next key goes out when the marker is back (or after :data:`KEY_RETURN_TIMEOUT`, should the
widget disappear with it).

A dialog that mixes in :class:`HoldsTypeAhead` also gets the keys typed before it is ready (its
first field focused): the app holds them until the dialog calls
:meth:`HoldsTypeAhead.release_keys`, then delivers them, in order, before any later key.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Awaitable, Callable
from typing import Any

from textual import events
from textual.app import App
from textual.message import Message
from textual.screen import Screen
from textual.timer import Timer

KEY_RETURN_TIMEOUT = 0.25
"""Seconds after which the next key goes out even if the previous one's marker never came back."""


class KeyTravelled(Message):
    """Posted right behind a key to the widget it went to; reaches the app after that key did."""


class HoldsTypeAhead:
    """Mixed into a screen: the app holds the keys typed before :meth:`release_keys`."""

    keys_released: bool = False
    """Set by the app (never by the screen), when it has delivered the held keys."""

    def held_keys(self) -> list[events.Key]:
        """The keys the app holds for this screen, oldest first."""
        held: list[events.Key] | None = getattr(self, "_held_keys", None)
        if held is None:
            held = []
            self._held_keys = held
        return held

    def release_keys(self) -> None:
        """The screen is ready (its focus is set): the app delivers the held keys, then new ones."""
        assert isinstance(self, Screen)
        self.app.post_message(KeysReleased(self))


class KeysReleased(Message):
    """A :class:`HoldsTypeAhead` screen is ready for the keys typed ahead."""

    def __init__(self, screen: Screen[object]) -> None:
        super().__init__()
        self.screen = screen


def holds_key(screen: Screen[object], event: events.Event) -> bool:
    """True (and the key is kept for later) when ``event`` is a key typed ahead of ``screen``."""
    if not isinstance(event, events.Key) or event.is_forwarded:
        return False
    if not isinstance(screen, HoldsTypeAhead) or screen.keys_released:
        return False
    screen.held_keys().append(event)
    return True


class KeyOrder:
    """The app's keys, handed on one at a time (see the module docstring).

    ``deliver`` is Textual's own ``App.on_event`` (priority bindings, else forward to the focus).
    The app calls :meth:`take` for every event, :meth:`key_returned` on :class:`KeyTravelled`
    and :meth:`release` on :class:`KeysReleased`."""

    def __init__(self, app: App[Any], deliver: Callable[[events.Event], Awaitable[None]]) -> None:
        self._app = app
        self._deliver = deliver
        self._waiting: deque[events.Key] = deque()
        self._in_flight = False
        self._timer: Timer | None = None

    @property
    def idle(self) -> bool:
        """True when every key taken so far has been handed on and handled (none waits, none is on
        its way); keys held for a dialog that is not ready yet do not count."""
        return not self._waiting and not self._in_flight

    async def take(self, event: events.Event) -> bool:
        """True when ``event`` is a key from the terminal: it is handed on in its turn."""
        if not isinstance(event, events.Key) or event.is_forwarded or not self._app.screen_stack:
            return False
        self._waiting.append(event)
        await self._hand_on()
        return True

    async def _hand_on(self) -> None:
        app = self._app
        while self._waiting and not self._in_flight:
            event = self._waiting.popleft()
            if holds_key(app.screen, event):
                continue
            target = app.focused or app.screen
            await self._deliver(event)
            if event.is_forwarded:  # it went down to a widget: wait for its marker to come back
                self._in_flight = True
                target.post_message(KeyTravelled())
                self._timer = app.set_timer(KEY_RETURN_TIMEOUT, self.key_returned)

    async def key_returned(self) -> None:
        """The previous key was handled: hand on the next one."""
        if self._timer is not None:
            self._timer.stop()
            self._timer = None
        self._in_flight = False
        await self._hand_on()

    async def release(self, screen: Screen[Any]) -> None:
        """``screen`` is ready: the keys held for it go first, then the others."""
        if not isinstance(screen, HoldsTypeAhead) or screen.keys_released:
            return
        screen.keys_released = True
        held = screen.held_keys()
        self._waiting.extendleft(reversed(held))
        held.clear()
        await self._hand_on()
