"""The console's side of several instances (issue 30): the primary instance holds the session,
client and audit log the rest of the console reads; the others are added beside it (``--profile
prod,staging``, ``:board all``), each with its own poller. Screens and dialogs take the instance of
the screen that opens them. :class:`~labdeck.ui.app.LabdeckApp` builds on this class."""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from datetime import datetime
from typing import Any

from textual.app import App

from labdeck.api import ApiClient, errors
from labdeck.api.core import TOKEN_REFUSED
from labdeck.audit.log import AuditLog
from labdeck.base.session import Session
from labdeck.ui.connection import rate_note, trouble_text
from labdeck.ui.console import StatusInfo
from labdeck.ui.instances import Instance, inherit_instance
from labdeck.ui.watching import Watching


class SeveralInstances(App[int]):
    """See the module docstring; ``instances`` is set up by the app."""

    instances: list[Instance]
    _local_clock: Callable[[], datetime]
    read_only: bool
    clock: Callable[[], datetime]
    client: Any
    _session_audit: Callable[[Session], AuditLog]
    _build_client: Callable[..., ApiClient]

    @property
    def primary(self) -> Instance:
        """The console's first profile: every section but the board works on it."""
        return self.instances[0]

    @property
    def session(self) -> Session:
        """The primary instance's session."""
        return self.primary.session

    @session.setter
    def session(self, value: Session) -> None:
        self.primary.session = value

    @property
    def audit_log(self) -> AuditLog:
        """The primary instance's audit log (bound to its profile and URL)."""
        return self.primary.audit_log

    @audit_log.setter
    def audit_log(self, value: AuditLog) -> None:
        self.primary.audit_log = value

    @property
    def _client(self) -> ApiClient:
        return self.primary.client

    @_client.setter
    def _client(self, value: ApiClient) -> None:
        self.primary.client = value

    @property
    def extra_instances(self) -> list[Instance]:
        """The instances after the primary one (a board over several profiles)."""
        return self.instances[1:]

    def push_screen(self, screen: Any, *args: Any, **kwargs: Any) -> Any:
        """Textual's, after the screen takes the instance of the screen that opens it (a board
        row's instance goes on to its pipeline, its jobs, their logs and the dialogs they open)."""
        if not isinstance(screen, str):
            inherit_instance(self, screen)
        return super().push_screen(screen, *args, **kwargs)

    def switch_screen(self, screen: Any) -> Any:
        """Textual's, after the new screen takes the instance of the one it replaces."""
        if not isinstance(screen, str):
            inherit_instance(self, screen)
        return super().switch_screen(screen)

    def _start_instance(self, instance: Instance) -> None:
        instance.watching = Watching(self, instance.session, instance.client, clock=self._local_clock,
                                     instance=instance.short, triage=instance.triaging)
        instance.watching.start()
        self.run_worker(self._who_is(instance), group=f"app-whoami-{instance.index}", exit_on_error=False)

    def add_instance(self, session: Session) -> Instance:
        """Another profile on the board (``:board all``): its own client, audit log and poller."""
        audit = self._session_audit(session)
        client = self._build_client(session, audit=audit)
        client.read_only = bool(session.read_only)
        instance = Instance(session, client, audit, index=len(self.instances))
        self.instances.append(instance)
        self._start_instance(instance)
        return instance

    @staticmethod
    async def _who_is(instance: Instance) -> None:
        """Another instance's account (its audit lines name it); its board says any trouble."""
        with contextlib.suppress(errors.ApiError):
            await instance.client.users.current()

    def _instance_status(self, instance: Instance) -> StatusInfo:
        client = instance.client
        health = getattr(client, "health", None)
        session = instance.session
        return StatusInfo(
            profile=instance.short, instance=session.base_url, user=instance.audit_log.user,
            read_only=self.read_only or client.read_only,
            rate_limit=rate_note(getattr(client, "rate_limit", None), getattr(health, "state", "ok")),
            health=getattr(health, "state", "ok"), last_error=getattr(health, "last_error", None),
            insecure_storage=session.insecure_storage, demo=session.demo, now=self.clock(),
            token_source=session.token_source, signed_out=instance.signed_out, trouble=trouble_text(health),
        )

    def _refused_elsewhere(self) -> list[Instance]:
        """The other instances whose token was refused, when the primary one's was not."""
        if getattr(self.client.health, "reason", None) == TOKEN_REFUSED:
            return []
        return [instance for instance in self.extra_instances
                if getattr(instance.client.health, "reason", None) == TOKEN_REFUSED]
