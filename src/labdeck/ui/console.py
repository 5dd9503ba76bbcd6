"""What screens and ``:`` commands may ask of the console app, and the ``:`` command registry.

Screens and commands talk to the app through :class:`ConsoleApp`, a protocol that
:class:`labdeck.ui.app.LabdeckApp` satisfies: they never import the app (the app imports them),
so the UI has no import circle.

Any screen or module can add commands::

    registry.add(Command(
        name="jobs", usage="jobs <project>", help="Jobs of a project",
        run=open_jobs, complete=lambda app: sorted(app.known_projects.values()),
    ))

A command whose arguments may hold a secret passes ``sensitive=True``: its lines are never
remembered. ``run(app, args)`` receives the words after the command name (``key=value`` words are left as
they are; :func:`parse_options` splits them) and may be a coroutine. Raise :class:`CommandError`
with a message for the user when the arguments are wrong.
"""

from __future__ import annotations

import inspect
import shlex
from collections.abc import Awaitable, Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Protocol, cast, runtime_checkable

from textual.app import App
from textual.screen import Screen
from textual.theme import Theme
from textual.worker import Worker, WorkerState

from labdeck.api import ApiClient
from labdeck.api.models import Job, Project
from labdeck.audit.log import AuditLog
from labdeck.base.session import Session
from labdeck.ui.formatting import Clock
from labdeck.ui.watching import Watching


@dataclass(frozen=True)
class StatusInfo:
    """What the app knows about the connection (see ``LabdeckApp.status_info``)."""

    profile: str
    instance: str
    user: str | None
    read_only: bool
    rate_limit: str | None
    """``"remaining/limit"`` when the server sent rate-limit headers."""
    health: str
    """``ok``, ``reconnecting`` or ``error``."""
    last_error: str | None
    insecure_storage: bool
    demo: bool
    now: datetime
    token_source: str = "none"
    signed_out: bool = False
    """The server refused the token (or there is none): not just "not known yet"."""
    trouble: str | None = None
    """The server's trouble, said short (``token refused (401)``, ``rate limited — retrying in 5 s``)."""
    """Where the token came from (``keyring``, ``env:LABDECK_TOKEN``, ``stdin`` …)."""


class ConsoleApp(Protocol):
    """The console app as screens and commands see it (``LabdeckApp`` implements it)."""

    clock: Clock
    """The current time (injectable: "x ago" texts use it, so snapshots are deterministic)."""
    read_only: bool
    """True in read-only mode (the HTTP layer then refuses non-GET requests)."""
    commands: CommandRegistry
    known_projects: dict[int, str]
    """Project id → path of every project the console has listed (palette, completion)."""
    project_filters: dict[str, Any] | None
    current_user: str | None
    session: Session
    theme: str
    watching: Watching
    audit_log: AuditLog
    """The session's audit log, the recorder the console hands its client (``labdeck.audit``)."""
    """The shared poller, the watched set and alerts (the board, the CI column, ``W``)."""

    # Textual's own App API, as far as commands use it through this interface.
    @property
    def notify(self) -> Callable[..., None]:
        """``App.notify``."""

    @property
    def push_screen(self) -> Callable[..., Any]:
        """``App.push_screen``."""

    @property
    def exit(self) -> Callable[..., None]:
        """``App.exit``."""

    @property
    def action_change_theme(self) -> Callable[[], Any]:
        """``App.action_change_theme`` (the theme picker)."""

    @property
    def client(self) -> ApiClient:
        """The API client (replaced after a sign-in: read it each time, never keep it)."""

    @property
    def instance_label(self) -> str:
        """``profile @ host`` for dialogs."""

    def offered_themes(self) -> dict[str, Theme]:
        """Every theme on offer by name (the legible ones)."""

    @property
    def screen(self) -> Screen[Any]:
        """The screen on top."""

    def remember_projects(self, projects: Iterable[Project]) -> None:
        """Note project paths for the palette and completion."""

    def open_jobs(self, project_id: int, project_path: str) -> None:
        """Switch to the jobs section of a project."""

    async def open_jobs_by_reference(self, reference: str) -> None:
        """``:jobs <path or id>``: look the project up, then open its jobs."""

    def open_project_section(self, kind: str, project_id: int, project_path: str) -> None:
        """Open a project's ``issues``, ``integrations``, ``settings`` or ``runners`` screen."""

    async def show_board(self, *, relist: bool = False) -> None:
        """Switch to the board (``relist``: read the watched set again first)."""

    async def show_all_boards(self) -> None:
        """``:board all``: one board over every profile of ``boards`` (else every profile)."""

    def action_alerts(self) -> None:
        """The alert log."""

    async def show_projects(self, filters: dict[str, Any] | None = None) -> None:
        """Switch to the projects section (reloading it with ``filters`` when given)."""

    def open_pipeline(self, project_id: int, project_path: str, pipeline_id: int,
                      jobs: Sequence[Job] = ()) -> None:
        """Show one pipeline: its stages and jobs (``jobs``: what the caller already knows)."""

    def jump_to_project(self, project_id: int) -> None:
        """Show a project in the projects table."""

    def set_read_only(self, value: bool) -> None:
        """Switch read-only mode."""

    def switch_profile(self, name: str | None) -> None:
        """Connect to another configured profile (``None``: list them)."""

    def profile_names(self) -> list[str]:
        """The profiles of the config file."""

    def show_login(self, reason: str, instance: Any = None) -> None:
        """Open the sign-in dialog."""

    def listing_loaded(self) -> None:
        """A section finished its first full listing (memory housekeeping)."""

    def status_info(self, screen: object = None) -> StatusInfo:
        """The connection facts the status line shows (of ``screen``'s instance)."""

    def handle_worker_state(self, worker: Worker[Any], state: WorkerState) -> None:
        """The one place where worker errors become toasts, the sign-in dialog or a modal."""

    def action_command_line(self, value: str = "") -> None:
        """Open the ``:`` command line, pre-filled with ``value``."""

    async def action_back(self) -> None:
        """Close the top screen, or return to the previous section."""


