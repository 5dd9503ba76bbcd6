"""The console application: wires sections, themes, keys, the command line, errors and state.

Screens own their data loading (``ui/screens``); this module only connects them.

Shared services screens may use (all on ``self.app``):

- ``client`` — the :class:`labdeck.api.ApiClient` (replaced after a new sign-in: read it each time);
- ``clock()`` — the current time (injectable; use it for "x ago" so snapshots are deterministic);
- ``read_only`` — True in read-only mode; :meth:`LabdeckApp.set_read_only` toggles it;
- ``commands`` — the ``:`` command registry (:class:`labdeck.ui.commands.CommandRegistry`);
- ``open_jobs(project_id, project_path)`` — switch to the jobs section for a project;
- ``handle_worker_state(worker, state)`` — the single error handler (``SectionScreen`` forwards).
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
from collections.abc import Callable, Iterable, Sequence
from datetime import datetime
from typing import Any, ClassVar

from rich.text import Text
from textual import events, on
from textual.app import App
from textual.binding import Binding, BindingType
from textual.filter import LineFilter
from textual.notifications import SeverityLevel
from textual.widgets import Input
from textual.worker import Worker, WorkerState

from labdeck.api import ApiClient, errors
from labdeck.audit.log import AuditLog
from labdeck.base.logsafe import redact
from labdeck.base.session import Session
from labdeck.ui import sections
from labdeck.ui.accounts import AccountSwitching, SessionForProfile
from labdeck.ui.builtin_commands import register_builtin_commands
from labdeck.ui.connection import ConnectionWatch, is_outage, rate_note, trouble_text
from labdeck.ui.console import CommandError, CommandRegistry, StatusInfo, Ticks
from labdeck.ui.dialogs.command_line import CommandLineScreen
from labdeck.ui.dialogs.keys import KeysScreen
from labdeck.ui.dialogs.message import MessageScreen
from labdeck.ui.formatting import Clock, system_clock
from labdeck.ui.instances import Instance, instance_of
from labdeck.ui.palette import ProjectJumpProvider, ScreenActionsProvider
from labdeck.ui.reactions import react_to
from labdeck.ui.safeguards import WRITE_CHECK_DELAY, Safeguards
from labdeck.ui.screens.base import SectionScreen
from labdeck.ui.screens.projects.list import ProjectsScreen
from labdeck.ui.several import SeveralInstances
from labdeck.ui.terminal_filter import InertTextFilter
from labdeck.ui.themes.offer import THEME_CHECK_DELAY, ThemeOffer
from labdeck.ui.triaging import triaging
from labdeck.ui.type_ahead import KeyOrder, KeysReleased, KeyTravelled
from labdeck.ui.ui_state import UiState
from labdeck.ui.watching import Watching
from labdeck.ui.widgets.status_line import StatusLine, shown_screens

TICK_SECONDS = 1.0
"""The console's one clock: status lines, relative times and due refreshes follow it."""

FREEZE_DELAY = 1.5
"""Seconds after start-up at which the objects alive are moved out of the collector's full passes."""


HANG_UP_DEADLINE = 1.0
"""Seconds after SIGHUP/SIGTERM by which the process has ended, gracefully or not (the state is
saved first, in the handler; the promise is 2 s, and a loaded machine runs the timer late)."""

_start_up_frozen = False


FULL_PASS_EVERY = 100
"""The collector's third threshold once a big listing is loaded (Python's default is 10)."""


def freeze_start_up_objects() -> None:
    """Once per process, move the objects alive now out of the garbage collector's full passes;
    then turn the collector on (the command line pauses it while the console starts).

    Once only: frozen objects are never collected, so freezing again (tests start many apps in one
    process) would keep each earlier app's cycles alive."""
    global _start_up_frozen
    if not _start_up_frozen:
        _start_up_frozen = True
        gc.collect()
        gc.freeze()
    gc.enable()


