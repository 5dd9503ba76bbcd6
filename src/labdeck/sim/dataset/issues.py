"""Deterministic issues, milestones, merge requests, todos, integrations and notification settings.

``populate(state, rng)`` runs after users, groups and projects exist (``dataset.build_state``).
Only ``rng`` and the existing state drive the choices, so a seed always yields the same data.
"""

from __future__ import annotations

import hashlib
import math
import random
from datetime import datetime, timedelta

from labdeck.sim.core.state import DEVELOPER, GUEST, Project, SimState, User
from labdeck.sim.integrations.catalog import EVENT_FLAGS, IntegrationRecord
from labdeck.sim.issues.model import Issue, MergeRequest, Milestone, ensure_labels, project_labels
from labdeck.sim.issues.notification_settings import EMAIL_EVENTS, LEVELS, NotificationSetting
from labdeck.sim.issues.time_tracking import DAY, HOUR, MINUTE, WEEK

MIN_ISSUES = 240
DETAILED_PROJECTS = 100
MILESTONES_BY_PROJECT = "issue_data.milestones_by_project"
LABEL_POOL = (
    "bug", "feature", "docs", "security", "performance", "ux", "backend", "frontend",
    "regression", "needs-triage", "good first issue", "blocked", "tech-debt",
)
LABEL_COLOURS = ("#d9534f", "#5cb85c", "#428bca", "#f0ad4e", "#8e44ad", "#34495e", "#69d100")
MILESTONE_TITLES = ("v1.0", "v1.1", "v2.0", "Sprint 41", "Sprint 42", "Q4 cleanup", "Backlog")
SUBJECTS = (
    "login page", "pipeline view", "token refresh", "search results", "billing export", "CSV import",
    "dark theme", "rate limiter", "webhook retries", "audit trail", "release notes", "cache layer",
    "notification e-mails", "API pagination", "mobile layout", "job logs", "runner registration",
)
PATTERNS = (
    "{subject} crashes when the list is empty",
    "Add keyboard shortcuts to the {subject}",
    "{subject} is slow with more than 10k rows",
    "Document the {subject}",
    "Refactor the {subject} module",
    "{subject} shows the wrong timezone",
    "Support filters in the {subject}",
    "Flaky test around the {subject}",
    "Security review of the {subject}",
    "Translate the {subject}",
)
ESTIMATES = (30 * MINUTE, HOUR, 2 * HOUR, 3 * HOUR + 30 * MINUTE, DAY, 2 * DAY, WEEK)
USER_AGENTS = (
    "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/118.0 Safari/537.36",
    "Mozilla/5.0 (Macintosh; Intel Mac OS X 13_5) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0",
    "python-gitlab/4.4.0",
    "curl/8.4.0",
)


def _sha(*parts: object) -> str:
    return hashlib.sha1(":".join(map(str, parts)).encode(), usedforsecurity=False).hexdigest()


def _members(state: SimState, project: Project, minimum: int = GUEST) -> list[User]:
    """Users with at least ``minimum`` access, sorted by id (falls back to readers)."""
    users = sorted(state.users.values(), key=lambda user: user.id)
    members = [user for user in users if state.access_level(user, project) >= minimum]
    return members or [user for user in users if user.is_admin]


def _issue_projects(state: SimState) -> list[Project]:
    return [
        project
        for project in sorted(state.projects.values(), key=lambda project: project.id)
        if not project.deleted and project.settings.get("issues_enabled", True)
    ]


