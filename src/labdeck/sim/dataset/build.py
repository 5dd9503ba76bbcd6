"""The simulator's deterministic demo data.

``build_state(seed)`` always yields the same users, groups and projects for the same seed. The demo
accounts and their tokens (``DEMO_TOKENS``) are fixed and documented:

=========  ==========  ==================================  =================
role       username    token                               scopes
=========  ==========  ==================================  =================
admin      ``root``    ``labdeck-demo-admin-token``        api, sudo
user       ``alice``   ``labdeck-demo-user-token``         api
read-only  ``viewer``  ``labdeck-demo-readonly-token``     read_api
=========  ==========  ==================================  =================

``alice`` owns her personal projects and the ``web`` group, is a developer in ``platform``, a
reporter in ``platform/infra``, maintainer of ``tools/ci-templates`` and guest in ``tools/benchmarks``;
she is not a member of ``data``. ``viewer`` is a reporter in ``platform`` and ``web``.

``projects=N`` pads the data set with generated projects up to N in total (benchmarks);
``dialect="gitlab"`` plays current GitLab instead of the spec (:mod:`labdeck.sim.core.dialect`).
"""

from __future__ import annotations

import random
from datetime import timedelta
from typing import Any

from labdeck.sim.core.accounts import DEMO_TOKENS, DEMO_USERS
from labdeck.sim.core.clock import SimClock
from labdeck.sim.core.dialect import SPEC, set_dialect
from labdeck.sim.core.state import (
    DEVELOPER,
    GUEST,
    MAINTAINER,
    OWNER,
    REPORTER,
    Group,
    Project,
    SimState,
    Token,
    User,
)
from labdeck.sim.dataset import ci, issues
from labdeck.sim.projects.ops import fake_sha
from labdeck.sim.projects.records import Badge, Hook, ProtectedBranch
from labdeck.sim.projects.views import default_settings

_USERS = [
    # username, name, admin
    ("root", "Administrator", True),
    ("alice", "Alice Moreau", False),
    ("bob", "Bob Okafor", False),
    ("carol", "Carol Nguyen", False),
    ("dave", "Dave Lindqvist", False),
    ("erin", "Erin Castillo", False),
    ("frank", "Frank Weber", False),
    ("viewer", "Read Only Viewer", False),
]

_GROUPS = [
    # path, name, parent path, visibility, description
    ("platform", "Platform", None, "public", "Shared platform services"),
    ("infra", "Infra", "platform", "private", "Infrastructure as code"),
    ("web", "Web", None, "internal", "Web front ends"),
    ("data", "Data", None, "private", "Data pipelines and analytics"),
    ("tools", "Tools", None, "public", "Developer tooling"),
]

_GROUP_MEMBERS = {
    "platform": {"bob": OWNER, "alice": DEVELOPER, "carol": MAINTAINER, "viewer": REPORTER, "dave": GUEST},
    "infra": {"carol": OWNER, "alice": REPORTER, "frank": DEVELOPER},
    "web": {"alice": OWNER, "erin": MAINTAINER, "dave": DEVELOPER, "viewer": REPORTER},
    "data": {"dave": OWNER, "erin": DEVELOPER},
    "tools": {"frank": OWNER, "bob": DEVELOPER},
}

