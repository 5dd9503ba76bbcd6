"""The status line at the bottom of every section: who, where, how safe, how fresh.

``[profile] instance  user  READ-ONLY|WRITE  rate 1990/2000  ● ok  data 12s  ⚠ plaintext token``

Each part is its own label so that colours come only from theme variables (app.tcss). The line
refreshes every second from the app's ``status_info()`` and the screen's ``data_loaded_at``; a
second where nothing it shows changed costs no repaint, and a part whose new text fits the room
it has costs no layout of the screen (see :meth:`StatusLine._set`).
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime
from typing import Any, ClassVar
from weakref import WeakSet

from rich.cells import cell_len, set_cell_size
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.screen import ModalScreen, Screen
from textual.widgets import Label

from labdeck.ui.connection import COUNTDOWN, short_trouble
from labdeck.ui.console import console_app
from labdeck.ui.formatting import age

SHRINK_SLACK = 2
"""Cells a part may shrink by without a layout of the line (``data <10s`` → ``data 10s``)."""


def shown_screens(app: Any) -> list[Screen[Any]]:
    """The screens a person sees now, top first: the top one and, under dialogs (modal screens),
    the screens they cover down to the first full one. These keep their status lines and headers
    current and keep reading: a dialog open in a storm must not freeze what the screen says."""
    try:
        stack = list(app.screen_stack)
    except Exception:  # shutting down: no stack any more
        return []
    shown: list[Screen[Any]] = []
    for screen in reversed(stack):
        shown.append(screen)
        if not isinstance(screen, ModalScreen):
            break
    return shown


def is_shown(screen: Screen[Any]) -> bool:
    """True while ``screen`` is on top or only dialogs cover it (see :func:`shown_screens`)."""
    return any(shown is screen for shown in shown_screens(screen.app))


class StatusLine(Horizontal):
    """One row, docked at the bottom of a section screen."""

    DEFAULT_CSS = """
    StatusLine { height: 1; width: 100%; background: $ld-status-background; color: $ld-status-text; }
    StatusLine > Label { height: 1; padding: 0 1 0 0; }
    StatusLine #status-profile { background: $ld-env-accent; color: $ld-env-accent-text; text-style: bold; padding: 0 1; }
    StatusLine #status-instance { width: 1fr; padding: 0 1; text-overflow: ellipsis; text-wrap: nowrap; }
    StatusLine #status-source { color: $ld-text-muted; }
    StatusLine #status-mode { text-style: bold; padding: 0 1; }
    StatusLine #status-mode.-read-only { background: $ld-mode-readonly; color: $ld-mode-readonly-text; }
    StatusLine #status-mode.-write { background: $ld-mode-write; color: $ld-mode-write-text; }
    StatusLine #status-health.-reconnecting { color: $ld-text-warning; text-style: bold; }
    StatusLine #status-health.-error { color: $ld-text-error; text-style: bold; }
    StatusLine #status-age.-stale { color: $ld-text-warning; }
    StatusLine #status-warning { background: $ld-warning-banner; color: $ld-warning-banner-text; text-style: bold; padding: 0 1; }
    StatusLine #status-warning.-hidden { display: none; }
    """

    STALE_AFTER_SECONDS = 120.0
    """Default age after which the data age turns amber (screens that refresh set their own)."""
    NARROW = 100
    """Below this width the token source and the rate limit are left out: the instance, the user,
    the mode, the connection and the data age must fit in 80 columns."""

    INSTANCE_ROOM = 8
    """Cells the instance keeps, at least, when a long reason needs room (80 columns)."""
    PROFILE_ROOM = 10
    """Cells a long profile name keeps, at least: it gives way (with an ellipsis) before the
    reason and the data age, which are never pushed off."""

    def __init__(self) -> None:
        super().__init__()
        self.data_loaded_at: datetime | None = None
        """When the screen's data was last fetched (the screen sets it); None before the first load."""
        self.stale_after: float = self.STALE_AFTER_SECONDS
        """Seconds after which the data counts as stale: twice the screen's refresh interval."""
        self.question_trouble: str | None = None
        """Why the last read of the screen's own question failed (the screen sets it, and clears
        it with the next good one). Said even when the client's other reads pass (304s to other
        questions): the line never says ``● online`` over a question answered wrong (issue 32)."""
        self._shown: dict[str, str] = {}
        self._freshness: tuple[str, bool] | None = None
        self._parts: dict[str, Label] = {}
        self._part_classes: dict[tuple[str, str], bool] = {}

    _mounted: ClassVar[WeakSet[StatusLine]] = WeakSet()

    @classmethod
    def on_screen(cls, screen: Screen[Any]) -> Iterator[StatusLine]:
        """The status lines mounted on ``screen``, found without a query of the screen's widgets
        (the app's clock asks every second)."""
        for status in list(cls._mounted):
            if status.is_attached and status.screen is screen:
                yield status

    def compose(self) -> ComposeResult:
        yield Label("", id="status-profile", markup=False)
        yield Label("", id="status-instance", markup=False)
        yield Label("", id="status-user", markup=False)
        yield Label("", id="status-source", markup=False)
        yield Label("", id="status-mode", markup=False)
        yield Label("", id="status-rate", markup=False)
        yield Label("", id="status-health", markup=False)
        yield Label("", id="status-age", markup=False)
        yield Label("", id="status-warning", classes="-hidden", markup=False)

    def on_mount(self) -> None:
        # The app's one clock tick keeps the line current (see LabdeckApp._tick); no timer here.
        StatusLine._mounted.add(self)
        self.update_status()
        # The parts may not be mounted yet on this first call: fill the line with the first frame,
        # not a second later with the app's clock.
        self.call_after_refresh(self.update_status)

    def on_unmount(self) -> None:
        StatusLine._mounted.discard(self)

    def _part(self, name: str) -> Label:
        label = self._parts.get(name)
        if label is None:
            label = self._parts[name] = self.query_one(f"#status-{name}", Label)
        return label

    def _set(self, name: str, text: str) -> None:
        """Show ``text`` in a part, repainting only what changed.

        A layout of the screen (which repaints every widget on it) only when the text needs more
        room than the part has: the data age goes from ``<10s`` to ``10s`` and back every minute,
        and a shorter text is simply shown in the room the longer one had until the next layout."""
        previous = self._shown.get(name)
        if previous == text:
            return
        self._shown[name] = text
        label = self._part(name)
        room = label.size.width - label.styles.gutter.width
        # Much shorter (a storm's note gone) gives its room back: without a layout the line stayed
        # cut (``● online … d``) until a resize. A cell or two less is left as blank room.
        shrunk = previous is not None and cell_len(text) < cell_len(previous) - SHRINK_SLACK
        label.update(Text(text), layout=previous is None or cell_len(text) > room or shrunk)

    def _set_class(self, name: str, add: bool, css_class: str) -> None:
        key = (name, css_class)
        if self._part_classes.get(key) != add:
            self._part_classes[key] = add
            self._part(name).set_class(add, css_class)

    def show_freshness(self, label: str, stale: bool) -> None:
        """Data that a poller keeps current (the board): its own age label and staleness."""
        self._freshness = (label, stale)

    def _room_left(self, age_text: str, *parts: str) -> int:
        """Cells left at this width once ``parts`` (their shown texts and paddings), the data age
        and the instance (at least ``INSTANCE_ROOM``) have theirs."""
        used = 0
        for name in parts:
            label = self._part(name)
            if label.display:
                used += cell_len(self._shown.get(name, "")) + label.styles.gutter.width
        used += cell_len(age_text) + self._part("age").styles.gutter.width
        used += self.INSTANCE_ROOM + self._part("instance").styles.gutter.width
        return int(self.size.width) - used

    def _room_for_health(self, age_text: str, profile: str, source: str) -> int:
        """Cells the connection part may take at this width: what the other parts need, the data
        age included, and the profile only its ``PROFILE_ROOM`` when its name is longer."""
        kept = min(cell_len(profile), self.PROFILE_ROOM) + self._part("profile").styles.gutter.width
        source_room = cell_len(source) + self._part("source").styles.gutter.width if source else 0
        return self._room_left(age_text, "user", "mode", "rate", "warning") - kept - source_room \
            - self._part("health").styles.gutter.width

    def _fit_profile(self, profile: str, age_text: str) -> str:
        """The profile name in the room the other parts leave (an ellipsis when cut, never less
        than ``PROFILE_ROOM``): a long name gives way before the reason and the data age."""
        if not self.size.width:
            return profile
        room = self._room_left(age_text, "user", "source", "mode", "rate", "warning", "health") \
            - self._part("profile").styles.gutter.width
        room = max(room, self.PROFILE_ROOM)
        if cell_len(profile) <= room:
            return profile
        return set_cell_size(profile, room - 1).rstrip() + "…"

    def _show_source(self, text: str) -> None:
        self._set("source", text)
        source = self._part("source")
        if source.display != bool(text):
            source.display = bool(text)

    def _fit_trouble(self, trouble: str, glyph: str, age_text: str, profile: str,
                     source: str) -> tuple[str, str, str]:
        """The trouble, its glyph and the token's source in the room the line leaves. When the
        short forms would lose the countdown (``◌ offline``, ``◌ 502 Bad Gateway (nginx)``: nothing
        said when the next try is), the host gives way first (below ``INSTANCE_ROOM``), then the
        token's source, then the glyph: when the next try is says more than which host it is (the
        profile names it) or where the token came from."""
        room = self._room_for_health(age_text, profile, source) - cell_len(glyph)
        fitted = short_trouble(trouble, room)
        if not COUNTDOWN.search(trouble) or COUNTDOWN.search(fitted):
            return fitted, glyph, source
        source_room = cell_len(source) + self._part("source").styles.gutter.width if source else 0
        for extra, kept_source, mark in ((self.INSTANCE_ROOM, source, glyph),
                                         (self.INSTANCE_ROOM + source_room, "", glyph),
                                         (self.INSTANCE_ROOM + source_room + cell_len(glyph), "", "")):
            candidate = short_trouble(trouble, room + extra)
            if COUNTDOWN.search(candidate):
                return candidate, mark, kept_source
        return fitted, glyph, source

    def update_status(self) -> None:
        """Re-read the app's state and the screen's data age."""
        if not self.is_mounted or not self.children:
            # Called by the app's clock and after workers finish: at start-up or while the app
            # shuts down, this line's parts may not be there.
            return
        screen = self.screen
        # A screen opened from another instance's row: that instance's connection facts.
        info = console_app(self.app).status_info(screen) if getattr(screen, "instance", None) is not None \
            else console_app(self.app).status_info()
        narrow = self.size.width and self.size.width < self.NARROW
        profile = info.profile + (" (demo)" if info.demo and info.profile != "demo" else "")
        self._set("instance", info.instance.removeprefix("https://").removeprefix("http://") if narrow
                  else info.instance)
        if info.user:
            user = f"@{info.user}"
        elif info.signed_out:
            user = "signed out"
        else:  # not known yet: still connecting, or the server is unreachable
            user = "not connected" if info.health != "ok" else "…"
        self._set("user", user)
        # Demo sessions say "demo" already; "none" means signed out.
        shown = info.token_source not in ("none", "demo") and not narrow
        source = f"via {info.token_source}" if shown else ""
        self._set("mode", "READ-ONLY" if info.read_only else "WRITE")
        self._set_class("mode", info.read_only, "-read-only")
        self._set_class("mode", not info.read_only, "-write")
        self._set("rate", f"rate {info.rate_limit}" if info.rate_limit and not narrow else "")
        # Short words only: the full error is in the toast and the log header; a long one here
        # would push the instance and the data age off an 80-column line.
        # Short words when all is well; the server's trouble said as such when not ("token refused
        # (401)", "502 Bad Gateway (nginx) — retrying in 8 s", "rate limited — retrying in 5 s").
        # At 80 columns too the countdown stays while it fits (the instance and the profile give
        # way first): not every screen's header says when the next try is.
        trouble, state = info.trouble, info.health
        if self.question_trouble and (state == "ok" or not trouble):
            trouble, state = self.question_trouble, "error"
        if self._freshness is not None:
            text, stale = self._freshness
        else:
            loaded_at = self.data_loaded_at
            seconds = None if loaded_at is None else (info.now - loaded_at).total_seconds()
            text = f"data {age(seconds)}" if seconds is not None else "data —"
            stale = seconds is not None and seconds > self.stale_after
        stale = stale or bool(self.question_trouble)
        if state == "ok" or not trouble:
            health = {"ok": "● online", "reconnecting": "◌ retrying"}.get(state, "✕ offline")
        else:
            # The trouble is said beside it: the age's own "· error" would only take its room.
            text = text.removesuffix(" · error")
            glyph = f"{'◌' if state == 'reconnecting' else '✕'} "
            if self.size.width:  # the reason gives way (short form, then cut): the age must stay in view
                trouble, glyph, source = self._fit_trouble(trouble, glyph, text, profile, source)
            health = f"{glyph}{trouble}"
        self._show_source(source)
        self._set("warning", "⚠ token in plaintext file" if info.insecure_storage else "")
        self._set_class("warning", not info.insecure_storage, "-hidden")
        self._set("health", health)
        # Last: the name takes what the others leave (it gives way first; the age never does).
        self._set("profile", self._fit_profile(profile, text))
        self._set_class("health", state == "reconnecting", "-reconnecting")
        self._set_class("health", state not in ("ok", "reconnecting"), "-error")
        self._set("age", text)
        self._set_class("age", stale, "-stale")
