"""A virtual table for long resource lists (projects, runners, issues …).

Only the rows on screen are rendered, so 10,000 rows load, filter and scroll without delay
(the built-in ``DataTable`` measures every row on insert and takes about a second for 10,000).

Usage::

    table = ResourceTable([Column("path", "Path", max_width=48), Column("stars", "★", align="right")])
    table.append_rows([TableRow(key=p.id, cells=(p.path_with_namespace, str(p.star_count)), data=p)])
    table.set_filter("api")        # case-insensitive substring; "!api" inverts
    table.cursor_key, table.cursor_data

Cells are plain ``str`` or ``rich.text.Text`` (never markup: server strings are shown verbatim).
Messages: :class:`ResourceTable.Highlighted` when the cursor moves, :class:`ResourceTable.Selected`
on ``enter`` (or a click on the highlighted row).
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal

from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual import events
from textual.binding import Binding, BindingType
from textual.cache import LRUCache
from textual.geometry import Size
from textual.message import Message
from textual.scroll_view import ScrollView
from textual.strip import Strip

Cell = str | Text


@dataclass(frozen=True)
class Column:
    """One column: ``key`` identifies it, ``label`` is the header text."""

    key: str
    label: str
    align: Literal["left", "right"] = "left"
    min_width: int = 1
    max_width: int = 40
    """Auto width grows with the content up to this."""
    flex: bool = False
    """Shrinks (down to ``min_width``) so that the whole row fits the table's width."""


@dataclass
class TableRow:
    """One row. ``data`` is any object the screen wants back (usually the API model)."""

    key: Hashable
    cells: Sequence[Cell]
    data: Any = None
    search_text: str = field(default="")
    """Lower-case text the ``/`` filter matches; built from the cells when empty."""


def _plain(cell: Cell) -> str:
    return cell.plain if isinstance(cell, Text) else cell


