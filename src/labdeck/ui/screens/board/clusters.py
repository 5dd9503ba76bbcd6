"""Clusters on the board: the same normalized error in several projects is one incident.

The board shows them above its pipelines (:class:`ClusterStrip`: ``image pull from
registry.example.com failed · 3 projects · infra``); ``enter`` on one opens
:class:`ClusterScreen`, its failed jobs with their verdicts and owners, where marked rows
(``space``) are retried through the bulk machinery (a dry run, one confirmation).
Clusters come from the triage report (:mod:`labdeck.ui.triaging`); nothing here decides a verdict.
On a board over several instances the instances' reports are merged (:func:`merged_clusters`): a
registry outage failing jobs on production and on staging is one cluster, each job named by its
instance, and each action on a job goes to that job's own instance.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

from textual.app import App
from textual.binding import Binding, BindingType

from labdeck.operations.bulk_plan import JobTarget, plan_retry
from labdeck.triage.report import Cluster, Failure, TriageReport, merge_reports
from labdeck.ui.dialogs.bulk import open_bulk_action
from labdeck.ui.dialogs.form import clean
from labdeck.ui.instances import Instance, instances_of, primary_triaging
from labdeck.ui.screens.board.cells import cluster_cell
from labdeck.ui.screens.jobs.detail import JobDetailScreen
from labdeck.ui.screens.table_section import TableSectionScreen
from labdeck.ui.widgets.resource_table import Column, ResourceTable, TableRow

STRIP_COLUMNS = (Column("cluster", "Clusters: the same error in several projects", min_width=20, max_width=200,
                        flex=True),)
STRIP_ROWS = 4
"""Cluster rows shown above the pipelines (the strip scrolls past that)."""


def cluster_row(cluster: Cluster) -> TableRow:
    """One row of the board's cluster strip (plain text: signatures come from server logs)."""
    return TableRow(key=("cluster", cluster.signature), cells=(cluster_cell(clean(cluster.title)),), data=cluster,
                    search_text=" ".join((cluster.title, *cluster.projects)).lower())


def merged_clusters(app: App[Any], instances: Sequence[Instance]) -> tuple[list[Cluster], dict[int, Instance]]:
    """The clusters over every instance's triage report (a signature shared by projects of two
    instances is one cluster whose failures name their instance), and ``id(cluster)`` → its
    instance for the clusters that lie within one instance."""
    reports: dict[str, TriageReport] = {}
    for instance in instances:
        report = primary_triaging(app, instance).report
        if report is not None:
            reports.setdefault(instance.short, report)
    by_name = {instance.short: instance for instance in reversed(instances)}
    clusters = list(merge_reports(reports).clusters) if reports else []
    owners = {id(cluster): by_name[cluster.instances[0]] for cluster in clusters
              if len(cluster.instances) == 1 and cluster.instances[0] in by_name}
    return clusters, owners


class ClusterStrip(ResourceTable):
    """The clusters above the board's pipelines (hidden when there are none)."""

    MAIN = False

    DEFAULT_CSS = """
    ClusterStrip { height: auto; max-height: 6; display: none; }
    ClusterStrip.-shown { display: block; }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(STRIP_COLUMNS, id=id)

    def show_clusters(self, clusters: Sequence[Cluster]) -> None:
        """Show ``clusters`` (biggest first), keeping the cursor on the same one."""
        keep = self.cursor_key
        self.clear()
        self.append_rows(cluster_row(cluster) for cluster in clusters)
        if keep is not None:
            self.move_cursor_to_key(keep)
        self.styles.height = min(len(clusters), STRIP_ROWS) + 1
        self.set_class(bool(clusters), "-shown")


COLUMNS = (
    Column("mark", " ", max_width=1),
    Column("project", "Project", min_width=16, max_width=36, flex=True),
    Column("pipeline", "Pipeline", align="right", max_width=9),
    Column("job", "Job", min_width=8, max_width=30, flex=True),
    Column("ref", "Ref", min_width=6, max_width=16, flex=True),
    Column("why", "Why", max_width=18),
    Column("owner", "Whose", min_width=10, max_width=48, flex=True),
)


class ClusterScreen(TableSectionScreen):
    """The failed jobs of one cluster; ``space`` marks, ``R`` retries the marked ones (dry run first)."""

    SECTION_TITLE = "Cluster"
    TABLE_ID = "cluster-jobs"
    BINDING_GROUP_TITLE = "Cluster"
    COLUMNS = COLUMNS
    MUTATING_ACTIONS = frozenset({"retry_marked"})
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("space", "mark", "Mark", id="cluster.mark", tooltip="Mark the job for a bulk retry"),
        Binding("R", "retry_marked", "Retry", id="cluster.retry",
                tooltip="Retry the marked jobs of the cluster (or the one under the cursor): dry run first"),
        Binding("i", "job_detail", "Detail", id="cluster.detail",
                tooltip="The job's details: its verdict, evidence, owner and history"),
        Binding("enter", "open_pipeline", "Pipeline", id="cluster.pipeline", tooltip="The job's pipeline"),
    ]
    HELP = """
