"""Integrations of one project (``/projects/:id/services/<slug>``): every slug of the spec with its
state, the settings of one (secrets masked), an edit form built from the slug's parameter list,
and disable (``DELETE``, confirmed)."""

from __future__ import annotations

import asyncio
from typing import Any, ClassVar, cast

from textual.app import App
from textual.binding import Binding, BindingType

from labdeck.api import errors
from labdeck.api.models import Integration
from labdeck.api.models.params import IntegrationSlug
from labdeck.api.resources.integrations import INTEGRATIONS
from labdeck.ui.formatting import relative_time
from labdeck.ui.screens.base import SectionScreen
from labdeck.ui.screens.confirm import ConfirmScreen
from labdeck.ui.screens.table_section import TableSectionScreen
from labdeck.ui.widgets.form import FormField, FormScreen, clean, coloured, field_row, fields_table
from labdeck.ui.widgets.resource_table import Column, ResourceTable, TableRow

DEPRECATED = {"cluster-platform"}
DEPRECATED_MESSAGE = ("deprecated: the server answers 400 to every call while it is inactive "
                      "(it cannot be read or configured)")
_EVENT_FLAGS = ("push_events", "issues_events", "confidential_issues_events", "merge_requests_events",
                "tag_push_events", "note_events", "confidential_note_events", "job_events", "pipeline_events",
                "wiki_page_events")
_NOT_SECRET = {"project_key", "build_key_name"}

COLUMNS = (
    Column("slug", "Integration", max_width=24),
    Column("state", "State", max_width=11),
    Column("kind", "Kind", min_width=10, max_width=32, flex=True),
    Column("updated", "Updated", max_width=9),
)


def is_secret(name: str) -> bool:
    """Parameters that hold credentials (masked on screen, never pre-filled in plain text)."""
    if name in _NOT_SECRET:
        return False
    return any(word in name for word in ("token", "password", "key", "webhook", "secret"))


def integration_fields(slug: str, properties: dict[str, Any] | None) -> list[FormField]:
    """The form of ``PUT …/services/<slug>``: required parameters first, typed from the spec."""
    spec = INTEGRATIONS[slug]
    current = properties or {}
    names = list(spec.required) + [name for name in spec.optional if name not in spec.required]
    fields: list[FormField] = []
    for name in names:
        kind = spec.type_of(name)
        required = name in spec.required
        value = current.get(name)
        if kind == "boolean":
            fields.append(FormField(name, name, kind="bool", value=bool(value)))
        elif kind == "integer":
            fields.append(FormField(name, name, kind="int", value=value if isinstance(value, int) else None,
                                    required=required))
        else:
            fields.append(FormField(name, name, kind="secret" if is_secret(name) else "text",
                                    value=None if value is None else str(value), required=required))
    return fields


def integration_settings(slug: str, values: dict[str, Any]) -> dict[str, Any]:
    """Form values → the PUT parameters (empty optional text and integers are left out)."""
    spec = INTEGRATIONS[slug]
    settings: dict[str, Any] = {}
    for name, value in values.items():
        if value is None or (value == "" and name not in spec.required):
            continue
        settings[name] = value
    return settings


def state_text(app: App[Any], slug: str, integration: Any) -> Any:
    """``active`` / ``inactive`` / ``deprecated`` coloured through the theme."""
    if integration is None:
        return coloured(app, "deprecated" if slug in DEPRECATED else "unavailable", "ld-text-muted")
    if integration.active:
        return coloured(app, "active", "success", bold=True)
    return coloured(app, "inactive", "ld-text-muted")


class IntegrationActions:
    """Edit and disable, shared by the list and the detail."""

    def integration_edit(self, screen: SectionScreen, project_id: int, project_path: str, slug: str,
                         integration: Integration | None, after: Any) -> None:
        """The edit form of one slug; on success ``after(integration_or_None)``."""
        client = screen.client
        properties = integration.properties if integration is not None else None

        async def save(values: dict[str, Any]) -> Any:
            try:
                result = await client.integrations.update(project_id, cast(IntegrationSlug, slug), integration_settings(slug, values))
            except errors.ValidationError as error:
                if slug in DEPRECATED and not error.fields:
                    raise ValueError(f"{slug} is {DEPRECATED_MESSAGE}.") from error
                raise
            return result if result is not None else True

        def done(result: Any) -> None:
            if result is not None:
                screen.notify(f"{slug} saved and active.", timeout=4, markup=False)
                after(result if result is not True else None)

        spec = INTEGRATIONS[slug]
        screen.app.push_screen(FormScreen(f"Configure {slug} ({spec.kind})", integration_fields(slug, properties),
                                          save, target=project_path, submit_label="Save"), done)

    def integration_disable(self, screen: SectionScreen, project_id: int, project_path: str, slug: str,
                            after: Any) -> None:
        """``DELETE`` the settings after the user typed the slug (the secrets are lost)."""
        client = screen.client

        def confirmed(answer: bool | None) -> None:
            if not answer:
                return

            async def send() -> None:
                try:
                    await client.integrations.delete(project_id, cast(IntegrationSlug, slug))
                except errors.ValidationError as error:
                    if slug in DEPRECATED:
                        screen.notify(f"{slug} is {DEPRECATED_MESSAGE}.", severity="warning", markup=False,
                                      timeout=8)
                        return
                    raise error
                screen.notify(f"{slug} disabled in {project_path}.", timeout=4, markup=False)
                after(None)

            screen.run_api(send, "disable")

        screen.app.push_screen(ConfirmScreen("Disable integration",
                                             f"Remove the {slug} settings of {project_path}? Its secrets are "
                                             "deleted and must be entered again to re-enable it.",
                                             action_label="Disable", target=f"{project_path} · {slug}",
                                             typed=slug), confirmed)


