"""The runners, issues, integrations and project-settings sections: their openers and ``:``
commands.

``register(registry)`` adds the commands; each looks the project (or group) up and pushes its
screen. ``open_*`` are what section keys and the projects table call. Screens are imported when
first opened, so that start-up does not pay for sections the user never visits.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from textual.screen import Screen

from labdeck.ui.console import Command, CommandError, CommandRegistry, ConsoleApp, parse_options
from labdeck.ui.screens.audit.command import AUDIT_COMMAND

ProjectScreenFactory = Callable[[int, str], Screen[Any]]
"""Builds a project's screen from its id and path."""


def _known_paths(app: ConsoleApp) -> list[str]:
    return sorted(app.known_projects.values())[:500]


async def resolve_project(app: ConsoleApp, reference: str) -> tuple[int, str]:
    """``group/project`` or an id → (id, path); remembered for completion."""
    project = await app.client.projects.get(int(reference) if reference.isdigit() else reference)
    app.remember_projects([project])
    return project.id, project.path_with_namespace or reference


def _one_project(args: list[str], usage: str) -> str:
    if len(args) != 1:
        raise CommandError(f"usage: :{usage}")
    return args[0]


# --- openers (also for key bindings) ------------------------------------------------------------


def open_runners(app: ConsoleApp, *, all_runners: bool | None = None, scope: str = "") -> None:
    """Push the runners list (None: every runner for administrators)."""
    from labdeck.ui.screens.runners.list import RunnersScreen

    app.push_screen(RunnersScreen(all_runners=all_runners, scope=scope))


def open_issues(app: ConsoleApp, project_id: int | None = None, project_path: str | None = None, *,
                group: str | None = None, filters: dict[str, Any] | None = None) -> None:
    """Push an issues list (a project's, a group's, or every issue)."""
    from labdeck.ui.screens.issues.list import IssuesScreen

    app.push_screen(IssuesScreen(project_id=project_id, group=group, project_path=project_path, filters=filters))


def open_integrations(app: ConsoleApp, project_id: int, project_path: str) -> None:
    """Push a project's integrations."""
    from labdeck.ui.screens.integrations.list import IntegrationsScreen

    app.push_screen(IntegrationsScreen(project_id, project_path))


def open_project_runners(app: ConsoleApp, project_id: int, project_path: str) -> None:
    """Push the runners enabled in a project."""
    app.push_screen(_project_runners_screen()(project_id, project_path))


def open_settings(app: ConsoleApp, project_id: int, project_path: str) -> None:
    """Push a project's settings menu."""
    from labdeck.ui.screens.settings.menu import ProjectSettingsScreen

    app.push_screen(ProjectSettingsScreen(project_id, project_path))


def open_section(app: ConsoleApp, kind: str, project_id: int | None = None, project_path: str | None = None) -> bool:
    """Open ``runners``, ``issues``, ``integrations`` or ``settings`` (the last two need a project;
    issues without one are every issue of the caller). False (and a toast) when it cannot."""
    path = project_path or (str(project_id) if project_id is not None else None)
    if kind == "runners":
        open_runners(app)
    elif kind == "issues":
        open_issues(app, project_id, path)
    elif kind in ("integrations", "settings") and project_id is not None and path is not None:
        (open_integrations if kind == "integrations" else open_settings)(app, project_id, path)
    elif kind in ("integrations", "settings"):
        app.notify(f"Pick a project first: highlight one in the projects table, or :{kind} <project>.",
                   timeout=4)
        return False
    else:
        raise ValueError(f"unknown section {kind!r}")
    return True


# --- commands -----------------------------------------------------------------------------------


def _runners(app: ConsoleApp, args: list[str]) -> None:
    all_runners: bool | None = None
    scope = ""
    for word in args:
        if word in ("all", "mine"):
            all_runners = word == "all"
        elif word.startswith("scope="):
            scope = word.removeprefix("scope=")
        else:
            raise CommandError("usage: :runners [all|mine] [scope=active|paused|online|specific|shared]")
    allowed = ("", "specific", "shared", "active", "paused", "online") if all_runners is not False else (
        "", "active", "paused", "online")
    if scope not in allowed:
        raise CommandError(f"scope must be one of {', '.join(s for s in allowed if s)}")
    open_runners(app, all_runners=all_runners, scope=scope)


async def _issues(app: ConsoleApp, args: list[str]) -> None:
    from labdeck.ui.screens.issues.list import parse_issue_filters

    target = args[0] if args and "=" not in args[0] else None
    rest = args[1:] if target is not None else args
    filters: dict[str, Any] = {"state": "opened"}
    filters.update(parse_issue_filters(rest))
    if target is None or target == "all":
        open_issues(app, filters=filters)
    elif target.startswith("group:"):
        group = target.removeprefix("group:")
        if not group:
            raise CommandError("usage: :issues group:<group path>")
        open_issues(app, group=group, filters=filters)
    else:
        project_id, path = await resolve_project(app, target)
        open_issues(app, project_id, path, filters=filters)


async def _issue(app: ConsoleApp, args: list[str]) -> None:
    if len(args) != 2 or not args[1].lstrip("#").isdigit():
        raise CommandError("usage: :issue <project> <iid>")
    project_id, path = await resolve_project(app, args[0])
    from labdeck.ui.screens.issues.detail import IssueDetailScreen

    app.push_screen(IssueDetailScreen(project_id, int(args[1].lstrip("#")), project_path=path))


