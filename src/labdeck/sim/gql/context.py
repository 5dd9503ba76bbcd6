"""What every resolver of the GraphQL schema shares: the request's :class:`Viewer` (data, caller,
complexity) and GitLab's wire forms of ids (``gid://gitlab/Project/1``) and times
(``Time#iso8601`` in UTC)."""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from graphql import GraphQLError, GraphQLResolveInfo

from labdeck.sim.ci.engine import CiStore
from labdeck.sim.core.state import Project, SimState, User

_GID = re.compile(r"gid://gitlab/([A-Za-z:]+)/(\d+)")


@dataclass
class Viewer:
    """What every resolver reads: the data, the caller, and the request's complexity."""

    state: SimState
    ci: CiStore
    user: User | None
    base_url: str
    limit: int = 0
    score: int = 0
    paths: dict[int, str] = field(default_factory=dict)

    def full_path(self, project: Project) -> str:
        """The project's full path (cached for the request: a page asks for it several times)."""
        path = self.paths.get(project.id)
        if path is None:
            path = self.paths[project.id] = self.state.project_full_path(project)
        return path


def viewer_of(info: GraphQLResolveInfo) -> Viewer:
    """The request's :class:`Viewer` (graphql-core's ``info.context``)."""
    viewer: Viewer = info.context
    return viewer


def time_text(moment: datetime | None) -> str | None:
    """GitLab's ``Time``: ``Time#iso8601`` in UTC (``2026-11-02T09:00:00Z``)."""
    if moment is None:
        return None
    return _time_text(moment)


@functools.lru_cache(maxsize=65536)
def _time_text(moment: datetime) -> str:
    # Cached: a poller reads the same creation and update times again and again.
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def parse_time(value: Any, name: str) -> datetime | None:
    """A ``Time`` argument (ISO 8601; UTC when it names no zone)."""
    if value is None:
        return None
    try:
        moment = datetime.fromisoformat(str(value).replace("Z", "+00:00"))
    except ValueError:
        raise GraphQLError(f"{name}: {value!r} is not a valid ISO 8601 time") from None
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


def gid(model: str, number: int) -> str:
    """A GitLab global id: ``gid://gitlab/Project/1``."""
    return f"gid://gitlab/{model}/{number}"


def parse_gid(value: str, model: str) -> int:
    """The number of a global id of ``model``, or GitLab's ``ArgumentError`` text."""
    match = _GID.fullmatch(str(value))
    if match is None:
        raise GraphQLError(f"{value} is not a valid GitLab ID.")
    if match.group(1) != model:
        raise GraphQLError(f"{value} is not a valid ID for {model}.")
    return int(match.group(2))