class ResourceTable(ScrollView, can_focus=True):
    """A keyboard-driven table that renders only its visible rows."""

    BINDING_GROUP_TITLE = "Table"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("up,k", "cursor_up", "Up", show=False, id="table.up"),
        Binding("down,j", "cursor_down", "Down", show=False, id="table.down"),
        Binding("pageup,ctrl+b", "page_up", "Page up", show=False, id="table.page-up"),
        Binding("pagedown,ctrl+f", "page_down", "Page down", show=False, id="table.page-down"),
        Binding("home,g", "first", "First row", show=False, id="table.first"),
        Binding("end,G", "last", "Last row", show=False, id="table.last"),
        Binding("enter", "select", "Open", show=False, id="table.select"),
    ]
    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "resource-table--header",
        "resource-table--cursor",
    }
    DEFAULT_CSS = """
    ResourceTable {
        overflow: auto auto;
        scrollbar-size-horizontal: 1;
        scrollbar-size-vertical: 1;
        background: $surface;
        color: $foreground;
        height: 1fr;
    }
    ResourceTable > .resource-table--header {
        background: $panel;
        color: $foreground;
        text-style: bold;
    }
    ResourceTable > .resource-table--cursor {
        background: $primary 40%;
        text-style: bold;
    }
    ResourceTable:focus > .resource-table--cursor {
        background: $primary;
        color: $foreground;
    }
    """

    class Highlighted(Message):
        """The cursor moved to another row (``key`` is None when the table is empty)."""

        def __init__(self, table: ResourceTable, key: Hashable | None) -> None:
            super().__init__()
            self.table = table
            self.key = key

        @property
        def control(self) -> ResourceTable:
            return self.table

    class Selected(Message):
        """The user pressed enter on a row."""

        def __init__(self, table: ResourceTable, key: Hashable) -> None:
            super().__init__()
            self.table = table
            self.key = key

        @property
        def control(self) -> ResourceTable:
            return self.table

    GAP = 1

    def __init__(
        self,
        columns: Sequence[Column],
        *,
        name: str | None = None,
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self.columns: list[Column] = list(columns)
        self._rows: list[TableRow] = []
        self._index: dict[Hashable, int] = {}
        self._visible: list[int] = []
        self._widths = [max(c.min_width, len(c.label)) for c in self.columns]
        self._filter = ""
        self._cursor = 0
        self._render_widths = list(self._widths)
        self._cache: LRUCache[tuple[Any, ...], Strip] = LRUCache(512)
        self._generation = 0

    # --- data ---------------------------------------------------------------------------------

    @property
    def row_count(self) -> int:
        """All rows held, filtered or not."""
        return len(self._rows)

    @property
    def visible_count(self) -> int:
        """Rows that pass the current filter."""
        return len(self._visible)

    @property
    def filter_text(self) -> str:
        """The active ``/`` filter (``!`` prefix = inverted)."""
        return self._filter

    def clear(self) -> None:
        """Remove every row (columns stay)."""
        self._rows.clear()
        self._index.clear()
        self._visible.clear()
        self._widths = [max(c.min_width, len(c.label)) for c in self.columns]
        self._cursor = 0
        self._changed(structure=True)

    def append_rows(self, rows: Iterable[TableRow]) -> None:
        """Add rows at the end; a row whose key exists replaces the old one in place."""
        matcher = self._matcher()
        widths = self._widths
        for row in rows:
            if not row.search_text:
                row.search_text = " ".join(_plain(cell) for cell in row.cells).lower()
            for position, cell in enumerate(row.cells[: len(widths)]):
                length = cell.cell_len if isinstance(cell, Text) else len(cell)
                if length > widths[position]:
                    widths[position] = min(length, self.columns[position].max_width)
            existing = self._index.get(row.key)
            if existing is not None:
                self._rows[existing] = row
                continue
            self._index[row.key] = len(self._rows)
            self._rows.append(row)
            if matcher(row.search_text):
                self._visible.append(len(self._rows) - 1)
        self._changed(structure=True)

    def update_row(self, row: TableRow) -> None:
        """Replace the row with the same key (appends it when new)."""
        self.append_rows([row])

    def get_data(self, key: Hashable) -> Any:
        """The ``data`` of the row with ``key`` (None when absent)."""
        position = self._index.get(key)
        return None if position is None else self._rows[position].data

    def rows(self) -> list[TableRow]:
        """Every row, in insertion order (a copy of the list)."""
        return list(self._rows)

    def visible_rows(self) -> list[TableRow]:
        """Rows passing the filter, in display order."""
        return [self._rows[i] for i in self._visible]

    def set_filter(self, text: str) -> None:
        """Keep rows whose text contains ``text`` (case-insensitive); ``!text`` keeps the others."""
        key = self.cursor_key
        self._filter = text
        matcher = self._matcher()
        self._visible = [i for i, row in enumerate(self._rows) if matcher(row.search_text)]
        self._cursor = 0
        if key is not None:
            position = self._index.get(key)
            if position is not None:
                try:
                    self._cursor = self._visible.index(position)
                except ValueError:
                    self._cursor = 0
        self._changed(structure=True)
        self.scroll_to(y=0, animate=False, force=True, immediate=True)
        self._scroll_cursor_into_view()

    def sort(self, column_key: str, *, reverse: bool = False) -> None:
        """Order the rows by a column's text (numbers compare as numbers)."""
        position = next(i for i, c in enumerate(self.columns) if c.key == column_key)

        def sort_key(row: TableRow) -> tuple[int, float, str]:
            text = _plain(row.cells[position]) if position < len(row.cells) else ""
            try:
                return (0, float(text), "")
            except ValueError:
                return (1, 0.0, text.lower())

        key = self.cursor_key
        self._rows.sort(key=sort_key, reverse=reverse)
        self._index = {row.key: i for i, row in enumerate(self._rows)}
        self.set_filter(self._filter)
        if key is not None:
            self.move_cursor_to_key(key)

    def _matcher(self) -> Any:
        text = self._filter
        invert = text.startswith("!")
        needle = text[1:].lower() if invert else text.lower()
        if not needle:
            return lambda _haystack: True
        if invert:
            return lambda haystack: needle not in haystack
        return lambda haystack: needle in haystack

    # --- cursor -------------------------------------------------------------------------------

    @property
    def cursor_row(self) -> int:
        """Index of the cursor among the visible rows."""
        return self._cursor

    @property
    def cursor_key(self) -> Hashable | None:
        """Key of the highlighted row (None when no row is visible)."""
        if not self._visible:
            return None
        return self._rows[self._visible[min(self._cursor, len(self._visible) - 1)]].key

    @property
    def cursor_data(self) -> Any:
        """``data`` of the highlighted row (None when no row is visible)."""
        key = self.cursor_key
        return None if key is None else self.get_data(key)

    def move_cursor(self, row: int) -> None:
        """Put the cursor on visible row ``row`` (clamped) and scroll to it."""
        before = self.cursor_key
        self._cursor = max(0, min(row, len(self._visible) - 1)) if self._visible else 0
        self._cache.clear()
        self.refresh()
        self._scroll_cursor_into_view()
        if self.cursor_key != before:
            self.post_message(self.Highlighted(self, self.cursor_key))

    def move_cursor_to_key(self, key: Hashable) -> bool:
        """Move the cursor to the row with ``key`` if it is visible; True when it is."""
        position = self._index.get(key)
        if position is None:
            return False
        try:
            self.move_cursor(self._visible.index(position))
        except ValueError:
            return False
        return True

    def _page_height(self) -> int:
        return max(1, self.scrollable_content_region.height - 1)

    def _scroll_cursor_into_view(self) -> None:
        top = int(self.scroll_y)
        height = self._page_height()
        if self._cursor < top:
            self.scroll_to(y=self._cursor, animate=False, force=True, immediate=True)
        elif self._cursor >= top + height:
            self.scroll_to(y=self._cursor - height + 1, animate=False, force=True, immediate=True)

    def action_cursor_up(self) -> None:
        self.move_cursor(self._cursor - 1)

    def action_cursor_down(self) -> None:
        self.move_cursor(self._cursor + 1)

    def action_page_up(self) -> None:
        self.move_cursor(self._cursor - self._page_height())

    def action_page_down(self) -> None:
        self.move_cursor(self._cursor + self._page_height())

    def action_first(self) -> None:
        self.move_cursor(0)

    def action_last(self) -> None:
        self.move_cursor(len(self._visible) - 1)

    def action_select(self) -> None:
        key = self.cursor_key
        if key is not None:
            self.post_message(self.Selected(self, key))

    def on_click(self, event: events.Click) -> None:
        """Click highlights a row; a click on the highlighted row opens it."""
        row = int(self.scroll_y) + event.y - 1
        if event.y < 1 or row >= len(self._visible):
            return
        if row == self._cursor:
            self.action_select()
        else:
            self.move_cursor(row)

    # --- rendering ----------------------------------------------------------------------------

    def _effective_widths(self) -> list[int]:
        widths = list(self._widths)
        available = self.scrollable_content_region.width or self.size.width
        total = sum(widths) + self.GAP * max(0, len(widths) - 1) + 1
        if available and total > available:
            for position, column in enumerate(self.columns):
                if column.flex:
                    shrink = min(total - available, widths[position] - column.min_width)
                    widths[position] -= max(0, shrink)
                    total -= max(0, shrink)
        return widths

    def on_resize(self) -> None:
        self._changed(structure=False)

    def _changed(self, *, structure: bool) -> None:
        self._generation += 1
        self._cache.clear()
        self._render_widths = self._effective_widths()
        total_width = sum(self._render_widths) + self.GAP * max(0, len(self._render_widths) - 1) + 1
        self.virtual_size = Size(total_width, len(self._visible) + 1)
        if self._visible and self._cursor >= len(self._visible):
            self._cursor = len(self._visible) - 1
        self.refresh()

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._cache.clear()

    def _line_text(self, cells: Sequence[Cell], style: Style) -> Text:
        line = Text(style=style, no_wrap=True, end="")
        gap = " " * self.GAP
        for position, column in enumerate(self.columns):
            width = self._render_widths[position]
            cell = cells[position] if position < len(cells) else ""
            text = cell.copy() if isinstance(cell, Text) else Text(cell)
            text.no_wrap = True
            if text.cell_len > width:
                text.truncate(width, overflow="ellipsis")
            padding = width - text.cell_len
            if column.align == "right":
                line.append(" " * padding)
                line.append_text(text)
            else:
                line.append_text(text)
                line.append(" " * padding)
            if position < len(self.columns) - 1:
                line.append(gap)
        line.append(" ")
        return line

    def _strip_for(self, key: tuple[Any, ...], cells: Sequence[Cell], style: Style) -> Strip:
        cached = self._cache.get(key)
        if cached is not None:
            return cached
        text = self._line_text(cells, style)
        # every segment carries a style: Textual's NO_COLOR (monochrome) filter needs one
        segments = [Segment(s.text, s.style or style) for s in text.render(self.app.console) if s.text != "\n"]
        strip = Strip(segments, text.cell_len)
        self._cache[key] = strip
        return strip

    def render_line(self, y: int) -> Strip:
        """Line 0 is the header; the others are the visible rows under the scroll offset."""
        scroll_x, scroll_y = self.scroll_offset
        width = self.scrollable_content_region.width
        base = self.rich_style
        if y == 0:
            style = base + self.get_component_rich_style("resource-table--header")
            strip = self._strip_for(("header", self._generation), [c.label for c in self.columns], style)
            return strip.crop_extend(scroll_x, scroll_x + width, style)
        index = scroll_y + y - 1
        if index >= len(self._visible):
            return Strip.blank(width, base)
        row = self._rows[self._visible[index]]
        is_cursor = index == self._cursor
        style = base + self.get_component_rich_style("resource-table--cursor") if is_cursor else base
        strip = self._strip_for(("row", self._generation, row.key, is_cursor), row.cells, style)
        return strip.crop_extend(scroll_x, scroll_x + width, style)