class IntegrationsScreen(IntegrationActions, TableSectionScreen):
    """Every integration slug of one project with its state (section 5)."""

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
        self.integrations: dict[str, Any] = {}
        self.problems: dict[str, str] = {}
        """Why a slug could not be read (deprecated cluster integration, development-only slug …)."""

    async def _fetch(self, slug: str) -> Any:
        """The settings record, or None with a note in :attr:`problems` (deprecated, unavailable)."""
        try:
            return await self.client.integrations.get(self.project_id, cast(IntegrationSlug, slug))
        except (errors.ValidationError, errors.NotFound) as error:
            self.problems[slug] = DEPRECATED_MESSAGE if slug in DEPRECATED else clean(error.user_message())
            return None

    async def load(self) -> None:
        """Read every slug's settings (concurrently)."""
        slugs = list(INTEGRATIONS)
        self.problems = {}
        results = await asyncio.gather(*(self._fetch(slug) for slug in slugs))
        self.integrations = dict(zip(slugs, results, strict=True))
        now = self.console_app.clock()
        self.replace_rows(self._row(slug, self.integrations[slug], now) for slug in slugs)
        active = sum(1 for item in results if item is not None and item.active)
        self.context_text = f"{self.project_path} · {active} active of {len(slugs)}"
        self.mark_loaded()

    def _row(self, slug: str, integration: Any, now: Any) -> TableRow:
        kind = INTEGRATIONS[slug].kind
        if slug in self.problems:
            kind = f"{kind} — {self.problems[slug]}"
        updated = relative_time(integration.updated_at, now) if integration is not None else "—"
        return TableRow(key=slug, cells=(slug, state_text(self.app, slug, integration), kind, updated),
                        data=integration)

    def copy_target(self) -> str | None:
        key = self.table.cursor_key
        return None if key is None else f"{self.project_path}/services/{key}"

    def on_resource_table_selected(self, event: ResourceTable.Selected) -> None:
        event.stop()
        self.action_details()

    def action_details(self) -> None:
        """Open the highlighted integration's settings."""
        slug = self.table.cursor_key
        if slug is None:
            return
        if str(slug) in self.problems:
            self.notify(f"{slug}: {self.problems[str(slug)]}", severity="warning", markup=False, timeout=8)
            return
        self.app.push_screen(IntegrationDetailScreen(self.project_id, self.project_path, str(slug)))

    def action_edit(self) -> None:
        """Configure the highlighted integration."""
        slug = self.table.cursor_key
        if slug is None or self.refuse_if_read_only():
            return
        self.integration_edit(self, self.project_id, self.project_path, str(slug),
                              self.integrations.get(str(slug)), lambda _: self.reload())

    def action_disable(self) -> None:
        """Disable (remove the settings of) the highlighted integration."""
        slug = self.table.cursor_key
        if slug is None or self.refuse_if_read_only():
            return
        self.integration_disable(self, self.project_id, self.project_path, str(slug), lambda _: self.reload())


class IntegrationDetailScreen(IntegrationActions, TableSectionScreen):
    """The settings record of one integration; secrets are masked."""

    SECTION_TITLE = "Integration"
    TABLE_ID = "integration-fields"
    MUTATING_ACTIONS = frozenset({"edit", "disable"})
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("e", "edit", "Configure", id="integration.edit"),
        Binding("X", "disable", "Disable", id="integration.disable"),
    ]

    def __init__(self, project_id: int, project_path: str, slug: str) -> None:
        super().__init__()
        self.project_id = project_id
        self.project_path = clean(project_path)
        self.slug = slug
        self.integration: Any = None
        self.context_text = f"{self.project_path} · {slug}"

    def make_table(self) -> ResourceTable:
        return fields_table(self.TABLE_ID)

    async def load(self) -> None:
        """Read the settings."""
        self.show(await self.client.integrations.get(self.project_id, cast(IntegrationSlug, self.slug)))

    def show(self, integration: Any) -> None:
        """Display a settings record."""
        self.integration = integration
        now = self.console_app.clock()
        spec = INTEGRATIONS[self.slug]
        rows = [field_row("slug", self.slug), field_row("kind", spec.kind), field_row("title", integration.title),
                TableRow(key="state", cells=("state", state_text(self.app, self.slug, integration))),
                field_row("created_at", integration.created_at, now),
                field_row("updated_at", integration.updated_at, now)]
        flags = integration.model_dump(include=set(_EVENT_FLAGS))
        for flag in _EVENT_FLAGS:
            if flags.get(flag) is not None:
                rows.append(field_row(flag, flags[flag]))
        properties = integration.properties or {}
        names = list(spec.required) + [n for n in spec.optional if n not in spec.required]
        names += [n for n in properties if n not in names]
        for name in names:
            label = f"{name} *" if name in spec.required else name
            rows.append(field_row(label, properties.get(name), key=("property", name), secret=is_secret(name)))
        self.replace_rows(rows)
        self.mark_loaded()
        self.update_title()

    def copy_target(self) -> str | None:
        key = self.table.cursor_key
        if isinstance(key, tuple) and is_secret(str(key[1])):
            return None  # secrets are not copied from the console
        for row in self.table.rows():
            if row.key == key:
                value = row.cells[1]
                return value if isinstance(value, str) else value.plain
        return None

    def action_edit(self) -> None:
        """Configure this integration."""
        if not self.refuse_if_read_only():
            self.integration_edit(self, self.project_id, self.project_path, self.slug, self.integration,
                                  lambda _: self.reload())

    def action_disable(self) -> None:
        """Disable this integration."""
        if not self.refuse_if_read_only():
            self.integration_disable(self, self.project_id, self.project_path, self.slug,
                                     lambda _: self.reload())
