"""A project's users and forks, and the projects of a user."""

from __future__ import annotations

from typing import Any

from labdeck.ui.console import console_app
from labdeck.ui.formatting import relative_time
from labdeck.ui.screens.settings.list_section import ListSection
from labdeck.ui.widgets.cells import shown
from labdeck.ui.widgets.resource_table import Column, TableRow


class ProjectUsersScreen(ListSection):
    """``GET /projects/:id/users`` (``/`` filters them)."""

    SECTION_TITLE = "Project users"
    COLUMNS = (Column("id", "ID", align="right", max_width=7), Column("username", "Username", max_width=24),
               Column("name", "Name", max_width=40, flex=True), Column("state", "State", max_width=10))

    def __init__(self, project_id: int, project_path: str) -> None:
        super().__init__(project_path)
        self.project_id = project_id

    async def fetch(self) -> list[TableRow]:
        users = await self.client.projects.users(self.project_id).all()
        return [TableRow(key=u.id, cells=(str(u.id), shown(u.username), shown(u.name), shown(u.state)), data=u)
                for u in users]

    def copy_target(self) -> str | None:
        user = self.table.cursor_data
        return None if user is None else (user.username or str(user.id))


class ProjectForksScreen(ListSection):
    """``GET /projects/:id/forks``."""

    SECTION_TITLE = "Forks"
    COLUMNS = (Column("id", "ID", align="right", max_width=7), Column("path", "Path", max_width=56, flex=True),
               Column("visibility", "Visibility", max_width=10), Column("import", "Import", max_width=10),
               Column("created", "Created", max_width=9))

    def __init__(self, project_id: int, project_path: str) -> None:
        super().__init__(project_path)
        self.project_id = project_id

    async def fetch(self) -> list[TableRow]:
        now = self.console_app.clock()
        forks = await self.client.projects.forks(self.project_id).all()
        return [TableRow(key=p.id, cells=(str(p.id), shown(p.path_with_namespace), shown(p.visibility),
                                          shown(p.import_status), relative_time(p.created_at, now)), data=p)
                for p in forks]

    def copy_target(self) -> str | None:
        project = self.table.cursor_data
        return None if project is None else (project.web_url or project.path_with_namespace)


class UserProjectsScreen(ListSection):
    """``GET /users/:user_id/projects`` (id or username)."""

    SECTION_TITLE = "User projects"
    COLUMNS = ProjectForksScreen.COLUMNS

    def __init__(self, user: str) -> None:
        super().__init__(f"user {user}")
        self.user = user

    async def fetch(self) -> list[TableRow]:
        now = self.console_app.clock()
        user: int | str = int(self.user) if self.user.isdigit() else self.user
        projects = await self.client.projects.user_projects(user).all()
        self.console_app.remember_projects(projects)
        return [TableRow(key=p.id, cells=(str(p.id), shown(p.path_with_namespace), shown(p.visibility),
                                          shown(p.import_status), relative_time(p.created_at, now)), data=p)
                for p in projects]

    def open(self, data: Any) -> None:
        if data is not None:
            console_app(self.app).open_project_section("settings", data.id, data.path_with_namespace or str(data.id))

    def copy_target(self) -> str | None:
        project = self.table.cursor_data
        return None if project is None else (project.web_url or project.path_with_namespace)
