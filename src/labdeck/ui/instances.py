"""Several instances on one console (issue 30): one :class:`Instance` per profile holds what belongs
to that instance alone (its session and token, client, audit log, poller, triage state, short name
and colour). Screens and dialogs carry a reference to their instance; nothing global holds "the
client" of a board over several profiles.

The console's first profile is its *primary* instance: every section but the board works on it, as
a console of one profile always did. The board merges the rows of every instance; a screen opened
from a row (the pipeline, a job, its log, a bundle, a bulk action) carries the row's instance, and
so does every screen and dialog opened from there (:func:`inherit_instance`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual.app import App

from labdeck.api import ApiClient
from labdeck.audit.log import AuditLog
from labdeck.base.session import Session
from labdeck.ui.console import console_app
from labdeck.ui.themes.files import INSTANCE_COLOURS
from labdeck.ui.triaging import Triaging, triaging
from labdeck.ui.widgets.cells import coloured

if TYPE_CHECKING:
    from labdeck.ui.watching import Watching


class Instance:
    """One instance of the console: a profile's session, client, audit log, poller and triage."""

    def __init__(self, session: Session, client: ApiClient, audit_log: AuditLog, *, index: int,
                 triage: Triaging | None = None) -> None:
        self.session = session
        self.client = client
        """This instance's client (replaced when its token is given again: read it each time)."""
        self.audit_log = audit_log
        """Bound to this profile and instance URL: every change records both."""
        self.index = index
        self.watching: Watching | None = None
        """Its own poller, watched set and alerts (started when the console mounts)."""
        self.triaging = triage if triage is not None else Triaging()
        """Its own verdicts: job ids of two instances may be the same number."""
        self.signed_out = False
        self.login_open = False

    @property
    def primary(self) -> bool:
        """The console's first profile (every section but the board works on it)."""
        return self.index == 0

    @property
    def name(self) -> str:
        """The profile's name."""
        return self.session.profile

    @property
    def short(self) -> str:
        """The mark on this instance's rows: the profile's ``short`` name, else its name."""
        return self.session.short_name or self.session.profile

    @property
    def colour(self) -> str:
        """The theme variable of this instance's mark (``ld-instance-1`` …)."""
        return f"ld-instance-{self.index % INSTANCE_COLOURS + 1}"

    @property
    def label(self) -> str:
        """``profile @ https://host`` for dialogs and the audit log."""
        return f"{self.session.profile} @ {self.session.base_url}"

    def mark(self, app: App[Any], *, bold: bool = False) -> Text:
        """The short name in the instance's colour (never markup: a profile name is user text)."""
        return coloured(app, self.short, self.colour, bold=bold)

    def __repr__(self) -> str:
        return f"Instance({self.name!r}, {self.session.base_url!r})"


def primary_triaging(app: App[Any], instance: Instance | None) -> Triaging:
    """The triage state of ``instance`` (the app's own one for the primary instance or none)."""
    if instance is None or instance.primary:
        return triaging(app)
    return instance.triaging


def triaging_of(app: App[Any], client: ApiClient) -> Triaging:
    """The triage state of the instance ``client`` belongs to (job ids of two instances may be
    the same number: each keeps its own verdicts)."""
    for instance in instances_of(app)[1:]:
        if instance.client is client:
            return instance.triaging
    return triaging(app)


def instances_of(app: App[Any]) -> list[Instance]:
    """The console's instances (one for a console of one profile)."""
    return list(getattr(app, "instances", ()))


def several(app: App[Any]) -> bool:
    """True on a console over several profiles (the board marks each row's instance)."""
    return len(instances_of(app)) > 1


def instance_of(screen: object) -> Instance | None:
    """The instance a screen or dialog acts on (None: the console's primary instance)."""
    found = getattr(screen, "instance", None)
    return found if isinstance(found, Instance) else None


def client_of(app: App[Any], screen: object) -> ApiClient:
    """The client of the screen's instance, else the console's."""
    instance = instance_of(screen)
    if instance is not None:
        return instance.client
    return console_app(app).client


def target_label(app: App[Any], screen: object) -> Text:
    """Which instance a dialog changes: ``profile @ https://host``, its short name first in its
    colour on a console over several profiles."""
    instance = instance_of(screen)
    if instance is None or not several(app):
        if instance is None:
            found = instances_of(app)
            instance = found[0] if found else None
        if instance is None or not several(app):
            return Text(str(getattr(app, "instance_label", "")))
    text = instance.mark(app, bold=True)
    text.append(f" {instance.label}" if instance.short != instance.name else f" @ {instance.session.base_url}")
    return text


def inherit_instance(app: App[Any], screen: object) -> None:
    """A screen or dialog about to be shown takes the instance of the screen that opens it (the
    board: the row under its cursor), unless it was given one."""
    if not hasattr(screen, "instance") or instance_of(screen) is not None:
        return
    try:
        opener = app.screen
    except Exception:  # no screen yet (start-up)
        return
    acting = getattr(opener, "acting_instance", None)
    found = acting() if callable(acting) else instance_of(opener)
    if isinstance(found, Instance) and not found.primary:
        screen.instance = found


__all__ = ["Instance", "client_of", "inherit_instance", "instance_of", "instances_of", "primary_triaging",
           "several", "target_label", "triaging_of"]
