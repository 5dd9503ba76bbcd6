"""Runners section: the caller's runners (``GET /runners``) or every runner for administrators
(``GET /runners/all``), with a scope filter, pause/resume, edit and delete; and a project's runners
(enable/disable a specific runner in the project).

Runner lists do not carry tags (only ``GET /runners/:id`` does), so the Tags column is filled in
the background after each load, a few runners at a time (``…`` until then); ``/`` then finds
runners by tag."""

from __future__ import annotations

import asyncio
from collections.abc import Iterable
from typing import Any, ClassVar

from textual.app import App
from textual.binding import Binding, BindingType

from labdeck.api import errors
from labdeck.audit.context import AuditTarget, audit_context
from labdeck.triage.owners import RunnerShare
from labdeck.ui.dialogs.confirm import ConfirmScreen
from labdeck.ui.dialogs.form import FormField, FormScreen
from labdeck.ui.dialogs.message import MessageScreen
from labdeck.ui.screens.runners.actions import RunnerActions, runner_kind, runner_label, status_text
from labdeck.ui.screens.table_section import TableSectionScreen
from labdeck.ui.triaging import triaging
from labdeck.ui.widgets.cells import clean, coloured, shown
from labdeck.ui.widgets.resource_table import Column, ResourceTable, TableRow

MINE_SCOPES: tuple[str, ...] = ("", "active", "paused", "online")
ALL_SCOPES: tuple[str, ...] = ("", "specific", "shared", "active", "paused", "online")
COLUMNS = (
    Column("id", "ID", align="right", max_width=8),
    Column("status", "Status", max_width=26),
    Column("description", "Description", min_width=12, max_width=40, flex=True),
    Column("type", "Type", max_width=8),
    Column("paused", "Paused", max_width=6),
    Column("tags", "Tags", min_width=14, max_width=30, flex=True),
    Column("ip", "IP address", min_width=6, max_width=16, flex=True),
    Column("name", "Name", min_width=6, max_width=20, flex=True),
)
TAG_PENDING = "…"
TAG_HIDDEN = "?"
"""The tags of a runner whose details this account may not read (or that is gone)."""
TAG_LOOKUPS = 300
"""Runners whose tags are read after a load (the rest show ``…``; ``enter`` shows them all)."""
TAG_CONCURRENCY = 4


def runner_row(app: App[Any], runner: Any, tags: list[str] | str | None = None,
               flag: RunnerShare | None = None) -> TableRow:
    """A row of the runners tables (``tags`` None: not read yet; a string: shown as it is;
    ``flag``: the runner fails well above the fleet: ``⚠ 5/8 failed`` beside its status)."""
    tag_text = TAG_PENDING if tags is None else tags if isinstance(tags, str) else shown(tags)
    status = status_text(app, runner)
    if flag:
        status = status + coloured(app, f" ⚠ {flag.failed}/{flag.total} failed", "error", bold=True)
    return TableRow(
        key=runner.id,
        cells=(str(runner.id), status, shown(runner.description), runner_kind(runner),
               "yes" if runner.paused else "no", tag_text, shown(runner.ip_address), shown(runner.name)),
        data=runner,
    )


class RunnerTableScreen(TableSectionScreen):
    """A table of runners: ``y`` copies the highlighted runner's id, ``enter`` opens it."""

    COLUMNS = COLUMNS

    def __init__(self) -> None:
        super().__init__()
        self.tags: dict[int, list[str] | str] = {}
        """Runner id → its tags, as read from its details (:data:`TAG_HIDDEN` when unreadable)."""
        self.flags: dict[int, RunnerShare] = {}
        """Runners failing well above the fleet (from the triage report, :mod:`labdeck.ui.triaging`)."""

    def show_runners(self, runners: Iterable[Any], *, keep_cursor: bool = True) -> None:
        """Fill the table, then read the tags of the runners shown (in the ``tags`` worker)."""
        listed = list(runners)
        self.replace_rows((runner_row(self.app, runner, self.tags.get(runner.id), self.flags.get(runner.id)) for runner in listed),
                          keep_cursor=keep_cursor)
        wanted = [runner.id for runner in listed][:TAG_LOOKUPS]
        self.run_api(lambda: self._read_tags(wanted), "tags")

    async def _read_tags(self, runner_ids: list[int]) -> None:
        client = self.client
        gate = asyncio.Semaphore(TAG_CONCURRENCY)

        async def one(runner_id: int) -> None:
            async with gate:
                try:
                    detail = await client.runners.get(runner_id)
                except (errors.NotFound, errors.Forbidden):
                    # gone meanwhile, or details not visible to this account (a shared runner)
                    self.tags[runner_id] = TAG_HIDDEN
                    runner = self.table.get_data(runner_id)
                    if runner is not None:
                        self.table.update_row(runner_row(self.app, runner, TAG_HIDDEN, self.flags.get(runner_id)))
                    return
            self.remember_detail(detail)

        await asyncio.gather(*(one(runner_id) for runner_id in runner_ids))
        if self.table.filter_text:
            self.apply_filter(self.table.filter_text)  # rows whose tags arrived may match now

    def remember_detail(self, detail: Any) -> None:
        """Show a runner detail's tags (and its other fields) in its row."""
        self.tags[detail.id] = list(detail.tag_list)
        if self.table.get_data(detail.id) is not None:
            self.table.update_row(runner_row(self.app, detail, self.tags[detail.id], self.flags.get(detail.id)))

    def _current(self) -> Any:
        """The highlighted runner, or None."""
        return self.table.cursor_data

    def copy_target(self) -> str | None:
        runner = self.table.cursor_data
        return None if runner is None else str(runner.id)

    def on_resource_table_selected(self, event: ResourceTable.Selected) -> None:
        event.stop()
        self.action_details()

    def action_details(self) -> None:
        """Open the highlighted runner."""
        runner = self._current()
        if runner is not None:
            from labdeck.ui.screens.runners.detail import RunnerDetailScreen

            self.app.push_screen(RunnerDetailScreen(runner.id))