## Cluster
The failed jobs that share one normalized error across projects: one incident, not many.

- **space** mark jobs · **R** retry the marked ones (dry run, one confirmation)
- **i** the job's verdict, evidence, owner and history · **enter** its pipeline
"""

    def __init__(self, cluster: Cluster) -> None:
        super().__init__()
        self.cluster = cluster
        self.marked: set[tuple[str, int]] = set()
        """Marked jobs: (instance short name, job id); job ids of two instances may be the same."""
        self.context_text = clean(cluster.title)
        self._acting_for: Instance | None = None

    async def load(self) -> None:
        """Nothing to read: the cluster's failures are in the triage report."""
        self._show()
        self.mark_loaded()

    @staticmethod
    def _key(failure: Failure) -> tuple[str, int]:
        return (failure.instance, failure.job.id)

    def _row(self, failure: Failure) -> TableRow:
        job = failure.job
        # Over several instances a member is named by its instance (``staging:web/api``).
        cells = {"mark": "●" if self._key(failure) in self.marked else " ", "project": clean(failure.where),
                 "pipeline": f"#{failure.pipeline_id}", "job": clean(f"#{job.id} {job.name or ''}"),
                 "ref": clean(job.ref or "—"), "why": clean(failure.verdict.label), "owner": clean(failure.owner or "—")}
        key: tuple[str, int] | int = self._key(failure) if failure.instance else job.id
        return TableRow(key=key, cells=tuple(cells[column.key] for column in COLUMNS), data=failure)

    def instance_of_failure(self, failure: Failure) -> Instance | None:
        """The instance a member of the cluster comes from (None: this screen's own)."""
        if not failure.instance:
            return self.instance
        return next((instance for instance in instances_of(self.app) if instance.short == failure.instance),
                    self.instance)

    def acting_instance(self) -> Instance | None:
        """The instance of the job under the cursor (``i``, ``enter``), or of the marked jobs while
        their retry opens."""
        if self._acting_for is not None:
            return self._acting_for
        failure = self.selected()
        return self.instance_of_failure(failure) if failure is not None else self.instance

    def _show(self) -> None:
        self.replace_rows(self._row(failure) for failure in self.cluster.failures)

    def selected(self) -> Failure | None:
        """The failure under the cursor."""
        data = self.table.cursor_data
        return data if isinstance(data, Failure) else None

    def action_mark(self) -> None:
        """Mark or unmark the job under the cursor, then move down."""
        failure = self.selected()
        if failure is None:
            return
        self.marked.symmetric_difference_update({self._key(failure)})
        self.table.update_row(self._row(failure))
        self.table.action_cursor_down()

    def action_retry_marked(self) -> None:
        """``R``: retry the marked jobs (the one under the cursor when none is marked)."""
        if self.refuse_if_read_only():
            return
        chosen = [f for f in self.cluster.failures if self._key(f) in self.marked]
        if not chosen and (current := self.selected()) is not None:
            chosen = [current]
        if not chosen:
            return
        names = sorted({f.instance for f in chosen})
        if len(names) > 1:
            # One dialog sends to one instance: it names it, and its client sends the requests.
            self.notify(f"The marked jobs are on several instances ({', '.join(names)}): mark those of one.",
                        severity="warning", timeout=5, markup=False)
            return
        targets = [JobTarget(f.project_id, f.project, f.job) for f in chosen]
        plan = plan_retry(targets, marked=True, action="cluster.retry",
                          scope=f"a cluster ({len({f.project for f in chosen})} projects)")

        def done(outcome: object) -> None:
            if outcome is not None:
                self.marked.clear()
                self._show()

        # The dialog takes the marked jobs' instance (not the one of the row under the cursor).
        self._acting_for = self.instance_of_failure(chosen[0])
        try:
            open_bulk_action(self.app, plan, on_done=done)
        finally:
            self._acting_for = None

    def action_job_detail(self) -> None:
        """The job's details (verdict, evidence, owner, history)."""
        failure = self.selected()
        if failure is not None:
            self.app.push_screen(JobDetailScreen(failure.project_id, failure.project, failure.job))

    def action_open_pipeline(self) -> None:
        """The job's pipeline."""
        failure = self.selected()
        if failure is not None:
            self.console_app.open_pipeline(failure.project_id, failure.project, failure.pipeline_id)

    def on_resource_table_selected(self, event: ResourceTable.Selected) -> None:
        event.stop()
        self.action_open_pipeline()

    def copy_target(self) -> str | None:
        """``y``: the job's address."""
        failure = self.selected()
        return failure.job.web_url if failure is not None else None
