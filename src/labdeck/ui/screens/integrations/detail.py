"""One integration's settings as the server returns them: title, slugs, state, every event flag
it sent (known or not) and the properties. Secrets are never shown: a server does not return them
(they read "write-only"), and one that does (the spec's chat webhook) gets a mask."""

from __future__ import annotations

import dataclasses
from typing import Any, ClassVar

from textual.binding import Binding, BindingType

from labdeck.api import errors
from labdeck.api.models import Integration
from labdeck.api.resources.integrations import INTEGRATIONS
from labdeck.ui.screens.integrations.actions import (
    WRITE_ONLY,
    IntegrationActions,
    IntegrationEntry,
    is_secret,
    state_text,
)
from labdeck.ui.screens.table_section import TableSectionScreen
from labdeck.ui.widgets.cells import MASK, clean, field_row, fields_table
from labdeck.ui.widgets.resource_table import ResourceTable, TableRow


def property_names(slug: str, properties: dict[str, Any]) -> list[str]:
    """Required parameters first, then optional ones, then whatever else the server sent."""
    spec = INTEGRATIONS.get(slug)
    names = [] if spec is None else list(spec.required) + [n for n in spec.optional if n not in spec.required]
    return names + [name for name in properties if name not in names]


class IntegrationDetailScreen(IntegrationActions, TableSectionScreen):
    """The settings record of one integration; secrets are never shown."""

    SECTION_TITLE = "Integration"
    TABLE_ID = "integration-fields"
    MUTATING_ACTIONS = frozenset({"edit", "disable"})
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("e", "edit", "Configure", id="integration.edit"),
        Binding("X", "disable", "Disable", id="integration.disable"),
    ]

    def __init__(self, project_id: int, project_path: str, entry: IntegrationEntry) -> None:
        super().__init__()
        self.project_id = project_id
        self.project_path = clean(project_path)
        self.entry = entry
        self.integration: Integration | None = None
        self.unavailable: str | None = None
        """Why the server would not return the settings (it does not offer this integration)."""
        self.context_text = f"{self.project_path} · {entry.label}"

    @property
    def slug(self) -> str:
        """The slug the client is given for this integration."""
        return self.entry.slug

    def make_table(self) -> ResourceTable:
        return fields_table(self.TABLE_ID)

    async def load(self) -> None:
        """Read the settings (a server that does not offer the integration says so: shown as a row)."""
        try:
            integration = await self.client.integrations.get(self.project_id, self.slug)
        except (errors.ValidationError, errors.NotFound) as error:
            self.unavailable = clean(error.user_message())
            self.show(None)
            return
        self.unavailable = None
        self.show(integration)

    def show(self, integration: Integration | None) -> None:
        """Display a settings record (None: the server does not offer the integration)."""
        self.integration = integration
        entry = self.entry = dataclasses.replace(self.entry, record=integration)
        now = self.console_app.clock()
        rows = [field_row("title", entry.title), field_row("slug", entry.server_slug)]
        if entry.slug != entry.server_slug:
            rows.append(field_row("spec slug", entry.slug))
        rows += [field_row("kind", entry.kind),
                 TableRow(key="state", cells=("state", state_text(self.app, entry,
                                                                  unavailable=self.unavailable is not None)))]
        if integration is None:
            rows.append(field_row("server", f"does not offer it: {self.unavailable or '—'}"))
        else:
            rows += [field_row("created_at", integration.created_at, now),
                     field_row("updated_at", integration.updated_at, now)]
            rows += [field_row(flag, value) for flag, value in sorted(integration.events.items())]
            properties = integration.properties or {}
            spec = INTEGRATIONS.get(self.slug)
            for name in property_names(self.slug, properties):
                if name in integration.events and name not in properties:
                    continue  # an event switch the table lists as a parameter: shown above
                label = f"{name} *" if spec is not None and name in spec.required else name
                value = properties.get(name)
                if is_secret(name):
                    text = MASK if value not in (None, "") else WRITE_ONLY
                    rows.append(TableRow(key=("property", name), cells=(label, text)))
                else:
                    rows.append(field_row(label, value, key=("property", name)))
        self.replace_rows(rows)
        self.mark_loaded()
        self.update_title()

    def copy_target(self) -> str | None:
        key = self.table.cursor_key
        if isinstance(key, tuple) and is_secret(str(key[1])):
            return None  # secrets are not copied from the console
        return self.cursor_cell_text(1)

    def action_edit(self) -> None:
        """Configure this integration."""
        if not self.refuse_if_read_only():
            self.integration_edit(self, self.project_id, self.project_path, self.entry, lambda _: self.reload())

    def action_disable(self) -> None:
        """Disable this integration."""
        if not self.refuse_if_read_only():
            self.integration_disable(self, self.project_id, self.project_path, self.entry,
                                     lambda _: self.reload())
