"""A project's web hooks (list, add, edit, delete) and protected branches (protect with access
levels 0/30/40, unprotect)."""

from __future__ import annotations

from typing import Any, ClassVar

from textual.binding import Binding, BindingType

from labdeck.ui.formatting import relative_time
from labdeck.ui.screens.confirm import ConfirmScreen
from labdeck.ui.screens.project_settings import ListSection
from labdeck.ui.screens.record_detail import RecordDetailScreen
from labdeck.ui.widgets.form import FormField, FormScreen, clean, shown
from labdeck.ui.widgets.resource_table import Column, TableRow

HOOK_EVENTS = ("push_events", "issues_events", "confidential_issues_events", "merge_requests_events",
               "tag_push_events", "note_events", "job_events", "pipeline_events", "wiki_page_events")
BRANCH_ACCESS = (("no access (0)", 0), ("developers + maintainers (30)", 30), ("maintainers (40)", 40))
_ACCESS_NAMES = {0: "no one", 30: "developers", 40: "maintainers", 60: "admins"}


def hook_fields(hook: Any = None) -> list[FormField]:
    """``POST``/``PUT /projects/:id/hooks``: URL, event flags, SSL check, secret token."""
    fields = [FormField("url", "URL", required=True, value=getattr(hook, "url", "") or "")]
    fields += [FormField(name, name, kind="bool", value=bool(getattr(hook, name, name == "push_events")))
               for name in HOOK_EVENTS]
    fields += [
        FormField("enable_ssl_verification", "enable_ssl_verification", kind="bool",
                  value=bool(getattr(hook, "enable_ssl_verification", True))),
        FormField("token", "Secret token", kind="secret",
                  help="never shown again" + ("; empty keeps the current one" if hook is not None else "")),
    ]
    return fields


def _events_text(hook: Any) -> str:
    names = [name.removesuffix("_events").replace("confidential_", "conf_") for name in HOOK_EVENTS
             if getattr(hook, name, False)]
    return ", ".join(names) or "—"


class ProjectHooksScreen(ListSection):
    """``/projects/:id/hooks``."""

    SECTION_TITLE = "Hooks"
    COLUMNS = (Column("id", "ID", align="right", max_width=7), Column("url", "URL", max_width=60, flex=True),
               Column("events", "Events", max_width=40), Column("ssl", "SSL", max_width=4),
               Column("created", "Created", max_width=9))
    MUTATING_ACTIONS = frozenset({"add", "edit", "delete"})
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("n", "add", "Add", id="hooks.add"),
        Binding("e", "edit", "Edit", id="hooks.edit"),
        Binding("D", "delete", "Delete", id="hooks.delete"),
    ]

    def __init__(self, project_id: int, project_path: str) -> None:
        super().__init__(project_path)
        self.project_id = project_id
        self.project_path = clean(project_path)

    async def fetch(self) -> list[TableRow]:
        now = self.app.clock()  # type: ignore[attr-defined]
        hooks = await self.client.hooks.list(self.project_id).all()
        return [TableRow(key=h.id, cells=(str(h.id), shown(h.url), _events_text(h),
                                          "yes" if h.enable_ssl_verification else "no",
                                          relative_time(h.created_at, now)), data=h) for h in hooks]

    def copy_target(self) -> str | None:
        hook = self.table.cursor_data
        return None if hook is None else hook.url

    def open(self, data: Any) -> None:
        """``enter``: the hook as the server has it now (``GET …/hooks/:hook_id``)."""
        if data is not None:
            self.app.push_screen(RecordDetailScreen("Hook", f"{self.project_path} · hook #{data.id}",
                                                    lambda: self.client.hooks.get(self.project_id, data.id)))

    def action_add(self) -> None:
        """Add a hook."""
        if self.refuse_if_read_only():
            return

        async def save(values: dict[str, Any]) -> Any:
            settings = {k: v for k, v in values.items() if k != "url" and v != ""}
            return await self.client.hooks.create(self.project_id, values["url"], **settings)

        self.app.push_screen(FormScreen("Add hook", hook_fields(), save, target=self.project_path,
                                        submit_label="Add"), self._saved)

    def action_edit(self) -> None:
        """Edit the highlighted hook (only changed fields are sent)."""
        hook = self.current()
        if hook is None or self.refuse_if_read_only():
            return

        async def save(values: dict[str, Any]) -> Any:
            settings = {k: v for k, v in values.items() if k != "url" and v != ""}
            return await self.client.hooks.update(self.project_id, hook.id, url=values.get("url"), **settings)

        self.app.push_screen(FormScreen(f"Edit hook #{hook.id}", hook_fields(hook), save, only_changed=True,
                                        target=self.project_path), self._saved)

    def _saved(self, hook: Any) -> None:
        if hook is not None:
            self.notify("Hook saved.", timeout=3)
            self.reload()

    def action_delete(self) -> None:
        """Delete the highlighted hook (after typing its id: deliveries stop for good)."""
        hook = self.current()
        if hook is None or self.refuse_if_read_only():
            return

        self.confirm_and_send(ConfirmScreen("Delete hook", f"Delete hook #{hook.id} → {clean(hook.url)}?",
                                            action_label="Delete", target=self.project_path,
                                            typed=str(hook.id), also_accept=(f"#{hook.id}",)),
                              lambda: self.client.hooks.delete(self.project_id, hook.id),
                              f"Hook #{hook.id} deleted.", "delete")


