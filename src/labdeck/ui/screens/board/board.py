"""The on-call board (section 0): the pipelines of the watched projects, most urgent first.

Rows come from the app's one shared poller (``app.watching``, :mod:`labdeck.watch`): starred
projects, projects added with ``w``, and ``:board group:<path>``. The screen only renders
snapshots; it makes no request of its own, and while hidden it receives none.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType

from labdeck.api.models import Job
from labdeck.base.durations import format_duration
from labdeck.ui.dialogs.form import clean
from labdeck.ui.instances import Instance, instances_of, primary_triaging, several
from labdeck.ui.screens.base import SectionScreen
from labdeck.ui.screens.board.actions import BoardActions
from labdeck.ui.screens.board.cells import failed_cell, project_cell, why_cell
from labdeck.ui.screens.board.clusters import ClusterScreen, ClusterStrip, merged_clusters
from labdeck.ui.screens.board.header import board_context, server_trouble
from labdeck.ui.screens.board.merged import MergedBoard
from labdeck.ui.screens.board.running_strip import RunningNowStrip, short_age
from labdeck.ui.screens.board.triage_rounds import BoardTriage
from labdeck.ui.triaging import triaging, why_label
from labdeck.ui.widgets.cells import coloured
from labdeck.ui.widgets.resource_table import Column, ResourceTable, TableRow
from labdeck.ui.widgets.status_colours import status_text
from labdeck.ui.widgets.status_line import StatusLine, is_shown
from labdeck.watch import BoardSnapshot, PipelineRow, RunningNowSnapshot
from labdeck.watch.ages import RowAges, short

STATUS_FILTERS = ("", "failed", "running", "pending", "manual", "success")
"""What ``f`` cycles through ("" = every status)."""

COLUMNS = (
    Column("mark", " ", max_width=1),
    Column("project", "Project", min_width=20, max_width=36, flex=True),
    Column("pipeline", "Pipeline", align="right", max_width=9),
    Column("ref", "Ref", min_width=6, max_width=20, flex=True),
    Column("status", "Status", max_width=8),
    Column("failed", "Failed jobs", min_width=8, max_width=48, flex=True),
    Column("why", "Why", max_width=18),
    Column("running", "Run", align="right", max_width=3),
    Column("age", "Age", align="right", max_width=6),
    Column("duration", "Took", align="right", max_width=7),
    Column("by", "By", min_width=3, max_width=14, flex=True),
)
"""The board's columns from :data:`WIDE_FROM` columns of terminal on."""

INSTANCE_COLUMN = Column("instance", "At", min_width=4, max_width=10)
"""On a board over several instances: the row's instance (its short name, in its colour)."""

NARROW_COLUMNS = tuple(Column("why", "Why", min_width=6, max_width=18, flex=True) if column.key == "why" else column
                       for column in COLUMNS if column.key not in ("running", "duration", "by"))
"""At 80 columns: what is broken, where and since when (the pipeline view has the rest)."""
WIDE_FROM = 110
AGES_EVERY = 5
"""Seconds between re-renders of the ages and running times (the rows move on without new data)."""


def bound_text(poller: object, projects: int | None = None) -> str:
    """The help's promise: how often every watched project is read again, from the number of
    projects and the budget (``poller.read_bound()``; ``projects``: for that many watched projects,
    when the board has not been read yet)."""
    bound = getattr(poller, "read_bound", None)
    if bound is None:
        return ""
    seconds = float(bound() if projects is None else bound(projects))
    rate = getattr(getattr(poller, "settings", None), "requests_per_minute", 60)
    return (f"\nEvery watched project is read again within {short(seconds)} at {int(rate)} requests a "
            f"minute (`[board] requests_per_minute`); failed and running ones more often.\n")


