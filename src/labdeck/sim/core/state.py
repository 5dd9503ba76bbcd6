"""In-memory state of the simulator: users, tokens, groups, projects and the collections of each
endpoint family. Entities of other families live in their own modules and are stored here by id.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any
from urllib.parse import unquote

from labdeck.sim.core.clock import SimClock

# Access levels (GitLab): guest 10, reporter 20, developer 30, maintainer/master 40, owner 50.
GUEST, REPORTER, DEVELOPER, MAINTAINER, OWNER = 10, 20, 30, 40, 50

# Users' personal namespaces share GitLab's single namespace id space with groups; the simulator
# numbers them from this offset so that ``namespace_id`` is never ambiguous.
USER_NAMESPACE_OFFSET = 100_000


@dataclass
class User:
    id: int
    username: str
    name: str
    email: str
    created_at: datetime
    is_admin: bool = False
    state: str = "active"
    bio: str = ""
    location: str = ""
    organization: str = ""

    def brief(self, base_url: str) -> dict[str, Any]:
        """UserBasic: id, name, username, state, avatar_url, web_url."""
        return {
            "id": self.id,
            "name": self.name,
            "username": self.username,
            "state": self.state,
            "avatar_url": None,
            "web_url": f"{base_url}/{self.username}",
        }


@dataclass
class Token:
    value: str
    user_id: int
    scopes: tuple[str, ...] = ("api",)
    name: str = ""

    @property
    def read_only(self) -> bool:
        return "api" not in self.scopes


@dataclass
class Group:
    id: int
    name: str
    path: str
    created_at: datetime
    parent_id: int | None = None
    description: str = ""
    visibility: str = "private"
    members: dict[int, int] = field(default_factory=dict)  # user id -> access level
    full_path: str = ""


@dataclass
class Project:
    id: int
    name: str
    path: str
    namespace_kind: str  # "group" or "user"
    namespace_id: int
    creator_id: int
    created_at: datetime
    last_activity_at: datetime
    description: str | None = None
    visibility: str = "private"
    default_branch: str = "master"
    archived: bool = False
    tag_list: list[str] = field(default_factory=list)
    members: dict[int, int] = field(default_factory=dict)  # user id -> access level
    starred_by: set[int] = field(default_factory=set)
    forked_from_id: int | None = None
    import_status: str = "none"
    import_error: str | None = None
    settings: dict[str, Any] = field(default_factory=dict)  # the boolean/string write params (set W)
    custom_attributes: dict[str, str] = field(default_factory=dict)
    shared_with_groups: dict[int, dict[str, Any]] = field(default_factory=dict)  # group id -> link
    runners_token: str = ""
    statistics: dict[str, int] = field(default_factory=dict)
    commit_sha: str = ""
    deleted: bool = False
    updated_at: datetime | None = None
    ci_config_path: str | None = None
    avatar_url: str | None = None


class SimState:
    """Everything the simulator knows. One lock guards every mutation (uvicorn runs handlers on one
    event loop, but the control surface and the demo thread may touch it too)."""

    def __init__(self, clock: SimClock, base_url: str = "http://127.0.0.1") -> None:
        self.clock = clock
        self.base_url = base_url
        self.lock = threading.RLock()
        self.users: dict[int, User] = {}
        self.tokens: dict[str, Token] = {}
        self.groups: dict[int, Group] = {}
        self.projects: dict[int, Project] = {}
        # Families owned by their own modules; values are their entity dataclasses.
        self.runners: dict[int, Any] = {}
        self.pipelines: dict[int, Any] = {}
        self.jobs: dict[int, Any] = {}
        self.issues: dict[int, Any] = {}
        self.merge_requests: dict[int, Any] = {}
        self.milestones: dict[int, Any] = {}
        self.hooks: dict[int, Any] = {}
        self.badges: dict[int, Any] = {}
        self.protected_branches: dict[tuple[int, str], Any] = {}
        self.integrations: dict[tuple[int, str], Any] = {}
        self.notification_settings: dict[tuple[str, int, int], Any] = {}  # (scope, target id, user id)
        self.todos: dict[int, Any] = {}
        self.exports: dict[int, Any] = {}
        self.uploads: dict[int, Any] = {}
        # Free-form per-family storage for anything else a family needs to keep.
        self.extra: dict[str, Any] = {}
        self._next_ids: dict[str, int] = {}
        self._tickers: list[Callable[[datetime], None]] = []

    # --- ids and time -----------------------------------------------------------------------------

    def next_id(self, kind: str, start: int = 1) -> int:
        """Monotonic ids per kind (``project``, ``job``, ``issue`` …)."""
        with self.lock:
            value = self._next_ids.get(kind, start)
            self._next_ids[kind] = value + 1
            return value

    def now(self) -> datetime:
        return self.clock.now()

    def add_ticker(self, ticker: Callable[[datetime], None]) -> None:
        """Register a callback that brings a family up to the current simulated time."""
        self._tickers.append(ticker)

    def tick(self) -> None:
        """Advance every time-driven family (job engine, exports, imports, forks) to now."""
        now = self.now()
        with self.lock:
            for ticker in self._tickers:
                ticker(now)

    # --- lookups ------------------------------------------------------------------------------------

    def user_by_token(self, token: str | None) -> tuple[User | None, Token | None]:
        if not token:
            return None, None
        record = self.tokens.get(token)
        if record is None:
            return None, None
        return self.users.get(record.user_id), record

    def user_by_ref(self, ref: str) -> User | None:
        """A user by integer id or username."""
        if ref.isdigit():
            return self.users.get(int(ref))
        for user in self.users.values():
            if user.username == ref:
                return user
        return None

    def group_full_path(self, group: Group) -> str:
        parts = [group.path]
        parent = self.groups.get(group.parent_id) if group.parent_id else None
        while parent is not None:
            parts.append(parent.path)
            parent = self.groups.get(parent.parent_id) if parent.parent_id else None
        return "/".join(reversed(parts))

    def namespace_path(self, project: Project) -> str:
        if project.namespace_kind == "group":
            return self.group_full_path(self.groups[project.namespace_id])
        return self.users[project.namespace_id].username

    def namespace_name(self, project: Project) -> str:
        if project.namespace_kind == "group":
            names = []
            group: Group | None = self.groups[project.namespace_id]
            while group is not None:
                names.append(group.name)
                group = self.groups.get(group.parent_id) if group.parent_id else None
            return " / ".join(reversed(names))
        return self.users[project.namespace_id].name

    def project_full_path(self, project: Project) -> str:
        return f"{self.namespace_path(project)}/{project.path}"

    def namespace_by_ref(self, ref: str) -> tuple[str, int] | None:
        """A namespace given by id or full path: ``("group", group_id)`` or ``("user", user_id)``."""
        ref = unquote(str(ref)).strip()
        if ref.isdigit():
            number = int(ref)
            if number >= USER_NAMESPACE_OFFSET and number - USER_NAMESPACE_OFFSET in self.users:
                return "user", number - USER_NAMESPACE_OFFSET
            if number in self.groups:
                return "group", number
            return None
        group = self.group_by_ref(ref)
        if group is not None:
            return "group", group.id
        for user in self.users.values():
            if user.username == ref:
                return "user", user.id
        return None

    def namespace_entity(self, kind: str, namespace_id: int) -> dict[str, Any]:
        """The ``namespace`` object of a project: id, name, path, kind, full_path, parent_id."""
        if kind == "group":
            group = self.groups[namespace_id]
            return {"id": group.id, "name": group.name, "path": group.path, "kind": "group",
                    "full_path": self.group_full_path(group), "parent_id": group.parent_id}
        user = self.users[namespace_id]
        return {"id": USER_NAMESPACE_OFFSET + user.id, "name": user.username, "path": user.username,
                "kind": "user", "full_path": user.username, "parent_id": None}

    def group_by_ref(self, ref: str) -> Group | None:
        """A group by integer id or (URL-encoded) full path."""
        ref = unquote(ref)
        if ref.isdigit():
            return self.groups.get(int(ref))
        for group in self.groups.values():
            if self.group_full_path(group) == ref:
                return group
        return None

    def project_by_ref(self, ref: str) -> Project | None:
        """A live project by integer id or (URL-encoded) full path; ignores visibility."""
        ref = unquote(ref)
        project: Project | None = None
        if ref.isdigit():
            project = self.projects.get(int(ref))
        else:
            # Paths are matched case-insensitively, as GitLab does; the last segment is checked first
            # so that a lookup among thousands of projects stays cheap.
            wanted = ref.lower()
            tail = wanted.rsplit("/", 1)[-1]
            for candidate in self.projects.values():
                if candidate.deleted or candidate.path.lower() != tail:
                    continue
                if self.project_full_path(candidate).lower() == wanted:
                    project = candidate
                    break
        if project is None or project.deleted:
            return None
        return project

    # --- permissions -----------------------------------------------------------------------------

    def access_level(self, user: User | None, project: Project) -> int:
        """The user's effective access level in a project (direct, group or shared group)."""
        if user is None:
            return 0
        level = project.members.get(user.id, 0)
        if project.namespace_kind == "user" and project.namespace_id == user.id:
            level = max(level, OWNER)
        if project.namespace_kind == "group":
            group: Group | None = self.groups.get(project.namespace_id)
            while group is not None:
                level = max(level, group.members.get(user.id, 0))
                group = self.groups.get(group.parent_id) if group.parent_id else None
        for group_id, link in project.shared_with_groups.items():
            shared = self.groups.get(group_id)
            if shared is not None and user.id in shared.members:
                level = max(level, min(shared.members[user.id], int(link["group_access"])))
        return level

    def can_read(self, user: User | None, project: Project) -> bool:
        if project.visibility == "public":
            return True
        if user is None:
            return False
        if user.is_admin or project.visibility == "internal":
            return True
        return self.access_level(user, project) >= GUEST

    def is_owner(self, user: User | None, project: Project) -> bool:
        if user is None:
            return False
        return user.is_admin or self.access_level(user, project) >= OWNER

    def can_maintain(self, user: User | None, project: Project) -> bool:
        if user is None:
            return False
        return user.is_admin or self.access_level(user, project) >= MAINTAINER

    def can_develop(self, user: User | None, project: Project) -> bool:
        if user is None:
            return False
        return user.is_admin or self.access_level(user, project) >= DEVELOPER