def _levels(levels: list[Any]) -> str:
    return shown([level.access_level_description or _ACCESS_NAMES.get(level.access_level or 0, "?")
                  for level in levels])


class ProtectedBranchesScreen(ListSection):
    """``/projects/:id/protected_branches``."""

    SECTION_TITLE = "Protected branches"
    COLUMNS = (Column("name", "Branch or wildcard", max_width=40, flex=True),
               Column("push", "Allowed to push", max_width=30), Column("merge", "Allowed to merge", max_width=30))
    MUTATING_ACTIONS = frozenset({"protect", "unprotect"})
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("n", "protect", "Protect", id="branches.protect"),
        Binding("D", "unprotect", "Unprotect", id="branches.unprotect"),
    ]

    def __init__(self, project_id: int, project_path: str) -> None:
        super().__init__(project_path)
        self.project_id = project_id
        self.project_path = clean(project_path)

    async def fetch(self) -> list[TableRow]:
        branches = await self.client.protected_branches.list(self.project_id).all()
        return [TableRow(key=b.name, cells=(shown(b.name), _levels(b.push_access_levels), _levels(b.merge_access_levels)),
                         data=b) for b in branches]

    def copy_target(self) -> str | None:
        branch = self.table.cursor_data
        return None if branch is None else branch.name

    def open(self, data: Any) -> None:
        """``enter``: the protection as the server has it now (``GET …/protected_branches/:name``)."""
        if data is not None:
            self.app.push_screen(RecordDetailScreen(
                "Protected branch", f"{self.project_path} · {data.name}",
                lambda: self.client.protected_branches.get(self.project_id, data.name)))

    def action_protect(self) -> None:
        """Protect a branch or wildcard with push and merge access levels."""
        if self.refuse_if_read_only():
            return
        fields = [FormField("name", "Branch or wildcard", required=True, help="e.g. main or release/*"),
                  FormField("push_access_level", "Allowed to push", kind="select", required=True, value=40,
                            options=BRANCH_ACCESS),
                  FormField("merge_access_level", "Allowed to merge", kind="select", required=True, value=40,
                            options=BRANCH_ACCESS)]

        async def save(values: dict[str, Any]) -> Any:
            return await self.client.protected_branches.protect(
                self.project_id, values["name"], push_access_level=values["push_access_level"],
                merge_access_level=values["merge_access_level"])

        def done(branch: Any) -> None:
            if branch is not None:
                self.notify(f"{clean(branch.name)} protected.", timeout=4, markup=False)
                self.reload()

        self.app.push_screen(FormScreen("Protect a branch", fields, save, target=self.project_path,
                                        submit_label="Protect"), done)

    def action_unprotect(self) -> None:
        """Unprotect the highlighted branch (confirmed)."""
        branch = self.current()
        if branch is None or self.refuse_if_read_only():
            return

        self.confirm_and_send(ConfirmScreen("Unprotect branch",
                                            f"Remove the protection of {clean(branch.name)}? Anyone with developer "
                                            "access can then push, force-push or delete it.", action_label="Unprotect",
                                            target=f"{self.project_path} · {clean(branch.name)}"),
                              lambda: self.client.protected_branches.unprotect(self.project_id, branch.name),
                              f"{clean(branch.name)} is no longer protected.", "unprotect")
