"""Subscriptions to the shared poller: who needs which projects, and whether it is visible now.

A subscription that is not visible is paused: its projects are not read for it (they still are
for a visible subscription or an alert target that needs them), and it gets no callbacks until it
is visible again, when it is sent the current snapshot at once.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from datetime import datetime
from typing import Any, Generic, Protocol, TypeVar

from labdeck.watch.pipelines import PipelineRow
from labdeck.watch.snapshots import BoardSnapshot, ProjectsSnapshot, RunningNowSnapshot
from labdeck.watch.watched import WatchedProjects, WatchedSet

S = TypeVar("S")


class Hub(Protocol):
    """The poller as its subscriptions see it (:class:`labdeck.watch.poller.BoardPoller`)."""

    def wake(self) -> None:
        """Run a step now instead of at the next due time."""

    def _resend(self, subscription: Any) -> None: ...

    def _unsubscribe(self, subscription: Any) -> None: ...


class AlertSink(Protocol):
    """What the poller needs from an alert engine (:class:`labdeck.watch.alerts.AlertEngine`)."""

    def project_ids(self) -> frozenset[int]:
        """Projects of the open watch targets (read even when no screen shows them)."""

    def pipeline_ids(self, project_id: int) -> frozenset[int]:
        """Pipelines of that project the targets follow (read directly if off the first page)."""

    def project_path(self, project_id: int) -> str | None:
        """A path to show while the project has not been read yet."""

    def observe(self, project_id: int, rows: Sequence[PipelineRow], server_now: datetime) -> None:
        """A project was read and something changed (or it was read for the first time)."""


class Subscription(Generic[S]):
    """Base: a callback, a visibility switch, and ``close()``."""

    kind = "subscription"

    def __init__(self, poller: Hub, callback: Callable[[S], None], *, visible: bool = True) -> None:
        self._poller = poller
        self.callback = callback
        self.visible = visible
        self.closed = False
        self.last: S | None = None
        """The last snapshot sent (None before the first)."""

    def set_visible(self, visible: bool) -> None:
        """Pause (False) or resume (True); resuming sends the current snapshot and wakes the poller."""
        if visible == self.visible:
            return
        self.visible = visible
        if visible:
            self._poller._resend(self)
        self._poller.wake()

    def close(self) -> None:
        """Stop for good (idempotent)."""
        if not self.closed:
            self.closed = True
            self._poller._unsubscribe(self)

    @property
    def active(self) -> bool:
        return self.visible and not self.closed

    def project_ids(self) -> frozenset[int]:
        """The projects this subscription needs read."""
        return frozenset()

    def membership(self) -> object:
        """What its projects are read from: an object replaced (never changed in place) whenever
        they change, so the poller sees a change by identity without comparing every project."""
        return None

    def project_paths(self) -> Mapping[int, str]:
        return {}

    def deliver(self, snapshot: S) -> None:
        self.last = snapshot
        self.callback(snapshot)


class BoardSubscription(Subscription[BoardSnapshot]):
    """The board: the watched set (a :class:`WatchedSet`, re-listed every ``watched_refresh``, or
    a fixed :class:`WatchedProjects`)."""

    kind = "board"

    def __init__(self, poller: Hub, callback: Callable[[BoardSnapshot], None], *,
                 watched: WatchedSet | WatchedProjects, visible: bool = True) -> None:
        super().__init__(poller, callback, visible=visible)
        self.source = watched
        self.listed_at: float | None = None
        """Poller-clock time of the last listing (None: not listed yet)."""
        self.list_failed = False
        """The last listing could not read everything (a storm over it): listed again soon."""

    @property
    def watched(self) -> WatchedProjects:
        """The watched set as known now (a ``w`` shows at once: no request needed)."""
        return self.source.current() if isinstance(self.source, WatchedSet) else self.source

    def project_ids(self) -> frozenset[int]:
        return self.watched.ids

    def membership(self) -> object:
        return self.watched

    def project_paths(self) -> Mapping[int, str]:
        return self.watched.paths()

    def changed(self) -> None:
        """Call after a ``w`` or a group change: the board is rebuilt and new projects read."""
        self._poller._resend(self)
        self._poller.wake()

    def listing_due(self, now: float, refresh: float, retry: float) -> float:
        """When the watched set is listed next: at once before the first listing, ``retry``
        seconds after one that failed (the first good reads after a storm must not wait for the
        5-minute turn, with the board saying ``loading…`` meanwhile), else ``refresh`` after it."""
        if self.listed_at is None:
            return now
        return self.listed_at + (retry if self.list_failed else refresh)

    def relist(self) -> None:
        """List starred and group projects again at the next step (``:board refresh``)."""
        self.listed_at = None
        self._poller.wake()


class ProjectsSubscription(Subscription[ProjectsSnapshot]):
    """The projects table's CI column: the newest pipeline of each visible row."""

    kind = "projects"

    def __init__(self, poller: Hub, callback: Callable[[ProjectsSnapshot], None],
                 projects: Mapping[int, str] | Iterable[int], *, visible: bool = True) -> None:
        super().__init__(poller, callback, visible=visible)
        self._paths: dict[int, str] = {}
        self._set(projects)

    def _set(self, projects: Mapping[int, str] | Iterable[int]) -> None:
        if isinstance(projects, Mapping):
            self._paths = {int(pid): str(path) for pid, path in projects.items()}
        else:
            self._paths = {int(pid): str(pid) for pid in projects}

    def set_projects(self, projects: Mapping[int, str] | Iterable[int]) -> None:
        """The rows now visible (id → path, or ids): call when the table scrolls or filters."""
        self._set(projects)
        self._poller._resend(self)
        self._poller.wake()

    def project_ids(self) -> frozenset[int]:
        return frozenset(self._paths)

    def membership(self) -> object:
        return self._paths

    def project_paths(self) -> Mapping[int, str]:
        return dict(self._paths)


class RunningNowSubscription(Subscription[RunningNowSnapshot]):
    """The admin "running now" strip (reads no project; its own cadence)."""

    kind = "running_now"
