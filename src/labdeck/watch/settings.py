"""Tunables of the shared poller (from ``[board]`` in the config file, see :mod:`labdeck.base.config`).

The defaults keep idle watching of 300 projects under 60 requests a minute: the activity check
every ``interval`` (12/min at 5 s; on GitLab, GraphQL batches instead), then what is left shared
half and half: the fair rotation that reads every watched project at least once per
``sweep_period`` (stretched when the half cannot: 300 projects at 60/min, every 12.5 min), and the
busy projects (running jobs every ``interval``, broken pipelines every 25 s where no GraphQL confirms them; slower when many). ``requests_per_minute`` caps the total whatever the
load (the first read of each project uses ``startup_per_minute`` instead).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class PollerSettings:
    """How often and how politely the poller reads (seconds unless said otherwise)."""

    interval: float = 5.0
    """Cadence of the activity check and of projects with running (or fresh) jobs, while the board
    or an alert follows projects (with only the projects table's CI column: ``overview_interval``)."""
    requests_per_minute: float = 60.0
    """Steady-state budget: the poller never sends more than this, on average, per minute."""
    burst: float = 10.0
    """Requests the steady budget may send back to back after a quiet spell."""
    startup_per_minute: float = 1800.0
    """Budget for the first read of each project (opening a board of 300 projects)."""
    max_in_flight: int = 4
    """Requests in flight at once."""
    slow_interval: float = 60.0
    """Cadence of projects whose unfinished jobs have waited longer than ``stuck_after``."""
    stuck_after: float = 600.0
    """A pending job older than this (server time) is polled at ``slow_interval``."""
    warm_for: float = 20.0
    """A project the activity check saw move stays at ``interval`` this long (GitLab creates the
    pipeline of a push a little after the push itself)."""
    sweep_period: float = 300.0
    """Every watched project is re-read at least once per this period, or per the longer period the
    budget's rotation share allows (catches what the change hints cannot see: retries from the
    web, pipelines within GitLab's one-hour activity gap)."""
    error_interval: float = 600.0
    """Retry delay of a project that answered 403/404."""
    jobs_per_project: int = 40
    """Size of the one page of newest jobs read per project."""
    activity_per_page: int = 20
    activity_max_pages: int = 3
    watched_refresh: float = 300.0
    """How often starred projects and board groups are re-listed."""
    overview_interval: float = 30.0
    """Cadence of projects only the projects table's CI column shows (not on the board, no alert):
    an overview, not the live monitor; they are read at most this often, all in one round (and the
    activity check with them when nothing else is followed)."""
    running_now_interval: float = 60.0
    """Cadence of the admin "running now" strip (``/runners/all`` + running jobs per runner)."""
    recent_window: float = 86_400.0
    """Finished pipelines older than this (server time) leave the board; broken, running and
    pending ones stay."""
    rows_per_project: int = 5
    """At most this many pipelines per project on the board (the most urgent ones)."""

    @classmethod
    def from_config(cls, board: Any) -> PollerSettings:
        """From a :class:`labdeck.base.config.BoardSettings` (or anything with the same attributes)."""
        return cls(interval=float(board.interval), requests_per_minute=float(board.requests_per_minute),
                   max_in_flight=int(board.max_in_flight))