@runtime_checkable
class Ticks(Protocol):
    """A screen that does something on the console's one clock (once a second, while on top)."""

    def tick(self, now: datetime) -> None:
        """Refresh what is due; keep it cheap."""


def console_app(app: App[Any]) -> ConsoleApp:
    """The running app as a :class:`ConsoleApp` (screens of labdeck only run inside one)."""
    return cast(ConsoleApp, app)


class CommandError(Exception):
    """A command line the user should correct; the message is shown as a toast."""


CommandRun = Callable[[ConsoleApp, list[str]], Awaitable[None] | None]


@dataclass(frozen=True)
class Command:
    """One ``:name args`` command."""

    name: str
    help: str
    run: CommandRun
    usage: str = ""
    aliases: tuple[str, ...] = ()
    complete: Callable[[ConsoleApp], Iterable[str]] | None = None
    """Values offered as completions for the first argument."""
    sensitive: bool = False
    """Lines running this command are never remembered (history, state file): they may hold a
    secret."""


def parse_options(args: Iterable[str], allowed: Iterable[str]) -> dict[str, str]:
    """``["search=api", "starred=true"]`` → ``{"search": "api", "starred": "true"}``; a bare word
    is taken as ``search``. Unknown keys raise :class:`CommandError` listing the allowed ones."""
    allowed_set = set(allowed)
    options: dict[str, str] = {}
    for word in args:
        key, sep, value = word.partition("=")
        if not sep:
            key, value = "search", word
        if key not in allowed_set:
            raise CommandError(f"unknown option {key!r}; use: {', '.join(sorted(allowed_set))}")
        options[key] = value
    return options


class CommandRegistry:
    """Named commands with aliases, completion and a history of the lines run."""

    HISTORY_LIMIT = 200

    def __init__(self) -> None:
        self._commands: dict[str, Command] = {}
        self._aliases: dict[str, str] = {}
        self.history: list[str] = []

    def add(self, command: Command) -> None:
        """Register (or replace) a command and its aliases."""
        self._commands[command.name] = command
        for alias in command.aliases:
            self._aliases[alias] = command.name

    def get(self, name: str) -> Command | None:
        """The command called ``name`` (or aliased so)."""
        return self._commands.get(self._aliases.get(name, name))

    def all(self) -> list[Command]:
        """Every command, by name."""
        return sorted(self._commands.values(), key=lambda command: command.name)

    def completions(self, app: ConsoleApp) -> list[str]:
        """Every completable line, in registration order (the first match is offered): each command,
        then ``command argument`` for its known arguments."""
        lines: list[str] = []
        for command in self._commands.values():
            lines.append(command.name)
            if command.complete is not None:
                lines.extend(f"{command.name} {value}" for value in command.complete(app))
        return lines

    def remember(self, line: str) -> None:
        """Add a line to the history (most recent last, no consecutive duplicates)."""
        line = line.strip()
        if not line:
            return
        if self.history and self.history[-1] == line:
            return
        self.history.append(line)
        del self.history[: -self.HISTORY_LIMIT]

    async def execute(self, app: ConsoleApp, line: str) -> None:
        """Run one command line (without the leading ``:``)."""
        line = line.strip().removeprefix(":").strip()
        if not line:
            return
        try:
            words = shlex.split(line)
        except ValueError as error:
            raise CommandError(f"cannot parse {line!r}: {error}") from error
        command = self.get(words[0])
        if command is None:
            raise CommandError(f"unknown command :{words[0]} (try :help)")
        if not command.sensitive:
            self.remember(line)
        result = command.run(app, words[1:])
        if inspect.isawaitable(result):
            await result
