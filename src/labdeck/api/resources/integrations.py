"""Project integrations ("services"; spec 001 §Project integrations).

Slugs are the spec's neutral names (:data:`labdeck.api.models.params.IntegrationSlug`).
:data:`INTEGRATIONS` lists each one's parameters so a form can be built and checked.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal

from labdeck.api.models import Integration
from labdeck.api.models.params import IntegrationSlug
from labdeck.api.resources.base import ProjectRef, Resource, encode, ref

ParamType = Literal["string", "boolean", "integer"]


@dataclass(frozen=True)
class IntegrationSpec:
    """One integration kind: description, required and optional parameters with their types."""

    kind: str
    required: tuple[str, ...]
    optional: Mapping[str, ParamType] = field(default_factory=dict)
    types: Mapping[str, ParamType] = field(default_factory=dict)

    def type_of(self, name: str) -> ParamType:
        return self.types.get(name) or self.optional.get(name) or "string"


_TRACKER = ("new_issue_url", "issues_url", "project_url")
_CHAT_EVENTS = ("push_events", "issues_events", "confidential_issues_events", "merge_requests_events",
                "tag_push_events", "note_events", "pipeline_events", "wiki_page_events")
_CHAT_CHANNELS = ("push_channel", "issue_channel", "confidential_issue_channel", "merge_request_channel",
                  "note_channel", "tag_push_channel", "pipeline_channel", "wiki_page_channel")
_CHAT: dict[str, ParamType] = {
    "username": "string", "channel": "string", "notify_only_broken_pipelines": "boolean",
    "notify_only_default_branch": "boolean",
    **{name: "boolean" for name in _CHAT_EVENTS}, **{name: "string" for name in _CHAT_CHANNELS},
}

INTEGRATIONS: dict[str, IntegrationSpec] = {
    "task-tracker": IntegrationSpec("task tracker", ("api_key",), {"restrict_to_branch": "string"}),
    "project-mgmt-a": IntegrationSpec("project management", ("token",), {"subdomain": "string"}),
    "project-mgmt-b": IntegrationSpec("project management", ("token",), {"restrict_to_branch": "string"}),
    "ci-server-a": IntegrationSpec("CI server", ("ci_server_a_url", "build_key", "username", "password")),
    "ci-server-b": IntegrationSpec("CI server", ("ci_server_b_url", "build_type", "username", "password")),
    "ci-a": IntegrationSpec("CI", ("token", "project_url"), {"enable_ssl_verification": "boolean"}),
    "ci-b": IntegrationSpec("CI", ("token", "ci_b_url"), {"enable_ssl_verification": "boolean"}),
    "mock-ci": IntegrationSpec("mock CI (development only)", ("mock_service_url",)),
    "issue-tracker-a": IntegrationSpec("issue tracker", _TRACKER, {"description": "string", "title": "string"}),
    "custom-issue-tracker": IntegrationSpec("custom issue tracker", _TRACKER,
                                            {"description": "string", "title": "string"}),
    "issue-tracker-b": IntegrationSpec("issue tracker", ("url", "project_key", "username", "password"),
                                       {"tracker_b_issue_transition_id": "integer"}),
    "issue-tracker-c": IntegrationSpec("issue tracker", ("new_issue_url", "project_url", "issues_url"),
                                       {"description": "string"}),
    "chat-a": IntegrationSpec("group chat", ("token",), {"subdomain": "string", "room": "string"}),
    "chat-b": IntegrationSpec("group chat", ("token",)),
    "chat-c": IntegrationSpec("group chat", ("token",), {"color": "string", "notify": "boolean", "room": "string",
                                                        "api_version": "string", "server": "string"}),
    "chat-f": IntegrationSpec("group chat", ("webhook",)),
    "chat-d": IntegrationSpec("chat notifications", ("webhook",), _CHAT),
    "chat-e": IntegrationSpec("chat notifications", ("webhook",), _CHAT),
    "chat-d-slash-commands": IntegrationSpec("chat slash commands", ("token",)),
    "chat-e-slash-commands": IntegrationSpec("chat slash commands", ("token",), {"username": "string"}),
    "irc-gateway": IntegrationSpec("IRC gateway", ("recipients",),
                                   {"default_irc_uri": "string", "server_host": "string", "server_port": "integer",
                                    "colorize_messages": "boolean"}),
    "emails-on-push": IntegrationSpec("e-mails on push", ("recipients",),
                                      {"disable_diffs": "boolean", "send_from_committer_email": "boolean"}),
    "pipelines-email": IntegrationSpec("pipeline e-mails", ("recipients",),
                                       {"add_pusher": "boolean", "notify_only_broken_pipelines": "boolean"}),
    "external-wiki": IntegrationSpec("external wiki", ("external_wiki_url",)),
    "dependency-monitor": IntegrationSpec("dependency monitoring", ("api_key", "token")),
    "package-registry": IntegrationSpec("package registry", ("username", "token"), {"server": "string"}),
    "monitoring": IntegrationSpec("time-series monitoring", ("api_url",)),
    "push-notifier": IntegrationSpec("device notifications", ("api_key", "user_key", "priority"),
                                     {"device": "string", "sound": "string"}),
    "cluster-platform": IntegrationSpec("cluster platform (deprecated)", ("namespace", "api_url", "token"),
                                        {"ca_pem": "string"}),
}


def missing_required(slug: IntegrationSlug, settings: Mapping[str, object]) -> list[str]:
    """Required parameters of ``slug`` absent (or empty) in ``settings``."""
    spec = INTEGRATIONS[slug]
    return [name for name in spec.required if settings.get(name) in (None, "")]


class IntegrationsResource(Resource):
    """``/projects/:id/services/:slug``."""

    def _path(self, pid: ProjectRef, slug: IntegrationSlug) -> str:
        return f"projects/{ref(pid)}/services/{ref(slug)}"

    async def get(self, pid: ProjectRef, slug: IntegrationSlug) -> Integration:
        """Settings of one integration (an unconfigured one has ``active`` False).
        ``GET /projects/:id/services/:slug``."""
        integration: Integration = await self._engine.get(self._path(pid, slug), Integration)
        return integration

    async def update(self, pid: ProjectRef, slug: IntegrationSlug,
                     settings: Mapping[str, str | bool | int | None]) -> Integration | None:
        """Create or edit an integration (see :data:`INTEGRATIONS` for its parameters).
        ``PUT /projects/:id/services/:slug``."""
        integration: Integration | None = await self._engine.call("PUT", self._path(pid, slug), Integration,
                                                                  data=encode(dict(settings)))
        return integration

    async def delete(self, pid: ProjectRef, slug: IntegrationSlug) -> None:
        """Remove the integration's settings. ``DELETE /projects/:id/services/:slug``."""
        await self._engine.call("DELETE", self._path(pid, slug))
