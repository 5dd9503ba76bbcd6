"""Immutable views the poller hands to its subscribers (frozen dataclasses, read-only mappings).

A subscriber may keep a snapshot as long as it likes: the poller never changes one after handing
it out; the next change comes as a new snapshot.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from types import MappingProxyType

from labdeck.api.models import RunnerJob
from labdeck.watch.pipelines import PipelineRow
from labdeck.watch.watched import WatchedProjects

_EMPTY: Mapping[int, ProjectStatus] = MappingProxyType({})


@dataclass(frozen=True)
class Freshness:
    """How current the poller's data is ("data 4s"; amber past twice the interval).

    ``last_complete_at`` (poller clock) is the moment from which everything that can change on its
    own was read: the latest activity check and every project with running or fresh jobs. None
    while the first reads are still under way (``loading`` projects left) or nothing is watched.
    """

    last_complete_at: float | None
    interval: float
    now: float
    loading: int = 0
    paused_for: float = 0.0
    """Seconds left of a pause the server asked for (429 ``Retry-After``)."""
    error: str | None = None
    """The last failure of the activity check or of a live project, if it has not recovered."""

    @property
    def age(self) -> float | None:
        """Seconds since :attr:`last_complete_at` (None when unknown)."""
        if self.last_complete_at is None:
            return None
        return max(0.0, self.now - self.last_complete_at)

    @property
    def is_stale(self) -> bool:
        """True when the data is older than twice the interval (or never arrived because of an error)."""
        age = self.age
        if age is None:
            return self.error is not None or self.paused_for > 0
        return age > 2 * self.interval

    @property
    def label(self) -> str:
        """Status-line text: ``data <10s``, ``data 20s``, ``loading 12``, with ``· paused 20s`` or
        ``· error``. Under a minute the age moves in ten-second steps, as every other screen's
        (never rounded up): the board, re-read every few seconds, need not repaint every second."""
        age = self.age
        if age is None:
            text = f"loading {self.loading}" if self.loading else "data —"
        elif age < 10:
            text = "data <10s"
        elif age < 60:
            text = f"data {int(age) // 10 * 10}s"
        elif age < 3600:
            text = f"data {int(age // 60)}m"
        else:
            text = f"data {int(age // 3600)}h"
        if self.paused_for > 0:
            text += f" · paused {int(self.paused_for + 0.999)}s"
        elif self.error:
            text += " · error"
        return text


@dataclass(frozen=True)
class ProjectStatus:
    """What the poller knows of one project (the projects table's CI column uses ``newest``)."""

    project_id: int
    path: str
    newest: PipelineRow | None = None
    """The newest pipeline on the project's first page of jobs (None: no jobs, or not read yet)."""
    loaded: bool = False
    lane: str = "initial"
    """``initial`` (not read yet), ``hot`` (running or fresh jobs), ``slow`` (only long-waiting
    jobs), ``cold`` (nothing unfinished: swept), ``error``."""
    error: str | None = None
    polled_at: float | None = None
    """Poller-clock time of the last successful read."""


@dataclass(frozen=True)
class BoardSnapshot:
    """The on-call board: pipelines of the watched set, most urgent first."""

    rows: tuple[PipelineRow, ...] = ()
    projects: Mapping[int, ProjectStatus] = field(default_factory=lambda: _EMPTY)
    broken: int = 0
    """Pipelines failed and not superseded on their ref (the title's "✗ 2 failed")."""
    loading: int = 0
    """Watched projects not read yet."""
    server_now: datetime | None = None
    generation: int = 0
    """Increases with every snapshot the poller makes."""
    watched: WatchedProjects | None = None


@dataclass(frozen=True)
class ProjectsSnapshot:
    """The CI column of the projects table: one :class:`ProjectStatus` per subscribed project."""

    projects: Mapping[int, ProjectStatus] = field(default_factory=lambda: _EMPTY)
    server_now: datetime | None = None
    generation: int = 0


@dataclass(frozen=True)
class RunningJob:
    """One job running now, from a runner's job list (admin)."""

    runner_id: int
    runner: str
    job: RunnerJob

    @property
    def project_id(self) -> int | None:
        return self.job.project.id if self.job.project is not None else None

    @property
    def project_path(self) -> str | None:
        return self.job.project.path_with_namespace if self.job.project is not None else None


@dataclass(frozen=True)
class RunningNowSnapshot:
    """The admin "running now" strip: every running job of every online runner."""

    jobs: tuple[RunningJob, ...] = ()
    runners_online: int = 0
    runners_total: int = 0
    server_now: datetime | None = None
    error: str | None = None
    """Why the strip is empty (``GET /runners/all`` is admin-only: 403 for everyone else)."""
    generation: int = 0
    refused: bool = False
    """The token may not read the runners (403), as opposed to a passing failure."""


def frozen_map(values: Mapping[int, ProjectStatus]) -> Mapping[int, ProjectStatus]:
    """A read-only copy."""
    return MappingProxyType(dict(values))