class RunnersScreen(RunnerActions, RunnerTableScreen):
    """The runners table (section 3)."""

    SECTION_TITLE = "Runners"
    TABLE_ID = "runners-table"
    MUTATING_ACTIONS = frozenset({"edit", "toggle_active", "delete"})
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "details", "Details", id="runners.details"),
        Binding("a", "toggle_all", "Mine/All", id="runners.all"),
        Binding("s", "next_scope", "Scope", id="runners.scope"),
        Binding("J", "jobs", "Jobs", id="runners.jobs"),
        Binding("e", "edit", "Edit", id="runners.edit"),
        Binding("p", "toggle_active", "Pause/Resume", id="runners.pause"),
        Binding("D", "delete", "Delete", id="runners.delete"),
    ]

    def __init__(self, *, all_runners: bool | None = None, scope: str = "") -> None:
        """``all_runners`` None: every runner for administrators, the caller's runners otherwise."""
        super().__init__()
        self._auto_view = all_runners is None
        self.all_runners = bool(all_runners)
        self.scope = scope

    def reload(self) -> None:
        """Fetch the runners of the current view and scope."""
        self.context_text = self._view_text()
        super().reload()

    def _view_text(self) -> str:
        view = "all runners (admin)" if self.all_runners else "my runners"
        return f"{view} · scope {self.scope or 'any'} · a: mine/all · s: scope"

    async def load(self) -> None:
        client = self.client
        if self._auto_view:
            self._auto_view = False
            self.all_runners = bool((await client.users.current()).is_admin)
            self.context_text = self._view_text()
        scope: Any = self.scope or None
        pager = client.runners.list_all(scope=scope) if self.all_runners else client.runners.list(scope=scope)
        self.show_runners(await pager.all())
        self.mark_loaded()
        self.run_api(self._flag_failing, "triage")

    async def _flag_failing(self) -> None:
        """Mark the runners failing well above the fleet (the triage core's flag, from the watched
        projects' jobs pages: the board's last round, else one round now)."""
        state = triaging(self.app)
        if state.report is None:
            watched = await self.console_app.watching.watched.resolve()
            await state.round(self.client, sorted(watched.paths().items()))
        self.flags = state.flagged_runners()
        for runner_id in self.flags:
            runner = self.table.get_data(runner_id)
            if runner is not None:
                self.table.update_row(runner_row(self.app, runner, self.tags.get(runner_id), self.flags[runner_id]))
        if self.flags:
            names = "; ".join(share.describe() for share in self.flags.values())
            self.context_text = f"⚠ failing well above the fleet: {names} (p pauses) · {self._view_text()}"
            self.update_title()

    # --- view ---------------------------------------------------------------------------------

    def action_toggle_all(self) -> None:
        """Switch between my runners and every runner (administrators)."""
        self._auto_view = False
        self.all_runners = not self.all_runners
        if self.scope not in (ALL_SCOPES if self.all_runners else MINE_SCOPES):
            self.scope = ""
        self.reload()

    def action_next_scope(self) -> None:
        """Cycle the server-side scope filter."""
        scopes = ALL_SCOPES if self.all_runners else MINE_SCOPES
        position = scopes.index(self.scope) if self.scope in scopes else 0
        self.scope = scopes[(position + 1) % len(scopes)]
        self.reload()

    def _current(self) -> Any:
        runner = self.table.cursor_data
        if runner is None:
            self.notify("No runner selected.", severity="warning", timeout=3)
        return runner

    def action_jobs(self) -> None:
        """Jobs the highlighted runner processed."""
        runner = self._current()
        if runner is not None:
            from labdeck.ui.screens.runners.detail import RunnerJobsScreen

            self.app.push_screen(RunnerJobsScreen(runner.id, runner.description or ""))

    # --- changes ------------------------------------------------------------------------------

    def _replace(self, detail: Any) -> None:
        if detail is not None:
            self.remember_detail(detail)

    def action_edit(self) -> None:
        """Edit the highlighted runner's settings."""
        runner = self._current()
        if runner is not None and not self.refuse_if_read_only():
            self.runner_edit(self, runner.id, self._replace)

    def action_toggle_active(self) -> None:
        """Pause or resume the highlighted runner."""
        runner = self._current()
        if runner is not None and not self.refuse_if_read_only():
            self.runner_toggle_active(self, runner, self._replace)

    def action_delete(self) -> None:
        """Delete the highlighted runner (type its id)."""
        runner = self._current()
        if runner is not None and not self.refuse_if_read_only():
            self.runner_delete(self, runner, lambda _: self.reload())


