"""The console's side of the on-call board (:mod:`labdeck.watch`): one shared poller, the watched
set, and alerts delivered as toasts, the bell, desktop notifications and the terminal title.

It lives on the app (``app.watching``), so alerts keep firing whatever screen is shown; screens
subscribe to what they show and say when they are visible.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from textual.app import App
from textual.timer import Timer

from labdeck.api import ApiClient
from labdeck.base.session import Session
from labdeck.base.statefile import StateStore
from labdeck.ui.collector import keep_collecting
from labdeck.ui.triaging import Triaging, triaging
from labdeck.watch import (
    Alert,
    AlertChannels,
    AlertEngine,
    AlertLog,
    BoardPoller,
    BoardSnapshot,
    BoardSubscription,
    Freshness,
    PollerSettings,
    ProjectsSnapshot,
    ProjectsSubscription,
    RunningNowSnapshot,
    RunningNowSubscription,
    WatchedSet,
    WatchStore,
    WatchTarget,
    terminal_output,
    title_output,
)
from labdeck.watch.alerts import Event, describe
from labdeck.watch.terminal import pop_title, push_title


class Watching:
    """The poller, watched set and alerts of one session (rebuilt when the client changes)."""

    def __init__(self, app: App[Any], session: Session, client: ApiClient, *,
                 store: StateStore | None = None, clock: Callable[[], datetime] | None = None,
                 instance: str | None = None, triage: Triaging | None = None) -> None:
        self._app = app
        self.instance = instance
        """The short name of one of several instances (its alerts say it; its poller runs in a
        worker group of its own); None for the console's primary instance."""
        self._triage = triage
        self._clock = clock or (lambda: datetime.now(UTC))
        self._session = session
        self._state_store = store or StateStore()
        self.channels = AlertChannels.from_settings(session.alerts, interactive=not app.is_headless)
        self.log = AlertLog(store=self._state_store if session.alerts.keep_log else None,
                            instance_url=client.base_url)
        self.alerts = AlertEngine(self.log, on_alert=self._deliver)
        self._title_pushed = False
        self._last_title = ""
        self._collector: Timer | None = None
        self.unseen = 0
        """Alerts fired since the alert log was last opened (shown beside the board's title)."""
        self._build(client)

    def _build(self, client: ApiClient) -> None:
        self.store = WatchStore(self._state_store, client.base_url)
        self.watched = WatchedSet(client, self.store)
        self.poller = BoardPoller(client, PollerSettings.from_config(self._session.board))
        self.poller.add_alerts(self.alerts)
        # Triage's reads (jobs pages, logs) are the board's reads too: they wait their turn in the
        # poller's per-minute window and take their tokens, whatever screen asks for them.
        (self._triage or triaging(self._app)).pacer = lambda: self.poller.tap.attributed("triage", pay=True)

    # --- lifecycle ----------------------------------------------------------------------------

    def start(self) -> None:
        """Run the poller in the app's worker group ``watch-poller`` (one for the whole app), and
        the regular full collections that keep a console left open from growing."""
        group = "watch-poller" if self.instance is None else f"watch-poller-{self.instance}"
        self._app.run_worker(self.poller.run(), group=group, exclusive=True, exit_on_error=False,
                             description="Watch projects" if self.instance is None else f"Watch {self.instance}")
        if self._collector is None:
            self._collector = keep_collecting(self._app)

    def replace_client(self, client: ApiClient) -> None:
        """A new sign-in or profile. The same instance (a token given again): the same poller goes
        on with the new client, so the board, the CI column, alerts and their subscriptions resume
        at once. Another instance: a new poller (alerts and their log stay)."""
        if client.base_url == self.poller.client.base_url:
            self.watched.client = client
            self.poller.replace_client(client)
            return
        self.poller.stop()
        self._build(client)
        self.start()

    def stop(self) -> None:
        """Stop polling and give the terminal its title back."""
        self.poller.stop()
        if self._collector is not None:
            self._collector.stop()
            self._collector = None
        if self._title_pushed:
            self._write(pop_title())
            self._title_pushed = False

    # --- subscriptions (screens) --------------------------------------------------------------

    def subscribe_board(self, on_update: Callable[[BoardSnapshot], None]) -> BoardSubscription:
        """The board's pipelines (call ``set_visible`` on show/hide)."""
        return self.poller.subscribe_board(on_update, watched=self.watched, visible=False)

    def subscribe_projects(self, on_update: Callable[[ProjectsSnapshot], None],
                           projects: dict[int, str]) -> ProjectsSubscription:
        """The newest pipeline status of ``projects`` (the projects table's CI column)."""
        return self.poller.subscribe_projects(on_update, projects, visible=False)

    def subscribe_running_now(self, on_update: Callable[[RunningNowSnapshot], None]) -> RunningNowSubscription:
        """Jobs running now on every runner (administrators)."""
        return self.poller.subscribe_running_now(on_update)

    def server_now(self) -> datetime:
        """The server's current time (from its ``Date`` headers); the console's clock until known."""
        clock = self.poller.server_clock
        return clock.now() if clock.synchronised else self._clock()

    def freshness(self) -> Freshness:
        """How current the board's data is."""
        return self.poller.freshness()

    # --- alerts -------------------------------------------------------------------------------

    def toggle_alert(self, target: WatchTarget) -> bool:
        """``W``: watch ``target`` (True) or stop watching it (False)."""
        watching = self.alerts.toggle(target)
        # The poller may be asleep for a minute when nothing else is followed: the new target's
        # project is read from now on, not from its next wake-up.
        self.poller.wake()
        return watching

    def ring(self, target: WatchTarget, status: str, *, job_id: int | None = None) -> None:
        """Ring an alert about ``target`` now, through the same channels as ``W`` (the merged
        view's job that failed while another screen was shown)."""
        event: Event = "failed" if status == "failed" else "finished"
        title, body = describe(target, event, status, None)
        alert = Alert(target, event, status, title, body, datetime.now().astimezone(), target.pipeline_id, job_id)
        self.log.add(alert)
        self._deliver(alert)

    def _deliver(self, alert: Alert) -> None:
        self.unseen += 1
        if self.channels.toast:
            self._app.notify(f"{alert.title}\n{alert.body}", title="Alert" if self.instance is None
                             else f"Alert · {self.instance}",
                             severity="error" if alert.event != "finished" else "information", timeout=10)
        self._write(terminal_output(alert, self.channels, os.environ))
        self.update_title()

    def update_title(self) -> None:
        """The terminal title says how many watched things are failing ("✗ 2 failed · labdeck")."""
        text = title_output(self.alerts.failing(), self.channels)
        if not text or text == self._last_title:
            return
        if not self._title_pushed:
            self._write(push_title())
            self._title_pushed = True
        self._last_title = text
        self._write(text)

    def _write(self, text: str) -> None:
        """Write escape sequences to the real terminal, as Textual's own ``App.bell`` does."""
        driver = getattr(self._app, "_driver", None)
        if not text or driver is None or self._app.is_headless:
            return
        with contextlib.suppress(Exception):  # a terminal gone away must not break the console
            driver.write(text)
