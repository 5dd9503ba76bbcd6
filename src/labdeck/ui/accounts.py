"""Who the console talks to, and how: signing in again (a token typed in the dialog), read-only
mode, and switching to another profile of the config file. ``LabdeckApp`` builds on this class."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable, Iterable
from typing import Any

from labdeck.api import ApiClient
from labdeck.api.client import instance_root
from labdeck.audit.log import AuditLog
from labdeck.base.secret import Secret
from labdeck.base.session import Session
from labdeck.ui.dialogs.login import LoginScreen
from labdeck.ui.instances import Instance
from labdeck.ui.navigation import SectionNavigation
from labdeck.ui.themes.files import resolve_theme_name

SessionForProfile = Callable[..., Session]
"""Builds the session of another profile (resolving its token); raises with a message on failure.
A second argument ``True``: for an instance beside the others (``:board all``), its token from its
own profile's store only."""


class AccountSwitching(SectionNavigation):
    """Sign-in, read-only mode and profiles for :class:`labdeck.ui.app.LabdeckApp` (state is set
    up there)."""

    session: Session
    read_only: bool
    current_user: str | None
    signed_out: bool
    _client: ApiClient
    audit_log: AuditLog
    _own_client: bool
    _login_open: bool
    _profile_names: list[str] | None
    _session_for_profile: SessionForProfile | None

    # Provided by the app:
    _who_am_i: Callable[[], Awaitable[None]]
    refresh_status: Callable[[], None]
    _all_screens: Callable[[], Iterable[Any]]
    offered_themes: Callable[[], dict[str, Any]]

    @property
    def client(self) -> ApiClient:
        """The API client (may be replaced after a sign-in; do not keep a reference)."""
        return self._client

    @staticmethod
    def _session_audit(session: Session) -> AuditLog:
        """The audit log of ``session``: one per session, handed to every client built for it."""
        log = AuditLog(instance_root(session.base_url))
        log.bind(profile=session.profile)
        return log

    instances: list[Instance]
    add_instance: Callable[[Session], Instance]

    def _build_client(self, session: Session, token: Secret | None = None, *,
                      audit: AuditLog | None = None) -> ApiClient:
        """A client of ``session``'s instance: its own token, TLS settings and audit log."""
        verify: bool | str = session.ca_file or not session.insecure
        return ApiClient(session.base_url, token if token is not None else session.token,
                         read_only=session.read_only, verify=verify,
                         audit=audit if audit is not None else self.audit_log)

    def show_login(self, reason: str, instance: Instance | None = None) -> None:
        """Open the sign-in dialog (once); a validated token replaces the client's. ``instance``:
        one of the other instances of a board over several profiles (its client alone is replaced)."""
        if instance is not None and not instance.primary:
            self._show_instance_login(instance, reason)
            return
        if self._login_open:
            return
        self._login_open = True

        async def validate(token: Secret) -> str:
            probe = self._build_client(self.session, token)
            try:
                user = await probe.users.current()
            finally:
                await probe.aclose()
            return str(user.username)

        def done(token: Secret | None) -> None:
            self._login_open = False
            if token is None:
                self.notify("Not signed in: lists may be empty. `:login` opens the dialog again.",
                            severity="warning", timeout=8)
                return
            self.run_worker(self._replace_token(token), group="app-login", exit_on_error=False)

        self.push_screen(LoginScreen(self.session.base_url, reason, validate), done)

    async def _replace_token(self, token: Secret) -> None:
        old, self._client = self._client, self._build_client(self.session, token)
        self._client.read_only = self.read_only
        self.session.token = token
        self.session.token_source = "prompt"
        # Everything that reads moves to the new client before the old one is closed: a read still
        # under way on it then ends as a retry with the new one, not as a dead subscription.
        self.watching.replace_client(self._client)
        for screen in self._all_screens():
            replaced = getattr(screen, "client_replaced", None)
            if callable(replaced):
                replaced()
        if self._own_client:
            with contextlib.suppress(Exception):
                await old.aclose()
        self._own_client = True
        self.signed_out = False
        await self._who_am_i()
        reload = getattr(self.screen, "reload", None)
        if reload is not None:
            reload()

    def _show_instance_login(self, instance: Instance, reason: str) -> None:
        if instance.login_open:
            return
        instance.login_open = True
        session = instance.session

        async def validate(token: Secret) -> str:
            # Checked against this instance's own origin, with its own TLS settings.
            probe = self._build_client(session, token, audit=instance.audit_log)
            try:
                user = await probe.users.current()
            finally:
                await probe.aclose()
            return str(user.username)

        def done(token: Secret | None) -> None:
            instance.login_open = False
            if token is None:
                self.notify(f"{instance.short}: not signed in; its rows stay stale. `:login {instance.short}` "
                            "opens the dialog again.", severity="warning", timeout=8, markup=False)
                return
            self.run_worker(self._replace_instance_token(instance, token), group=f"app-login-{instance.index}",
                            exit_on_error=False)

        # Which instance the token is for: its profile beside its URL (several may be signed out).
        self.push_screen(LoginScreen(instance.label, f"{instance.short}: {reason}", validate), done)

    async def _replace_instance_token(self, instance: Instance, token: Secret) -> None:
        """Signing in again to one instance: its client alone is replaced, its poller goes on."""
        old = instance.client
        instance.client = self._build_client(instance.session, token, audit=instance.audit_log)
        instance.client.read_only = old.read_only
        instance.session.token = token
        instance.session.token_source = "prompt"
        if instance.watching is not None:
            instance.watching.replace_client(instance.client)
        for screen in self._all_screens():
            replaced = getattr(screen, "client_replaced", None)
            if callable(replaced) and getattr(screen, "instance", None) is instance:
                replaced()
        with contextlib.suppress(Exception):
            await old.aclose()
        instance.signed_out = False
        self.notify(f"{instance.short}: signed in again.", timeout=4)
        self.refresh_status()

    async def show_all_boards(self) -> None:
        """``:board all``: add the profiles of the config's ``boards`` (else every profile) as
        instances of their own, each with its own token from its own profile's store, then show
        one board over all of them."""
        resolver = self._session_for_profile
        if resolver is None:
            self.notify("Restart with `labdeck --profile a,b` to see several profiles on one board.",
                        severity="warning", markup=False)
            return

        def wanted() -> list[str]:
            from labdeck.base.config import load_config

            config = load_config()
            return list(config.boards or sorted(config.profiles))

        names = [name for name in await asyncio.to_thread(wanted)
                 if name not in {instance.name for instance in self.instances}]
        added: list[Session] = []
        for name in names:
            try:
                added.append(await asyncio.to_thread(resolver, name, True))
            except Exception as error:  # the resolver says what is missing (a token, the profile)
                self.notify(f"{name}: {error}", title=":board all", severity="warning", markup=False, timeout=10)
        if not added:
            await self.show_board()
            return
        for session in added:
            self.add_instance(session)
        if "board" in self._modes:
            if self.current_mode == "board":
                await self.switch_mode("projects")
            await self.remove_mode("board")
        await self.show_board()

    def set_read_only(self, value: bool) -> None:
        """Switch read-only mode (the HTTP layer refuses non-GET while it is on)."""
        if not value and self.session.read_only:
            self.notify("This profile is read-only (flag or config); restart without --read-only to write.",
                        severity="warning", markup=False)
            return
        self.read_only = value
        self.client.read_only = value
        for screen in self._all_screens():
            with contextlib.suppress(Exception):
                screen.refresh_bindings()
        self.refresh_status()
        self.notify("Read-only mode ON: changes are disabled." if value else
                    "Write mode: changes are enabled (each one asks for confirmation).",
                    severity="information" if value else "warning", timeout=4)

    def profile_names(self) -> list[str]:
        """Profiles of the config file (for completion): read once, in a thread, at start."""
        return list(self._profile_names or [])

    async def _load_profile_names(self) -> None:
        def read() -> list[str]:
            try:
                from labdeck.base.config import load_config

                return sorted(load_config().profiles)
            except Exception:  # a broken config file must not break completion
                return []

        self._profile_names = await asyncio.to_thread(read)

    def switch_profile(self, name: str | None) -> None:
        """``:profile <name>``: connect to another configured profile."""
        if not name:
            names = ", ".join(self.profile_names()) or "none configured"
            self.notify(f"Current profile: {self.session.profile}. Profiles: {names}", markup=False)
            return
        if self._session_for_profile is None:
            self.notify(f"Restart with `labdeck --profile {name}` to switch profiles.", markup=False,
                        severity="warning")
            return
        resolver = self._session_for_profile

        async def switch() -> None:
            session = await asyncio.to_thread(resolver, name)
            old = self._client
            self.session = session
            self.audit_log = self._session_audit(session)
            self._client = self._build_client(session)
            self.read_only = bool(session.read_only)
            self._client.read_only = self.read_only
            if self._own_client:
                with contextlib.suppress(Exception):
                    await old.aclose()
            self._own_client = True
            self.current_user = None
            theme = resolve_theme_name(session.theme, self.offered_themes()) if session.theme else None
            if theme is not None:
                self.theme = theme
            self.known_projects.clear()
            self.watching.replace_client(self._client)
            await self._reset_sections()
            await self._who_am_i()

        self.run_worker(switch(), group="app-profile", exclusive=True, exit_on_error=False)

    async def _reset_sections(self) -> None:
        if self.current_mode != "projects":
            await self.switch_mode("projects")
        if "jobs" in self._modes:
            await self.remove_mode("jobs")
        self._jobs_project = None
        while len(self.screen_stack) > 1:
            self.pop_screen()
        reload = getattr(self.screen, "reload", None)
        if reload is not None:
            reload()

