"""Integrations of one project, by title: every integration labdeck can configure on this server
(``client.integrations.catalog()``, with the slug the server knows) and every one the server lists
as active (``client.integrations.list()``: ``GET …/integrations`` from GitLab 12.7, one read per
integration on older servers), including ones labdeck does not know. ``/`` filters by title, slug
or kind; ``enter`` opens the settings, ``e`` configures, ``X`` disables (typed slug)."""

from __future__ import annotations

from datetime import datetime
from typing import Any, ClassVar

from textual.binding import Binding, BindingType

from labdeck.api.models import Integration
from labdeck.ui.formatting import relative_time
from labdeck.ui.screens.integrations.actions import (
    DEPRECATED,
    DEPRECATED_MESSAGE,
    IntegrationActions,
    IntegrationEntry,
    state_text,
)
from labdeck.ui.screens.table_section import TableSectionScreen
from labdeck.ui.widgets.cells import clean, shown
from labdeck.ui.widgets.resource_table import Column, ResourceTable, TableRow

COLUMNS = (
    Column("title", "Integration", min_width=24, max_width=32, flex=True),
    Column("slug", "Slug", min_width=10, max_width=26, flex=True),
    Column("state", "State", max_width=11),
    Column("kind", "Kind", min_width=8, max_width=40, flex=True),
    Column("updated", "Updated", max_width=9),
)


def merge_entries(catalog: list[Any], listed: list[Integration]) -> list[IntegrationEntry]:
    """The catalog with the listed records attached, then the listed ones the catalog lacks; by title."""
    by_server_slug = {item.slug: item for item in listed if item.slug}

    def record_of(info: Any) -> Integration | None:
        # The server's spelling first; either spelling matches should the dialect be mistaken.
        for slug in (info.server_slug, info.slug, info.spec.real_slug):
            if slug in by_server_slug:
                return by_server_slug.pop(slug)
        return None

    entries = [IntegrationEntry.from_catalog(info, record_of(info)) for info in catalog]
    entries += [IntegrationEntry.from_server(record) for record in by_server_slug.values()]
    return sorted(entries, key=lambda entry: (entry.title.casefold(), entry.server_slug))


class IntegrationsScreen(IntegrationActions, TableSectionScreen):
    """The integrations of one project (section 5)."""

    SECTION_TITLE = "Integrations"
    TABLE_ID = "integrations-table"
    COLUMNS = COLUMNS
    MUTATING_ACTIONS = frozenset({"edit", "disable"})
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "details", "Details", id="integrations.details"),
        Binding("e", "edit", "Configure", id="integrations.edit"),
        Binding("X", "disable", "Disable", id="integrations.disable"),
    ]

    def __init__(self, project_id: int, project_path: str) -> None:
        super().__init__()
        self.project_id = project_id
        self.project_path = clean(project_path)
        self.context_text = self.project_path
        self.entries: dict[str, IntegrationEntry] = {}
        """Row key (the slug given to the client) → entry."""

    @property
    def integrations(self) -> dict[str, Integration | None]:
        """Row key → the server's record (None when the server did not list it as active)."""
        return {key: entry.record for key, entry in self.entries.items()}

    async def load(self) -> None:
        """The integrations the server lists, and the catalog for this server."""
        client = self.client
        # The list first: the slugs a server lists correct the client's idea of its dialect, which
        # the catalog's slugs then follow.
        listed = await client.integrations.list(self.project_id)
        catalog = await client.integrations.catalog()
        entries = merge_entries(catalog, listed)
        self.entries = {entry.slug: entry for entry in entries}
        now = self.console_app.clock()
        self.replace_rows(self._row(entry, now) for entry in entries)
        active = sum(1 for entry in entries if entry.active)
        self.context_text = f"{self.project_path} · {active} active"
        self.mark_loaded()

    def _row(self, entry: IntegrationEntry, now: datetime) -> TableRow:
        kind = entry.kind
        if entry.slug in DEPRECATED and not entry.active:
            kind = f"{kind} — {DEPRECATED_MESSAGE}"
        record = entry.record
        updated = relative_time(record.updated_at, now) if record is not None and record.updated_at else "—"
        return TableRow(key=entry.slug, cells=(shown(entry.title), shown(entry.server_slug),
                                               state_text(self.app, entry), shown(kind), updated), data=entry)

    def _entry(self) -> IntegrationEntry | None:
        entry = self.table.cursor_data
        return entry if isinstance(entry, IntegrationEntry) else None

    def copy_target(self) -> str | None:
        entry = self._entry()
        return None if entry is None else entry.server_slug

    def on_resource_table_selected(self, event: ResourceTable.Selected) -> None:
        event.stop()
        self.action_details()

    def action_details(self) -> None:
        """Open the highlighted integration's settings."""
        entry = self._entry()
        if entry is None:
            return
        if entry.slug in DEPRECATED and not entry.active:
            self.notify(f"{entry.title}: {DEPRECATED_MESSAGE}", severity="warning", timeout=8)
            return
        from labdeck.ui.screens.integrations.detail import IntegrationDetailScreen

        self.app.push_screen(IntegrationDetailScreen(self.project_id, self.project_path, entry))

    def action_edit(self) -> None:
        """Configure the highlighted integration."""
        entry = self._entry()
        if entry is None or self.refuse_if_read_only():
            return
        self.integration_edit(self, self.project_id, self.project_path, entry, lambda _: self.reload())

    def action_disable(self) -> None:
        """Disable (remove the settings of) the highlighted integration."""
        entry = self._entry()
        if entry is None or self.refuse_if_read_only():
            return
        self.integration_disable(self, self.project_id, self.project_path, entry, lambda _: self.reload())

