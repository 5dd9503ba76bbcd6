"""``!``: the alerts that fired this session (newest first), and what is being watched."""

from __future__ import annotations

from typing import ClassVar

from textual.binding import Binding, BindingType

from labdeck.ui.dialogs.form import clean
from labdeck.ui.instances import Instance, instances_of
from labdeck.ui.screens.table_section import TableSectionScreen
from labdeck.ui.widgets.resource_table import Column, TableRow
from labdeck.watch import Alert, WatchTarget

COLUMNS = (
    Column("when", "When", max_width=8),
    Column("event", "Event", max_width=11),
    Column("target", "Target", min_width=12, max_width=60, flex=True),
    Column("what", "What", min_width=10, max_width=80, flex=True),
)


class AlertLogScreen(TableSectionScreen):
    """Fired alerts first, then the targets still watched (``W`` toggles them)."""

    SECTION_TITLE = "Alerts"
    TABLE_ID = "alerts-table"
    COLUMNS = COLUMNS
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "open_target", "Open", id="alerts.open"),
        Binding("W", "unwatch", "Stop watching", id="alerts.unwatch"),
    ]

    async def load(self) -> None:
        instances = instances_of(self.app)
        # Every instance's own alerts (a board over several profiles), its short name on each.
        self._owners: dict[object, Instance | None] = {}
        rows: list[TableRow] = []
        fired = watched = 0
        each: list[Instance | None] = list(instances) or [None]
        for instance in each:
            watching = instance.watching if instance is not None and instance.watching is not None \
                else self.console_app.watching
            watching.unseen = 0
            watching.log.mark_seen()
            tag = f"{instance.short}: " if instance is not None and len(instances) > 1 else ""
            number = instance.index if instance is not None else 0
            for index, alert in enumerate(reversed(watching.log.entries)):
                key = ("alert", number, index) if tag else ("alert", index)
                rows.append(TableRow(key=key, data=alert, cells=(
                    alert.at.astimezone().strftime("%H:%M:%S"), alert.event.replace("_", " "),
                    clean(tag + alert.target.label), clean(f"{alert.title} — {alert.body}"))))
                self._owners[key] = instance
            for index, target in enumerate(watching.alerts.targets):
                key = ("watch", number, index) if tag else ("watch", index)
                rows.append(TableRow(key=key, data=target, cells=(
                    "", "watching", clean(tag + target.label), f"alert when it {_watch_text(target)}")))
                self._owners[key] = instance
            fired += len(watching.log.entries)
            watched += len(watching.alerts.targets)
        # Newest alert first whatever the instance, then what is watched.
        rows.sort(key=lambda row: (0, -row.data.at.timestamp()) if isinstance(row.data, Alert) else (1, 0.0))
        self.replace_rows(rows, keep_cursor=False)
        self.context_text = f"{fired} fired · {watched} watched"
        self.mark_loaded()

    def acting_instance(self) -> Instance | None:
        """The instance of the alert under the cursor (its pipeline opens there)."""
        found = getattr(self, "_owners", {}).get(self.table.cursor_key)
        return found if isinstance(found, Instance) and not found.primary else None

    def _target(self) -> WatchTarget | None:
        data = self.table.cursor_data
        if isinstance(data, Alert):
            return data.target
        return data if isinstance(data, WatchTarget) else None

    def action_open_target(self) -> None:
        """The pipeline (or the project's jobs) the alert is about."""
        target = self._target()
        if target is None:
            return
        if target.pipeline_id is not None:
            self.console_app.open_pipeline(target.project_id, target.project_path, target.pipeline_id)
        else:
            self.console_app.open_jobs(target.project_id, target.project_path)

    def on_resource_table_selected(self) -> None:
        self.action_open_target()

    def action_unwatch(self) -> None:
        """Stop watching the highlighted target."""
        target = self._target()
        instance = getattr(self, "_owners", {}).get(self.table.cursor_key)
        watching = instance.watching if isinstance(instance, Instance) and instance.watching is not None \
            else self.console_app.watching
        if target is not None and watching.alerts.unwatch(target):
            self.notify(f"No more alerts for {target.label}.", timeout=3)
            self.reload()


def _watch_text(target: WatchTarget) -> str:
    return {"job": "finishes or fails", "pipeline": "fails or finishes",
            "project": "has a new failure"}.get(target.kind, "changes")
