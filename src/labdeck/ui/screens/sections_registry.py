"""The ``:`` commands of the runners, issues, integrations and project-settings screens.

``register(app)`` adds them to ``app.commands``; each command looks the project (or group) up and
pushes its screen. ``open_*`` helpers are what section keys and the projects table call.
"""

from __future__ import annotations

from typing import Any

from labdeck.ui.commands import Command, CommandError, parse_options


def _known_paths(app: Any) -> list[str]:
    return sorted(getattr(app, "known_projects", {}).values())[:500]


async def resolve_project(app: Any, reference: str) -> tuple[int, str]:
    """``group/project`` or an id → (id, path); remembered for completion."""
    project = await app.client.projects.get(int(reference) if reference.isdigit() else reference)
    remember = getattr(app, "remember_projects", None)
    if remember is not None:
        remember([project])
    return project.id, project.path_with_namespace or reference


def _one_project(args: list[str], usage: str) -> str:
    if len(args) != 1:
        raise CommandError(f"usage: :{usage}")
    return args[0]


# --- openers (also for key bindings) ------------------------------------------------------------


def open_runners(app: Any, *, all_runners: bool | None = None, scope: str = "") -> None:
    """Push the runners list (None: every runner for administrators)."""
    from labdeck.ui.screens.runners import RunnersScreen

    app.push_screen(RunnersScreen(all_runners=all_runners, scope=scope))


def open_issues(app: Any, project_id: int | None = None, project_path: str | None = None, *,
                group: str | None = None, filters: dict[str, Any] | None = None) -> None:
    """Push an issues list (a project's, a group's, or every issue)."""
    from labdeck.ui.screens.issues import IssuesScreen

    app.push_screen(IssuesScreen(project_id=project_id, group=group, project_path=project_path, filters=filters))


def open_integrations(app: Any, project_id: int, project_path: str) -> None:
    """Push a project's integrations."""
    from labdeck.ui.screens.integrations import IntegrationsScreen

    app.push_screen(IntegrationsScreen(project_id, project_path))


def open_settings(app: Any, project_id: int, project_path: str) -> None:
    """Push a project's settings menu."""
    from labdeck.ui.screens.project_settings import ProjectSettingsScreen

    app.push_screen(ProjectSettingsScreen(project_id, project_path))


def open_section(app: Any, kind: str, project_id: int | None = None, project_path: str | None = None) -> bool:
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


def _runners(app: Any, args: list[str]) -> None:
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


async def _issues(app: Any, args: list[str]) -> None:
    from labdeck.ui.screens.issues import parse_issue_filters

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


async def _issue(app: Any, args: list[str]) -> None:
    if len(args) != 2 or not args[1].lstrip("#").isdigit():
        raise CommandError("usage: :issue <project> <iid>")
    project_id, path = await resolve_project(app, args[0])
    from labdeck.ui.screens.issue_detail import IssueDetailScreen

    app.push_screen(IssueDetailScreen(project_id, int(args[1].lstrip("#")), project_path=path))


async def _integrations(app: Any, args: list[str]) -> None:
    project_id, path = await resolve_project(app, _one_project(args, "integrations <project>"))
    open_integrations(app, project_id, path)


async def _settings(app: Any, args: list[str]) -> None:
    project_id, path = await resolve_project(app, _one_project(args, "settings <project>"))
    open_settings(app, project_id, path)


def _project_screen(module: str, name: str, usage: str) -> Any:
    async def run(app: Any, args: list[str]) -> None:
        project_id, path = await resolve_project(app, _one_project(args, usage))
        import importlib

        screen_type = getattr(importlib.import_module(f"labdeck.ui.screens.{module}"), name)
        app.push_screen(screen_type(project_id, path))

    return run


def _user_projects(app: Any, args: list[str]) -> None:
    user = _one_project(args, "user-projects <user id or username>")
    from labdeck.ui.screens.project_settings import UserProjectsScreen

    app.push_screen(UserProjectsScreen(user))


def _badges(app: Any, args: list[str]) -> None:
    group = _one_project(args, "badges <group>")
    from labdeck.ui.screens.project_badges import GroupBadgesScreen

    app.push_screen(GroupBadgesScreen(group))


async def _notifications(app: Any, args: list[str]) -> None:
    from labdeck.ui.screens.project_badges import NotificationSettingsScreen

    options = parse_options([a if "=" in a else f"project={a}" for a in args], ("project", "group"))
    project_id = path = None
    if "project" in options:
        project_id, path = await resolve_project(app, options["project"])
    app.push_screen(NotificationSettingsScreen(project_id, path, options.get("group")))


async def _runner(app: Any, args: list[str]) -> None:
    if len(args) != 1 or not args[0].lstrip("#").isdigit():
        raise CommandError("usage: :runner <id>")
    from labdeck.ui.screens.runner_detail import RunnerDetailScreen

    app.push_screen(RunnerDetailScreen(int(args[0].lstrip("#"))))


def register(app: Any) -> None:
    """Add the sections' ``:`` commands to ``app.commands``."""
    add = app.commands.add
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
    add(Command("hooks", "Web hooks of a project", _project_screen("project_hooks", "ProjectHooksScreen",
                "hooks <project>"), usage="hooks <project>", complete=_known_paths))
    add(Command("branches", "Protected branches of a project",
                _project_screen("project_hooks", "ProtectedBranchesScreen", "branches <project>"),
                usage="branches <project>", aliases=("protected",), complete=_known_paths))
    add(Command("export", "Export / import of a project",
                _project_screen("project_export", "ProjectExportScreen", "export <project>"),
                usage="export <project>", aliases=("import",), complete=_known_paths))
    add(Command("project-runners", "Runners enabled in a project",
                _project_screen("runners", "ProjectRunnersScreen", "project-runners <project>"),
                usage="project-runners <project>", complete=_known_paths))
    add(Command("users", "Users of a project",
                _project_screen("project_settings", "ProjectUsersScreen", "users <project>"),
                usage="users <project>", complete=_known_paths))
    add(Command("forks", "Forks of a project",
                _project_screen("project_settings", "ProjectForksScreen", "forks <project>"),
                usage="forks <project>", complete=_known_paths))
    add(Command("user-projects", "Projects owned by a user", _user_projects, usage="user-projects <user id or name>"))
    add(Command("badges", "Badges of a group", _badges, usage="badges <group>"))
    add(Command("notifications", "Notification settings (global, and of a project/group)", _notifications,
                usage="notifications [<project>] [group=<path>]", complete=_known_paths))