# namespace, path, visibility, description
_PROJECTS: list[tuple[str, str, str, str | None]] = [
    ("platform", "api-gateway", "public", "Edge gateway routing every public request"),
    ("platform", "auth-service", "internal", "Tokens, sessions and SSO"),
    ("platform", "billing", "private", "Invoices and payment providers"),
    ("platform", "notifications", "internal", "E-mail, push and chat notifications"),
    ("platform", "search", "public", "Full-text search service"),
    ("platform", "feature-flags", "internal", "Feature flag evaluation"),
    ("platform", "audit-log", "private", "Append-only audit trail"),
    ("platform", "legacy-monolith", "internal", "The old monolith, read-only"),
    ("infra", "terraform-modules", "private", "Reusable Terraform modules"),
    ("infra", "k8s-manifests", "private", "Cluster manifests"),
    ("infra", "ansible-roles", "private", "Host configuration"),
    ("infra", "observability", "private", "Dashboards and alert rules"),
    ("infra", "dns", "private", "Zone files"),
    ("web", "storefront", "internal", "Customer-facing shop"),
    ("web", "admin-console", "internal", "Back-office UI"),
    ("web", "design-system", "public", "Shared UI components"),
    ("web", "marketing-site", "public", "Static marketing pages"),
    ("web", "mobile-web", "internal", "Mobile web client"),
    ("web", "docs-portal", "public", "Product documentation"),
    ("web", "old-landing", "internal", "Retired landing page"),
    ("data", "etl-jobs", "private", "Nightly ETL"),
    ("data", "warehouse-schema", "private", "Warehouse DDL"),
    ("data", "ml-models", "private", "Model training"),
    ("data", "reports", "internal", "Scheduled reports"),
    ("data", "data-quality", "private", "Data quality checks"),
    ("tools", "labdeck-cli", "public", "Command-line helpers"),
    ("tools", "ci-templates", "public", "Shared CI templates"),
    ("tools", "dotfiles", "public", "Team dotfiles"),
    ("tools", "release-bot", "internal", "Release automation bot"),
    ("tools", "lint-rules", "public", "Shared lint configuration"),
    ("tools", "benchmarks", "internal", "Performance benchmarks"),
    ("alice", "sandbox", "private", "Alice's experiments"),
    ("alice", "notes", "private", None),
    ("alice", "blog", "public", "Personal blog"),
    ("bob", "scratch", "private", "Scratch space"),
    ("bob", "talks", "public", "Conference talks"),
    ("carol", "homelab", "internal", "Home lab configuration"),
    ("dave", "sql-snippets", "private", "Useful queries"),
    ("erin", "ui-experiments", "public", "Prototypes"),
    ("frank", "vim-config", "public", "Editor setup"),
]
_ARCHIVED = {"legacy-monolith", "old-landing", "dns"}
# (source namespace/path, fork namespace)
_FORKS = [("platform/api-gateway", "alice"), ("tools/ci-templates", "bob"), ("web/design-system", "erin"),
          ("platform/search", "data"), ("tools/dotfiles", "alice")]
_TAGS = ["backend", "frontend", "go", "python", "ruby", "rust", "terraform", "docs", "internal", "critical"]
_BRANCH_RULES = [("release-*", 30, 40), ("stable", 40, 40), ("production", 0, 40), ("*-hotfix", 40, 30)]


def build_state(seed: int = 42, clock: SimClock | None = None, **options: Any) -> SimState:
    """A fresh :class:`SimState` with the demo data for ``seed``.

    Options: ``projects=N`` pads to N projects in total (their ids are in
    ``state.extra["generated_project_ids"]``); ``families=False`` skips the other families' data;
    ``dialect`` is ``"spec"`` (default) or ``"gitlab"``; ``rollout=True`` adds the six-region deploy
    of :mod:`labdeck.sim.dataset.rollout`; ``tokens`` (role → token) replaces :data:`DEMO_TOKENS` (another
    instance's accounts, see :func:`labdeck.sim.core.accounts.instance_tokens`); the tokens in use are
    in ``state.extra["demo_tokens"]``.
    The CI and issues families populate their own data through ``labdeck.sim.dataset.ci.populate`` and
    ``labdeck.sim.dataset.issues.populate``.
    """
    rng = random.Random(seed)
    state = SimState(clock or SimClock(mode="real"))
    state.extra["seed"] = seed
    set_dialect(state, str(options.get("dialect") or SPEC))
    start = state.now() - timedelta(days=400)
    tokens = dict(options.get("tokens") or DEMO_TOKENS)
    state.extra["demo_tokens"] = tokens
    users = _build_users(state, rng, start, tokens)
    groups = _build_groups(state, start)
    _build_projects(state, rng, users, groups, start)
    total = int(options.get("projects") or 0)
    if total > len(state.projects):
        _pad_projects(state, rng, users, groups, start, total)
    _build_project_extras(state, rng, start)
    if not options.get("families", True):
        return state
    state.extra["rollout"] = bool(options.get("rollout"))
    ci.populate(state, rng)
    issues.populate(state, rng)
    return state


def _build_users(state: SimState, rng: random.Random, start: Any, tokens: dict[str, str]) -> dict[str, User]:
    users: dict[str, User] = {}
    for index, (username, name, admin) in enumerate(_USERS, start=1):
        user = User(
            id=state.next_id("user"),
            username=username,
            name=name,
            email=f"{username}@labdeck.example",
            created_at=start + timedelta(days=index, hours=rng.randint(0, 23)),
            is_admin=admin,
            bio=f"{name.split()[0]} works on the platform team." if not admin else "",
            location=rng.choice(["Berlin", "Lagos", "Lyon", "Osaka", "Toronto", "Austin"]),
            organization="Labdeck Demo",
        )
        state.users[user.id] = user
        users[username] = user
    for role, username in DEMO_USERS.items():
        scopes = {"readonly": ("read_api",), "admin": ("api", "sudo")}.get(role, ("api",))
        state.tokens[tokens[role]] = Token(tokens[role], users[username].id, scopes, f"demo-{role}")
    return users


