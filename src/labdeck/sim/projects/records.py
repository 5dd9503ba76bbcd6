"""Records of the project-adjacent families: hooks, group badges, protected branches, exports."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from labdeck.sim.core.clock import iso
from labdeck.sim.core.state import Project, SimState

HOOK_EVENTS = (
    "push_events",
    "tag_push_events",
    "merge_requests_events",
    "repository_update_events",
    "issues_events",
    "confidential_issues_events",
    "note_events",
    "confidential_note_events",
    "pipeline_events",
    "wiki_page_events",
    "job_events",
)
# Flags a new hook gets when the request does not say (GitLab's column defaults).
HOOK_DEFAULTS: dict[str, bool] = {name: name == "push_events" for name in HOOK_EVENTS}
HOOK_DEFAULTS["enable_ssl_verification"] = True


@dataclass
class Hook:
    id: int
    project_id: int
    url: str
    created_at: datetime
    flags: dict[str, bool] = field(default_factory=lambda: dict(HOOK_DEFAULTS))
    token: str | None = None  # write-only: never rendered

    def to_json(self) -> dict[str, Any]:
        body: dict[str, Any] = {"id": self.id, "url": self.url, "created_at": iso(self.created_at)}
        for name in HOOK_EVENTS:
            body[name] = self.flags.get(name, False)
        body["enable_ssl_verification"] = self.flags.get("enable_ssl_verification", True)
        body["project_id"] = self.project_id
        return body


@dataclass
class Badge:
    id: int
    group_id: int
    link_url: str
    image_url: str


BADGE_VARIABLES = ("project_path", "project_id", "default_branch", "commit_sha")


def badge_source_project(state: SimState, group_id: int) -> Project | None:
    """The group's first live project by creation date (where ``%{…}`` badge variables take their values)."""
    candidates = [
        p for p in state.projects.values()
        if not p.deleted and p.namespace_kind == "group" and p.namespace_id == group_id
    ]
    if not candidates:
        return None
    return min(candidates, key=lambda p: (p.created_at, p.id))


def render_badge_url(state: SimState, url: str, project: Project | None) -> str:
    """Replace ``%{project_path}``, ``%{project_id}``, ``%{default_branch}``, ``%{commit_sha}``."""
    if project is None:
        return url
    values = {
        "project_path": state.project_full_path(project),
        "project_id": str(project.id),
        "default_branch": project.default_branch,
        "commit_sha": project.commit_sha,
    }
    for name in BADGE_VARIABLES:
        url = url.replace("%{" + name + "}", values[name])
    return url


def badge_json(state: SimState, badge: Badge) -> dict[str, Any]:
    source = badge_source_project(state, badge.group_id)
    return {
        "id": badge.id,
        "link_url": badge.link_url,
        "image_url": badge.image_url,
        "rendered_link_url": render_badge_url(state, badge.link_url, source),
        "rendered_image_url": render_badge_url(state, badge.image_url, source),
        "kind": "group",
    }


ACCESS_DESCRIPTIONS = {0: "No one", 30: "Developers + Masters", 40: "Masters"}


@dataclass
class ProtectedBranch:
    project_id: int
    name: str
    push_access_level: int = 40
    merge_access_level: int = 40
    id: int = 0

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "push_access_levels": [
                {"access_level": self.push_access_level,
                 "access_level_description": ACCESS_DESCRIPTIONS[self.push_access_level]}
            ],
            "merge_access_levels": [
                {"access_level": self.merge_access_level,
                 "access_level_description": ACCESS_DESCRIPTIONS[self.merge_access_level]}
            ],
        }


@dataclass
class ExportRecord:
    project_id: int
    status: str  # none, started, after_export_action, finished
    requested_at: datetime
    description: str | None = None
    upload_url: str | None = None
    upload_method: str | None = None
    archive: bytes | None = None
    filename: str = ""
    uploaded: bool = False
