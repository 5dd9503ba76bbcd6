"""The one table of project integrations: the spec's neutral slugs and the real ones they stand for.

The spec (document 001, "Project integrations") names integrations by neutral slugs such as
``chat-d`` or ``task-tracker``; a real GitLab server only knows its own slugs (``slack``,
``asana`` …, docs/wire-facts.md §5.1). Every translation between the two goes through
:data:`INTEGRATIONS` and the helpers below: nothing else in the client spells a slug.
``chat-d``/``chat-e`` are Slack/Mattermost in that order (the slash-command variant with
``username`` is Mattermost's, docs/wire-facts.md §5.1 and Unknowns #11).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal

from labdeck.api.models.params import IntegrationSlug

ParamType = Literal["string", "boolean", "integer"]
SlugStyle = Literal["spec", "gitlab"]


@dataclass(frozen=True)
class IntegrationSpec:
    """One integration kind: what it is, its parameters, and its real GitLab name.

    ``required``/``optional`` use the spec's parameter names; ``real_params`` maps the ones a real
    server spells differently (``ci_server_a_url`` → ``bamboo_url``).
    """

    kind: str
    required: tuple[str, ...]
    optional: Mapping[str, ParamType] = field(default_factory=dict)
    types: Mapping[str, ParamType] = field(default_factory=dict)
    real_slug: str = ""
    title: str = ""
    """GitLab's human name ("Slack notifications")."""
    real_params: Mapping[str, str] = field(default_factory=dict)

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


def _spec(kind: str, real: str, title: str, required: tuple[str, ...],
          optional: Mapping[str, ParamType] | None = None, real_params: Mapping[str, str] | None = None
          ) -> IntegrationSpec:
    return IntegrationSpec(kind, required, dict(optional or {}), real_slug=real, title=title,
                           real_params=dict(real_params or {}))


INTEGRATIONS: dict[str, IntegrationSpec] = {
    "task-tracker": _spec("task tracker", "asana", "Asana", ("api_key",), {"restrict_to_branch": "string"}),
    "project-mgmt-a": _spec("project management", "assembla", "Assembla", ("token",), {"subdomain": "string"}),
    "project-mgmt-b": _spec("project management", "pivotaltracker", "PivotalTracker", ("token",),
                            {"restrict_to_branch": "string"}),
    "ci-server-a": _spec("CI server", "bamboo", "Atlassian Bamboo CI",
                         ("ci_server_a_url", "build_key", "username", "password"),
                         real_params={"ci_server_a_url": "bamboo_url"}),
    "ci-server-b": _spec("CI server", "teamcity", "JetBrains TeamCity CI",
                         ("ci_server_b_url", "build_type", "username", "password"),
                         real_params={"ci_server_b_url": "teamcity_url"}),
    "ci-a": _spec("CI", "buildkite", "Buildkite", ("token", "project_url"), {"enable_ssl_verification": "boolean"}),
    "ci-b": _spec("CI", "drone-ci", "Drone CI", ("token", "ci_b_url"), {"enable_ssl_verification": "boolean"},
                  real_params={"ci_b_url": "drone_url"}),
    "mock-ci": _spec("mock CI (development only)", "mock-ci", "MockCI", ("mock_service_url",)),
    "issue-tracker-a": _spec("issue tracker", "bugzilla", "Bugzilla", _TRACKER,
                             {"description": "string", "title": "string"}),
    "custom-issue-tracker": _spec("custom issue tracker", "custom-issue-tracker", "Custom Issue Tracker", _TRACKER,
                                  {"description": "string", "title": "string"}),
    "issue-tracker-b": _spec("issue tracker", "jira", "JIRA", ("url", "project_key", "username", "password"),
                             {"tracker_b_issue_transition_id": "integer"},
                             real_params={"tracker_b_issue_transition_id": "jira_issue_transition_id"}),
    "issue-tracker-c": _spec("issue tracker", "redmine", "Redmine", ("new_issue_url", "project_url", "issues_url"),
                             {"description": "string"}),
    "chat-a": _spec("group chat", "campfire", "Campfire", ("token",), {"subdomain": "string", "room": "string"}),
    "chat-b": _spec("group chat", "flowdock", "Flowdock", ("token",)),
    "chat-c": _spec("group chat", "hipchat", "HipChat", ("token",),
                    {"color": "string", "notify": "boolean", "room": "string", "api_version": "string",
                     "server": "string"}),
    "chat-f": _spec("group chat", "microsoft-teams", "Microsoft Teams Notification", ("webhook",)),
    "chat-d": _spec("chat notifications", "slack", "Slack notifications", ("webhook",), _CHAT),
    "chat-e": _spec("chat notifications", "mattermost", "Mattermost notifications", ("webhook",), _CHAT),
    "chat-d-slash-commands": _spec("chat slash commands", "slack-slash-commands", "Slack slash commands", ("token",)),
    "chat-e-slash-commands": _spec("chat slash commands", "mattermost-slash-commands", "Mattermost slash commands",
                                   ("token",), {"username": "string"}),
    "irc-gateway": _spec("IRC gateway", "irker", "Irker (IRC gateway)", ("recipients",),
                         {"default_irc_uri": "string", "server_host": "string", "server_port": "integer",
                          "colorize_messages": "boolean"}),
    "emails-on-push": _spec("e-mails on push", "emails-on-push", "Emails on push", ("recipients",),
                            {"disable_diffs": "boolean", "send_from_committer_email": "boolean"}),
    "pipelines-email": _spec("pipeline e-mails", "pipelines-email", "Pipelines emails", ("recipients",),
                             {"add_pusher": "boolean", "notify_only_broken_pipelines": "boolean"}),
    "external-wiki": _spec("external wiki", "external-wiki", "External Wiki", ("external_wiki_url",)),
    "dependency-monitor": _spec("dependency monitoring", "gemnasium", "Gemnasium", ("api_key", "token")),
    "package-registry": _spec("package registry", "packagist", "Packagist", ("username", "token"),
                              {"server": "string"}),
    "monitoring": _spec("time-series monitoring", "prometheus", "Prometheus", ("api_url",)),
    "push-notifier": _spec("device notifications", "pushover", "Pushover", ("api_key", "user_key", "priority"),
                           {"device": "string", "sound": "string"}),
    "cluster-platform": _spec("cluster platform (deprecated)", "kubernetes", "Kubernetes",
                              ("namespace", "api_url", "token"), {"ca_pem": "string"}),
}
"""Neutral slug → its kind, parameters, real slug and title."""

