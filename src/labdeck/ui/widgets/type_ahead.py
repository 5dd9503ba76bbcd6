"""Keys typed in a burst act in the order they were typed.

Over SSH, keys arrive in bursts: ``t 2 h tab 1 5 m`` can reach the console in one read. Textual
posts each key to the widget that has the focus when the app reads it; a key bound to an action
(``t`` opens a form, ``tab`` moves to the next field, ``end`` moves the cursor) acts only when it
comes back up to the app, by which time the keys after it were already posted to the old focus.

So the app hands keys on one at a time (:meth:`LabdeckApp.on_event`): after posting a key to the
focused widget it posts a :class:`KeyTravelled` marker behind it, which follows the key's way up;
the next key goes out when the marker is back (or after :data:`KEY_RETURN_TIMEOUT`, should the
widget disappear with it).

A dialog that mixes in :class:`HoldsTypeAhead` also gets the keys typed before it is ready (its
first field focused): the app holds them until the dialog calls
:meth:`HoldsTypeAhead.release_keys`, then delivers them, in order, before any later key.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field

from textual import events
from textual.message import Message
from textual.screen import Screen
from textual.timer import Timer

KEY_RETURN_TIMEOUT = 0.25
"""Seconds after which the next key goes out even if the previous one's marker never came back."""


class KeyTravelled(Message):
    """Posted right behind a key to the widget it went to; reaches the app after that key did."""


@dataclass
class KeyQueue:
    """The app's keys waiting to be handed on."""

    waiting: deque[events.Key] = field(default_factory=deque)
    in_flight: bool = False
    """A key is on its way down to a widget and back up to the app."""
    timer: Timer | None = None


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
