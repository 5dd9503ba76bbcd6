"""Creating, forking and validating projects: shared by the dataset, the routes and the importer."""

from __future__ import annotations

import hashlib
import re
from typing import Any

from labdeck.sim.core.dialect import ACTIVITY_RESET_INTERVAL, is_gitlab
from labdeck.sim.core.http import ApiError
from labdeck.sim.core.state import DEVELOPER, OWNER, Project, SimState, User
from labdeck.sim.projects import tasks
from labdeck.sim.projects.views import default_settings

_PATH_RE = re.compile(r"^[a-zA-Z0-9_][a-zA-Z0-9_.\-]*$")
_NAME_RE = re.compile(r"^[\w\- .+]+$", re.UNICODE)


def path_from_name(name: str) -> str:
    """GitLab's default path: the name lower-cased, runs of other characters turned into dashes."""
    path = re.sub(r"[^a-z0-9_.]+", "-", name.strip().lower()).strip("-")
    return path or "project"


def fake_sha(*parts: object) -> str:
    """A stable 40-hex commit id derived from ``parts``."""
    return hashlib.sha1("/".join(str(part) for part in parts).encode(), usedforsecurity=False).hexdigest()


def validation_errors(
    state: SimState, name: str, path: str, kind: str, namespace_id: int, *, ignore: Project | None = None
) -> dict[str, list[str]]:
    """``render_validation_error!`` messages for a name/path in a namespace (empty when valid)."""
    errors: dict[str, list[str]] = {}
    if not name.strip():
        errors.setdefault("name", []).append("can't be blank")
    elif not _NAME_RE.match(name):
        errors.setdefault("name", []).append(
            "can contain only letters, digits, emojis, '_', '.', dash, space. "
            "It must start with letter, digit, emoji or '_'."
        )
    if not path:
        errors.setdefault("path", []).append("can't be blank")
    elif not _PATH_RE.match(path) or path.endswith((".git", ".atom")):
        errors.setdefault("path", []).append(
            "can contain only letters, digits, '_', '-' and '.'. Cannot start with '-', end in '.git' or end in '.atom'"
        )
    for other in state.projects.values():
        if other.deleted or other is ignore or other.namespace_kind != kind or other.namespace_id != namespace_id:
            continue
        if other.name.lower() == name.lower() and "has already been taken" not in errors.get("name", []):
            errors.setdefault("name", []).append("has already been taken")
        if other.path.lower() == path.lower() and "has already been taken" not in errors.get("path", []):
            errors.setdefault("path", []).append("has already been taken")
    return errors


def can_create_in(state: SimState, user: User, kind: str, namespace_id: int) -> bool:
    """Personal namespace: only its owner (or an admin); group: developers and above."""
    if user.is_admin:
        return True
    if kind == "user":
        return namespace_id == user.id
    group = state.groups.get(namespace_id)
    while group is not None:
        if group.members.get(user.id, 0) >= DEVELOPER:
            return True
        group = state.groups.get(group.parent_id) if group.parent_id else None
    return False


def new_project(
    state: SimState,
    *,
    name: str,
    path: str,
    kind: str,
    namespace_id: int,
    creator: User,
    visibility: str = "private",
    description: str | None = None,
    default_branch: str = "master",
    project_id: int | None = None,
) -> Project:
    """Create and store a live project (no validation: callers check :func:`validation_errors`)."""
    now = state.now()
    pid = project_id if project_id is not None else state.next_id("project")
    project = Project(
        id=pid,
        name=name,
        path=path,
        namespace_kind=kind,
        namespace_id=namespace_id,
        creator_id=creator.id,
        created_at=now,
        last_activity_at=now,
        updated_at=now,
        description=description,
        visibility=visibility,
        default_branch=default_branch,
        settings=default_settings(),
        runners_token=fake_sha("runners", pid)[:20],
        commit_sha=fake_sha("commit", pid, name),
        statistics={"commit_count": 0, "storage_size": 0, "repository_size": 0,
                    "lfs_objects_size": 0, "job_artifacts_size": 0},
    )
    if kind == "group" and not creator.is_admin:
        project.members[creator.id] = max(project.members.get(creator.id, 0), DEVELOPER)
    state.projects[pid] = project
    return project


def touch(state: SimState, project: Project) -> None:
    """Mark a change: ``updated_at`` becomes now, and so does ``last_activity_at`` (in the gitlab
    dialect only when it is an hour old: current GitLab resets a project's activity at most once
    an hour, ``Event::RESET_PROJECT_ACTIVITY_INTERVAL``)."""
    now = state.now()
    project.updated_at = now
    if not is_gitlab(state) or project.last_activity_at <= now - ACTIVITY_RESET_INTERVAL:
        project.last_activity_at = now


def fork_project(state: SimState, source: Project, user: User, kind: str, namespace_id: int) -> Project:
    """Create the fork and schedule its import (``scheduled`` → ``started`` → ``finished``)."""
    errors = validation_errors(state, source.name, source.path, kind, namespace_id)
    if errors:
        raise ApiError(409, {"message": errors})
    fork = new_project(
        state,
        name=source.name,
        path=source.path,
        kind=kind,
        namespace_id=namespace_id,
        creator=user,
        visibility=source.visibility,
        description=source.description,
        default_branch=source.default_branch,
    )
    fork.forked_from_id = source.id
    fork.tag_list = list(source.tag_list)
    fork.settings = {**source.settings}
    fork.commit_sha = source.commit_sha
    fork.statistics = dict(source.statistics)
    fork.import_status = "scheduled"
    if kind == "user":
        fork.members[user.id] = OWNER

    def start() -> None:
        if fork.import_status == "scheduled":
            fork.import_status = "started"

    def finish() -> None:
        if fork.import_status == "started":
            fork.import_status = "finished"

    tasks.after(state, tasks.FORK_START_AFTER, start)
    tasks.after(state, tasks.FORK_FINISH_AFTER, finish)
    return fork


def project_snapshot(project: Project) -> dict[str, Any]:
    """What an export archive's ``project.json`` carries about a project."""
    return {
        "name": project.name,
        "path": project.path,
        "description": project.description,
        "visibility": project.visibility,
        "default_branch": project.default_branch,
        "tag_list": list(project.tag_list),
        "archived": project.archived,
        "ci_config_path": project.ci_config_path,
        "settings": dict(project.settings),
        "commit_sha": project.commit_sha,
        "statistics": dict(project.statistics),
    }
