"""What the server speaks: discovered once per client, cheap, and never fatal.

The shared spec describes a GitLab 10.x-era API with *neutral* integration slugs (``chat-d``,
``task-tracker`` …); real GitLab servers (10.x–18.x) use their own slugs (``slack``, ``asana``),
moved ``/services`` to ``/integrations`` in 14.4, list integrations from 12.7, replaced runner
``active`` by ``paused`` in 14.8 and project ``tag_list`` by ``topics`` in 14.0 (docs/wire-facts.md §5).

:class:`Dialect` records those choices; :class:`DialectDiscovery` fills it from ``GET /version``
the first time something needs it (or when the UI calls :meth:`DialectDiscovery.discover` in the
background) and corrects it from evidence (the slugs a server lists, a slug it refuses). Until
then, and whenever discovery fails, the spec's behaviour applies (:data:`SPEC`).
"""

from __future__ import annotations

import asyncio
import dataclasses
import re
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from labdeck.api import errors

if TYPE_CHECKING:
    from labdeck.api.core import HttpEngine

Flavour = Literal["spec", "gitlab"]
SIM_MARKER = "labdeck-sim"
"""The version suffix of ``labdeck serve`` playing the spec (``10.8.7-labdeck-sim``)."""
_RELEASE = re.compile(r"^\s*v?(\d+)\.(\d+)")


def parse_release(version: str | None) -> tuple[int, int] | None:
    """``(major, minor)`` of a version string such as ``16.11.2-ee``; None when unparsable."""
    match = _RELEASE.match(version or "")
    return (int(match.group(1)), int(match.group(2))) if match else None


@dataclass(frozen=True)
class Dialect:
    """The server's API dialect. ``discovered`` is False for the spec fallback."""

    flavour: Flavour = "spec"
    """``spec``: neutral integration slugs (the spec and ``labdeck serve``); ``gitlab``: real slugs."""
    version: str | None = None
    revision: str | None = None
    release: tuple[int, int] | None = None
    discovered: bool = False
    problem: str | None = None
    """Why discovery failed (the fallback is then in use), for ``labdeck doctor``-style display."""
    lists_integrations: bool | None = None
    """``GET /projects/:id/<integrations_path>`` exists: True, False, or None (unknown: try it)."""
    lists_pipelines: bool | None = None
    """``GET /projects/:id/pipelines`` exists (real GitLab, the simulator's gitlab dialect): True,
    False (the spec documents no pipelines endpoint: the spec dialect answers 404), None: unknown."""

    def at_least(self, major: int, minor: int = 0) -> bool:
        """True when the server is a known release ≥ ``major.minor``."""
        return self.release is not None and self.release >= (major, minor)

    @property
    def integrations_path(self) -> Literal["services", "integrations"]:
        """``integrations`` from GitLab 14.4 (``services`` still works there), else ``services``."""
        return "integrations" if self.flavour == "gitlab" and self.at_least(14, 4) else "services"

    @property
    def runner_pause_param(self) -> Literal["paused", "active"]:
        """The runner update parameter the server speaks: ``paused`` from 14.8, else ``active``."""
        return "paused" if self.flavour == "gitlab" and self.at_least(14, 8) else "active"

    @property
    def project_topics_param(self) -> Literal["topics", "tag_list"]:
        """The project parameter for topics: ``topics`` from 14.0, else ``tag_list``."""
        return "topics" if self.flavour == "gitlab" and self.at_least(14, 0) else "tag_list"

    @property
    def keyset_projects(self) -> bool:
        """Keyset pagination of ``GET /projects`` (ordered by id) is offered (~12.7+)."""
        return self.flavour == "gitlab" and self.at_least(12, 7)


SPEC = Dialect()
"""The spec's behaviour: what is used before discovery and when it fails."""


def dialect_from_version(body: Any) -> Dialect:
    """The dialect a ``GET /version`` body implies."""
    data = body if isinstance(body, dict) else {}
    version = str(data.get("version") or "") or None
    revision = str(data.get("revision") or "") or None
    release = parse_release(version)
    if version is None or release is None or SIM_MARKER in version:
        return Dialect("spec", version, revision, release, discovered=True)
    lists = release >= (12, 7)
    return Dialect("gitlab", version, revision, release, discovered=True, lists_integrations=lists)


class DialectDiscovery:
    """Discovers and caches one client's :class:`Dialect` (shared by its resources).

    ``discover()`` makes at most one ``GET /version`` at a time and caches the answer for the
    client's lifetime; a failure yields :data:`SPEC` (with ``problem`` set) and is retried after
    ``retry_after`` seconds, so a server that was briefly unreachable is discovered later.
    """

    def __init__(self, engine: HttpEngine, *, timeout: float = 10.0, retry_after: float = 60.0,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self._engine = engine
        self.timeout = timeout
        self.retry_after = retry_after
        self._clock = clock
        self._dialect: Dialect = SPEC
        self._failed_at: float | None = None
        self._lock: asyncio.Lock | None = None
        self._learned: dict[str, Any] = {}

    @property
    def current(self) -> Dialect:
        """The dialect known now (:data:`SPEC` until discovered); never does I/O."""
        return self._dialect

    def _fresh(self) -> bool:
        if self._dialect.discovered:
            return True
        return self._failed_at is not None and self._clock() - self._failed_at < self.retry_after

    async def discover(self, *, refresh: bool = False) -> Dialect:
        """``GET /version`` once (again with ``refresh``); never raises, falls back to the spec."""
        if not refresh and self._fresh():
            return self._dialect
        if self._lock is None:
            self._lock = asyncio.Lock()
        async with self._lock:
            if not refresh and self._fresh():
                return self._dialect
            try:
                async with asyncio.timeout(self.timeout):
                    response = await self._engine.request("GET", "version")
                dialect = dialect_from_version(response.json())
            except (errors.ApiError, TimeoutError, ValueError) as exc:
                # Unknown server, no token yet, or not reachable: the spec's behaviour, for now.
                problem = exc.user_message() if isinstance(exc, errors.ApiError) else "no usable answer from /version"
                self._dialect = dataclasses.replace(SPEC, problem=problem)
                self._failed_at = self._clock()
                return self._dialect
            # Evidence seen meanwhile (listed slugs, a refused slug) beats the version heuristic.
            self._dialect = dataclasses.replace(dialect, **self._learned)
            self._failed_at = None
            return self._dialect

    def learn(self, **changes: Any) -> Dialect:
        """Correct the dialect from evidence (``flavour=``, ``lists_integrations=`` …); kept across
        a later (re)discovery."""
        self._learned.update(changes)
        self._dialect = dataclasses.replace(self._dialect, **changes)
        return self._dialect
