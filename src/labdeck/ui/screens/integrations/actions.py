"""What the integration list and detail share: the rows' model (:class:`IntegrationEntry`), the
state cell, the settings form (secrets write-only) and the configure / disable actions.

Integrations are named for people by their title ("Slack notifications") and for the server by
the slug it knows (``slack`` on GitLab, ``chat-d`` on a spec server). Requests always go through
``client.integrations`` with the spec's neutral slug for the integrations labdeck knows (the client
puts the server's own slug on the wire) and with the server's slug for the ones it does not.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from textual.app import App

from labdeck.api import errors
from labdeck.api.models import Integration
from labdeck.api.resources.integrations import INTEGRATIONS, IntegrationInfo
from labdeck.audit.context import AuditTarget, audit_context
from labdeck.ui.dialogs.confirm import ConfirmScreen
from labdeck.ui.dialogs.form import FormField, FormScreen
from labdeck.ui.screens.base import SectionScreen
from labdeck.ui.widgets.cells import clean, coloured

DEPRECATED = frozenset({"cluster-platform"})
"""Neutral slugs of integrations a spec server refuses (400) while they are inactive."""
DEPRECATED_MESSAGE = ("deprecated: the server answers 400 to every call while it is inactive "
                      "(it cannot be read or configured)")
_NOT_SECRET = frozenset({"project_key", "build_key_name"})
WRITE_ONLY = "write-only: the server never returns it"
"""What a secret's value cell says when the server sent nothing (it never sends secrets)."""


def is_secret(name: str) -> bool:
    """Parameters that hold credentials: never shown, never pre-filled, only ever typed."""
    if name in _NOT_SECRET:
        return False
    return any(word in name for word in ("token", "password", "key", "webhook", "secret"))


@dataclass(frozen=True)
class IntegrationEntry:
    """One row of the integrations list: an integration labdeck knows (from the catalog) or one the
    server listed that labdeck does not know."""

    slug: str
    """What the client is given: the neutral slug when known, else the server's slug."""
    server_slug: str
    """The slug this server knows (shown, typed to confirm, sent on the wire by the client)."""
    title: str
    kind: str
    record: Integration | None = None
    """The server's record when it listed the integration (active), None otherwise."""

    @property
    def known(self) -> bool:
        """True when labdeck has the parameter table of this integration (it can build the form)."""
        return self.slug in INTEGRATIONS

    @property
    def active(self) -> bool:
        return self.record is not None and bool(self.record.active)

    @property
    def label(self) -> str:
        """``Slack notifications (slack)`` for dialogs and toasts."""
        return clean(f"{self.title} ({self.server_slug})")

    @classmethod
    def from_catalog(cls, info: IntegrationInfo, record: Integration | None) -> IntegrationEntry:
        """A known integration; the server's title wins over the table's when it sent one."""
        title = (record.title if record is not None and record.title else None) or info.title
        return cls(info.slug, info.server_slug, title, info.kind, record)

    @classmethod
    def from_server(cls, record: Integration) -> IntegrationEntry:
        """An integration the server listed that labdeck's table does not have (``jenkins`` …)."""
        slug = record.slug or record.title or "?"
        return cls(slug, slug, record.title or slug, "not known to labdeck", record)


def state_text(app: App[Any], entry: IntegrationEntry, *, unavailable: bool = False) -> Any:
    """``active`` / ``inactive`` / ``deprecated`` / ``unavailable``, coloured through the theme."""
    if entry.active:
        return coloured(app, "active", "success", bold=True)
    if unavailable:
        return coloured(app, "unavailable", "ld-text-muted")
    if entry.slug in DEPRECATED:
        return coloured(app, "deprecated", "ld-text-muted")
    return coloured(app, "inactive", "ld-text-muted")


def integration_fields(slug: str, properties: dict[str, Any] | None, *, active: bool = False) -> list[FormField]:
    """The form of ``PUT …/integrations/<slug>``: required parameters first, typed from the table.

    Secrets are write-only: never pre-filled (servers do not return them). On an active integration
    an empty secret is left out of the request, i.e. unchanged; a server that wants it on every save
    says so under the field."""
    spec = INTEGRATIONS[slug]
    current = properties or {}
    names = list(spec.required) + [name for name in spec.optional if name not in spec.required]
    fields: list[FormField] = []
    for name in names:
        kind = spec.type_of(name)
        required = name in spec.required
        value = current.get(name)
        if is_secret(name):
            help_text = f"{WRITE_ONLY}; empty = unchanged" if active else WRITE_ONLY
            fields.append(FormField(name, name, kind="secret", required=required and not active, help=help_text))
        elif kind == "boolean":
            fields.append(FormField(name, name, kind="bool", value=bool(value)))
        elif kind == "integer":
            fields.append(FormField(name, name, kind="int", value=value if isinstance(value, int) else None,
                                    required=required))
        else:
            fields.append(FormField(name, name, value=None if value is None else str(value), required=required))
    return fields