_BY_REAL: dict[str, str] = {spec.real_slug: neutral for neutral, spec in INTEGRATIONS.items()}
_BY_TITLE: dict[str, str] = {spec.title.casefold(): spec.real_slug for spec in INTEGRATIONS.values()}
# Later GitLab releases renamed some titles; the slug they stand for is the same.
_BY_TITLE.update({"atlassian bamboo": "bamboo", "jetbrains teamcity": "teamcity", "drone": "drone-ci",
                  "pivotal tracker": "pivotaltracker", "jira": "jira",
                  "microsoft teams notifications": "microsoft-teams"})


def neutral_slug(slug: str) -> str:
    """The spec's slug for a real or neutral one (``slack`` → ``chat-d``); unknown slugs unchanged."""
    return slug if slug in INTEGRATIONS else _BY_REAL.get(slug, slug)


def real_slug(slug: str) -> str:
    """GitLab's slug for a neutral or real one (``chat-d`` → ``slack``); unknown slugs unchanged."""
    spec = INTEGRATIONS.get(slug)
    return spec.real_slug if spec is not None else slug


def wire_slug(slug: str, style: SlugStyle) -> str:
    """The slug to put in the request path for a server speaking ``style``."""
    return real_slug(slug) if style == "gitlab" else neutral_slug(slug)


def spec_for(slug: str) -> IntegrationSpec | None:
    """The table entry for a neutral or real slug."""
    return INTEGRATIONS.get(neutral_slug(slug))


def integration_title(slug: str) -> str:
    """The human name of an integration ("Slack notifications"), for either slug; the slug itself
    when the table does not know it (the server's ``title`` is authoritative when present)."""
    spec = spec_for(slug)
    return spec.title if spec is not None else slug


def slug_for_title(title: str | None) -> str | None:
    """GitLab's slug for a title (servers before 13.x list integrations without ``slug``)."""
    if not title:
        return None
    known = _BY_TITLE.get(title.strip().casefold())
    if known is not None:
        return known
    guess = re.sub(r"[^a-z0-9]+", "-", title.strip().casefold()).strip("-")
    return guess or None


def to_real_params(slug: str, settings: Mapping[str, object]) -> dict[str, object]:
    """``settings`` with the spec's parameter names replaced by the real server's."""
    spec = spec_for(slug)
    if spec is None or not spec.real_params:
        return dict(settings)
    return {spec.real_params.get(name, name): value for name, value in settings.items()}


def to_spec_params(slug: str, properties: Mapping[str, object]) -> dict[str, object]:
    """A real server's ``properties`` with the parameters the spec names differently renamed back."""
    spec = spec_for(slug)
    if spec is None or not spec.real_params:
        return dict(properties)
    back = {real: neutral for neutral, real in spec.real_params.items()}
    return {back.get(name, name): value for name, value in properties.items()}


def missing_required(slug: IntegrationSlug | str, settings: Mapping[str, object]) -> list[str]:
    """Required parameters of ``slug`` absent (or empty) in ``settings``."""
    spec = spec_for(slug)
    if spec is None:
        return []
    return [name for name in spec.required if settings.get(name) in (None, "")]


def style_of_slugs(slugs: list[str]) -> SlugStyle | None:
    """Which vocabulary a server's listed slugs are in (None when they do not tell: every slug is
    spelled the same in both, such as ``pipelines-email``)."""
    neutral_only = {slug for slug, spec in INTEGRATIONS.items() if spec.real_slug != slug}
    if any(slug in neutral_only for slug in slugs):
        return "spec"
    if any(slug not in INTEGRATIONS for slug in slugs):
        return "gitlab"  # a real-only slug (slack) or one the spec never had (jenkins)
    return None