def _build_groups(state: SimState, start: Any) -> dict[str, Group]:
    groups: dict[str, Group] = {}
    users_by_name = {user.username: user for user in state.users.values()}
    for index, (path, name, parent, visibility, description) in enumerate(_GROUPS, start=1):
        group = Group(
            id=state.next_id("group"),
            name=name,
            path=path,
            created_at=start + timedelta(days=10 + index),
            parent_id=groups[parent].id if parent else None,
            description=description,
            visibility=visibility,
        )
        group.members = {users_by_name[u].id: level for u, level in _GROUP_MEMBERS.get(path, {}).items()}
        state.groups[group.id] = group
        groups[path] = group
    for group in groups.values():
        group.full_path = state.group_full_path(group)
    return groups


def _make_project(
    state: SimState, rng: random.Random, users: dict[str, User], groups: dict[str, Group],
    namespace: str, path: str, visibility: str, description: str | None, created: Any,
) -> Project:
    pid = state.next_id("project")
    if namespace in groups:
        kind, namespace_id = "group", groups[namespace].id
        members = [u for u in groups[namespace].members if state.users[u].username != "viewer"]
        creator = state.users[rng.choice(members)] if members else users["root"]
    else:
        kind, namespace_id, creator = "user", users[namespace].id, users[namespace]
    name = path.replace("-", " ").title() if rng.random() < 0.5 else path
    activity = created + timedelta(days=rng.randint(0, 300), minutes=rng.randint(0, 1440))
    # Never in the future (no random draw here: the rest of the data set keeps its values).
    activity = min(activity, state.now() - timedelta(minutes=(pid * 37) % 600 + 5))
    settings = default_settings()
    settings["merge_method"] = rng.choice(["merge", "merge", "rebase_merge", "ff"])
    settings["only_allow_merge_if_pipeline_succeeds"] = rng.random() < 0.3
    if rng.random() < 0.1:
        settings["wiki_enabled"] = False
    if rng.random() < 0.08:
        settings["issues_enabled"] = False
    commits = rng.randint(1, 4000)
    repo = commits * rng.randint(2_000, 40_000)
    lfs = rng.choice([0, 0, rng.randint(1, 50) * 1_000_000])
    artifacts = rng.randint(0, 200) * 250_000
    project = Project(
        id=pid,
        name=name,
        path=path,
        namespace_kind=kind,
        namespace_id=namespace_id,
        creator_id=creator.id,
        created_at=created,
        last_activity_at=activity,
        updated_at=activity,
        description=description,
        visibility=visibility,
        default_branch="main" if rng.random() < 0.3 else "master",
        tag_list=sorted(rng.sample(_TAGS, rng.randint(0, 3))),
        settings=settings,
        runners_token=fake_sha("runners", seed_part(state), pid)[:20],
        commit_sha=fake_sha("commit", seed_part(state), pid),
        statistics={
            "commit_count": commits,
            "storage_size": repo + lfs + artifacts,
            "repository_size": repo,
            "lfs_objects_size": lfs,
            "job_artifacts_size": artifacts,
        },
    )
    state.projects[pid] = project
    return project


def seed_part(state: SimState) -> int:
    return int(state.extra.get("seed", 0))


