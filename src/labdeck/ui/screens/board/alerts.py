"""``!``: the alerts that fired this session (newest first), and what is being watched."""

from __future__ import annotations

from typing import ClassVar

from textual.binding import Binding, BindingType

from labdeck.ui.dialogs.form import clean
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
        watching = self.console_app.watching
        watching.unseen = 0
        watching.log.mark_seen()
        rows: list[TableRow] = []
        for index, alert in enumerate(reversed(watching.log.entries)):
            rows.append(TableRow(key=("alert", index), data=alert, cells=(
                alert.at.astimezone().strftime("%H:%M:%S"), alert.event.replace("_", " "),
                clean(alert.target.label), clean(f"{alert.title} — {alert.body}"))))
        for index, target in enumerate(watching.alerts.targets):
            rows.append(TableRow(key=("watch", index), data=target, cells=(
                "", "watching", clean(target.label), f"alert when it {_watch_text(target)}")))
        self.replace_rows(rows, keep_cursor=False)
        fired = len(watching.log.entries)
        self.context_text = f"{fired} fired · {len(watching.alerts.targets)} watched"
        self.mark_loaded()

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
        if target is not None and self.console_app.watching.alerts.unwatch(target):
            self.notify(f"No more alerts for {target.label}.", timeout=3)
            self.reload()


def _watch_text(target: WatchTarget) -> str:
    return {"job": "finishes or fails", "pipeline": "fails or finishes",
            "project": "has a new failure"}.get(target.kind, "changes")
