"""Group badges (list, add, edit, delete, render preview)."""

from __future__ import annotations

from typing import Any, ClassVar

from textual.binding import Binding, BindingType

from labdeck.api.models import Badge
from labdeck.ui.dialogs.confirm import ConfirmScreen
from labdeck.ui.dialogs.form import FormField, FormScreen
from labdeck.ui.dialogs.message import MessageScreen
from labdeck.ui.screens.record_detail import RecordDetailScreen
from labdeck.ui.screens.settings.list_section import ListSection
from labdeck.ui.widgets.cells import clean, shown
from labdeck.ui.widgets.resource_table import Column, TableRow

BADGE_VARIABLES = "%{project_path} %{project_id} %{default_branch} %{commit_sha}"


def badge_fields(badge: Badge | None = None) -> list[FormField]:
    """``link_url`` and ``image_url`` (%{…} variables allowed)."""
    return [FormField("link_url", "Link URL", required=True, value=(badge.link_url if badge else "") or "",
                      help=f"%{{…}} variables: {BADGE_VARIABLES}"),
            FormField("image_url", "Image URL", required=True, value=(badge.image_url if badge else "") or "")]


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

    def _saved(self, badge: Badge | None) -> None:
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
