"""The ``:`` command line's registry (k9s style) and the command-palette providers.

Any screen or module can add commands::

    app.commands.add(Command(
        name="jobs", usage=":jobs <project>", help="Jobs of a project",
        run=open_jobs, complete=lambda app: app.known_project_paths(),
    ))

A command whose arguments may hold a secret passes ``sensitive=True``: its lines are never
remembered. ``run(app, args)`` receives the words after the command name (``key=value`` words are left as
they are; :func:`parse_options` splits them) and may be a coroutine. Raise :class:`CommandError`
with a message for the user when the arguments are wrong.
"""

from __future__ import annotations

import inspect
import shlex
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING, Any

from textual.command import DiscoveryHit, Hit, Hits, Provider
from textual.content import Content
from textual.fuzzy import Matcher

if TYPE_CHECKING:
    from textual.app import App


class CommandError(Exception):
    """A command line the user should correct; the message is shown as a toast."""


CommandRun = Callable[["App[Any]", list[str]], Awaitable[None] | None]


@dataclass(frozen=True)
class Command:
    """One ``:name args`` command."""

    name: str
    help: str
    run: CommandRun
    usage: str = ""
    aliases: tuple[str, ...] = ()
    complete: Callable[[App[Any]], Iterable[str]] | None = None
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

    def completions(self, app: App[Any]) -> list[str]:
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

    async def execute(self, app: App[Any], line: str) -> None:
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


def highlight_plain(matcher: Matcher, candidate: str) -> Content:
    """``candidate`` with the query's matched characters highlighted, never read as markup
    (``Matcher.highlight`` parses it: a project called ``[@click=app.quit]x`` would become a live
    link and ``[/oops]`` would raise)."""
    content = Content(candidate)
    score, offsets = matcher.fuzzy_search.match(matcher.query, candidate)
    if not score:
        return content
    for offset in offsets:
        if not candidate[offset].isspace():
            content = content.stylize(matcher.match_style, offset, offset + 1)
    return content


class ProjectJumpProvider(Provider):
    """Palette: jump to any project the console has seen, by path."""

    async def search(self, query: str) -> Hits:
        app = self.app
        paths: dict[int, str] = getattr(app, "known_projects", {})
        matcher = self.matcher(query)
        jump = getattr(app, "jump_to_project", None)
        if jump is None:
            return
        for project_id, path in list(paths.items()):
            title = f"project: {path}"
            score = matcher.match(title)
            if score > 0:
                yield Hit(score, highlight_plain(matcher, title), partial(jump, project_id), text=title,
                          help="Show this project in the projects table")


class ScreenActionsProvider(Provider):
    """Palette: every action of the current screen (as its key bindings offer them) and every
    ``:`` command."""

    def _entries(self) -> list[tuple[str, Callable[[], Any], str]]:
        screen = self.screen
        entries: list[tuple[str, Callable[[], Any], str]] = []
        seen: set[str] = set()
        for active in screen.active_bindings.values():
            binding = active.binding
            if not active.enabled or not binding.description or binding.action in seen:
                continue
            if binding.action in ("command_palette", "app.command_palette"):
                continue
            seen.add(binding.action)
            key = self.app.get_key_display(binding)
            title = f"{screen.__class__.__name__.removesuffix('Screen').lower()}: {binding.description}"
            entries.append((title, partial(self._run, active.node, binding.action), f"key {key}"))
        registry: CommandRegistry | None = getattr(self.app, "commands", None)
        if registry is not None:
            for command in registry.all():
                entries.append((f"cmd: :{command.name}", partial(self._open_command_line, command.name),
                                command.help))
        return entries

    async def _run(self, node: Any, action: str) -> None:
        await node.run_action(action)

    def _open_command_line(self, name: str) -> None:
        opener = getattr(self.app, "action_command_line", None)
        if opener is not None:
            opener(f"{name} ")

    async def discover(self) -> Hits:
        for title, callback, help_text in self._entries():
            yield DiscoveryHit(Content(title), callback, text=title, help=help_text)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for title, callback, help_text in self._entries():
            score = matcher.match(title)
            if score > 0:
                yield Hit(score, highlight_plain(matcher, title), callback, text=title, help=help_text)
