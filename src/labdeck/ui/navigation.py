"""Moving between the console's sections: number keys, back, the jobs section of a project, and
the runners/issues/integrations screens. ``LabdeckApp`` builds on this class."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from textual.app import App

from labdeck.api.models import Job, Project
from labdeck.ui import sections
from labdeck.ui.console import console_app
from labdeck.ui.screens.projects.list import ProjectsScreen
from labdeck.ui.watching import Watching


class SectionNavigation(App[int]):
    """Section switching for :class:`labdeck.ui.app.LabdeckApp` (state is set up there)."""

    _previous_modes: list[str]
    watching: Watching
    _jobs_project: tuple[int, str] | None
    known_projects: dict[int, str]

    # --- sections -----------------------------------------------------------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """The key of the section already shown (at its first screen) does nothing."""
        if action == "switch_section" and parameters and parameters[0] == self.current_mode:
            return None if len(self.screen_stack) <= 1 else True
        return True

    async def action_switch_section(self, name: str) -> None:
        """Show a section (0 the board, 1 projects, 2 jobs of the last project opened)."""
        if name == "board" and "board" not in self._modes:
            from labdeck.ui.screens.board.board import BoardScreen

            self.add_mode("board", BoardScreen)
        if name == "jobs" and "jobs" not in self._modes:
            self.notify("Pick a project first: enter on a project, or :jobs <path>.", timeout=4)
            return
        if name == self.current_mode:
            while len(self.screen_stack) > 1:
                self.pop_screen()
            return
        if name not in self._modes:
            return
        self._previous_modes.append(self.current_mode)
        await self.switch_mode(name)

    def current_project(self) -> tuple[int, str] | None:
        """The project the user is looking at: the screen's own, the highlighted one in the
        projects table, or the one whose jobs were opened last."""
        screen = self.screen
        project_id = getattr(screen, "project_id", None)
        if isinstance(project_id, int):
            return project_id, str(getattr(screen, "project_path", None) or project_id)
        for base in self.screen_stack[:1]:
            if isinstance(base, ProjectsScreen):
                project = base.table.cursor_data
                if project is not None:
                    return project.id, project.path_with_namespace or str(project.id)
        return self._jobs_project

    def action_open_section(self, name: str) -> None:
        """3 runners, 4 issues (every issue), 5 integrations of the current project."""
        wanted = {"runners": "RunnersScreen", "issues": "IssuesScreen", "integrations": "IntegrationsScreen"}
        if type(self.screen).__name__ == wanted.get(name):
            return
        if name == "runners":
            sections.open_runners(console_app(self))
        elif name == "issues":
            sections.open_issues(console_app(self), filters={"state": "opened"})
        elif name == "integrations":
            project = self.current_project()
            if project is None:
                self.notify("Pick a project first (highlight it in the projects table).", timeout=4)
                return
            self.open_project_section("integrations", *project)

    def open_project_section(self, kind: str, project_id: int, project_path: str) -> None:
        """Open a project's ``issues``, ``integrations``, ``settings`` or ``runners`` screen."""
        if kind == "issues":
            sections.open_issues(console_app(self), project_id, project_path, filters={"state": "opened"})
        elif kind == "integrations":
            sections.open_integrations(console_app(self), project_id, project_path)
        elif kind == "settings":
            sections.open_settings(console_app(self), project_id, project_path)
        elif kind == "runners":
            sections.open_project_runners(console_app(self), project_id, project_path)
        else:
            raise ValueError(f"unknown project section {kind!r}")

    async def action_back(self) -> None:
        """Close the top screen, or return to the previous section."""
        if len(self.screen_stack) > 1:
            self.pop_screen()
            return
        while self._previous_modes:
            mode = self._previous_modes.pop()
            if mode in self._modes and mode != self.current_mode:
                await self.switch_mode(mode)
                return

    async def show_board(self, *, relist: bool = False) -> None:
        """Switch to the board; ``relist`` reads the watched set again (after a group change)."""
        await self.action_switch_section("board")
        if relist:
            from labdeck.ui.screens.board.board import BoardScreen

            if isinstance(self.screen, BoardScreen):
                self.screen.reload()

    async def show_projects(self, filters: dict[str, Any] | None = None) -> None:
        """Switch to the projects section; with ``filters``, reload it with those server filters."""
        if self.current_mode != "projects":
            self._previous_modes.append(self.current_mode)
            await self.switch_mode("projects")
        while len(self.screen_stack) > 1:
            self.pop_screen()
        screen = self.screen_stack[0]
        if filters is not None and isinstance(screen, ProjectsScreen):
            screen.set_filters(filters)

    def open_jobs(self, project_id: int, project_path: str) -> None:
        """Switch to the jobs section for one project."""
        self.run_worker(self._open_jobs(project_id, project_path), group="app-sections",
                        exclusive=True, exit_on_error=False)

    async def _open_jobs(self, project_id: int, project_path: str) -> None:
        from labdeck.ui.screens.jobs.list import JobsScreen

        if self.current_mode == "jobs":
            if self._jobs_project == (project_id, project_path):
                return
            await self.switch_mode(self._previous_modes.pop() if self._previous_modes else "projects")
        if "jobs" in self._modes:
            await self.remove_mode("jobs")
        self._jobs_project = (project_id, project_path)
        self.add_mode("jobs", lambda: JobsScreen(project_id=project_id, project_path=project_path))
        self._previous_modes.append(self.current_mode)
        await self.switch_mode("jobs")

    def open_pipeline(self, project_id: int, project_path: str, pipeline_id: int,
                      jobs: Sequence[Job] = ()) -> None:
        """Show one pipeline: its stages and jobs (``jobs``: what the caller already knows)."""
        from labdeck.ui.screens.pipeline.screen import PipelineScreen

        clock = self.watching.poller.server_clock
        self.push_screen(PipelineScreen(project_id, project_path, pipeline_id, jobs=jobs, server_clock=clock))

    def remember_projects(self, projects: Iterable[Project]) -> None:
        """Note project paths for the palette and completion."""
        for project in projects:
            if project.path_with_namespace:
                self.known_projects[project.id] = project.path_with_namespace

    def jump_to_project(self, project_id: int) -> None:
        """Palette: show a project in the projects table (clearing the local filter)."""

        async def jump() -> None:
            await self.show_projects()
            screen = self.screen
            if isinstance(screen, ProjectsScreen):
                screen.clear_filter()
                if not screen.table.move_cursor_to_key(project_id):
                    self.notify("That project is not in the current list (check the server filters).",
                                severity="warning")

        self.run_worker(jump(), group="app-sections", exclusive=True, exit_on_error=False)