def integration_settings(slug: str, values: dict[str, Any]) -> dict[str, Any]:
    """Form values → the PUT parameters: empty optional values and empty secrets are left out."""
    spec = INTEGRATIONS[slug]
    settings: dict[str, Any] = {}
    for name, value in values.items():
        if value is None or (value == "" and (name not in spec.required or is_secret(name))):
            continue
        settings[name] = value
    return settings


def _explain_missing_secrets(error: errors.ValidationError) -> errors.ValidationError:
    """A server that wants a secret on every save says ``webhook is missing``: say why."""
    fields = {name: ([f"{'; '.join(messages)}: the server needs it again on every save (it never returns it)"]
                     if is_secret(name) else messages) for name, messages in error.fields.items()}
    if fields == error.fields:
        return error
    return errors.ValidationError(error.status, error.method, error.url, error.message, error.body, fields=fields)


class IntegrationActions:
    """Configure and disable, shared by the list and the detail."""

    def integration_edit(self, screen: SectionScreen, project_id: int, project_path: str,
                         entry: IntegrationEntry, after: Any) -> None:
        """Read the current settings, then open the form; on success ``after(integration_or_None)``."""
        if not entry.known:
            screen.notify(f"labdeck does not know the parameters of {entry.label}: configure it on the "
                          "server's web pages (it can still be disabled here).", severity="warning", timeout=8)
            return
        client = screen.client

        async def load_and_edit() -> None:
            properties: dict[str, Any] | None = None
            active = entry.active
            try:
                current = await client.integrations.get(project_id, entry.slug)
            except (errors.ValidationError, errors.NotFound) as error:
                if entry.slug not in DEPRECATED:
                    screen.notify(f"{entry.label}: this server does not offer it ({error.user_message()}).",
                                  severity="warning", timeout=8)
                    return
            else:
                # Event switches (push_events …) are parameters of the form too: start from the
                # server's values, or saving would turn on or off what the user never touched.
                properties, active = {**current.events, **(current.properties or {})}, bool(current.active)
            self._open_form(screen, project_id, project_path, entry, properties, active, after)

        screen.run_api(load_and_edit, "edit")

    def _open_form(self, screen: SectionScreen, project_id: int, project_path: str, entry: IntegrationEntry,
                   properties: dict[str, Any] | None, active: bool, after: Any) -> None:
        client = screen.client
        slug = entry.slug

        async def save(values: dict[str, Any]) -> Any:
            target = AuditTarget(project=project_path, name=entry.server_slug)
            try:
                with audit_context(action="integrations.update", target=target, confirmation="form"):
                    result = await client.integrations.update(project_id, slug, integration_settings(slug, values))
            except errors.ValidationError as error:
                if slug in DEPRECATED and not error.fields:
                    raise ValueError(f"{entry.title} is {DEPRECATED_MESSAGE}.") from error
                raise _explain_missing_secrets(error) from None
            return result if result is not None else True

        def done(result: Any) -> None:
            if result is not None:
                screen.notify(f"{entry.label} saved and active.", timeout=4)
                after(result if result is not True else None)

        title = f"Configure {entry.title}" if active else f"Set up {entry.title}"
        screen.app.push_screen(FormScreen(title, integration_fields(slug, properties, active=active), save,
                                          target=f"{project_path} · {entry.server_slug} ({entry.kind})",
                                          submit_label="Save"), done)

    def integration_disable(self, screen: SectionScreen, project_id: int, project_path: str,
                            entry: IntegrationEntry, after: Any) -> None:
        """``DELETE`` the settings after the user typed the slug (the secrets are lost)."""
        client = screen.client
        typed = entry.server_slug

        def confirmed(answer: bool | None) -> None:
            if not answer:
                return

            async def send() -> None:
                target = AuditTarget(project=project_path, name=entry.server_slug)
                try:
                    with audit_context(action="integrations.delete", target=target,
                                              confirmation=f"typed:{typed}"):
                        await client.integrations.delete(project_id, entry.slug)
                except errors.ValidationError:
                    if entry.slug in DEPRECATED:
                        screen.notify(f"{entry.title} is {DEPRECATED_MESSAGE}.", severity="warning", timeout=8)
                        return
                    raise
                screen.notify(f"{entry.label} disabled in {project_path}.", timeout=4)
                after(None)

            screen.run_api(send, "disable")

        screen.app.push_screen(ConfirmScreen("Disable integration",
                                             f"Remove the {entry.label} settings of {project_path}? Its secrets "
                                             "are deleted and must be entered again to re-enable it.",
                                             action_label="Disable", target=f"{project_path} · {entry.label}",
                                             typed=typed), confirmed)
