"""The command palette's providers: jump to a project, run any action of the screen or any ``:``
command. Titles are built from server strings, so they are never read as markup."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

from textual.command import DiscoveryHit, Hit, Hits, Provider
from textual.content import Content
from textual.fuzzy import Matcher

from labdeck.ui.console import console_app


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
        app = console_app(self.app)
        matcher = self.matcher(query)
        jump = app.jump_to_project
        for project_id, path in list(app.known_projects.items()):
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
        for command in console_app(self.app).commands.all():
            entries.append((f"cmd: :{command.name}", partial(self._open_command_line, command.name),
                            command.help))
        return entries

    async def _run(self, node: Any, action: str) -> None:
        await node.run_action(action)

    def _open_command_line(self, name: str) -> None:
        console_app(self.app).action_command_line(f"{name} ")

    async def discover(self) -> Hits:
        for title, callback, help_text in self._entries():
            yield DiscoveryHit(Content(title), callback, text=title, help=help_text)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for title, callback, help_text in self._entries():
            score = matcher.match(title)
            if score > 0:
                yield Hit(score, highlight_plain(matcher, title), callback, text=title, help=help_text)
