"""The board's actions on its rows: watch or unwatch a project, alert on a pipeline, mark rows
and act on the marked ones in bulk (after a dry run). On a board over several instances each goes
to the row's own instance (a bulk action to one instance at a time)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from labdeck.operations.bulk_plan import PLANNERS, BulkKind, BulkOutcome, pipeline_targets
from labdeck.ui.dialogs.bulk import open_bulk_action
from labdeck.ui.instances import Instance
from labdeck.ui.screens.board.merged import MergedBoard
from labdeck.ui.widgets.resource_table import ResourceTable, TableRow
from labdeck.watch import BoardSnapshot, PipelineRow, WatchTarget


class BoardActions:
    """Mixed into :class:`~labdeck.ui.screens.board.board.BoardScreen` (which sets the state up)."""

    snapshot: BoardSnapshot
    marked: set[tuple[int, ...]]
    _rows: dict[tuple[int, ...], PipelineRow]
    _merged: MergedBoard | None
    _pipelines: Any
    app: Any
    console_app: Any
    _cluster_owner: dict[int, Instance]

    if TYPE_CHECKING:
        @property
        def table(self) -> ResourceTable:
            """The pipelines table (the screen's)."""

    # Provided by the screen:
    selected: Callable[[], PipelineRow | None]
    query_one_optional: Callable[..., Any]
    instance: Instance | None
    _table_row: Callable[[PipelineRow, Any], TableRow]
    notify: Callable[..., None]
    refuse_if_read_only: Callable[[], bool]
    update_title: Callable[[], None]

    def instance_of_row(self, row: PipelineRow) -> Instance | None:
        """The instance of a row on a board over several instances (None: a board of one)."""
        return self._merged.owner(row) if self._merged is not None else None

    def _key(self, row: PipelineRow) -> tuple[int, ...]:
        """The row's key: its pipeline, and its instance's number on a board over several."""
        instance = self.instance_of_row(row)
        if instance is None:
            return (row.project_id, row.pipeline_id)
        return (instance.index, row.project_id, row.pipeline_id)

    def acting_instance(self) -> Instance | None:
        """The instance of the row (or the cluster) under the cursor, or of the marked rows."""
        if self._merged is None:
            return self.instance
        strip = self.query_one_optional("#board-clusters")
        if strip is not None and strip.has_focus and strip.cursor_data is not None:
            return self._cluster_owner.get(id(strip.cursor_data))
        marked = {self._merged.owner(row).index: self._merged.owner(row) for row in self.marked_rows()}
        found = next(iter(marked.values())) if len(marked) == 1 else None
        return found if found is not None and not found.primary else None

    def action_toggle_watch(self) -> None:
        """Take the row's project off the board, when ``w`` put it there."""
        row = self.selected()
        if row is None:
            return
        watched = self.snapshot.watched
        sources = next((project.sources for project in (watched.projects if watched else ())
                        if project.id == row.project_id), frozenset())
        if self._merged is not None:
            instance = self._merged.owner(row)
            sources = self._merged_sources(instance, row)
            if "added" in sources and instance.watching is not None:
                instance.watching.store.remove(row.project_id)
                self.notify(f"{instance.short}: {row.project_path} is no longer watched.", timeout=3)
                self._merged.changed(instance)
                return
        if "added" in sources:
            self.console_app.watching.store.remove(row.project_id)
            self.notify(f"{row.project_path} is no longer watched.", timeout=3)
            self._pipelines.changed()
            return
        why = "starred (unstar it in Projects)" if "starred" in sources else \
            ", ".join(source for source in sorted(sources)) or "watched"
        self.notify(f"{row.project_path} stays on the board: {why}.", severity="warning", timeout=5)

    def _merged_sources(self, instance: Instance, row: PipelineRow) -> frozenset[str]:
        assert self._merged is not None
        watched = self._merged.snapshots[instance.index].watched if instance.index in self._merged.snapshots else None
        return next((project.sources for project in (watched.projects if watched else ())
                     if project.id == row.project_id), frozenset())

    def action_alert(self) -> None:
        """Alert when the pipeline under the cursor fails or finishes (again: stop)."""
        row = self.selected()
        if row is None:
            return
        instance = self.instance_of_row(row)
        if instance is not None and instance.watching is not None:
            # The row's own instance watches it (its poller reads it, its alert log says so).
            assert self._merged is not None
            own = tuple(other for other in self.snapshot.rows if self._merged.owner(other) is instance)
            on = instance.watching.alerts.toggle(WatchTarget.for_pipeline(row), own)
            instance.watching.poller.wake()
            self.notify(f"{'Alert on' if on else 'No more alerts for'} {instance.short}: {row.project_path} "
                        f"#{row.pipeline_id}.", timeout=3)
            return
        on = self.console_app.watching.alerts.toggle(WatchTarget.for_pipeline(row), self.snapshot.rows)
        self.notify(f"{'Alert on' if on else 'No more alerts for'} {row.project_path} #{row.pipeline_id}.",
                    timeout=3)

    def action_mark(self) -> None:
        """Mark or unmark the pipeline under the cursor, then move down."""
        row = self.selected()
        if row is None:
            return
        key = self._key(row)
        self.marked.symmetric_difference_update({key})
        now = self.console_app.clock()
        self.table.update_row(self._table_row(row, now))
        self.table.action_cursor_down()
        self.update_title()

    def _bulk(self, kind: BulkKind) -> None:
        rows = self.marked_rows()
        if not rows or self.refuse_if_read_only():
            return
        merged = self._merged
        if merged is not None and len({merged.owner(row).index for row in rows}) > 1:
            # One dialog sends to one instance: it names it, and its client sends the requests.
            names = ", ".join(sorted({merged.owner(row).short for row in rows}))
            self.notify(f"The marked pipelines are on several instances ({names}): mark those of one.",
                        severity="warning", timeout=6)
            return
        acting = merged.owner(rows[0]) if merged is not None else None
        scope = f"{len(rows)} pipeline{'s' if len(rows) != 1 else ''}"
        plan = PLANNERS[kind](pipeline_targets(rows), action=f"board.{kind}", scope=scope)

        def done(outcome: BulkOutcome | None) -> None:
            if outcome is not None:
                self.marked.clear()
                if merged is not None:
                    merged.changed(acting)  # read that instance's projects again: they changed
                else:
                    self._pipelines.changed()

        open_bulk_action(self.app, plan, on_done=done)

    def action_retry_marked(self) -> None:
        """``R``: retry the failed jobs of the marked pipelines (after a dry run)."""
        self._bulk("retry")

    def action_cancel_marked(self) -> None:
        """``C``: cancel what runs or waits in the marked pipelines (after a dry run)."""
        self._bulk("cancel")

    def action_play_marked(self) -> None:
        """``P``: play the manual jobs of the marked pipelines (after a dry run)."""
        self._bulk("play")

    def marked_rows(self) -> list[PipelineRow]:
        """The marked pipelines (the one under the cursor when none is marked)."""
        rows = [self._rows[key] for key in sorted(self.marked) if key in self._rows]
        if not rows and (row := self.selected()) is not None:
            rows = [row]
        return rows

    def copy_target(self) -> str | None:
        """``y``: the pipeline's address (from its jobs' web URLs)."""
        row = self.selected()
        if row is None:
            return None
        for job in row.jobs:
            if job.web_url and "/-/jobs/" in job.web_url:
                return f"{job.web_url.split('/-/jobs/')[0]}/-/pipelines/{row.pipeline_id}"
        return f"{row.project_path} #{row.pipeline_id}"
