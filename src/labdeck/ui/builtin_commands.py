"""The console's own ``:`` commands (other screens add theirs with ``app.commands.add``)."""

from __future__ import annotations

from labdeck.ui.console import Command, CommandError, CommandRegistry, ConsoleApp
from labdeck.ui.screens.board.board import bound_text
from labdeck.ui.screens.projects.list import PROJECT_FILTERS, parse_project_filters
from labdeck.ui.themes.files import resolve_theme_name, short_theme_names


async def _projects(app: ConsoleApp, args: list[str]) -> None:
    await app.show_projects(parse_project_filters(args))


async def _jobs(app: ConsoleApp, args: list[str]) -> None:
    if len(args) != 1:
        raise CommandError("usage: :jobs <project path or id>")
    await app.open_jobs_by_reference(args[0])


BOARD_HELP_WORDS = ("help", "?")
"""``:board help`` (or ``:board ?``) shows the board's help instead of opening it."""


def board_help(app: ConsoleApp) -> str:
    """The board's help for ``:board help`` and ``:help board``: what it watches, and the bound
    within which every watched project is read again, from their number and the budget."""
    watching = app.watching
    count = len(watching.watched.current().projects)
    lines = [
        "The pipelines of your starred projects, of projects added with w, and of :board group:<path>:",
        "failed first, then running, pending, manual and recent successes. 0 opens it.",
        "",
        ":board group:<path>    watch every project of a group",
        ":board -group:<path>   stop watching it",
        "",
    ]
    bound = bound_text(watching.poller, projects=count).strip().replace("`", "")
    if count:
        lines.append(f"{count} watched project{'s' if count != 1 else ''}. {bound}")
    else:
        lines.append("No watched project known yet (open the board once to list them). " + bound)
    lines.append("A row older than its class allows shows ~ (failed and running rows 30 s, others 5 min "
                 "with the default budget); the status line says the oldest row's age.")
    return "\n".join(lines)


def _show_board_help(app: ConsoleApp) -> None:
    from labdeck.ui.dialogs.message import MessageScreen

    app.push_screen(MessageScreen("Board", board_help(app), error=False))


async def _board(app: ConsoleApp, args: list[str]) -> None:
    if len(args) == 1 and args[0].lower() in BOARD_HELP_WORDS:
        _show_board_help(app)
        return
    if args == ["all"]:
        await app.show_all_boards()
        return
    store = app.watching.store
    for word in args:
        if word.startswith("group:") and word.removeprefix("group:"):
            group = word.removeprefix("group:")
            added = store.add_group(group)
            app.notify(f"Watching every project of {group}." if added else f"{group} is already watched.",
                       timeout=4)
        elif word.startswith("-group:") and word.removeprefix("-group:"):
            group = word.removeprefix("-group:")
            removed = store.remove_group(group)
            app.notify(f"No longer watching {group}." if removed else f"{group} was not watched.", timeout=4)
        else:
            raise CommandError("usage: :board [group:<path>] [-group:<path>] | :board all | :board help")
    await app.show_board(relist=bool(args))


def _alerts(app: ConsoleApp, args: list[str]) -> None:
    app.action_alerts()


def _quit(app: ConsoleApp, args: list[str]) -> None:
    app.exit(0)


def _theme(app: ConsoleApp, args: list[str]) -> None:
    if not args:
        app.action_change_theme()
        return
    name = resolve_theme_name(args[0], app.offered_themes())
    if name is None:
        known = ", ".join(short_theme_names(app.offered_themes()))
        raise CommandError(f"unknown theme {args[0]!r}; known: {known}")
    app.theme = name


def _readonly(app: ConsoleApp, args: list[str]) -> None:
    target = not app.read_only
    if args:
        word = args[0].lower()
        if word not in ("on", "off", "true", "false"):
            raise CommandError("usage: :readonly [on|off]")
        target = word in ("on", "true")
    app.set_read_only(target)


def _profile(app: ConsoleApp, args: list[str]) -> None:
    app.switch_profile(args[0] if args else None)


def _help(app: ConsoleApp, args: list[str]) -> None:
    if args and args[0].lower().removeprefix(":") in ("board", "b"):
        _show_board_help(app)
        return
    lines = [f":{c.usage or c.name:<28} {c.help}" for c in app.commands.all()]
    from labdeck.ui.dialogs.message import MessageScreen

    app.push_screen(MessageScreen("Commands", "\n".join(lines), error=False))


def _login(app: ConsoleApp, args: list[str]) -> None:
    instances = list(getattr(app, "instances", ()))
    if len(args) == 1 and len(instances) > 1:
        # A board over several profiles: ``:login staging`` signs in again to that one alone.
        named = next((each for each in instances if args[0] in (each.short, each.name)), None)
        if named is not None:
            app.show_login("Enter a token for this instance.", named)
            return
    if args:
        # A token typed here would sit in the terminal's scrollback and the command history.
        raise CommandError("type the token in the sign-in dialog, not on the command line "
                           "(run :login without arguments, or :login PROFILE on a board over several)")
    app.show_login("Enter a token for this instance.")


def _refresh(app: ConsoleApp, args: list[str]) -> None:
    action = getattr(app.screen, "action_reload", None)
    if action is None:
        raise CommandError("nothing to refresh on this screen")
    action()


def _groups(app: ConsoleApp) -> list[str]:
    """Group paths of the projects the console has seen (for completion)."""
    groups = {path.rsplit("/", 1)[0] for path in app.known_projects.values() if "/" in path}
    return sorted(groups)[:200]


def register_builtin_commands(registry: CommandRegistry) -> None:
    """Add the console's commands to ``registry``."""
    registry.add(Command("board", "The on-call board: pipelines of starred, w-added and group projects", _board,
                         usage="board [group:<path>] [-group:<path>] | board all | board help", aliases=("b",),
                         complete=lambda app: ["help", "all", *(f"group:{path}" for path in _groups(app))]))
    registry.add(Command("alerts", "The alerts that fired, and what W is watching", _alerts, aliases=("!",)))
    registry.add(Command("projects", "Projects, with server-side filters", _projects,
                         usage="projects [search=… starred=true …]", aliases=("p", "project"),
                         complete=lambda app: [f"{key}=" for key in PROJECT_FILTERS]))
    registry.add(Command("jobs", "Jobs of a project", _jobs, usage="jobs <project>", aliases=("j",),
                         complete=lambda app: sorted(app.known_projects.values())[:500]))
    registry.add(Command("theme", "Switch theme (no argument: pick from a list)", _theme, usage="theme [name]",
                         complete=lambda app: short_theme_names(app.offered_themes())))
    registry.add(Command("readonly", "Toggle read-only mode", _readonly, usage="readonly [on|off]",
                         aliases=("ro",)))
    registry.add(Command("profile", "Switch to another configured profile", _profile, usage="profile <name>",
                         complete=lambda app: app.profile_names()))
    registry.add(Command("login", "Sign in with another token (kept in memory)", _login, sensitive=True))
    registry.add(Command("refresh", "Reload the current screen", _refresh, aliases=("r",)))
    registry.add(Command("help", "List the commands (:help board: the board's help)", _help,
                         usage="help [board]", aliases=("h",), complete=lambda app: ["board"]))
    registry.add(Command("quit", "Leave labdeck", _quit, aliases=("q", "q!", "exit")))
