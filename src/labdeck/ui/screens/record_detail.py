"""A generic "every field of one record" screen (runners, issues …), filterable with ``/``.

    self.app.push_screen(RecordDetailScreen("Runner", f"#{runner.id}", lambda: client.runners.get(runner.id)))

Nested records are shown as ``key=value`` lists; fields named in ``hidden`` (secrets such as
``token``) are never shown.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable
from datetime import date, datetime
from typing import Any

from pydantic import BaseModel

from labdeck.ui.formatting import relative_time
from labdeck.ui.screens.table_section import TableSectionScreen
from labdeck.ui.widgets.resource_table import Column, TableRow

SECRET_FIELDS = frozenset({"token", "runners_token", "password", "secret"})


def value_text(value: Any, now: datetime) -> str:
    """One field's value as table text (times get their age, booleans yes/no)."""
    if value is None:
        return "—"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, datetime):
        return f"{value.isoformat(timespec='seconds')} ({relative_time(value, now)})"
    if isinstance(value, date):
        return value.isoformat()
    if isinstance(value, list):
        return ", ".join(value_text(item, now) for item in value) or "—"
    if isinstance(value, dict):
        return ", ".join(f"{k}={value_text(v, now)}" for k, v in value.items()) or "—"
    if hasattr(value, "model_dump"):
        data = value.model_dump(exclude_none=True)
        return ", ".join(f"{k}={v}" for k, v in data.items()) or "—"
    return str(value)


def record_rows(record: BaseModel, now: datetime, hidden: Iterable[str] = SECRET_FIELDS) -> list[TableRow]:
    """(field, value) rows for every field of a record, in the model's order, secrets left out."""
    skip = set(hidden)
    return [TableRow(key=name, cells=(name, value_text(value, now))) for name, value in record if name not in skip]


class RecordDetailScreen(TableSectionScreen):
    """Fields of one record fetched by ``load()``; ``y`` copies the highlighted value."""

    SECTION_TITLE = "Detail"
    TABLE_ID = "record-fields"
    COLUMNS = (Column("field", "Field", max_width=32, flex=True, min_width=16, squeeze=20),
               Column("value", "Value", max_width=200, flex=True, min_width=20))

    def __init__(self, title: str, context: str, load: Callable[[], Awaitable[BaseModel]]) -> None:
        super().__init__()
        self.section_title = title
        self.context_text = context
        self._load_record = load
        self.record: BaseModel | None = None

    async def load(self) -> None:
        """Fetch the record again."""
        self.record = await self._load_record()
        self.replace_rows(record_rows(self.record, self.console_app.clock()), keep_cursor=False)
        self.mark_loaded()

    def copy_target(self) -> str | None:
        return self.cursor_cell_text(1)
