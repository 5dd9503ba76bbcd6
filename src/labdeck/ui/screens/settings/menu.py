"""Settings of one project: a menu of everything the spec lets a maintainer do with it (hooks,
protected branches, group badges, notifications, export/import, share, fork, forks, uploads,
users, edit, create, delete), plus the project-level forms and lists themselves."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar

from textual.binding import Binding, BindingType

from labdeck.api.models import Project
from labdeck.audit.context import AuditTarget, audit_context
from labdeck.ui.dialogs.confirm import ConfirmScreen
from labdeck.ui.dialogs.form import FormField, FormScreen
from labdeck.ui.dialogs.message import MessageScreen
from labdeck.ui.dialogs.suggest import SuggestingFormScreen, group_paths
from labdeck.ui.screens.base import reload_screen
from labdeck.ui.screens.settings.list_section import local_path
from labdeck.ui.screens.settings.people import ProjectForksScreen, ProjectUsersScreen
from labdeck.ui.screens.settings.sharing import SharingActions
from labdeck.ui.widgets.cells import clean
from labdeck.ui.widgets.resource_table import Column, TableRow

VISIBILITY = (("private", "private"), ("internal", "internal"), ("public", "public"))
MERGE_METHODS = (("merge", "merge"), ("rebase_merge", "rebase_merge"), ("ff (fast-forward only)", "ff"))
PROJECT_BOOLEANS = ("issues_enabled", "merge_requests_enabled", "jobs_enabled", "wiki_enabled", "snippets_enabled",
                    "resolve_outdated_diff_discussions", "container_registry_enabled", "shared_runners_enabled",
                    "public_jobs", "only_allow_merge_if_pipeline_succeeds",
                    "only_allow_merge_if_all_discussions_are_resolved", "lfs_enabled", "request_access_enabled")
"""The boolean write parameters of the spec's set W."""


def project_edit_fields(project: Project) -> list[FormField]:
    """``PUT /projects/:id``: name, path, default branch, description, visibility, merge method, topics
    (the client sends them as ``topics`` or ``tag_list``, whichever the server speaks), booleans."""
    fields = [
        FormField("name", "Name", required=True, value=project.name or ""),
        FormField("path", "Path", value=project.path or ""),
        FormField("default_branch", "Default branch", value=project.default_branch or ""),
        FormField("description", "Description", kind="multiline", value=project.description or ""),
        FormField("visibility", "Visibility", kind="select", required=True, value=project.visibility or "private",
                  options=VISIBILITY),
        FormField("merge_method", "Merge method", kind="select", required=True, value=project.merge_method or "merge",
                  options=MERGE_METHODS),
        FormField("ci_config_path", "CI config path", value=project.ci_config_path or ""),
        FormField("tag_list", "Topics", value=", ".join(project.topics), help="comma-separated (tags on old servers)"),
    ]
    fields += [FormField(name, name, kind="bool", value=bool(getattr(project, name, False)))
               for name in PROJECT_BOOLEANS]
    return fields


def project_create_fields() -> list[FormField]:
    """``POST /projects``: name or path, namespace, and the main settings."""
    return [
        FormField("name", "Name", help="name or path is required"),
        FormField("path", "Path"),
        FormField("namespace_id", "Namespace id", kind="int", help="empty = your own namespace"),
        FormField("owner_user_id", "Owner user id", kind="int",
                  help="admin only: create the project for this user (needs a name)"),
        FormField("default_branch", "Default branch", help="with an owner user id; default master"),
        FormField("description", "Description", kind="multiline"),
        FormField("visibility", "Visibility", kind="select", required=True, value="private", options=VISIBILITY),
        FormField("merge_method", "Merge method", kind="select", value="merge", options=MERGE_METHODS),
        FormField("issues_enabled", "issues_enabled", kind="bool", value=True),
        FormField("merge_requests_enabled", "merge_requests_enabled", kind="bool", value=True),
        FormField("jobs_enabled", "jobs_enabled", kind="bool", value=True),
        FormField("wiki_enabled", "wiki_enabled", kind="bool", value=True),
        FormField("printing_merge_request_link_enabled", "printing_merge_request_link_enabled", kind="bool",
                  value=True),
    ]


def _settings_arguments(values: dict[str, Any]) -> dict[str, Any]:
    arguments = {key: value for key, value in values.items() if value is not None}
    if "tag_list" in arguments:
        arguments["tag_list"] = [t.strip() for t in str(arguments["tag_list"]).split(",") if t.strip()]
    for key in ("path", "default_branch", "ci_config_path"):
        if arguments.get(key) == "":
            arguments.pop(key)
    return arguments


