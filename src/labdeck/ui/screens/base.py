"""``SectionScreen``: the base of every section (projects, jobs, runners …).

It gives a screen, for free:

- a title row (section name, filter, row counts, "loading…"), the status line and the footer;
- ``/`` filter (substring, ``!`` inverts) applied to every :class:`ResourceTable` of the screen;
  ``escape`` clears the filter first, then goes back;
- ``ctrl+r`` refresh → :meth:`reload` (override it);
- ``y`` copies :meth:`copy_target` (override it) to the clipboard (OSC 52, works over SSH);
- read-only mode: actions listed in ``MUTATING_ACTIONS`` are hidden (``check_action`` → False)
  while ``app.read_only`` is set;
- worker errors are forwarded to the app's single error handler (``Worker.StateChanged`` does not
  bubble, so start API workers from the screen with :meth:`run_api`);
- ``data_loaded_at``: call :meth:`mark_loaded` when fresh data arrived; the status line shows its age.

Subclasses implement :meth:`compose_content` (the body) and usually :meth:`reload`.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from datetime import datetime
from typing import Any, ClassVar

from rich.text import Text
from textual import events, on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import Screen
from textual.widgets import Input, Label
from textual.worker import Worker

from labdeck.api import ApiClient
from labdeck.ui.console import ConsoleApp, console_app
from labdeck.ui.instances import Instance
from labdeck.ui.widgets.key_bar import KeyBar
from labdeck.ui.widgets.resource_table import ResourceTable
from labdeck.ui.widgets.shown_text import show_text
from labdeck.ui.widgets.status_line import StatusLine


def reload_screen(screen: Screen[Any]) -> None:
    """Reload ``screen`` if it is a section (after a change made from a screen above it)."""
    if isinstance(screen, SectionScreen):
        screen.reload()


class FilterInput(Input):
    """The ``/`` filter field (hidden until ``/`` is pressed)."""

    DEFAULT_CSS = """
    FilterInput { height: 1; border: none; padding: 0 1; background: $panel; display: none; }
    FilterInput.-active { display: block; }
    FilterInput:focus { border: none; background: $boost; }
    """


class ServerFilterInput(Input):
    """``f``: a server-side filter bar (``key=value`` words, as the section's ``:`` command takes)."""

    DEFAULT_CSS = """
    ServerFilterInput { height: 1; border: none; padding: 0 1; background: $panel; display: none; }
    ServerFilterInput.-active { display: block; }
    ServerFilterInput:focus { border: none; background: $boost; }
    """


class SectionScreen(Screen[None]):
    """Base class for section screens; see the module docstring."""

    SECTION_TITLE: ClassVar[str] = "Section"
    MUTATING_ACTIONS: ClassVar[frozenset[str]] = frozenset()
    """Action names hidden (and refused) in read-only mode."""

    BINDINGS: ClassVar[list[BindingType]] = [
        # priority: the filter must take the keys typed right after "/" (a terminal delivers "/web"
        # at once, before a normal binding would have moved the focus)
        # First, so that the footer always shows it, even at 80 columns: every other key is in `?`.
        Binding("question_mark", "app.keys", "Keys", id="section.keys"),
        Binding("slash", "start_filter", "Filter", priority=True, id="section.filter"),
        Binding("ctrl+r", "reload", "Refresh", show=False, id="section.refresh"),
        Binding("y", "copy", "Copy", show=False, id="section.copy"),
        Binding("escape", "back", "Back", show=False, id="section.back"),
    ]
    DEFAULT_CSS = """
    SectionScreen > #top-bars { dock: top; height: auto; width: 100%; }
    SectionScreen #title-row { height: 1; width: 100%; background: $panel; }
    SectionScreen > #bottom-bars { dock: bottom; height: auto; width: 100%; }
    SectionScreen > #bottom-bars > KeyBar { dock: none; }
    SectionScreen #title-section { text-style: bold; padding: 0 1; background: $ld-env-accent; color: $ld-env-accent-text; }
    SectionScreen #title-context { width: 1fr; padding: 0 1; text-wrap: nowrap; text-overflow: ellipsis; }
    SectionScreen #title-filter { color: $ld-text-accent; padding: 0 1 0 0; }
    SectionScreen #title-counts { color: $ld-text-muted; padding: 0 1 0 0; }
    """

    def __init__(self, name: str | None = None, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self.section_title = self.SECTION_TITLE
        """Shown at the left of the title row (defaults to the class's ``SECTION_TITLE``)."""
        self.data_loaded_at: datetime | None = None
        """When the data on screen was last fetched (app clock); None before the first load."""
        self.context_text = ""
        """Shown after the section name in the title row (e.g. the filters of the server query)."""
        self.loading_text = ""
        self.load_failed = False
        """True when the last load could not reach the server (it loads again once it can)."""
        self.read_note = ""
        """Beside the row count when the last load failed: ``not read`` (nothing was ever read:
        ``0 rows`` alone would say the server has none) or ``last rows kept (stale)``."""
        self._pending_work: list[list[Callable[[], Awaitable[Any]]]] = []
        """The work of workers not finished yet (dropped when the screen closes, see run_api)."""

    @property
    def console_app(self) -> ConsoleApp:
        """The console app, through the interface screens may use."""
        return console_app(self.app)

    instance: Instance | None = None
    """The instance this screen works on (a board row's, and what was opened from it); None: the
    console's primary instance."""

    @property
    def client(self) -> ApiClient:
        """The API client of this screen's instance (read each time: it is replaced after a sign-in)."""
        return self.instance.client if self.instance is not None else self.console_app.client

    def acting_instance(self) -> Instance | None:
        """The instance a screen or dialog opened from here works on (the board: the row's)."""
        return self.instance

    # --- layout -------------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        with Vertical(id="top-bars"):
            with Horizontal(id="title-row"):
                yield Label(self.section_title, id="title-section", markup=False)
                yield Label("", id="title-context", markup=False)
                yield Label("", id="title-filter", markup=False)
                yield Label("", id="title-counts", markup=False)
            yield FilterInput(placeholder="filter (substring; !text inverts; enter keeps, esc clears)", id="filter")
            yield from self.compose_top_bars()
        yield from self.compose_content()
        with Vertical(id="bottom-bars"):
            yield StatusLine()
            yield KeyBar()

    def compose_content(self) -> ComposeResult:
        """The body of the section (override)."""
        yield from ()

    def compose_top_bars(self) -> ComposeResult:
        """Extra one-line bars under the title row, e.g. a server-side filter field (override)."""
        yield from ()

    def update_title(self) -> None:
        """Refresh the title row (counts, filter, context, loading state)."""
        tables = [table for table in self.query(ResourceTable) if table.MAIN]
        counts = ""
        if tables:
            table = tables[0]
            counts = (f"{table.visible_count}/{table.row_count}" if table.filter_text
                      else f"{table.row_count} row{'' if table.row_count == 1 else 's'}")
        if self.loading_text or self.read_note:
            note = self.loading_text or self.read_note
            counts = f"{counts} · {note}" if counts else note
        show_text(self.query_one("#title-context", Label), Text(self.context_text))
        filter_text = tables[0].filter_text if tables else ""
        show_text(self.query_one("#title-filter", Label), Text(f"/{filter_text}" if filter_text else ""))
        show_text(self.query_one("#title-counts", Label), Text(counts))

    # --- data age -----------------------------------------------------------------------------

    def tick(self, now: datetime) -> None:
        """Once a second while this screen is on top (the app's one clock): refresh what is due
        (override; keep it cheap, it runs on the event loop)."""

    def mark_loaded(self) -> None:
        """Record that fresh data is on screen now (the status line shows its age)."""
        self.data_loaded_at = self.console_app.clock()
        for status in self.query(StatusLine):
            status.data_loaded_at = self.data_loaded_at
            status.question_trouble = self.standing_trouble()
            status.update_status()

    def standing_trouble(self) -> str | None:
        """Why some of the data on screen could not be read, even right after fresh data arrived
        (override: the board's rows come from many reads, and one project's may fail while others
        answer). None: a load that arrived answered the whole question."""
        return None

    def mark_failed(self, reason: str) -> None:
        """Record that the last read of this screen's data failed (``reason``, said short): its
        status line says so, whatever other reads of the client answered, until :meth:`mark_loaded`."""
        for status in self.query(StatusLine):
            status.question_trouble = reason
            status.update_status()

    # --- workers ------------------------------------------------------------------------------

    def run_api(self, work: Callable[[], Awaitable[Any]], name: str, *, exclusive: bool = True) -> Worker[Any]:
        """Run ``work()`` in a worker of group ``<screen id or class>-<name>``: exclusive (a new one
        cancels the previous), cancelled when this screen closes, errors sent to the app's handler."""
        group = f"{self.id or type(self).__name__}-{name}"
        # The worker object can outlive its run for as long as a connection opened during it stays
        # open (the socket's callbacks keep a copy of the worker's context, which names it): it
        # must not keep what ``work`` holds (a 5,000-job pipeline view's jobs) alive that long.
        pending = [work]
        self._pending_work.append(pending)

        async def run() -> Any:  # the coroutine is made when the worker starts, not before
            try:
                return await pending[0]()
            finally:
                pending.clear()
                if pending in self._pending_work:
                    self._pending_work.remove(pending)

        return self.run_worker(run, name=name, group=group, exclusive=exclusive, exit_on_error=False)

    @on(events.Unmount)
    def _drop_pending_work(self) -> None:
        """A worker cancelled before it started never drops its work itself."""
        for pending in self._pending_work:
            pending.clear()
        self._pending_work.clear()

    @on(Worker.StateChanged)
    def _forward_worker_state(self, event: Worker.StateChanged) -> None:
        self.console_app.handle_worker_state(event.worker, event.state)

    # --- read-only ----------------------------------------------------------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Hide mutating actions in read-only mode."""
        if action in self.MUTATING_ACTIONS and self.console_app.read_only:
            return False
        return True

    def refuse_if_read_only(self) -> bool:
        """For mutating actions reached by other paths (palette, command line): True (and a toast)
        when read-only mode forbids them."""
        if self.console_app.read_only:
            self.notify("Read-only mode: this action is disabled (:readonly toggles it).",
                        severity="warning", title="Read-only")
            return True
        return False

    # --- filter -------------------------------------------------------------------------------

    def action_start_filter(self) -> None:
        """Open the filter field (in a text field, "/" is just typed)."""
        focused = self.focused
        if isinstance(focused, Input):
            # Queue it behind the keys the field has not handled yet: inserting now would put it
            # before them when a terminal delivers "group/project" in one burst.
            focused.post_message(events.Key("slash", "/"))
            return
        field = self.query_one("#filter", FilterInput)
        field.add_class("-active")
        # set_focus is immediate: keys typed right after "/" must land in the field
        self.set_focus(field)

    @on(Input.Changed, "#filter")
    def _filter_changed(self, event: Input.Changed) -> None:
        self.apply_filter(event.value)

    @on(Input.Submitted, "#filter")
    def _filter_submitted(self, event: Input.Submitted) -> None:
        field = self.query_one("#filter", FilterInput)
        if not event.value:
            field.remove_class("-active")
        self._focus_body()

    def apply_filter(self, text: str) -> None:
        """Filter every table of the screen (override to filter something else too)."""
        for table in self.query(ResourceTable):
            table.set_filter(text)
        self.update_title()

    def clear_filter(self) -> bool:
        """Clear the filter; True if one was active."""
        field = self.query_one("#filter", FilterInput)
        if not field.value and not field.has_class("-active"):
            return False
        field.value = ""
        field.remove_class("-active")
        self.apply_filter("")
        self._focus_body()
        return True

    def _focus_body(self) -> None:
        tables = [table for table in self.query(ResourceTable) if table.MAIN]
        if tables:
            tables[0].focus()
        else:
            self.focus_next()

    # --- common actions -----------------------------------------------------------------------

    async def action_back(self) -> None:
        """Clear the filter, or go back (pop a pushed screen, or return to the previous section)."""
        if self.clear_filter():
            return
        await self.console_app.action_back()

    def action_reload(self) -> None:
        """Fetch the data again (subclasses implement :meth:`reload`). While the server is in
        trouble the next read tests it now, not at the end of the back-off (at most one try every
        2 s however often pressed): a storm that is over shows as such at once."""
        self.client.try_now()
        self.reload()

    def reload(self) -> None:
        """Start loading this section's data (override)."""
        self.notify("Nothing to refresh here.", timeout=2)

    def copy_target(self) -> str | None:
        """What ``y`` copies: the URL or id of the highlighted object (override)."""
        return None

    def action_copy(self) -> None:
        """Copy the highlighted object's URL/id to the clipboard (OSC 52)."""
        text = self.copy_target()
        if not text:
            self.notify("Nothing to copy here.", severity="warning", timeout=3)
            return
        self.app.copy_to_clipboard(text)
        self.notify(Text(text).plain, title="Copied", timeout=3, markup=False)
