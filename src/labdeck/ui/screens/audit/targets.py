"""Where ``enter`` on an audit entry goes: the screen of what the change was about.

A job opens the job's log, an issue the issue, a runner the runner, a hook the project's hooks, an
integration or a protected branch their project's list, a group badge the group's badges, and
anything else about a project (a pipeline, the project itself) the project's jobs. The target's
project may be recorded as a path or an id; it is looked up first (the screens need both).
"""

from __future__ import annotations

from typing import Any

from textual.screen import Screen

from labdeck.audit.read import AuditEntry
from labdeck.ui.console import ConsoleApp


class NothingToOpen(Exception):
    """The entry names nothing the console has a screen for (the message says why)."""


async def _project(app: ConsoleApp, reference: int | str) -> tuple[int, str]:
    project = await app.client.projects.get(reference)
    app.remember_projects([project])
    return project.id, project.path_with_namespace or str(reference)


def _group_screen(entry: AuditEntry) -> Screen[Any]:
    target = entry.target
    if target.group is None or not (entry.action or "").startswith("badges"):
        raise NothingToOpen(f"Nothing to open for {entry.action or entry.method}: the console has no screen for it.")
    from labdeck.ui.screens.settings.badges import GroupBadgesScreen

    return GroupBadgesScreen(str(target.group))


async def target_screen(app: ConsoleApp, entry: AuditEntry) -> Screen[Any] | None:
    """The screen to push for ``entry`` (None when the app itself switched section instead).

    Raises :class:`NothingToOpen`, or the client's errors (a target deleted since is a NotFound)."""
    client = app.client
    target = entry.target
    action = entry.action or ""
    if target.runner is not None and target.project is None:
        await client.runners.get(target.runner)  # still there? (a NotFound says it is not)
        from labdeck.ui.screens.runners.detail import RunnerDetailScreen

        return RunnerDetailScreen(target.runner)
    if target.project is None:
        return _group_screen(entry)
    project_id, path = await _project(app, target.project)
    if target.job is not None:
        job = await client.jobs.get(project_id, target.job)
        from labdeck.ui.screens.jobs.trace import TraceScreen

        return TraceScreen(project_id, path, job)
    if target.issue is not None:
        await client.issues.get(project_id, target.issue)  # still there? (deleted issues are 404)
        from labdeck.ui.screens.issues.detail import IssueDetailScreen

        return IssueDetailScreen(project_id, target.issue, project_path=path)
    if target.runner is not None:
        await client.runners.get(target.runner)
        from labdeck.ui.screens.runners.detail import RunnerDetailScreen

        return RunnerDetailScreen(target.runner)
    if target.hook is not None or action.startswith("hooks"):
        from labdeck.ui.screens.settings.hooks import ProjectHooksScreen

        return ProjectHooksScreen(project_id, path)
    if action.startswith(("integrations", "services")):
        from labdeck.ui.screens.integrations.list import IntegrationsScreen

        return IntegrationsScreen(project_id, path)
    if action.startswith("protected_branches"):
        from labdeck.ui.screens.settings.branches import ProtectedBranchesScreen

        return ProtectedBranchesScreen(project_id, path)
    app.open_jobs(project_id, path)
    return None