class BoardScreen(BoardActions, SectionScreen):
    """What is broken or running now across the watched projects."""

    SECTION_TITLE = "Board"
    BINDING_GROUP_TITLE = "Board"
    MUTATING_ACTIONS = frozenset({"retry_marked", "cancel_marked", "play_marked"})
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "open_pipeline", "Pipeline", id="board.open", tooltip="The pipeline's jobs"),
        Binding("c", "clusters", "Clusters", id="board.clusters",
                tooltip="Move to the clusters (the same error in several projects) above the pipelines (esc: back)"),
        Binding("f", "cycle_status", "Status", id="board.status",
                tooltip="Show only failed, running, pending, manual or successful pipelines"),
        Binding("w", "toggle_watch", "Watch", id="board.watch",
                tooltip="Add or remove the project from the board (starred projects stay)"),
        Binding("W", "alert", "Alert", id="board.alert", tooltip="Alert when this pipeline fails or finishes"),
        Binding("F", "follow_running", "Follow", show=False, id="board.follow",
                tooltip="Follow the pipeline's running jobs in one live view"),
        Binding("space", "mark", "Mark", id="board.mark", tooltip="Mark the pipeline for a bulk action"),
        Binding("B", "bundle", "Bundle", show=False, id="board.bundle",
                tooltip="Incident bundle of the pipeline under the cursor (.tar.gz: logs, jobs, runners, summary)"),
        Binding("R", "retry_marked", "Retry failed", id="board.retry-failed",
                tooltip="Retry the failed jobs of the marked pipelines (or of this one): dry run first"),
        Binding("C", "cancel_marked", "Cancel", show=False, id="board.cancel-active",
                tooltip="Cancel the running and pending jobs of the marked pipelines (dry run first)"),
        Binding("P", "play_marked", "Play", show=False, id="board.play-manual",
                tooltip="Play the manual jobs of the marked pipelines (dry run first)"),
    ]
    HELP = """
## Board
The pipelines of your starred projects, of projects added with **w**, and of `:board group:<path>`:
failed first (newest first), then running, pending, manual and recent successes. It follows the
server by itself; the status line says how fresh the data is (amber: older than it should be).

- **Why**: infra, flaky, broken since #N, or ? (not enough evidence yet); … while it is worked out
- **c** the clusters above (the same error in several projects) · **enter** on one lists its jobs
- **enter** the pipeline · **f** status filter · **/** filter · **w** watch / unwatch the project
- **W** alert when the pipeline fails or finishes · **!** the alerts that fired
- **space** mark pipelines · **R**/**C**/**P** retry failed / cancel / play manual jobs of the marked ones
- **B** incident bundle of the pipeline under the cursor: its jobs' logs, records, runners, a summary
- **~** in the first column: the row is older than it should be (failed and running rows 30 s, others
  5 min with the default budget); the status line says the oldest row's age (`oldest 4m`)
"""

    def __init__(self) -> None:
        super().__init__(id="board")
        self.snapshot = BoardSnapshot()
        self.status_filter = ""
        self.marked: set[tuple[int, ...]] = set()
        self._aged_period: int | None = None
        """Marked pipelines: (project id, pipeline id)."""
        self._rows: dict[tuple[int, ...], PipelineRow] = {}
        self._timed: dict[tuple[int, ...], tuple[str, str]] = {}
        self._stale: dict[tuple[int, ...], bool] = {}
        """Each row's age and running time as shown (a clock tick re-renders the rows whose text moved)."""
        self._titled: tuple[str, int, int, str] | None = None
        self._refusal: RunningNowSnapshot | None = None
        """The running-now strip's refusal (403) last said."""
        self.triage = BoardTriage(lambda: self.app, lambda work, name: self.run_api(work, name, exclusive=False),
                                  lambda: self._merged, lambda: self.console_app.client)
        self._ages: RowAges | None = None
        """The rows' ages as last rendered (a tick re-renders rows that turned stale)."""
        self._cluster_owner: dict[int, Instance] = {}
        """Several instances: ``id(cluster)`` → the instance whose triage found it."""
        self._merged: MergedBoard | None = None
        """Several instances (``--profile prod,staging``): their boards, merged."""
        self._instance_ages: dict[int, RowAges] = {}
        self._troubled: set[int] | None = None
        """While the rows are rendered: the instances in trouble (see :meth:`_merged_ages`)."""

    def keys_note(self) -> str:
        """``?``: the bound the board keeps for the watched projects now."""
        return bound_text(self.console_app.watching.poller).strip().replace("`", "")

    def compose_top_bars(self) -> ComposeResult:
        yield RunningNowStrip(id="running-now")

    def compose_content(self) -> ComposeResult:
        yield ClusterStrip(id="board-clusters")
        yield ResourceTable(self._columns_for(self.app.size.width), id="board-table")

    def _columns_for(self, width: int) -> tuple[Column, ...]:
        columns = COLUMNS if width >= WIDE_FROM else NARROW_COLUMNS
        if several(self.app):
            columns = (columns[0], INSTANCE_COLUMN, *columns[1:])
        return columns

    def on_resize(self) -> None:
        """A narrow terminal drops the least urgent columns (and a wide one brings them back)."""
        columns = self._columns_for(self.size.width)
        table = self.query_one_optional("#board-table", ResourceTable)
        if table is not None and tuple(table.columns) != columns:
            table.columns = list(columns)
            self._show()

    @property
    def table(self) -> ResourceTable:
        """The pipelines table."""
        return self.query_one("#board-table", ResourceTable)

    def on_mount(self) -> None:
        watching = self.console_app.watching
        if several(self.app):
            self._merged = MergedBoard(instances_of(self.app), self._merged_changed)
            self._merged.subscribe()
            self._pipelines: Any = self._merged
        else:
            self._pipelines = watching.subscribe_board(self._board_changed)
        self._running_now = watching.subscribe_running_now(self._running_changed)
        for status in self.query(StatusLine):
            status.stale_after = 2 * watching.poller.interval
        self._untriage = triaging(self.app).subscribe(self._triage_done)
        self._untriage_more = [instance.triaging.subscribe(self._triage_done)
                               for instance in instances_of(self.app)[1:]]
        self.app.screen_change_signal.subscribe(self, self._follow_visibility)
        self.table.focus()
        self._show()
        self.call_after_refresh(self._show)  # the header says "loading…" from the first frame on

    def on_screen_resume(self) -> None:
        """Visible: the poller sends snapshots again (at once: the current one)."""
        self._follow_visibility()

    def on_screen_suspend(self) -> None:
        """Hidden: no snapshots, no reads for the board (alerts keep being followed). Under a
        dialog it stays in view, and so it keeps reading and saying how fresh it is."""
        self._follow_visibility()

    def _follow_visibility(self, _screen: object = None) -> None:
        """Read while in view (on top, or under dialogs only); a screen pushed over a dialog
        hides the board without a suspend of its own, hence the app's screen-change signal too."""
        shown = self.is_attached and is_shown(self)
        self._pipelines.set_visible(shown)
        self._running_now.set_visible(shown)

    def on_unmount(self) -> None:
        self.app.screen_change_signal.unsubscribe(self)
        self._untriage()
        for untriage in self._untriage_more:
            untriage()
        self._pipelines.close()
        self._running_now.close()

    # --- data ---------------------------------------------------------------------------------

    def _board_changed(self, snapshot: BoardSnapshot) -> None:
        self.snapshot = snapshot
        self._show()
        self._triage()

    def _merged_changed(self) -> None:
        assert self._merged is not None
        self._board_changed(self._merged.snapshot)

    @staticmethod
    def failed_jobs(row: PipelineRow) -> list[Job]:
        """The failed jobs that fail the pipeline (newest try of each name)."""
        newest: dict[str, Job] = {}
        for job in row.jobs:
            if job.status == "failed" and job.name in row.failed_jobs and not job.allow_failure:
                if job.name not in newest or job.id > newest[job.name].id:
                    newest[job.name] = job
        return list(newest.values())

    def _triage(self) -> None:
        """Verdicts and clusters for the failed pipelines (:class:`BoardTriage`)."""
        failed = [(row, job) for row in self.snapshot.rows if row.status == "failed" for job in self.failed_jobs(row)]
        self.triage.ask(failed, tuple(sorted((*self._key(row), job.id) for row, job in failed)))

    def _triage_done(self) -> None:
        """A round ended: the ``Why`` cells and the clusters follow."""
        strip = self.query_one_optional("#board-clusters", ClusterStrip)
        if self._merged is not None:
            clusters, self._cluster_owner = merged_clusters(self.app, self._merged.instances)
            if strip is not None:
                strip.show_clusters(clusters)
            self._show()
            return
        report = triaging(self.app).report
        if strip is not None and report is not None:
            strip.show_clusters(report.clusters)
        self._show()

    def why(self, row: PipelineRow) -> str:
        """The ``Why`` cell: the verdicts of the pipeline's failed jobs (``…`` while unknown)."""
        if row.status != "failed":
            return ""
        state = primary_triaging(self.app, self.instance_of_row(row))
        return why_label([state.failure(job.id) for job in self.failed_jobs(row)]) or "…"

    def _running_changed(self, snapshot: RunningNowSnapshot) -> None:
        if not self.query_one("#running-now", RunningNowStrip).take(snapshot):
            if snapshot.refused and snapshot is not self._refusal:
                # The poller tells it once per token (and asks again only rarely); shown again
                # (the board hidden and shown), the same snapshot is sent again: said once.
                self._refusal = snapshot
                self.notify("Runner lists are not readable with this token (administrators only): "
                            "no running-now strip.", timeout=6)
            return
        self._show_running()

    def _show_running(self) -> None:
        """The strip, said stale while the server is in trouble (a hung server's jobs are not
        "running now")."""
        if self.is_mounted:
            app = self.console_app
            trouble = server_trouble(app.watching, app.client)
            self.query_one("#running-now", RunningNowStrip).show(app.clock(), bool(trouble))

    def _show(self) -> None:
        """Render the current snapshot (keeping the cursor on the same pipeline)."""
        if not self.is_mounted or self.query_one_optional("#board-table", ResourceTable) is None:
            return  # a snapshot that arrives while the screen is built or taken down
        snapshot = self.snapshot
        # The server's time now, not the snapshot's: with nothing changing on the server no new
        # snapshot comes, and ages and running times must still move on.
        now = self.console_app.clock()
        rows = [row for row in snapshot.rows if not self.status_filter or row.status == self.status_filter]
        self._rows = {self._key(row): row for row in rows}
        self.marked &= set(self._rows)
        # Both are refilled below for the rows shown now: a key is a pipeline, and a board left
        # open meets new pipelines all the time (the staleness of every pipeline ever shown was
        # kept for good, ~300 more entries a simulated hour with 300 projects).
        self._timed.clear()
        self._stale.clear()
        self._ages = self.console_app.watching.poller.row_ages()
        self._instance_ages = self._merged_ages()
        table = self.table
        # On the top row the cursor stays on top, the most urgent row, as rows arrive (the first
        # pages of a round come one by one); moved down, it stays on its pipeline.
        keep = table.cursor_key if table.cursor_row else None
        table.clear()
        table.append_rows(self._table_row(row, now) for row in rows)
        self._troubled = None
        if keep is not None:
            table.move_cursor_to_key(keep)
        self._update_context(rows)
        if snapshot.generation:
            self.mark_loaded()

    def _retime(self, now: datetime) -> None:
        """The clock moved on, the data did not: re-render only the rows whose age or running
        time reads differently now (most ticks, none: no repaint at all)."""
        self._ages = self.console_app.watching.poller.row_ages()
        self._instance_ages = self._merged_ages()
        moved = [self._table_row(row, now) for key, row in self._rows.items()
                 if self._times(row, now) != self._timed.get(key) or self._is_stale(row) != self._stale.get(key)]
        self._troubled = None
        if moved:
            self.table.append_rows(moved)  # rows with known keys are replaced in place, in one go

    @staticmethod
    def _times(row: PipelineRow, now: datetime) -> tuple[str, str]:
        """The cells that move with the clock: age, running time."""
        duration = row.duration_at(now)
        if duration is None and not row.timing_known:
            return short_age(row.age_at(now)), "…"  # a partial pipeline whose start or end is not read yet
        return short_age(row.age_at(now)), format_duration(duration.total_seconds()) if duration else "—"

    def _merged_ages(self) -> dict[int, RowAges]:
        """Each instance's row ages, and its trouble for the rendering that follows (asked per row,
        a pass over its projects each time: the most time of a board's first round over two)."""
        if self._merged is None:
            return {}
        self._troubled = {instance.index for instance in self._merged.instances
                          if self._merged.trouble(instance) is not None}
        return self._merged.ages()

    def _is_stale(self, row: PipelineRow) -> bool:
        if self._merged is not None:
            if self._troubled is None:  # else as MergedBoard.stale, with this rendering's trouble
                return self._merged.stale(row, self._instance_ages)
            index = self._merged.owner(row).index
            found = self._instance_ages.get(index)
            return index in self._troubled or (found is not None and found.stale(row))
        return self._ages is not None and self._ages.stale(row)

    def _table_row(self, row: PipelineRow, now: datetime) -> TableRow:
        key = self._key(row)
        status = status_text(self.app, row.status)
        failed = row.failed_label  # "unit-0001 +39 more"; "…" while not every failure is read
        self._timed[key] = age, duration = self._times(row, now)
        stale = self._stale[key] = self._is_stale(row)
        instance = self.instance_of_row(row)
        mark: Text | str = "●" if key in self.marked else (coloured(self.app, "~", "ld-text-warning") if stale else " ")
        cells: dict[str, Text | str] = {
            "mark": mark, "project": project_cell(clean(row.project_path)),
            "pipeline": f"#{row.pipeline_id}", "ref": clean(row.ref or "—"), "status": status,
            "failed": failed_cell(clean(failed)) or ("…" if row.status == "failed" else "—"), "why": why_cell(clean(self.why(row))), "running": row.running_label,
            "age": age, "duration": duration, "by": clean(row.triggered_by or "—"),
            "instance": instance.mark(self.app) if instance is not None else "",
        }
        return TableRow(
            key=key,
            cells=tuple(cells[column.key] for column in self.table.columns),
            data=row,
            search_text=" ".join((row.project_path, row.ref or "", row.status, failed,
                                  row.triggered_by or "", str(row.pipeline_id),
                                  instance.short if instance is not None else "")).lower(),
        )

    def _update_context(self, rows: list[PipelineRow]) -> None:
        if self._merged is not None:
            unseen = sum(instance.watching.unseen for instance in self._merged.instances
                         if instance.watching is not None)
            extra = ((f"f={self.status_filter}",) if self.status_filter else ()) \
                + ((f"{unseen} alert{'s' if unseen != 1 else ''} (!)",) if unseen else ())
            # The title row: the section's name and the row counts beside it (each with its padding).
            counts = len(f"{self.table.row_count} rows") + len(self.table.filter_text) + 4
            self._set_context(self._merged.context(rows, width=self.size.width - len(self.section_title) - counts - 4,
                                                   extra=extra))
            return
        # The title row: the section's name and the row counts beside it (each with its padding).
        room = self.size.width - len(self.section_title) - len(f"{self.table.row_count} rows") \
            - len(self.table.filter_text) - 8 if self.size.width else None
        self._set_context(board_context(self.snapshot, self.console_app.watching, self.console_app.client, rows,
                                        self.status_filter, room))

    def _set_context(self, text: str) -> None:
        self.context_text = text
        table = self.table
        titled = (self.context_text, table.row_count, table.visible_count, table.filter_text)
        if titled != self._titled:  # the title row's labels lay the screen out again when updated
            self._titled = titled
            self.update_title()

    def tick(self, now: datetime) -> None:
        """Ages and durations move on every few seconds; the data age follows the poller."""
        freshness = self.console_app.watching.freshness()
        table = self.query_one_optional("#board-table", ResourceTable) if self.is_mounted else None
        if table is not None:
            shown = [row.data for row in table.visible_rows() if isinstance(row.data, PipelineRow)]
        else:
            shown = [row for row in self.snapshot.rows if not self.status_filter or row.status == self.status_filter]
        ages = self.console_app.watching.poller.row_ages()
        label, stale = freshness.label, freshness.is_stale
        if self._merged is not None:
            label, stale = self._merged.freshness_label(shown)
        elif shown and ages.oldest(shown) is not None:
            # The oldest row's age among those on screen, not the last round's: a round can be fresh
            # while rows are not, and in trouble a round completes with the reads that failed (a
            # wrong-shape storm said "data <10s" beside its reason). With no complete round to date
            # from, still the rows' age (not "loading 2" over rows read a minute ago). Amber when a
            # row is older than its class allows or reads fail, not because a round (paced by the
            # budget) is still going.
            label = ages.label(shown)
            if freshness.error is not None:
                label = label.replace("oldest", "data", 1)  # the short word: the reason beside it needs the room
            stale = freshness.error is not None or any(ages.stale(row) for row in shown)
        trouble = self.standing_trouble()
        self._show_running()
        for status in StatusLine.on_screen(self):
            status.show_freshness(label, stale)
            if status.question_trouble != trouble:
                status.question_trouble = trouble
                status.update_status()
        if self.is_mounted and self.query_one_optional("#board-table", ResourceTable) is not None:
            # The header follows the connection too (an error, a countdown, the first round done).
            self._update_context([row for row in self.snapshot.rows
                                  if not self.status_filter or row.status == self.status_filter])
        period = int(now.timestamp()) // AGES_EVERY
        moved = self._merged is not None and self._merged.trouble_moved()  # one instance's rows turn stale
        if (period != self._aged_period or moved) and self.snapshot.rows:
            # Once per period, whichever tick sees it first (a late tick never skips one).
            self._aged_period = period
            self._retime(now)

    def standing_trouble(self) -> str | None:
        """The board's own question: why a project's read or the listing of watched projects
        failed last (other reads answered 304 do not make these rows fresh)."""
        if self._merged is not None:
            return None  # each instance says its own trouble in the header
        problems = self.snapshot.watched.problems if self.snapshot.watched is not None else ()
        return self.console_app.watching.freshness().error or (problems[0] if problems else None)

    def tick_covered(self, now: datetime) -> None:
        """Under a dialog the board stays in view and its poller reads on: the same as on top."""
        self.tick(now)

    def reload(self) -> None:
        """``ctrl+r``: list the starred and group projects again and read them."""
        self._pipelines.relist()
        self.notify("Reading the watched projects again…", timeout=2)

    # --- actions ------------------------------------------------------------------------------

    def selected(self) -> PipelineRow | None:
        """The pipeline under the cursor."""
        row = self.table.cursor_data
        return row if isinstance(row, PipelineRow) else None

    def action_open_pipeline(self) -> None:
        """The jobs of the pipeline under the cursor (on a cluster: the cluster's jobs)."""
        strip = self.query_one("#board-clusters", ClusterStrip)
        if strip.has_focus:
            cluster = strip.cursor_data
            if cluster is not None:
                self.app.push_screen(ClusterScreen(cluster))
            return
        row = self.selected()
        if row is not None:
            self.console_app.open_pipeline(row.project_id, row.project_path, row.pipeline_id, row.jobs)

    def action_follow_running(self) -> None:
        """``F``: the running jobs of the pipeline under the cursor, in one live view."""
        row = self.selected()
        if row is None:
            return
        running = [job for job in row.jobs if job.status == "running"]
        if not running:
            self.notify("No job of this pipeline is running.", timeout=3)
            return
        from labdeck.ui.screens.follow.screen import open_follow

        open_follow(self.app, row.project_id, row.project_path, running, title=f"#{row.pipeline_id} running")

    def on_resource_table_selected(self, event: ResourceTable.Selected) -> None:
        event.stop()
        self.action_open_pipeline()

    async def action_back(self) -> None:
        """``esc`` on the clusters goes back to the pipelines; elsewhere as on every section."""
        strip = self.query_one_optional("#board-clusters", ClusterStrip)
        if strip is not None and strip.has_focus:
            self.table.focus()
            return
        await super().action_back()

    def action_clusters(self) -> None:
        """``c``: to the clusters above the pipelines, and it stays there when pressed again
        (``tab``, a click or ``esc`` go back to the pipelines)."""
        strip = self.query_one("#board-clusters", ClusterStrip)
        if not strip.row_count:
            self.notify("No clusters: no error is shared by several projects (or triage is still running).",
                        timeout=3)
            return
        strip.focus()

    def action_bundle(self) -> None:
        """``B``: the incident bundle of the pipeline under the cursor (reads only)."""
        from labdeck.ui.dialogs.bundle import request_bundle

        row = self.selected()
        if row is None:
            self.notify("Pick a pipeline first.", severity="warning", timeout=3)
            return
        request_bundle(self, row.project_path, project=row.project_id, pipeline=row.pipeline_id)

    def action_cycle_status(self) -> None:
        """All → failed → running → pending → manual → success → all."""
        index = STATUS_FILTERS.index(self.status_filter)
        self.status_filter = STATUS_FILTERS[(index + 1) % len(STATUS_FILTERS)]
        self._show()