# (label, what it opens) of the settings menu
_MENU: tuple[tuple[str, str, str], ...] = (
    ("hooks", "Hooks", "web hooks: list, add, edit, delete"),
    ("branches", "Protected branches", "protect with push/merge access levels, unprotect"),
    ("badges", "Group badges", "badges of the project's group: list, add, edit, delete, preview"),
    ("notifications", "Notification settings", "global, group and project levels and custom events"),
    ("export", "Export / import", "start an export, watch it, download it; import an archive"),
    ("issues", "Issues", "the project's issues"),
    ("integrations", "Integrations", "every integration with its state"),
    ("runners", "Runners", "runners of the project: enable, disable"),
    ("users", "Users", "users of the project"),
    ("forks", "Forks", "forks of the project"),
    ("edit", "Edit settings", "name, description, visibility, merge method, features"),
    ("share", "Share with a group", "give a group access (by path or id)"),
    ("unshare", "Stop sharing", "remove a group's access"),
    ("fork", "Fork", "fork into a namespace"),
    ("upload", "Upload a file", "for use in descriptions and comments"),
    ("create", "Create a project", "a new project"),
    ("delete", "Delete project", "remove the project and everything in it"),
)
_MUTATING_ITEMS = {"edit", "share", "unshare", "fork", "upload", "create", "delete"}