class LabdeckApp(SeveralInstances, AccountSwitching, ThemeOffer, Safeguards):
    """The labdeck console."""

    TITLE = "labdeck"
    CSS_PATH = "app.tcss"
    COMMANDS: ClassVar[set[Any]] = App.COMMANDS | {ProjectJumpProvider, ScreenActionsProvider}
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("0", "switch_section('board')", "Board", id="app.section.board"),
        Binding("1", "switch_section('projects')", "Projects", id="app.section.projects"),
        Binding("2", "switch_section('jobs')", "Jobs", id="app.section.jobs"),
        Binding("3", "open_section('runners')", "Runners", id="app.section.runners"),
        Binding("4", "open_section('issues')", "Issues", id="app.section.issues"),
        Binding("5", "open_section('integrations')", "Integrations", id="app.section.integrations"),
        Binding("colon", "command_line", "Command", priority=True, id="app.command-line"),
        Binding("question_mark", "keys", "Keys", id="app.keys"),
        Binding("exclamation_mark", "alerts", "Alerts", show=False, id="app.alerts"),
        Binding("ctrl+p", "command_palette", "Palette", show=False, id="app.palette"),
        Binding("escape", "back", "Back", show=False, id="app.back"),
        Binding("ctrl+q", "quit", "Quit", show=False, priority=True, id="app.quit"),
        Binding("ctrl+z", "suspend_process", "Suspend", show=False, id="app.suspend",
                tooltip="Suspend the console to the shell (fg brings it back)"),
    ]
    SECTIONS: ClassVar[tuple[str, ...]] = ("projects", "jobs")

    def __init__(
        self,
        session: Session,
        client: ApiClient | None = None,
        clock: Clock | None = None,
        *,
        session_for_profile: SessionForProfile | None = None,
        ui_state: UiState | None = None,
        install_signals: bool = False,
        check_write: bool = False,
        more_sessions: Sequence[Session] = (),
    ) -> None:
        super().__init__()
        self._check_write = check_write
        """Probe whether the token may write once the first frame is drawn (the command line skips
        it before start-up: one round trip before the first frame, not two)."""
        self._own_client = client is None
        given = client.audit if client is not None else None
        audit = given if isinstance(given, AuditLog) else self._session_audit(session)
        self.instances: list[Instance] = [Instance(
            session, client if client is not None else self._build_client(session, audit=audit), audit, index=0,
            triage=triaging(self))]
        """One per profile shown (``--profile prod,staging``): the first is the primary instance."""
        for index, more in enumerate(more_sessions, start=1):
            more_audit = self._session_audit(more)
            more_client = self._build_client(more, audit=more_audit)
            more_client.read_only = bool(more.read_only)
            self.instances.append(Instance(more, more_client, more_audit, index=index))
        # The console hands its client the recorder (a client built elsewhere may come without one).
        self._client.audit = self.audit_log
        self._local_clock: Clock = clock or system_clock
        self.clock: Clock = clock or self._server_time
        """The current time for "x ago" and running times: the server's (learned from its ``Date``
        headers: a skewed local clock must not show "23d ago"), or an injected one (tests)."""
        self.read_only = bool(session.read_only)
        self._client.read_only = self.read_only
        self.commands = CommandRegistry()
        register_builtin_commands(self.commands)
        sections.register(self.commands)
        self.known_projects: dict[int, str] = {}
        """Project id → path of every project the console has listed (palette, completion)."""
        self.current_user: str | None = None
        self.project_filters: dict[str, Any] | None = None
        """The projects section's server filters (saved with the state)."""
        self.ui_state = ui_state or UiState()
        self._session_for_profile = session_for_profile
        self._install_signals = install_signals
        self._uninstall_signals: Callable[[], None] | None = None
        self._login_open = False
        self._previous_modes: list[str] = []
        self._jobs_project: tuple[int, str] | None = None
        self._inert_text = InertTextFilter()
        self._keys = KeyOrder(self, super().on_event)
        self._watching: Watching | None = None
        self.freeze_loaded_data = False
        """Move the first big listing out of the cycle collector's way (the real console only: a
        frozen object is never freed, and tests start many apps in one process)."""
        self.connection = ConnectionWatch(self._probe_user, self._back_online, self.set_timer)
        """Outages: one toast, retries with back-off, reloads once the server answers."""
        self.signed_out = False
        """True once the server refused the token (shown on the status line)."""
        self._profile_names: list[str] | None = None
        self._audit_asked = False
        self._refreshed_css_version: int | None = None
        self._theme_notices = self.install_themes(session.theme)

    # --- client -------------------------------------------------------------------------------

    def _server_time(self) -> datetime:
        watching = self._watching
        return watching.server_now() if watching is not None else self._local_clock()

    @property
    def watching(self) -> Watching:
        """The shared poller, the watched set and alerts (started when the app mounts)."""
        assert self._watching is not None, "the console is not mounted yet"
        return self._watching

    @watching.setter
    def watching(self, value: Watching) -> None:
        self._watching = value

    @property
    def instance_label(self) -> str:
        """``profile @ host`` for dialogs."""
        return f"{self.session.profile} @ {self.session.base_url}"

    # --- keys typed ahead ----------------------------------------------------------------------

    async def on_event(self, event: events.Event) -> None:
        """Keys act one after the other, in the order they were typed (:mod:`labdeck.ui.type_ahead`)."""
        if not await self._keys.take(event):
            await super().on_event(event)

    @on(KeyTravelled)
    async def _key_returned(self) -> None:
        await self._keys.key_returned()

    @on(KeysReleased)
    async def _release_held_keys(self, message: KeysReleased) -> None:
        await self._keys.release(message.screen)

    # --- terminal safety ----------------------------------------------------------------------

    def get_line_filters(self) -> Sequence[LineFilter]:
        """Textual's filters (colour conversion, NO_COLOR…), then the one that keeps terminal
        controls in server text from reaching the terminal (see :mod:`labdeck.ui.terminal_filter`)."""
        return [*super().get_line_filters(), self._inert_text]

    def notify(self, message: str, *, title: str = "", severity: SeverityLevel = "information",
               timeout: float | None = None, markup: bool = False, trusted_markup: bool = False) -> None:
        """A toast whose text is never parsed as markup: messages carry server strings (names,
        paths, errors). ``Widget.notify`` always passes ``markup=True``, so ``markup`` is ignored;
        a static message of our own that needs styling passes ``trusted_markup=True``."""
        super().notify(message, title=title, severity=severity, timeout=timeout, markup=trusted_markup)

    # --- start and stop -----------------------------------------------------------------------

    def refresh_css(self, animate: bool = True) -> None:
        """Textual's refresh of every style, skipped when the CSS version has not moved since the
        last one (then the screens only take that version).

        Textual calls it twice whenever a section's screen is first shown (a new screen never
        carries the app's CSS version), and each call parses every stylesheet again and restyles
        every widget: ~25 ms at start-up, more once many widgets exist. A new screen's widgets
        are styled as they mount; a theme change moves the version and refreshes everything."""
        if self._css_update_count == self._refreshed_css_version:
            with contextlib.suppress(Exception):  # no screen yet
                for screen in (self.screen, *self.screen_stack):
                    screen._css_update_count = self._css_update_count
            return
        super().refresh_css(animate)
        self._refreshed_css_version = self._css_update_count

    def on_resize(self, event: events.Resize) -> None:
        # Rich asks the terminal for its size (three system calls) at every measure of a cell
        # unless its console knows it: a table of 1,500 jobs measures 30,000 cells as it fills.
        self.console.size = (event.size.width, event.size.height)

    async def on_mount(self) -> None:
        self.console.size = (self.size.width, self.size.height)
        self.tell_theme_notices(self._theme_notices)
        if self.session.keymap:
            self.set_keymap(self.session.keymap)
        saved = self.ui_state.load()
        for line in saved.history:
            self.commands.remember(line)
        if self._install_signals:
            # As early as possible, but after the saved history is back: a hang-up saves the state.
            self._install_signal_handlers()
        filters = saved.project_filters
        self.watching = Watching(self, self.session, self.client, clock=self._local_clock)
        self.primary.watching = self.watching
        self.watching.start()
        for instance in self.extra_instances:
            self._start_instance(instance)
        if "projects" not in self._modes:
            self.add_mode("projects", lambda: ProjectsScreen(filters=filters))
        await self.switch_mode("projects")
        if self.session.start == "board":
            await self.action_switch_section("board")
        # Once the start-up objects exist: keep them out of full GC passes, which otherwise pause
        # the console 100-150 ms while a busy log streams in (bench/bench_trace_view.py). Not
        # before the first screen is drawn: the collection takes ~50 ms.
        self.set_timer(FREEZE_DELAY, freeze_start_up_objects)
        self.set_timer(THEME_CHECK_DELAY, self.offered_themes)
        self.set_interval(TICK_SECONDS, self._tick)
        self.app_resume_signal.subscribe(self, self._redraw_after_resume)
        self.run_worker(self._who_am_i(), name="whoami", group="app-whoami", exclusive=True, exit_on_error=False)
        if self._check_write:
            # After the first frame, and after the first screen's own reads: nothing a person
            # waits for queues behind the probe.
            self.call_after_refresh(self.set_timer, WRITE_CHECK_DELAY, self._start_write_check)
        self.call_after_refresh(self._start_audit_check)
        self.run_worker(self._load_profile_names(), group="app-profiles", exit_on_error=False)
        if self.session.start_command:
            self.call_after_refresh(self.run_command_line, self.session.start_command)

    async def on_unmount(self) -> None:
        self.save_state()
        if self._watching is not None:
            self._watching.stop()
        for instance in self.extra_instances:
            if instance.watching is not None:
                instance.watching.stop()
            with contextlib.suppress(Exception):
                await instance.client.aclose()
        if self._uninstall_signals is not None:
            with contextlib.suppress(Exception):
                self._uninstall_signals()
        if self._own_client:
            with contextlib.suppress(Exception):
                await self._client.aclose()

    def _install_signal_handlers(self) -> None:
        try:
            from labdeck.base.crash import install_signal_handlers
        except ImportError:
            return
        with contextlib.suppress(RuntimeError, ValueError):  # no signal support on this platform
            self._uninstall_signals = install_signal_handlers(
                self.save_state, on_exit=lambda signum: self.exit(128 + signum, return_code=128 + signum),
                loop=asyncio.get_running_loop(), hard_deadline=HANG_UP_DEADLINE,
            )

    def save_state(self) -> None:
        """Persist the command history (secrets masked) and the projects filters (never raises)."""
        with contextlib.suppress(Exception):
            self.ui_state.save([redact(line) for line in self.commands.history], self.project_filters)

    def _all_screens(self) -> Iterable[Any]:
        for stack in self._screen_stacks.values():
            yield from stack

    async def _who_am_i(self) -> None:
        self.current_user = await self._probe_user()
        self.refresh_status()

    async def _probe_user(self) -> str:
        user = await self.client.users.current()
        self.signed_out = False
        return str(user.username)

    def _try_reconnect(self) -> None:
        self.run_worker(self.connection.attempt(self._try_reconnect), group="app-reconnect", exclusive=True,
                        exit_on_error=False)

    def _back_online(self, user: str) -> None:
        """The server answers again: say so, and reload what failed to load meanwhile."""
        self.current_user = user
        self.notify(f"Connected to {self.session.base_url} again.", timeout=4)
        for screen in self._all_screens():
            if isinstance(screen, SectionScreen) and screen.load_failed:
                screen.reload()
        self.refresh_status()

    def listing_loaded(self) -> None:
        """A section finished its first full listing (10,000 projects, say): once per process, take
        what is alive now out of the collector's full passes, which would otherwise land inside a
        keystroke of the filter (bench/bench_console.py). After the next repaint: the collection
        itself takes ~40 ms, which the rows just loaded should not wait for."""
        if self.freeze_loaded_data:
            self.freeze_loaded_data = False
            self.call_after_refresh(self._freeze_loaded_data)

    @staticmethod
    def _freeze_loaded_data() -> None:
        gc.collect()
        gc.freeze()
        # Full passes ten times rarer than Python's default (every 100 young-generation passes,
        # not 10): what a filter keystroke leaves behind is mostly short-lived, and a full pass
        # over a big table's worth of objects is a visible stall (18 ms measured).
        young, middle, _ = gc.get_threshold()
        gc.set_threshold(young, middle, FULL_PASS_EVERY)

    def refresh_status(self) -> None:
        """Update the status lines now (the clock tick also does, once a second): the top screen's
        and those of the screens under an open dialog, which stay in view."""
        for screen in shown_screens(self):
            for status in StatusLine.on_screen(screen):
                status.update_status()

    def _tick(self) -> None:
        """The console's one clock: the screens in view (the top one, and those a dialog covers)
        update their status lines, tick their relative times and refresh what is due; hidden
        screens cost nothing."""
        if not self.is_running:
            return
        screens = [screen for screen in shown_screens(self) if screen.is_mounted]
        # A screen just pushed whose widgets are not there yet: the next tick finds them.
        self.refresh_status()
        self._notice_refused_token()
        for screen in reversed(screens):  # the covered screen first: its header is under the dialog
            if screen is self.screen:
                if isinstance(screen, Ticks):
                    screen.tick(self.clock())
            elif (covered := getattr(screen, "tick_covered", None)) is not None:
                # Under a dialog: what the screen says moves on (ages, the server's trouble);
                # whether it reads meanwhile is the screen's choice (the board's poller does).
                covered(self.clock())

    # --- crash handling -----------------------------------------------------------------------

    def _handle_exception(self, error: Exception) -> None:
        # Textual's own handler prints a traceback with local variables (tokens, headers).
        self._return_code = 1
        if self._exception is None:
            self._exception = error
            self._exception_event.set()
        message = f"labdeck stopped after an internal error ({type(error).__name__}).\n"
        try:
            from labdeck.base.crash import crash_message, write_crash_report

            try:
                report = write_crash_report(error)
            except OSError:
                report = None
            message = crash_message(error, report)
        except ImportError:
            pass
        self._exit_renderables.append(Text(message))
        self._close_messages_no_wait()

    # --- status line --------------------------------------------------------------------------

    def status_info(self, screen: object = None) -> StatusInfo:
        """The connection facts shown on the status line (of ``screen``'s instance: a board row's
        pipeline on another instance says that instance, its account and its trouble)."""
        instance = instance_of(screen)
        if instance is not None and not instance.primary:
            return self._instance_status(instance)
        client = self.client
        health = getattr(client, "health", None)
        rate_text = rate_note(getattr(client, "rate_limit", None), getattr(health, "state", "ok"))
        return StatusInfo(
            profile=self.session.profile,
            instance=self.session.base_url,
            user=self.current_user,
            read_only=self.read_only,
            rate_limit=rate_text,
            health=getattr(health, "state", "ok"),
            last_error=getattr(health, "last_error", None),
            insecure_storage=self.session.insecure_storage,
            demo=self.session.demo,
            now=self.clock(),
            token_source=self.session.token_source,
            signed_out=self.signed_out,
            trouble=trouble_text(health),
        )

    # --- errors -------------------------------------------------------------------------------

    @on(Worker.StateChanged)
    def _app_worker_state(self, event: Worker.StateChanged) -> None:
        self.handle_worker_state(event.worker, event.state)

    def handle_worker_state(self, worker: Worker[Any], state: WorkerState) -> None:
        """The one place where worker errors become toasts, the sign-in dialog or a modal."""
        if state != WorkerState.ERROR or worker.error is None:
            return
        if isinstance(worker.error, errors.AuditUnavailable):
            self.notify(worker.error.user_message(), title="Not sent", severity="error", timeout=10)
            self.ask_about_audit(worker.error.reason)
            return
        reaction = react_to(worker.error)
        if is_outage(worker.error):
            # One toast per outage; the status line shows it until the server answers again.
            if self.connection.start_outage(self._try_reconnect):
                self.notify(f"{reaction.message}\nRetrying in the background.", title="Cannot reach the server",
                            severity="warning", timeout=8)
            self.refresh_status()
            return
        if reaction.kind == "login":
            refused = self._refused_elsewhere()
            if refused:
                # Another instance's read (its triage, its pipeline) was refused: that instance
                # alone signs in again; the primary one keeps its token.
                for instance in refused:
                    if instance.signed_out:
                        continue  # its dialog is open, or was put off: `:login NAME` opens it again
                    instance.signed_out = True
                    self.show_login(reaction.message, instance)
                return
            self.signed_out = True
            self.show_login(reaction.message)
        elif reaction.kind == "modal":
            self.push_screen(MessageScreen(reaction.title, reaction.message))
        elif reaction.kind == "read-only":
            self.set_read_only(True)
            self.notify(reaction.message, title=reaction.title, severity=reaction.severity, markup=False)
        else:
            self.notify(reaction.message, title=reaction.title, severity=reaction.severity, markup=False,
                        timeout=8)

    async def open_jobs_by_reference(self, reference: str) -> None:
        """``:jobs <path or id>``: look the project up, then open its jobs."""
        project = await self.client.projects.get(int(reference) if reference.isdigit() else reference)
        self.remember_projects([project])
        self.open_jobs(project.id, project.path_with_namespace or reference)

    # --- command line, keys -------------------------------------------------------------------

    def action_command_line(self, value: str = "") -> None:
        """Open the ``:`` command line (in a text field, ":" is just typed)."""
        focused = self.focused
        if isinstance(focused, Input):
            # Queue it behind the keys the field has not handled yet: inserting now would put it
            # before them when a terminal delivers "group:project" in one burst.
            focused.post_message(events.Key("colon", ":"))
            return

        def done(line: str | None) -> None:
            if line:
                self.run_command_line(line)

        self.push_screen(CommandLineScreen(self.commands.history, self.commands.completions(self), value), done)

    def run_command_line(self, line: str) -> None:
        """Run one command line in a worker; mistakes become toasts."""

        async def run() -> None:
            try:
                await self.commands.execute(self, line)
            except CommandError as error:
                # Only the command's name: its arguments may be a secret typed in the wrong place.
                name = line.strip().removeprefix(":").split(maxsplit=1)[:1]
                self.notify(str(error), title=f":{name[0] if name else ''}", severity="error")

        self.run_worker(run(), group="app-command", exit_on_error=False)

    def action_alerts(self) -> None:
        """``!``: the alerts that fired (and what is watched)."""
        from labdeck.ui.screens.board.alerts import AlertLogScreen

        if not isinstance(self.screen, AlertLogScreen):
            self.push_screen(AlertLogScreen())

    def action_keys(self) -> None:
        """Show the keys of the current screen."""
        screen = self.screen
        if isinstance(screen, KeysScreen):
            return
        title = getattr(screen, "section_title", None) or getattr(screen, "BINDING_GROUP_TITLE", None) or \
            type(screen).__name__.removesuffix("Screen")
        note = getattr(screen, "keys_note", None)
        self.push_screen(KeysScreen(title, screen.active_bindings, note() if callable(note) else ""))


def run_console(session: Session, *, session_for_profile: SessionForProfile | None = None,
                check_write: bool = False, more_sessions: Sequence[Session] = ()) -> int:
    """Run the console until the user quits; returns the exit code. ``check_write``: probe write
    access after the first frame (see :meth:`LabdeckApp._write_check`). ``more_sessions``: the
    other profiles of a board over several instances (``--profile prod,staging``)."""
    app = LabdeckApp(session, session_for_profile=session_for_profile, install_signals=True,
                     check_write=check_write, more_sessions=more_sessions)
    app.freeze_loaded_data = True
    result = app.run()
    if app.return_code:
        return int(app.return_code)
    return int(result or 0)


__all__ = ["LabdeckApp", "run_console"]
