"""Notification settings (global, group, project: level and the 13 custom e-mail events)."""

from __future__ import annotations

from typing import Any, ClassVar

from textual.binding import Binding, BindingType

from labdeck.api.models import NOTIFICATION_EVENTS, NotificationSettings
from labdeck.ui.dialogs.form import FormField, FormScreen
from labdeck.ui.screens.settings.list_section import ListSection
from labdeck.ui.widgets.cells import clean
from labdeck.ui.widgets.resource_table import Column, TableRow

LEVELS = ("disabled", "participating", "watch", "global", "mention", "custom")


def notification_fields(settings: NotificationSettings, *, with_email: bool) -> list[FormField]:
    """Level, (global only) e-mail, and the 13 event flags honoured at level ``custom``."""
    level = settings.level if settings.level in LEVELS else "global"
    fields = [FormField("level", "Level", kind="select", required=True, value=level,
                        options=tuple((name, name) for name in LEVELS),
                        help="the event switches apply at level custom")]
    if with_email:
        fields.append(FormField("notification_email", "Notification e-mail", value=settings.notification_email or ""))
    events = settings.events or {}
    fields += [FormField(name, name, kind="bool", value=bool(events.get(name, False))) for name in NOTIFICATION_EVENTS]
    return fields


class NotificationSettingsScreen(ListSection):
    """Global, group and project notification settings; ``enter``/``e`` edits the highlighted one."""

    SECTION_TITLE = "Notifications"
    COLUMNS = (Column("scope", "Scope", max_width=40), Column("level", "Level", max_width=14),
               Column("events", "Custom events on", max_width=90, flex=True))
    MUTATING_ACTIONS = frozenset({"edit"})
    BINDINGS: ClassVar[list[BindingType]] = [Binding("e", "edit", "Edit", id="notifications.edit")]

    def __init__(self, project_id: int | None = None, project_path: str | None = None,
                 group: str | None = None) -> None:
        super().__init__(project_path or "global")
        self.project_id = project_id
        self.project_path = clean(project_path) if project_path is not None else None
        self.group = group
        self.settings: dict[str, Any] = {}

    async def fetch(self) -> list[TableRow]:
        notifications = self.client.notifications
        scopes: list[tuple[str, str, Any]] = [("global", "global", await notifications.global_settings())]
        if self.group is not None:
            scopes.append(("group", f"group {clean(self.group)}", await notifications.group_settings(self.group)))
        if self.project_id is not None:
            scopes.append(("project", f"project {self.project_path or self.project_id}",
                           await notifications.project_settings(self.project_id)))
        self.settings = {key: settings for key, _, settings in scopes}
        rows = []
        for key, label, settings in scopes:
            events = settings.events or {}
            on = ", ".join(name for name in NOTIFICATION_EVENTS if events.get(name)) or "—"
            email = f" · {clean(settings.notification_email)}" if settings.notification_email else ""
            rows.append(TableRow(key=key, cells=(label + email, settings.level or "—", on), data=key))
        return rows

    def open(self, data: Any) -> None:
        self.action_edit()

    def action_edit(self) -> None:
        """Edit the highlighted scope's level and events."""
        key = self.table.cursor_key
        if key is None or self.refuse_if_read_only():
            return
        settings = self.settings[str(key)]
        notifications = self.client.notifications

        async def save(values: dict[str, Any]) -> Any:
            events = {name: bool(values[name]) for name in NOTIFICATION_EVENTS if name in values}
            level = values.get("level")
            if key == "global":
                return await notifications.update_global(level=level, events=events,
                                                         notification_email=values.get("notification_email") or None)
            if key == "group" and self.group is not None:
                return await notifications.update_group(self.group, level=level, events=events)
            if key == "project" and self.project_id is not None:
                return await notifications.update_project(self.project_id, level=level, events=events)
            raise AssertionError(f"no {key} notification settings on this screen")

        def done(result: Any) -> None:
            if result is not None:
                self.notify(f"Notification settings ({key}) saved.", timeout=3, markup=False)
                self.reload()

        self.app.push_screen(FormScreen(f"Notification settings · {key}",
                                        notification_fields(settings, with_email=key == "global"), save,
                                        only_changed=True, target=self.context_text), done)