class ProjectSettingsScreen(SharingActions):
    """The settings menu of one project (``:settings <project>``)."""

    SECTION_TITLE = "Settings"
    COLUMNS = (Column("item", "Setting", max_width=24), Column("about", "What", max_width=80, flex=True))
    MUTATING_ACTIONS = frozenset({"edit", "share", "unshare", "fork", "upload", "create", "delete"})
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "open_item", "Open", id="settings.open"),
        Binding("e", "edit", "Edit", id="settings.edit"),
        Binding("D", "delete", "Delete project", id="settings.delete"),
    ]

    def __init__(self, project_id: int, project_path: str) -> None:
        super().__init__(project_path)
        self.project_id = project_id
        self.project_path = clean(project_path)
        self.project: Project | None = None

    async def fetch(self) -> list[TableRow]:
        project = self.project = await self.client.projects.get(self.project_id)
        self.project_path = clean(project.path_with_namespace or self.project_path)
        self.context_text = f"{self.project_path} · {project.visibility or ''}"
        read_only = self.console_app.read_only
        return [TableRow(key=key, cells=(label, about), data=key) for key, label, about in _MENU
                if not (read_only and key in _MUTATING_ITEMS)]

    @property
    def group_path(self) -> str | None:
        """The project's group (None for a personal project)."""
        namespace = self.project.namespace if self.project is not None else None
        if namespace is None or namespace.kind not in ("group", None):
            return None
        return namespace.full_path or namespace.path

    def action_open_item(self) -> None:
        """Open the highlighted item."""
        key = self.table.cursor_key
        if key is not None:
            self.open(key)

    def open(self, data: Any) -> None:
        key = str(data)
        opener: dict[str, Callable[[], object]] = {
            "hooks": self._open_hooks,
            "branches": self._open_branches,
            "badges": self._open_badges,
            "notifications": self._open_notifications,
            "export": self._open_export,
            "issues": self._open_issues,
            "integrations": self._open_integrations,
            "runners": self._open_runners,
            "users": lambda: self.app.push_screen(ProjectUsersScreen(self.project_id, self.project_path)),
            "forks": lambda: self.app.push_screen(ProjectForksScreen(self.project_id, self.project_path)),
            "edit": self.action_edit,
            "share": self.action_share,
            "unshare": self.action_unshare,
            "fork": self.action_fork,
            "upload": self.action_upload,
            "create": self.action_create,
            "delete": self.action_delete,
        }
        if key in opener:
            opener[key]()

    # Each screen is imported when opened: the menu is shown often, most of its screens rarely.

    def _open_hooks(self) -> None:
        from labdeck.ui.screens.settings.hooks import ProjectHooksScreen

        self.app.push_screen(ProjectHooksScreen(self.project_id, self.project_path))

    def _open_branches(self) -> None:
        from labdeck.ui.screens.settings.branches import ProtectedBranchesScreen

        self.app.push_screen(ProtectedBranchesScreen(self.project_id, self.project_path))

    def _open_export(self) -> None:
        from labdeck.ui.screens.settings.export import ProjectExportScreen

        self.app.push_screen(ProjectExportScreen(self.project_id, self.project_path))

    def _open_badges(self) -> None:
        group = self.group_path
        if group is None:
            self.notify("This project is not in a group: group badges do not apply.", severity="warning")
            return
        from labdeck.ui.screens.settings.badges import GroupBadgesScreen

        self.app.push_screen(GroupBadgesScreen(group))

    def _open_notifications(self) -> None:
        from labdeck.ui.screens.settings.notifications import NotificationSettingsScreen

        self.app.push_screen(NotificationSettingsScreen(self.project_id, self.project_path, self.group_path))

    def _open_issues(self) -> None:
        from labdeck.ui.screens.issues.list import IssuesScreen

        self.app.push_screen(IssuesScreen(project_id=self.project_id, project_path=self.project_path))

    def _open_integrations(self) -> None:
        from labdeck.ui.screens.integrations.list import IntegrationsScreen

        self.app.push_screen(IntegrationsScreen(self.project_id, self.project_path))

    def _open_runners(self) -> None:
        from labdeck.ui.screens.runners.list import ProjectRunnersScreen

        self.app.push_screen(ProjectRunnersScreen(self.project_id, self.project_path))

    def copy_target(self) -> str | None:
        return (self.project.web_url if self.project is not None else None) or self.project_path

    # --- project changes ----------------------------------------------------------------------

    def _form(self, title: str, fields: list[FormField], submit: Any, done: Callable[[Any], None], *,
              only_changed: bool = False, label: str = "Save", suggestions: dict[str, list[str]] | None = None) -> None:
        if self.refuse_if_read_only():
            return
        options: dict[str, Any] = {"target": self.project_path, "only_changed": only_changed, "submit_label": label}
        form = (SuggestingFormScreen(title, fields, submit, suggestions=suggestions, **options) if suggestions
                else FormScreen(title, fields, submit, **options))
        self.app.push_screen(form, lambda result: done(result) if result is not None else None)

    def action_edit(self) -> None:
        """Edit the project's settings (only the changed ones are sent; ``name`` always is)."""
        project = self.project
        if project is None:
            return

        async def save(values: dict[str, Any]) -> Any:
            arguments = _settings_arguments(values)
            name = str(arguments.pop("name", None) or project.name or project.path or "")
            client = self.client
            with audit_context(target=AuditTarget(project=self.project_path), confirmation="form"):
                return await client.projects.update(self.project_id, name=name, **arguments)

        def done(project: Any) -> None:
            self.notify(f"{self.project_path}: settings saved.", timeout=4, markup=False)
            self.reload()

        self._form("Edit project settings", project_edit_fields(project), save, done, only_changed=True)

    def action_fork(self) -> None:
        """Fork into a namespace (asynchronous on the server)."""
        fields = [FormField("namespace", "Namespace", required=True,
                            help="path (completes from the projects listed; → accepts) or id of the target namespace")]

        async def save(values: dict[str, Any]) -> Any:
            namespace = str(values["namespace"])
            return await self.client.projects.fork(self.project_id, int(namespace) if namespace.isdigit()
                                                   else namespace)

        def done(fork: Project) -> None:
            status = f" (import {fork.import_status})" if fork.import_status else ""
            self.notify(f"Fork created: {clean(fork.path_with_namespace or fork.id)}{status}.", timeout=6, markup=False)

        known = self.console_app.known_projects.values()
        self._form("Fork project", fields, save, done, label="Fork", suggestions={"namespace": group_paths(known)})

    def action_upload(self) -> None:
        """Upload a file; shows the markdown to paste and copies it."""
        fields = [FormField("file", "File", required=True, help="path of a local file",
                            validate=lambda v: None if local_path(v).is_file() else "no such file")]

        async def save(values: dict[str, Any]) -> Any:
            return await self.client.projects.upload(self.project_id, local_path(values["file"]))

        def done(result: Any) -> None:
            markdown = result.markdown or result.url or ""
            if markdown:
                self.app.copy_to_clipboard(markdown)
            self.app.push_screen(MessageScreen("File uploaded", f"{clean(markdown)}\n\n(copied to the clipboard)",
                                               error=False))

        self._form("Upload a file", fields, save, done, label="Upload")

    def action_create(self) -> None:
        """Create a new project."""

        async def save(values: dict[str, Any]) -> Any:
            arguments = {k: v for k, v in values.items() if v not in (None, "")}
            owner = arguments.pop("owner_user_id", None)
            if owner is not None:
                if not arguments.get("name"):
                    raise ValueError("A project created for a user needs a name.")
                return await self.client.projects.create_for_user(owner, **arguments)
            arguments.pop("default_branch", None)
            if not arguments.get("name") and not arguments.get("path"):
                raise ValueError("Give a name or a path.")
            return await self.client.projects.create(**arguments)

        def done(project: Project) -> None:
            self.console_app.remember_projects([project])
            self.notify(f"Project {clean(project.path_with_namespace or project.id)} created.", timeout=6, markup=False)

        self._form("Create a project", project_create_fields(), save, done, label="Create")

    def action_delete(self) -> None:
        """Delete the project after typing its full path."""
        if self.refuse_if_read_only():
            return
        path = self.project_path

        def confirmed(answer: bool | None) -> None:
            if answer:
                async def send() -> None:
                    client = self.client
                    with audit_context(target=AuditTarget(project=path), confirmation=f"typed:{path}"):
                        await client.projects.delete(self.project_id)
                    self.notify(f"{path} is being deleted.", timeout=8, markup=False)
                    if self.app.screen is self:
                        self.app.pop_screen()
                    reload_screen(self.app.screen)

                self.run_api(send, "delete")

        self.app.push_screen(ConfirmScreen("Delete project", f"Delete {path} with its repository, issues, jobs "
                                           "and everything else in it?", action_label="Delete project",
                                           target=path, typed=path), confirmed)