class ProjectRunnersScreen(RunnerTableScreen):
    """``GET /projects/:id/runners``, with enable (``POST``) and disable (``DELETE``)."""

    SECTION_TITLE = "Project runners"
    TABLE_ID = "project-runners-table"
    MUTATING_ACTIONS = frozenset({"enable", "disable"})
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "details", "Details", id="project-runners.details"),
        Binding("E", "enable", "Enable runner", id="project-runners.enable"),
        Binding("X", "disable", "Disable runner", id="project-runners.disable"),
    ]

    def __init__(self, project_id: int, project_path: str) -> None:
        super().__init__()
        self.project_id = project_id
        self.project_path = clean(project_path)
        self.context_text = self.project_path

    async def load(self) -> None:
        """Fetch the project's runners."""
        self.show_runners(await self.client.runners.project_runners(self.project_id).all(), keep_cursor=False)
        self.mark_loaded()

    def action_enable(self) -> None:
        """Enable one of the caller's specific runners in this project."""
        if self.refuse_if_read_only():
            return

        async def pick() -> None:
            client = self.client
            present = {row.key for row in self.table.rows()}
            mine = [r for r in await client.runners.list().all() if r.id not in present and not r.is_shared]
            options = [(f"#{r.id} {r.description or ''}".strip(), r.id) for r in mine]
            field = (FormField("runner_id", "Runner", kind="select", required=True, options=options)
                     if options else FormField("runner_id", "Runner id", kind="int", required=True,
                                               help="none of your specific runners is missing here"))

            async def save(values: dict[str, Any]) -> Any:
                runner_id = int(values["runner_id"])
                with audit_context(target=AuditTarget(project=self.project_path, runner=runner_id),
                                          confirmation="form"):
                    return await client.runners.enable(self.project_id, runner_id)

            def done(result: Any) -> None:
                if result is not None:
                    self.notify(f"Runner #{result.id} enabled in {self.project_path}.", timeout=4, markup=False)
                    self.reload()

            self.app.push_screen(FormScreen("Enable a runner in the project", [field], save,
                                            target=self.project_path, submit_label="Enable"), done)

        self.run_api(pick, "enable")

    def action_disable(self) -> None:
        """Disable the highlighted runner in this project (confirmed)."""
        runner = self.table.cursor_data
        if runner is None or self.refuse_if_read_only():
            return
        label = runner_label(runner)

        def confirmed(answer: bool | None) -> None:
            if answer:
                self.run_api(lambda: self._disable(runner.id), "disable")

        self.app.push_screen(ConfirmScreen("Disable runner in project",
                                           f"Stop {label} from taking jobs of {clean(self.project_path)}?",
                                           action_label="Disable", target=clean(self.project_path)), confirmed)

    async def _disable(self, runner_id: int) -> None:
        client = self.client
        try:
            with audit_context(target=AuditTarget(project=self.project_path, runner=runner_id),
                                      confirmation="dialog"):
                await client.runners.disable(self.project_id, runner_id)
        except (errors.Forbidden, errors.ValidationError, errors.Conflict) as error:
            if "only" not in error.message.lower():
                raise
            self.app.push_screen(MessageScreen(
                "Cannot disable the runner here",
                clean(f"{self.project_path} is the only project of runner #{runner_id}, so it cannot be "
                      f"disabled in it. Delete the runner instead (runners section, D).\n\n"
                      f"Server: {error.user_message()}")))
            return
        self.notify(f"Runner #{runner_id} disabled in {self.project_path}.", timeout=4, markup=False)
        self.reload()
