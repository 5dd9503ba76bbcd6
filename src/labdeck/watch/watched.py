"""The watched set: what the on-call board shows.

- starred projects (``GET /projects?starred=true``),
- projects added with ``w`` (kept in the state file, per instance URL),
- ``group:<path>`` entries (``:board group:<path>``, also kept): projects whose namespace full path
  is the group or below it. The spec has no group-projects endpoint, so they are found among the
  caller's projects (``GET /projects?membership=true``) by ``path_with_namespace``; when none of
  those is in the group (an admin is rarely a member), among every visible project
  (``GET /projects``, at most ``GROUP_SCAN_LIMIT`` of them).

State file layout (other keys of the file are never touched)::

    {"watch": {"https://gitlab.example.com": {"projects": [{"id": 12, "path": "platform/api"}],
                                              "groups": ["platform/infra"]}}}
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from labdeck.api import errors
from labdeck.api.client import ApiClient, instance_root
from labdeck.api.models import Project
from labdeck.base.statefile import StateStore

STATE_KEY = "watch"
GROUP_SCAN_LIMIT = 5000
"""At most this many visible projects are listed to resolve a group the caller is no member of."""


@dataclass(frozen=True)
class WatchedRef:
    """A project added with ``w``: its id and the path it had when added (shown until re-read)."""

    id: int
    path: str


@dataclass(frozen=True)
class WatchedProject:
    """One project of the watched set and why it is in it (``starred``, ``added``, ``group:<path>``)."""

    id: int
    path: str
    sources: frozenset[str] = field(default_factory=frozenset)


@dataclass(frozen=True)
class WatchedProjects:
    """A resolved watched set. ``starred_ids`` and ``member_ids`` let the poller narrow its
    activity check (``starred=true`` / ``membership=true``) when every project is covered."""

    projects: tuple[WatchedProject, ...] = ()
    starred_ids: frozenset[int] = frozenset()
    member_ids: frozenset[int] = frozenset()
    problems: tuple[str, ...] = ()
    """What could not be listed (shown on the board; the rest still works)."""

    @cached_property
    def ids(self) -> frozenset[int]:
        return frozenset(project.id for project in self.projects)

    def paths(self) -> dict[int, str]:
        """Project id → path."""
        return {project.id: project.path for project in self.projects}


def in_group(path_with_namespace: str | None, group: str) -> bool:
    """True when a project's full path lies in ``group`` or one of its subgroups (paths are
    compared case-insensitively, as GitLab routes them)."""
    if not path_with_namespace:
        return False
    namespace = path_with_namespace.rpartition("/")[0].lower()
    wanted = group.strip("/").lower()
    return bool(wanted) and (namespace == wanted or namespace.startswith(wanted + "/"))


class WatchStore:
    """The ``w`` list and board groups of one instance, persisted in the state file.

    Read once, kept in memory, written through on every change: each write re-reads the file and
    replaces only this instance's entry, so other keys (and other instances) are never lost.
    """

    def __init__(self, store: StateStore, instance_url: str) -> None:
        self._store = store
        self.instance = instance_root(instance_url)
        entry = self._entry(store.load())
        self._projects = [WatchedRef(int(item["id"]), str(item.get("path") or item["id"]))
                          for item in entry.get("projects", []) if _valid_ref(item)]
        self._groups = [str(group) for group in entry.get("groups", []) if isinstance(group, str) and group]

    def _entry(self, data: dict[str, Any]) -> dict[str, Any]:
        watch = data.get(STATE_KEY)
        entry = watch.get(self.instance) if isinstance(watch, dict) else None
        return entry if isinstance(entry, dict) else {}

    def _save(self) -> None:
        data = self._store.load()
        watch = data.get(STATE_KEY) if isinstance(data.get(STATE_KEY), dict) else {}
        assert isinstance(watch, dict)
        entry = {"projects": [{"id": ref.id, "path": ref.path} for ref in self._projects],
                 "groups": list(self._groups)}
        if entry["projects"] or entry["groups"]:
            watch[self.instance] = entry
        else:
            watch.pop(self.instance, None)
        data[STATE_KEY] = watch
        self._store.save(data)

    @property
    def projects(self) -> tuple[WatchedRef, ...]:
        """Projects added with ``w``, in the order they were added."""
        return tuple(self._projects)

    @property
    def groups(self) -> tuple[str, ...]:
        return tuple(self._groups)

    def contains(self, project_id: int) -> bool:
        return any(ref.id == project_id for ref in self._projects)

    def add(self, project_id: int, path: str) -> bool:
        """Watch a project; False when it already was (the path is refreshed either way)."""
        for index, ref in enumerate(self._projects):
            if ref.id == project_id:
                if ref.path != path:
                    self._projects[index] = WatchedRef(project_id, path)
                    self._save()
                return False
        self._projects.append(WatchedRef(int(project_id), path))
        self._save()
        return True

    def remove(self, project_id: int) -> bool:
        """Stop watching a project added with ``w``; False when it was not added."""
        before = len(self._projects)
        self._projects = [ref for ref in self._projects if ref.id != project_id]
        if len(self._projects) == before:
            return False
        self._save()
        return True

    def toggle(self, project_id: int, path: str) -> bool:
        """``w``: add when absent, remove when present; True when now watched."""
        if self.remove(project_id):
            return False
        self.add(project_id, path)
        return True

    def add_group(self, path: str) -> bool:
        """Watch every project of a group (``:board group:<path>``); False when already watched."""
        group = path.strip().strip("/")
        if not group or group.lower() in (g.lower() for g in self._groups):
            return False
        self._groups.append(group)
        self._save()
        return True

    def remove_group(self, path: str) -> bool:
        group = path.strip().strip("/").lower()
        before = len(self._groups)
        self._groups = [g for g in self._groups if g.lower() != group]
        if len(self._groups) == before:
            return False
        self._save()
        return True


def _valid_ref(item: Any) -> bool:
    if not isinstance(item, dict):
        return False
    value = item.get("id")
    return isinstance(value, int) and not isinstance(value, bool) and value > 0


class WatchedSet:
    """Resolves starred projects, ``w`` additions and groups into :class:`WatchedProjects`.

    :meth:`resolve` lists from the server (1 request per 100 starred projects, plus the member
    projects when a group is watched); :meth:`current` merges the last listing with the store
    without any request, so a ``w`` shows at once.
    """

    def __init__(self, client: ApiClient, store: WatchStore, *, starred: bool = True) -> None:
        self.client = client
        self.store = store
        self.starred = starred
        self._starred: list[Project] = []
        self._members: list[Project] = []
        self._pool: list[Project] = []
        self._problems: tuple[str, ...] = ()
        self.resolved = False
        self._listing = 0
        self._memo: tuple[tuple[Any, ...], WatchedProjects] | None = None

    async def resolve(self) -> WatchedProjects:
        """List starred (and, with groups, member) projects from the server, then :meth:`current`.
        Failures become ``problems``; what was listed before is kept."""
        problems: list[str] = []
        if self.starred:
            try:
                self._starred = await self.client.projects.list(starred=True, simple=True).all()
            except errors.ApiError as exc:
                problems.append(f"starred projects: {exc.user_message()}")
        groups = self.store.groups
        if groups:
            try:
                self._members = await self.client.projects.list(membership=True, simple=True).all()
                self._pool = list(self._members)
                if any(not any(in_group(p.path_with_namespace, g) for p in self._members) for g in groups):
                    listing = self.client.projects.list(simple=True)
                    listing.limit = GROUP_SCAN_LIMIT
                    self._pool = await listing.all()
            except errors.ApiError as exc:
                problems.append(f"group projects: {exc.user_message()}")
        else:
            self._members, self._pool = [], []
        self._problems = tuple(problems)
        self.resolved = True
        self._listing += 1
        return self.current()

    def current(self) -> WatchedProjects:
        """The watched set from the last listing and the store as it is now (no request)."""
        # The poller asks several times a step: rebuild only when the listing or the store changed.
        key = (self._listing, self.store.projects, self.store.groups)
        if self._memo is not None and self._memo[0] == key:
            return self._memo[1]
        found: dict[int, tuple[str, set[str]]] = {}

        def put(project_id: int, path: str, source: str) -> None:
            held = found.get(project_id)
            if held is None:
                found[project_id] = (path, {source})
            else:
                held[1].add(source)

        for project in self._starred:
            put(project.id, project.path_with_namespace or str(project.id), "starred")
        for ref in self.store.projects:
            put(ref.id, ref.path, "added")
        for group in self.store.groups:
            for project in self._pool:
                if in_group(project.path_with_namespace, group):
                    put(project.id, project.path_with_namespace or str(project.id), f"group:{group}")
        projects = tuple(WatchedProject(pid, path, frozenset(sources)) for pid, (path, sources) in found.items())
        result = WatchedProjects(projects=projects, starred_ids=frozenset(p.id for p in self._starred),
                                 member_ids=frozenset(p.id for p in self._members), problems=self._problems)
        self._memo = (key, result)
        return result
