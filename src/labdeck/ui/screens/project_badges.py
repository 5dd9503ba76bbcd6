"""Group badges (list, add, edit, delete, render preview) and notification settings (global,
group, project: level and the 13 custom e-mail events)."""

from __future__ import annotations

from typing import Any, ClassVar

from textual.binding import Binding, BindingType

from labdeck.api.models import NOTIFICATION_EVENTS
from labdeck.ui.screens.confirm import ConfirmScreen
from labdeck.ui.screens.message import MessageScreen
from labdeck.ui.screens.project_settings import ListSection
from labdeck.ui.screens.record_detail import RecordDetailScreen
from labdeck.ui.widgets.form import FormField, FormScreen, clean, shown
from labdeck.ui.widgets.resource_table import Column, TableRow

BADGE_VARIABLES = "%{project_path} %{project_id} %{default_branch} %{commit_sha}"
LEVELS = ("disabled", "participating", "watch", "global", "mention", "custom")


def badge_fields(badge: Any = None) -> list[FormField]:
    """``link_url`` and ``image_url`` (%{…} variables allowed)."""
    return [FormField("link_url", "Link URL", required=True, value=getattr(badge, "link_url", "") or "",
                      help=f"%{{…}} variables: {BADGE_VARIABLES}"),
            FormField("image_url", "Image URL", required=True, value=getattr(badge, "image_url", "") or "")]


class GroupBadgesScreen(ListSection):
    """``/groups/:id/badges``."""

    SECTION_TITLE = "Group badges"
    COLUMNS = (Column("id", "ID", align="right", max_width=7), Column("link", "Link URL", max_width=50, flex=True),
               Column("image", "Image URL", max_width=50, flex=True),
               Column("rendered", "Rendered link", max_width=50, flex=True))
    MUTATING_ACTIONS = frozenset({"add", "edit", "delete"})
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("n", "add", "Add", id="badges.add"),
        Binding("e", "edit", "Edit", id="badges.edit"),
        Binding("D", "delete", "Delete", id="badges.delete"),
        Binding("v", "preview", "Preview", id="badges.preview"),
    ]

    def __init__(self, group: str) -> None:
        super().__init__(f"group {group}")
        self.group_ref = group
        self.group = clean(group)

    async def fetch(self) -> list[TableRow]:
        badges = await self.client.badges.list(self.group_ref).all()
        return [TableRow(key=b.id, cells=(str(b.id), shown(b.link_url), shown(b.image_url),
                                          shown(b.rendered_link_url)), data=b) for b in badges]

    def copy_target(self) -> str | None:
        badge = self.table.cursor_data
        return None if badge is None else (badge.rendered_link_url or badge.link_url)

    def open(self, data: Any) -> None:
        """``enter``: the badge as the server has it now (``GET …/badges/:badge_id``)."""
        if data is not None:
            self.app.push_screen(RecordDetailScreen("Badge", f"group {self.group} · badge #{data.id}",
                                                    lambda: self.client.badges.get(self.group_ref, data.id)))

    def _saved(self, badge: Any) -> None:
        if badge is not None:
            self.notify(f"Badge #{badge.id} saved.", timeout=3)
            self.reload()

    def action_add(self) -> None:
        """Add a badge."""
        if self.refuse_if_read_only():
            return

        async def save(values: dict[str, Any]) -> Any:
            return await self.client.badges.create(self.group_ref, values["link_url"], values["image_url"])

        self.app.push_screen(FormScreen("Add group badge", badge_fields(), save, target=f"group {self.group}",
                                        submit_label="Add"), self._saved)

    def action_edit(self) -> None:
        """Edit the highlighted badge."""
        badge = self.current()
        if badge is None or self.refuse_if_read_only():
            return

        async def save(values: dict[str, Any]) -> Any:
            return await self.client.badges.update(self.group_ref, badge.id, **values)

        self.app.push_screen(FormScreen(f"Edit badge #{badge.id}", badge_fields(badge), save, only_changed=True,
                                        target=f"group {self.group}"), self._saved)

    def action_delete(self) -> None:
        """Delete the highlighted badge (after typing its id)."""
        badge = self.current()
        if badge is None or self.refuse_if_read_only():
            return

        self.confirm_and_send(ConfirmScreen("Delete badge", f"Delete badge #{badge.id} of group {self.group}?",
                                            action_label="Delete", target=f"group {self.group}",
                                            typed=str(badge.id), also_accept=(f"#{badge.id}",)),
                              lambda: self.client.badges.delete(self.group_ref, badge.id),
                              f"Badge #{badge.id} deleted.", "delete")

    def action_preview(self) -> None:
        """Render URLs with their %{…} variables resolved (``GET …/badges/render``), nothing saved."""
        badge = self.table.cursor_data

        async def render(values: dict[str, Any]) -> Any:
            return await self.client.badges.render(self.group_ref, values["link_url"], values["image_url"])

        def done(preview: Any) -> None:
            if preview is not None:
                self.app.push_screen(MessageScreen("Badge preview", "\n".join((
                    f"link:  {shown(preview.rendered_link_url)}", f"image: {shown(preview.rendered_image_url)}")),
                    error=False))

        self.app.push_screen(FormScreen("Preview a badge", badge_fields(badge), render, target=f"group {self.group}",
                                        submit_label="Render"), done)


def notification_fields(settings: Any, *, with_email: bool) -> list[FormField]:
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
            if key == "group":
                return await notifications.update_group(self.group, level=level, events=events)
            return await notifications.update_project(self.project_id, level=level, events=events)

        def done(result: Any) -> None:
            if result is not None:
                self.notify(f"Notification settings ({key}) saved.", timeout=3, markup=False)
                self.reload()

        self.app.push_screen(FormScreen(f"Notification settings · {key}",
                                        notification_fields(settings, with_email=key == "global"), save,
                                        only_changed=True, target=self.context_text), done)
