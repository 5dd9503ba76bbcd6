"""The project integrations of spec document 001: slugs, titles and parameters.

Slugs are the spec's neutral names; each also answers to the real GitLab slug it stands for
(docs/wire-facts.md §5.1), so that clients written against GitLab (python-gitlab addresses integrations as
``pipelines-email``, ``asana`` …) work unchanged. Where the real integration names a parameter
differently (``bamboo_url`` for ``ci_server_a_url``) the real name is accepted too.

The canonical slug, the one records carry, depends on the dialect: the neutral one in the spec
dialect, the real one in the gitlab dialect. The spec does not say which of ``chat-d``/``chat-e`` is
Slack and which Mattermost (docs/wire-facts.md Unknowns #11); the simulator reads ``chat-d`` as Slack and
``chat-e`` as Mattermost, because ``chat-e-slash-commands`` takes the ``username`` parameter that only
Mattermost's slash commands have.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

# Event flags of current GitLab's IntegrationBasic entity beyond EVENT_FLAGS, with their defaults.
GITLAB_EXTRA_FLAGS: dict[str, bool] = {
    "commit_events": True,
    "incident_events": False,
    "alert_events": True,
    "deployment_events": False,
    "confidential_note_events": True,
    "comment_on_event_enabled": True,
}

EVENT_FLAGS = (
    "push_events",
    "issues_events",
    "confidential_issues_events",
    "merge_requests_events",
    "tag_push_events",
    "note_events",
    "job_events",
    "pipeline_events",
    "wiki_page_events",
)

_CHAT_CHANNELS = (
    "push_channel",
    "issue_channel",
    "confidential_issue_channel",
    "merge_request_channel",
    "note_channel",
    "tag_push_channel",
    "pipeline_channel",
    "wiki_page_channel",
)


@dataclass(frozen=True)
class IntegrationKind:
    """One integration: its slugs, title and parameters (name → ``str``, ``int`` or ``bool``)."""

    slug: str
    real_slug: str
    title: str
    required: tuple[str, ...]
    optional: dict[str, str] = field(default_factory=dict)
    # real GitLab parameter name -> the spec's name
    param_aliases: dict[str, str] = field(default_factory=dict)
    development_only: bool = False
    deprecated: bool = False
    # Gone from current GitLab (the gitlab dialect answers 400 for them, as for any unknown slug).
    removed_in_gitlab: bool = False
    # Required by the spec but optional in current GitLab.
    optional_in_gitlab: tuple[str, ...] = ()

    def param_type(self, name: str) -> str:
        """``str``, ``int`` or ``bool`` for a parameter name."""
        return self.optional.get(name, "str")

    @property
    def params(self) -> tuple[str, ...]:
        """Every parameter name, required ones first."""
        return (*self.required, *self.optional)


def _kind(
    slug: str,
    real: str,
    title: str,
    required: tuple[str, ...],
    optional: dict[str, str] | None = None,
    *,
    param_aliases: dict[str, str] | None = None,
    development_only: bool = False,
    deprecated: bool = False,
    removed_in_gitlab: bool = False,
    optional_in_gitlab: tuple[str, ...] = (),
) -> IntegrationKind:
    return IntegrationKind(slug, real, title, required, dict(optional or {}), dict(param_aliases or {}),
                           development_only, deprecated, removed_in_gitlab, optional_in_gitlab)


_TRACKER_OPTIONAL = {"description": "str", "title": "str"}
_CHAT_OPTIONAL: dict[str, str] = {
    "username": "str",
    "channel": "str",
    "notify_only_broken_pipelines": "bool",
    "notify_only_default_branch": "bool",
    **{flag: "bool" for flag in EVENT_FLAGS if flag != "job_events"},
    **{name: "str" for name in _CHAT_CHANNELS},
}

CATALOG: tuple[IntegrationKind, ...] = (
    _kind("task-tracker", "asana", "Asana", ("api_key",), {"restrict_to_branch": "str"}),
    _kind("project-mgmt-a", "assembla", "Assembla", ("token",), {"subdomain": "str"}),
    # The spec lists restrict_to_branch as boolean but describes a branch list; GitLab's code has String.
    _kind("project-mgmt-b", "pivotaltracker", "PivotalTracker", ("token",), {"restrict_to_branch": "str"}),
    _kind("ci-server-a", "bamboo", "Atlassian Bamboo CI", ("ci_server_a_url", "build_key", "username", "password"),
          param_aliases={"bamboo_url": "ci_server_a_url"}),
    _kind("ci-server-b", "teamcity", "JetBrains TeamCity CI", ("ci_server_b_url", "build_type", "username", "password"),
          param_aliases={"teamcity_url": "ci_server_b_url"}),
    _kind("ci-a", "buildkite", "Buildkite", ("token", "project_url"), {"enable_ssl_verification": "bool"}),
    _kind("ci-b", "drone-ci", "Drone CI", ("token", "ci_b_url"), {"enable_ssl_verification": "bool"},
          param_aliases={"drone_url": "ci_b_url"}),
    _kind("mock-ci", "mock-ci", "MockCI", ("mock_service_url",), development_only=True),
    _kind("issue-tracker-a", "bugzilla", "Bugzilla", ("new_issue_url", "issues_url", "project_url"),
          _TRACKER_OPTIONAL),
    _kind("custom-issue-tracker", "custom-issue-tracker", "Custom Issue Tracker",
          ("new_issue_url", "issues_url", "project_url"), _TRACKER_OPTIONAL),
    _kind("issue-tracker-b", "jira", "JIRA", ("url", "project_key", "username", "password"),
          {"tracker_b_issue_transition_id": "int"},
          param_aliases={"jira_issue_transition_id": "tracker_b_issue_transition_id"},
          optional_in_gitlab=("project_key",)),
    _kind("issue-tracker-c", "redmine", "Redmine", ("new_issue_url", "project_url", "issues_url"),
          {"description": "str"}),
    _kind("chat-a", "campfire", "Campfire", ("token",), {"subdomain": "str", "room": "str"}),
    # Flowdock, HipChat, Gemnasium and Kubernetes are no longer GitLab integrations (the 14.x
    # integrations helper lists none of the last three; Flowdock shut down in 2022).
    _kind("chat-b", "flowdock", "Flowdock", ("token",), removed_in_gitlab=True),
    _kind("chat-c", "hipchat", "HipChat", ("token",),
          {"color": "str", "notify": "bool", "room": "str", "api_version": "str", "server": "str"},
          removed_in_gitlab=True),
    _kind("chat-f", "microsoft-teams", "Microsoft Teams Notification", ("webhook",)),
    _kind("chat-d", "slack", "Slack notifications", ("webhook",), _CHAT_OPTIONAL),
    _kind("chat-e", "mattermost", "Mattermost notifications", ("webhook",), _CHAT_OPTIONAL),
    _kind("chat-d-slash-commands", "slack-slash-commands", "Slack slash commands", ("token",)),
    _kind("chat-e-slash-commands", "mattermost-slash-commands", "Mattermost slash commands", ("token",),
          {"username": "str"}),
    _kind("irc-gateway", "irker", "Irker (IRC gateway)", ("recipients",),
          {"default_irc_uri": "str", "server_host": "str", "server_port": "int", "colorize_messages": "bool"}),
    _kind("emails-on-push", "emails-on-push", "Emails on push", ("recipients",),
          {"disable_diffs": "bool", "send_from_committer_email": "bool"}),
    _kind("pipelines-email", "pipelines-email", "Pipelines emails", ("recipients",),
          {"add_pusher": "bool", "notify_only_broken_pipelines": "bool"}),
    _kind("external-wiki", "external-wiki", "External Wiki", ("external_wiki_url",)),
    _kind("dependency-monitor", "gemnasium", "Gemnasium", ("api_key", "token"), removed_in_gitlab=True),
    _kind("package-registry", "packagist", "Packagist", ("username", "token"), {"server": "str"}),
    _kind("monitoring", "prometheus", "Prometheus", ("api_url",)),
    _kind("push-notifier", "pushover", "Pushover", ("api_key", "user_key", "priority"),
          {"device": "str", "sound": "str"}),
    _kind("cluster-platform", "kubernetes", "Kubernetes", ("namespace", "api_url", "token"), {"ca_pem": "str"},
          deprecated=True, removed_in_gitlab=True),
)

_BY_SLUG: dict[str, IntegrationKind] = {}
for _entry in CATALOG:
    _BY_SLUG[_entry.slug] = _entry
    _BY_SLUG.setdefault(_entry.real_slug, _entry)


def lookup(slug: str, *, development: bool = False, gitlab: bool = False) -> IntegrationKind | None:
    """The integration for a neutral or real slug; None for an unknown one.

    Development-only integrations exist only when the simulator plays a development server;
    integrations GitLab removed do not exist in the gitlab dialect.
    """
    kind = _BY_SLUG.get(slug)
    if kind is None or (kind.development_only and not development) or (gitlab and kind.removed_in_gitlab):
        return None
    return kind


def canonical_slug(kind: IntegrationKind, *, gitlab: bool) -> str:
    """The slug records carry: neutral in the spec dialect, real in the gitlab dialect."""
    return kind.real_slug if gitlab else kind.slug


def available(*, development: bool = False, gitlab: bool = False) -> list[IntegrationKind]:
    """The integrations a server of this dialect offers."""
    return [kind for kind in CATALOG if lookup(kind.slug, development=development, gitlab=gitlab) is not None]


def is_secret(name: str) -> bool:
    """Password-, token- and key-type properties (never returned by GET)."""
    return (
        name == "token"
        or name.endswith("_token")
        or "password" in name
        or name in ("api_key", "user_key")
        or "secret" in name
    )


def is_hidden(name: str, *, gitlab: bool) -> bool:
    """Whether GET leaves a property out: secrets in both dialects, and chat webhook URLs in the
    gitlab dialect (current GitLab's ``api_field_names`` drops password fields and ``webhook``)."""
    return is_secret(name) or (gitlab and name == "webhook")


@dataclass
class IntegrationRecord:
    """A project's saved settings for one integration (stored under ``(project id, slug)``)."""

    id: int
    project_id: int
    slug: str
    created_at: datetime
    updated_at: datetime
    active: bool = True
    properties: dict[str, Any] = field(default_factory=dict)
    events: dict[str, bool] = field(default_factory=lambda: dict.fromkeys(EVENT_FLAGS, True))