def populate(state: SimState, rng: random.Random) -> None:
    """Fill the issues family, integrations and notification settings."""
    now = state.now()
    projects = _issue_projects(state)
    if not projects:
        return
    for project in projects:
        _labels_and_milestones(state, rng, project, now)
    detailed = projects[:DETAILED_PROJECTS]
    per_project = max(2, math.ceil(MIN_ISSUES / len(detailed)))
    by_project: dict[int, list[Issue]] = {project.id: [] for project in projects}
    for index, project in enumerate(projects):
        # Benchmark padding (hundreds of generated projects) gets at most one issue each.
        if index < DETAILED_PROJECTS:
            count = rng.randint(max(1, per_project // 2), per_project + per_project // 2)
        else:
            count = rng.randint(0, 1)
        for _ in range(count):
            by_project[project.id].append(_make_issue(state, rng, project, now))
    while len(state.issues) < MIN_ISSUES:
        project = rng.choice(detailed)
        by_project[project.id].append(_make_issue(state, rng, project, now))
    for project in detailed:
        _merge_requests(state, rng, project, by_project[project.id], now)
    state.extra.pop(MILESTONES_BY_PROJECT, None)
    _integrations(state, rng, now)
    _notification_settings(state, rng)


def _labels_and_milestones(state: SimState, rng: random.Random, project: Project, now: datetime) -> None:
    labels = project_labels(state, project.id)
    for name in rng.sample(LABEL_POOL, rng.randint(4, 9)):
        labels[name] = rng.choice(LABEL_COLOURS)
    for title in sorted(rng.sample(MILESTONE_TITLES, rng.randint(1, 4))):
        created = project.created_at + timedelta(days=rng.randint(1, 30))
        closed = rng.random() < 0.25
        milestone = Milestone(
            id=state.next_id("milestone"),
            iid=state.next_id(f"milestone_iid:{project.id}"),
            project_id=project.id,
            title=title,
            created_at=created,
            updated_at=created,
            description=f"{title} for {project.name}",
            state="closed" if closed else "active",
            due_date=(now + timedelta(days=rng.randint(-60, 120))).date().isoformat(),
            start_date=created.date().isoformat(),
            closed_at=created + timedelta(days=20) if closed else None,
        )
        state.milestones[milestone.id] = milestone
        state.extra.setdefault(MILESTONES_BY_PROJECT, {}).setdefault(project.id, []).append(milestone)


def _make_issue(state: SimState, rng: random.Random, project: Project, now: datetime) -> Issue:
    members = _members(state, project)
    developers = _members(state, project, DEVELOPER)
    readers = [user for user in sorted(state.users.values(), key=lambda u: u.id) if state.can_read(user, project)]
    author = rng.choice(readers if rng.random() < 0.2 and readers else members)
    created = max(project.created_at, now - timedelta(days=300)) + timedelta(
        days=rng.randint(0, 280), minutes=rng.randint(0, 1439)
    )
    created = min(created, now - timedelta(hours=1))
    updated = (created + (now - created) * rng.random()).replace(microsecond=0)
    subject = rng.choice(SUBJECTS)
    title = rng.choice(PATTERNS).format(subject=subject)
    title = title[0].upper() + title[1:]
    label_names = sorted(project_labels(state, project.id))
    milestones: list[Milestone] = state.extra.setdefault(MILESTONES_BY_PROJECT, {}).get(project.id, [])
    issue = Issue(
        id=state.next_id("issue"),
        iid=state.next_id(f"issue_iid:{project.id}"),
        project_id=project.id,
        title=title,
        description=None if rng.random() < 0.1 else f"Steps to reproduce in the {subject}.\n\nSeen on {project.path}.",
        author_id=author.id,
        created_at=created,
        updated_at=updated,
        labels=rng.sample(label_names, rng.randint(0, min(3, len(label_names)))) if rng.random() < 0.8 else [],
        milestone_id=rng.choice(milestones).id if milestones and rng.random() < 0.5 else None,
        assignee_ids=[user.id for user in rng.sample(developers, rng.randint(0, min(2, len(developers))))],
        confidential=rng.random() < 0.12,
        discussion_locked=rng.random() < 0.05,
        due_date=(now + timedelta(days=rng.randint(-30, 90))).date().isoformat() if rng.random() < 0.4 else None,
        user_notes_count=rng.randint(0, 12),
    )
    if rng.random() < 0.45:
        issue.time_estimate = rng.choice(ESTIMATES)
        if rng.random() < 0.6:
            issue.total_time_spent = int(issue.time_estimate * rng.choice((0.25, 0.5, 1.0, 1.5)))
    issue.commenter_ids = [user.id for user in rng.sample(members, min(len(members), issue.user_notes_count, 3))]
    for user in readers:
        roll = rng.random()
        if roll < 0.12:
            issue.award_emoji[user.id] = {"thumbsup"}
        elif roll < 0.16:
            issue.award_emoji[user.id] = {"thumbsdown"}
        elif roll < 0.19:
            issue.award_emoji[user.id] = {"tada", "thumbsup"}
        if rng.random() < 0.08:
            issue.subscriptions[user.id] = rng.random() < 0.7
    if rng.random() < 0.3:
        issue.user_agent = {
            "user_agent": rng.choice(USER_AGENTS),
            "ip_address": f"10.{rng.randint(0, 255)}.{rng.randint(0, 255)}.{rng.randint(1, 254)}",
            "submitted": rng.random() < 0.2,
        }
    if rng.random() < 0.3:
        issue.state = "closed"
        issue.closed_at = (created + (updated - created) * rng.random()).replace(microsecond=0)
        # Issues closed before 10.6, or by a deleted account, carry no closed_by.
        issue.closed_by_id = rng.choice(members).id if rng.random() < 0.8 else None
    ensure_labels(state, project.id, issue.labels)
    state.issues[issue.id] = issue
    return issue


def _merge_requests(
    state: SimState, rng: random.Random, project: Project, issues: list[Issue], now: datetime
) -> None:
    developers = _members(state, project, DEVELOPER)
    for number in range(rng.randint(0, 4)):
        author = rng.choice(developers)
        created = now - timedelta(days=rng.randint(1, 120), minutes=rng.randint(0, 1439))
        branch = f"feature/{project.path}-{number + 1}"
        mr = MergeRequest(
            id=state.next_id("merge_request"),
            iid=state.next_id(f"merge_request_iid:{project.id}"),
            project_id=project.id,
            title=f"Resolve work item {number + 1} in {project.path}",
            author_id=author.id,
            created_at=created,
            updated_at=created + timedelta(hours=rng.randint(1, 48)),
            source_branch=branch,
            target_branch=project.default_branch,
            sha=_sha("mr", project.id, number),
            description="Closes the linked issues.",
            assignee_id=rng.choice(developers).id if rng.random() < 0.7 else None,
            upvotes=rng.randint(0, 4),
            user_notes_count=rng.randint(0, 9),
            work_in_progress=rng.random() < 0.15,
        )
        targets = rng.sample(issues, min(len(issues), rng.randint(0, 2)))
        mr.closes_issue_ids = [issue.id for issue in targets]
        if rng.random() < 0.5:
            mr.state = "merged"
            mr.merge_commit_sha = _sha("merge", project.id, number)
            merged_at = mr.updated_at
            for issue in targets:
                issue.state = "closed"
                issue.closed_at = max(merged_at, issue.created_at)
                issue.closed_by_id = mr.assignee_id or author.id
                issue.updated_at = max(issue.updated_at, issue.closed_at)
        elif rng.random() < 0.2:
            mr.state = "closed"
            mr.closed_at = mr.updated_at
            mr.closed_by_id = author.id
        state.merge_requests[mr.id] = mr


_INTEGRATION_SAMPLES: dict[str, dict[str, object]] = {
    "pipelines-email": {"recipients": "team@labdeck.example,oncall@labdeck.example", "notify_only_broken_pipelines": True},
    "chat-d": {"webhook": "https://chat-d.labdeck.example/hooks/T000/B000", "channel": "#builds",
               "notify_only_default_branch": True},
    "issue-tracker-b": {"url": "https://tracker.labdeck.example", "project_key": "LAB", "username": "bot",
                        "password": "tracker-secret", "tracker_b_issue_transition_id": 2},
    "emails-on-push": {"recipients": "commits@labdeck.example", "disable_diffs": False},
    "external-wiki": {"external_wiki_url": "https://wiki.labdeck.example"},
    "monitoring": {"api_url": "https://metrics.labdeck.example"},
    "task-tracker": {"api_key": "tt-api-key-0001", "restrict_to_branch": "master"},
    "ci-a": {"token": "ci-a-token-0001", "project_url": "https://ci-a.labdeck.example/labdeck/app",
             "enable_ssl_verification": True},
    "chat-e-slash-commands": {"token": "slash-token-0001", "username": "labdeck-bot"},
}


def _integrations(state: SimState, rng: random.Random, now: datetime) -> None:
    projects = [project for project in sorted(state.projects.values(), key=lambda p: p.id) if not project.deleted]
    slugs = sorted(_INTEGRATION_SAMPLES)
    for project in projects:
        if rng.random() >= 0.35:
            continue
        for slug in rng.sample(slugs, rng.randint(1, 3)):
            created = max(project.created_at, now - timedelta(days=rng.randint(10, 200)))
            record = IntegrationRecord(
                id=state.next_id("integration"), project_id=project.id, slug=slug,
                created_at=created, updated_at=created, properties=dict(_INTEGRATION_SAMPLES[slug]),
            )
            record.events = {flag: rng.random() < 0.8 for flag in EVENT_FLAGS}
            state.integrations[(project.id, slug)] = record
    # One project still runs the deprecated cluster integration, configured before its deprecation.
    project = projects[0]
    state.integrations[(project.id, "cluster-platform")] = IntegrationRecord(
        id=state.next_id("integration"), project_id=project.id, slug="cluster-platform",
        created_at=project.created_at, updated_at=project.created_at,
        properties={"namespace": project.path, "api_url": "https://cluster.labdeck.example", "token": "kube-token"},
    )


def _notification_settings(state: SimState, rng: random.Random) -> None:
    users = sorted(state.users.values(), key=lambda user: user.id)
    groups = sorted(state.groups.values(), key=lambda group: group.id)
    projects = sorted(state.projects.values(), key=lambda project: project.id)
    for user in users:
        if rng.random() < 0.5:
            state.notification_settings[("global", 0, user.id)] = _random_setting(rng, ("participating", "watch",
                                                                                         "mention", "custom"))
        for group in groups:
            if user.id in group.members and rng.random() < 0.4:
                state.notification_settings[("group", group.id, user.id)] = _random_setting(rng, LEVELS)
        for project in projects:
            if state.access_level(user, project) >= GUEST and rng.random() < 0.15:
                state.notification_settings[("project", project.id, user.id)] = _random_setting(rng, LEVELS)


def _random_setting(rng: random.Random, levels: tuple[str, ...]) -> NotificationSetting:
    setting = NotificationSetting(level=rng.choice(levels))
    if setting.level == "custom":
        setting.events = {name: rng.random() < 0.5 for name in EMAIL_EVENTS}
    return setting