def _build_projects(
    state: SimState, rng: random.Random, users: dict[str, User], groups: dict[str, Group], start: Any
) -> None:
    created = start + timedelta(days=20)
    by_path: dict[str, Project] = {}
    # The demo accounts' memberships are fixed (documented above); only the others vary with the seed.
    plain_users = [u for u in users.values() if not u.is_admin and u.username not in ("viewer", "alice")]
    for namespace, path, visibility, description in _PROJECTS:
        created += timedelta(days=rng.randint(1, 6), hours=rng.randint(0, 23))
        project = _make_project(state, rng, users, groups, namespace, path, visibility, description, created)
        project.archived = path in _ARCHIVED
        # Direct members at every access level, on top of group membership.
        for member in rng.sample(plain_users, rng.randint(0, 3)):
            if project.namespace_kind == "user" and member.id == project.namespace_id:
                continue
            project.members[member.id] = rng.choice([GUEST, REPORTER, DEVELOPER, MAINTAINER, OWNER])
        if project.namespace_kind == "user":
            project.members[project.namespace_id] = OWNER
        by_path[f"{namespace}/{path}"] = project
    for source_path, namespace in _FORKS:
        source = by_path[source_path]
        created += timedelta(days=rng.randint(1, 5))
        fork = _make_project(state, rng, users, groups, namespace, source.path, source.visibility,
                             source.description, created)
        fork.name = source.name
        fork.forked_from_id = source.id
        fork.import_status = "finished"
        fork.commit_sha = source.commit_sha
        if fork.namespace_kind == "user":
            fork.members[fork.namespace_id] = OWNER
    # Stars, custom attributes, a shared project.
    for project in list(state.projects.values()):
        for user in users.values():
            if rng.random() < 0.15 and state.can_read(user, project):
                project.starred_by.add(user.id)
        if rng.random() < 0.3:
            project.custom_attributes = {"tier": rng.choice(["gold", "silver", "bronze"])}
            if rng.random() < 0.5:
                project.custom_attributes["cost_center"] = str(rng.choice([1100, 2200, 3300]))
    alice = users["alice"]
    by_path["tools/ci-templates"].members[alice.id] = MAINTAINER
    by_path["tools/benchmarks"].members[alice.id] = GUEST
    for path in ("platform/api-gateway", "web/design-system", "tools/ci-templates"):
        by_path[path].starred_by.add(alice.id)
    by_path["platform/api-gateway"].custom_attributes = {"tier": "gold", "cost_center": "1100"}
    by_path["data/reports"].shared_with_groups[groups["web"].id] = {
        "id": state.next_id("group_link"), "group_access": DEVELOPER, "expires_at": None,
    }


def _pad_projects(
    state: SimState, rng: random.Random, users: dict[str, User], groups: dict[str, Group], start: Any,
    total: int,
) -> None:
    """Generated projects for benchmarks: cheap, spread over the groups, mostly internal."""
    group_paths = ["platform", "web", "data", "tools", "infra"]
    generated: set[int] = state.extra.setdefault("generated_project_ids", set())
    created = start + timedelta(days=1)
    number = 0
    while len(state.projects) < total:
        number += 1
        created += timedelta(minutes=17)
        namespace = group_paths[number % len(group_paths)]
        visibility = ("internal", "public", "private")[number % 3]
        project = _make_project(state, rng, users, groups, namespace, f"generated-{number:05d}", visibility,
                                f"Generated project {number}", created)
        project.archived = number % 23 == 0
        generated.add(project.id)


def _build_project_extras(state: SimState, rng: random.Random, start: Any) -> None:
    """Hooks, protected branches and group badges on the hand-written projects."""
    for project in list(state.projects.values())[:60]:
        state.protected_branches[(project.id, project.default_branch)] = ProtectedBranch(
            project.id, project.default_branch, 40, 40, state.next_id("protected_branch"))
        if rng.random() < 0.5:
            name, push, merge = rng.choice(_BRANCH_RULES)
            state.protected_branches[(project.id, name)] = ProtectedBranch(
                project.id, name, push, merge, state.next_id("protected_branch"))
        if rng.random() < 0.35:
            hook_id = state.next_id("hook")
            hook = Hook(hook_id, project.id, f"https://hooks.labdeck.example/{project.path}/{hook_id}",
                        project.created_at + timedelta(days=3), token=f"secret-{hook_id}")
            hook.flags["pipeline_events"] = rng.random() < 0.5
            hook.flags["job_events"] = rng.random() < 0.3
            hook.flags["issues_events"] = rng.random() < 0.5
            state.hooks[hook_id] = hook
    # Every project in platform gets the release rule, so wildcard rules are always present.
    for project in state.projects.values():
        if project.namespace_kind == "group" and state.groups[project.namespace_id].path == "platform":
            state.protected_branches.setdefault((project.id, "release-*"), ProtectedBranch(
                project.id, "release-*", 30, 40, state.next_id("protected_branch")))
    groups = {group.path: group for group in state.groups.values()}
    badges = [
        ("platform", "https://ci.labdeck.example/%{project_path}/pipelines?ref=%{default_branch}",
         "https://ci.labdeck.example/%{project_path}/badges/%{default_branch}/pipeline.svg"),
        ("platform", "https://coverage.labdeck.example/projects/%{project_id}",
         "https://coverage.labdeck.example/badges/%{commit_sha}.svg"),
        ("web", "https://docs.labdeck.example/%{project_path}",
         "https://img.shields.io/badge/docs-%{default_branch}-blue.svg"),
        ("infra", "https://status.labdeck.example/%{project_id}", "https://status.labdeck.example/%{project_id}.svg"),
    ]
    for group_path, link_url, image_url in badges:
        badge_id = state.next_id("badge")
        state.badges[badge_id] = Badge(badge_id, groups[group_path].id, link_url, image_url)