async def _integrations(app: ConsoleApp, args: list[str]) -> None:
    project_id, path = await resolve_project(app, _one_project(args, "integrations <project>"))
    open_integrations(app, project_id, path)


async def _settings(app: ConsoleApp, args: list[str]) -> None:
    project_id, path = await resolve_project(app, _one_project(args, "settings <project>"))
    open_settings(app, project_id, path)


def _project_screen(factory: Callable[[], ProjectScreenFactory], usage: str) -> Any:
    """A command that resolves its one argument to a project and pushes ``factory()(id, path)``."""

    async def run(app: ConsoleApp, args: list[str]) -> None:
        project_id, path = await resolve_project(app, _one_project(args, usage))
        app.push_screen(factory()(project_id, path))

    return run


def _hooks_screen() -> ProjectScreenFactory:
    from labdeck.ui.screens.settings.hooks import ProjectHooksScreen

    return ProjectHooksScreen


def _branches_screen() -> ProjectScreenFactory:
    from labdeck.ui.screens.settings.branches import ProtectedBranchesScreen

    return ProtectedBranchesScreen


def _export_screen() -> ProjectScreenFactory:
    from labdeck.ui.screens.settings.export import ProjectExportScreen

    return ProjectExportScreen


def _project_runners_screen() -> ProjectScreenFactory:
    from labdeck.ui.screens.runners.list import ProjectRunnersScreen

    return ProjectRunnersScreen


def _users_screen() -> ProjectScreenFactory:
    from labdeck.ui.screens.settings.people import ProjectUsersScreen

    return ProjectUsersScreen


def _forks_screen() -> ProjectScreenFactory:
    from labdeck.ui.screens.settings.people import ProjectForksScreen

    return ProjectForksScreen


def _user_projects(app: ConsoleApp, args: list[str]) -> None:
    user = _one_project(args, "user-projects <user id or username>")
    from labdeck.ui.screens.settings.people import UserProjectsScreen

    app.push_screen(UserProjectsScreen(user))


def _badges(app: ConsoleApp, args: list[str]) -> None:
    group = _one_project(args, "badges <group>")
    from labdeck.ui.screens.settings.badges import GroupBadgesScreen

    app.push_screen(GroupBadgesScreen(group))


async def _notifications(app: ConsoleApp, args: list[str]) -> None:
    from labdeck.ui.screens.settings.notifications import NotificationSettingsScreen

    options = parse_options([a if "=" in a else f"project={a}" for a in args], ("project", "group"))
    project_id = path = None
    if "project" in options:
        project_id, path = await resolve_project(app, options["project"])
    app.push_screen(NotificationSettingsScreen(project_id, path, options.get("group")))


async def _runner(app: ConsoleApp, args: list[str]) -> None:
    if len(args) != 1 or not args[0].lstrip("#").isdigit():
        raise CommandError("usage: :runner <id>")
    from labdeck.ui.screens.runners.detail import RunnerDetailScreen

    app.push_screen(RunnerDetailScreen(int(args[0].lstrip("#"))))


def register(registry: CommandRegistry) -> None:
    """Add the sections' ``:`` commands to ``registry``."""
    add = registry.add
    add(AUDIT_COMMAND)
    add(Command("runners", "Runners (admins: every runner)", _runners, usage="runners [all|mine] [scope=…]",
                complete=lambda app: ["all", "mine", "all scope=shared", "scope=online", "scope=paused"]))
    add(Command("runner", "One runner's details", _runner, usage="runner <id>"))
    add(Command("issues", "Issues: every issue, a project's or a group's", _issues, aliases=("i",),
                usage="issues [project|group:<path>|all] [state= scope= labels= milestone= search= …]",
                complete=lambda app: ["all", "scope=assigned-to-me", *_known_paths(app)]))
    add(Command("issue", "One issue", _issue, usage="issue <project> <iid>", complete=_known_paths))
    add(Command("integrations", "Integrations of a project", _integrations, usage="integrations <project>",
                aliases=("services",), complete=_known_paths))
    add(Command("settings", "Settings menu of a project (hooks, branches, export, share …)", _settings,
                usage="settings <project>", complete=_known_paths))
    add(Command("hooks", "Web hooks of a project", _project_screen(_hooks_screen, "hooks <project>"), usage="hooks <project>", complete=_known_paths))
    add(Command("branches", "Protected branches of a project",
                _project_screen(_branches_screen, "branches <project>"),
                usage="branches <project>", aliases=("protected",), complete=_known_paths))
    add(Command("export", "Export / import of a project",
                _project_screen(_export_screen, "export <project>"),
                usage="export <project>", aliases=("import",), complete=_known_paths))
    add(Command("project-runners", "Runners enabled in a project",
                _project_screen(_project_runners_screen, "project-runners <project>"),
                usage="project-runners <project>", complete=_known_paths))
    add(Command("users", "Users of a project",
                _project_screen(_users_screen, "users <project>"),
                usage="users <project>", complete=_known_paths))
    add(Command("forks", "Forks of a project",
                _project_screen(_forks_screen, "forks <project>"),
                usage="forks <project>", complete=_known_paths))
    add(Command("user-projects", "Projects owned by a user", _user_projects, usage="user-projects <user id or name>"))
    add(Command("badges", "Badges of a group", _badges, usage="badges <group>"))
    add(Command("notifications", "Notification settings (global, and of a project/group)", _notifications,
                usage="notifications [<project>] [group=<path>]", complete=_known_paths))
