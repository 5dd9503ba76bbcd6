"""A project's web hooks (list, add, edit, delete). Hooks have a name and a description on GitLab
17.1+ (shown, and editable there); other servers have neither (the column reads ``—``)."""

from __future__ import annotations

from datetime import datetime
from typing import Any, ClassVar

from textual.binding import Binding, BindingType

from labdeck.api.models import ProjectHook
from labdeck.audit.context import AuditTarget, audit_context
from labdeck.ui.dialogs.confirm import ConfirmScreen
from labdeck.ui.dialogs.form import FormField, FormScreen
from labdeck.ui.formatting import relative_time
from labdeck.ui.screens.record_detail import RecordDetailScreen
from labdeck.ui.screens.settings.list_section import ListSection
from labdeck.ui.widgets.cells import clean, shown
from labdeck.ui.widgets.resource_table import Column, TableRow

HOOK_EVENTS = ("push_events", "issues_events", "confidential_issues_events", "merge_requests_events",
               "tag_push_events", "note_events", "job_events", "pipeline_events", "wiki_page_events")


def _events(hook: ProjectHook) -> dict[str, bool]:
    """The hook's event switches by name (a server may omit some: off)."""
    return {name: bool(value) for name, value in hook.model_dump(include=set(HOOK_EVENTS)).items()}


def hook_fields(hook: ProjectHook | None = None, *, named: bool = False) -> list[FormField]:
    """``POST``/``PUT /projects/:id/hooks``: URL, (``named``: name and description), event flags,
    SSL check, secret token."""
    events = _events(hook) if hook is not None else {"push_events": True}
    fields = [FormField("url", "URL", required=True, value=(hook.url if hook else "") or "")]
    if named:
        fields += [FormField("name", "Name", value=(hook.name if hook else "") or ""),
                   FormField("description", "Description", value=(hook.description if hook else "") or "")]
    fields += [FormField(name, name, kind="bool", value=events.get(name, False)) for name in HOOK_EVENTS]
    ssl = hook.enable_ssl_verification if hook is not None else None
    fields += [
        FormField("enable_ssl_verification", "enable_ssl_verification", kind="bool",
                  value=True if ssl is None else ssl),
        FormField("token", "Secret token", kind="secret",
                  help="never shown again" + ("; empty keeps the current one" if hook is not None else "")),
    ]
    return fields


def _events_text(hook: ProjectHook) -> str:
    events = _events(hook)
    names = [name.removesuffix("_events").replace("confidential_", "conf_") for name in HOOK_EVENTS
             if events.get(name)]
    return ", ".join(names) or "—"


def hook_row(hook: ProjectHook, now: datetime) -> TableRow:
    """A row of the hooks table (the name reads ``—`` on servers before 17.1)."""
    return TableRow(key=hook.id, cells=(str(hook.id), shown(hook.name), shown(hook.url), _events_text(hook),
                                        "yes" if hook.enable_ssl_verification else "no",
                                        relative_time(hook.created_at, now)), data=hook)


class ProjectHooksScreen(ListSection):
    """``/projects/:id/hooks``."""

    SECTION_TITLE = "Hooks"
    COLUMNS = (Column("id", "ID", align="right", max_width=7),
               Column("name", "Name", min_width=4, max_width=24, flex=True),
               Column("url", "URL", min_width=12, max_width=60, flex=True),
               Column("events", "Events", min_width=8, max_width=40, flex=True), Column("ssl", "SSL", max_width=4),
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
        self.named = False
        """The server gives hooks a name and a description (GitLab 17.1+)."""

    async def fetch(self) -> list[TableRow]:
        client = self.client
        dialect = await client.discover()
        self.named = dialect.flavour == "gitlab" and dialect.at_least(17, 1)
        now = self.console_app.clock()
        return [hook_row(hook, now) for hook in await client.hooks.list(self.project_id).all()]

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

        self.app.push_screen(FormScreen("Add hook", hook_fields(named=self.named), save, target=self.project_path,
                                        submit_label="Add"), self._saved)

    def action_edit(self) -> None:
        """Edit the highlighted hook (only changed fields are sent)."""
        hook = self.current()
        if hook is None or self.refuse_if_read_only():
            return

        async def save(values: dict[str, Any]) -> Any:
            settings = {k: v for k, v in values.items() if k != "url" and v != ""}
            return await self.client.hooks.update(self.project_id, hook.id, url=values.get("url"), **settings)

        self.app.push_screen(FormScreen(f"Edit hook #{hook.id}", hook_fields(hook, named=self.named), save,
                                        only_changed=True,
                                        target=self.project_path), self._saved)

    async def _delete(self, hook_id: int) -> None:
        client = self.client
        with audit_context(target=AuditTarget(project=self.project_path, hook=hook_id),
                                  confirmation=f"typed:{hook_id}"):
            await client.hooks.delete(self.project_id, hook_id)

    def _saved(self, hook: ProjectHook | None) -> None:
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
                              lambda: self._delete(hook.id),
                              f"Hook #{hook.id} deleted.", "delete")
