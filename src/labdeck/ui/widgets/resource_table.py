"""A virtual table for long resource lists (projects, runners, issues …).

Only the rows on screen are rendered, so 10,000 rows load, filter and scroll without delay
(the built-in ``DataTable`` measures every row on insert and takes about a second for 10,000).

Rows are kept column-wise (keys, cell tuples, search texts, data in four lists), not as one
object per row: tuples of strings are not tracked by Python's cycle collector, so 10,000 rows
do not lengthen its full passes, which otherwise land in the middle of a keystroke. Rendered lines
are cached already cut to the visible width, one ``Strip`` per row on screen.

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

from bisect import bisect_left
from collections.abc import Hashable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal

from rich.cells import cell_len, set_cell_size
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

from labdeck.ui.widgets.shortening import Shortens

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
    squeeze: int = 1
    """How readily a flexible column gives up room, relative to the others (its spare cells are
    weighted by this): a detail's field names before their values, say."""


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


def _parse_filter(text: str) -> tuple[bool, str]:
    """``(inverted, lower-case needle)`` of a ``/`` filter."""
    invert = text.startswith("!")
    return invert, (text[1:] if invert else text).lower()


def _fit(text: str, width: int, align: str) -> str:
    """``text`` padded or cut (with an ellipsis, like ``Text.truncate``) to ``width`` cells."""
    length = len(text) if text.isascii() else cell_len(text)
    if length > width and isinstance(text, Shortens):
        text = text.shorten(width)
        length = cell_len(text)
    if length > width:
        text = set_cell_size(text, width - 1) + "…"
        length = width
    padding = " " * (width - length)
    return padding + text if align == "right" else text + padding


def _window(segments: list[Segment], length: int, start: int, width: int, style: Style) -> Strip:
    """Cells ``start .. start+width`` of a line (padded with ``style``), as a new strip.

    Done here rather than with ``Strip.crop_extend``, which caches its result in the source strip
    (a strip that is already the right size would then hold itself: a cycle only the collector
    frees)."""
    end = start + width
    if length < end:
        segments = [*segments, Segment(" " * (end - length), style)]
        length = end
    if start == 0 and length == end:
        return Strip(segments, width)
    return Strip(list(Segment.divide(segments, [start, end]))[1], width)


class ResourceTable(ScrollView, can_focus=True):
    """A keyboard-driven table that renders only its visible rows."""

    BINDING_GROUP_TITLE = "Table"
    MAIN: ClassVar[bool] = True
    """A screen's main table: the title row counts its rows, closing the filter focuses it (False:
    a strip beside it, like the board's clusters)."""
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
    STRIP_CACHE_SIZE = 192
    """Rendered lines kept: the rows on screen, with and without the cursor, and a little scroll."""

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
        self._keys: list[Hashable] = []
        self._cells: list[tuple[Cell, ...]] = []
        self._search: list[str] = []
        self._data: list[Any] = []
        self._index: dict[Hashable, int] = {}
        self._visible: list[int] = []
        """Positions of the rows passing the filter, ascending."""
        self._visible_exact = True
        """False once a replaced row may have changed whether it passes the filter."""
        self._widths = [max(c.min_width, len(c.label)) for c in self.columns]
        self._filter = ""
        self._cursor = 0
        self._render_widths = list(self._widths)
        self._laid_out_for = 0
        self._cache: LRUCache[tuple[Any, ...], Strip] = LRUCache(self.STRIP_CACHE_SIZE)
        self._generation = 0
        self._versions: dict[Hashable, int] = {}
        """How many times each row was replaced in place (part of its cached line's key)."""

    # --- data ---------------------------------------------------------------------------------

    @property
    def row_count(self) -> int:
        """All rows held, filtered or not."""
        return len(self._keys)

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
        self._keys.clear()
        self._cells.clear()
        self._search.clear()
        self._data.clear()
        self._index.clear()
        self._visible.clear()
        self._visible_exact = True
        self._widths = [max(c.min_width, len(c.label)) for c in self.columns]
        self._cursor = 0
        self._versions.clear()
        self._changed(structure=True)

    def append_rows(self, rows: Iterable[TableRow]) -> None:
        """Add rows at the end; a row whose key exists replaces the old one in place."""
        invert, needle = _parse_filter(self._filter)
        widths = self._widths
        widths_before = list(widths)
        columns = self.columns
        keys, cells_list, search_list, data_list = self._keys, self._cells, self._search, self._data
        index, visible = self._index, self._visible
        replaced: list[int] = []
        added = False
        for row in rows:
            cells = tuple(row.cells)
            search = row.search_text or " ".join(_plain(cell) for cell in cells).lower()
            for position, cell in enumerate(cells[: len(widths)]):
                length = cell.cell_len if isinstance(cell, Text) else len(cell)
                if length > widths[position]:
                    widths[position] = min(length, columns[position].max_width)
            existing = index.get(row.key)
            if existing is not None:
                cells_list[existing], search_list[existing], data_list[existing] = cells, search, row.data
                replaced.append(existing)
                if needle:
                    self._visible_exact = False  # whether it passes the filter may have changed
                continue
            added = True
            index[row.key] = len(keys)
            keys.append(row.key)
            cells_list.append(cells)
            search_list.append(search)
            data_list.append(row.data)
            if not needle or (needle in search) != invert:
                visible.append(len(keys) - 1)
        if added or (replaced and needle) or widths != widths_before:
            self._changed(structure=True)
        elif replaced:
            self._replaced(replaced)

    def _replaced(self, positions: list[int]) -> None:
        """Rows changed in place, nothing else: repaint their lines only (an age ticking on a
        10,000-row table rewrote every line on screen)."""
        versions, keys = self._versions, self._keys
        top = int(self.scroll_offset.y)
        bottom = top + max(0, self.size.height - 1)
        where = {position: shown for shown, position in enumerate(self._visible[top:bottom], start=top)}
        for position in positions:
            key = keys[position]
            versions[key] = versions.get(key, 0) + 1
            shown = where.get(position)
            if shown is not None:
                self.refresh_line(shown + 1)  # line 0 is the header

    def update_row(self, row: TableRow) -> None:
        """Replace the row with the same key (appends it when new)."""
        self.append_rows([row])

    def get_data(self, key: Hashable) -> Any:
        """The ``data`` of the row with ``key`` (None when absent)."""
        position = self._index.get(key)
        return None if position is None else self._data[position]

    def _row(self, position: int) -> TableRow:
        return TableRow(self._keys[position], self._cells[position], self._data[position],
                        self._search[position])

    def rows(self) -> list[TableRow]:
        """Every row, in insertion order (new row objects: changing them changes nothing)."""
        return [self._row(position) for position in range(len(self._keys))]

    def visible_rows(self, start: int = 0, stop: int | None = None) -> list[TableRow]:
        """Rows passing the filter, in display order (``start``/``stop``: only that slice of them)."""
        return [self._row(position) for position in self._visible[start:stop]]

    def set_filter(self, text: str) -> None:
        """Keep rows whose text contains ``text`` (case-insensitive); ``!text`` keeps the others."""
        key = self.cursor_key
        was_invert, was_needle = _parse_filter(self._filter)
        self._filter = text
        invert, needle = _parse_filter(text)
        search = self._search
        if not needle:
            self._visible = list(range(len(search)))
        elif invert:
            self._visible = [i for i, haystack in enumerate(search) if needle not in haystack]
        elif self._visible_exact and not was_invert and was_needle and was_needle in needle:
            # Typing one more character: only the rows shown now can still match.
            self._visible = [i for i in self._visible if needle in search[i]]
        else:
            self._visible = [i for i, haystack in enumerate(search) if needle in haystack]
        self._visible_exact = True
        self._cursor = 0
        if key is not None:
            position = self._index.get(key)
            if position is not None:
                found = bisect_left(self._visible, position)
                if found < len(self._visible) and self._visible[found] == position:
                    self._cursor = found
        self._changed(structure=True)
        self.scroll_to(y=0, animate=False, force=True, immediate=True)
        self._scroll_cursor_into_view()

    def sort(self, column_key: str, *, reverse: bool = False) -> None:
        """Order the rows by a column's text (numbers compare as numbers)."""
        position = next(i for i, c in enumerate(self.columns) if c.key == column_key)

        def sort_key(row: int) -> tuple[int, float, str]:
            cells = self._cells[row]
            text = _plain(cells[position]) if position < len(cells) else ""
            try:
                return (0, float(text), "")
            except ValueError:
                return (1, 0.0, text.lower())

        key = self.cursor_key
        order = sorted(range(len(self._keys)), key=sort_key, reverse=reverse)
        self._keys = [self._keys[i] for i in order]
        self._cells = [self._cells[i] for i in order]
        self._search = [self._search[i] for i in order]
        self._data = [self._data[i] for i in order]
        self._index = {row_key: i for i, row_key in enumerate(self._keys)}
        self._visible_exact = False
        self.set_filter(self._filter)
        if key is not None:
            self.move_cursor_to_key(key)

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
        return self._keys[self._visible[min(self._cursor, len(self._visible) - 1)]]

    @property
    def cursor_data(self) -> Any:
        """``data`` of the highlighted row (None when no row is visible)."""
        key = self.cursor_key
        return None if key is None else self.get_data(key)

    def move_cursor(self, row: int) -> None:
        """Put the cursor on visible row ``row`` (clamped) and scroll to it."""
        before = self.cursor_key
        self._cursor = max(0, min(row, len(self._visible) - 1)) if self._visible else 0
        # No cache flush: the cursor is part of each cached line's key, so only the two rows
        # whose look changed are rendered again.
        self.refresh()
        self._scroll_cursor_into_view()
        if self.cursor_key != before:
            self.post_message(self.Highlighted(self, self.cursor_key))

    def move_cursor_to_key(self, key: Hashable) -> bool:
        """Move the cursor to the row with ``key`` if it is visible; True when it is."""
        position = self._index.get(key)
        if position is None:
            return False
        found = bisect_left(self._visible, position)
        if found == len(self._visible) or self._visible[found] != position:
            return False
        self.move_cursor(found)
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
        if available and not self.show_vertical_scrollbar and len(self._visible) + 1 > self.size.height > 0:
            # The rows are about to overflow: the vertical scrollbar will take its columns, and a row
            # laid out without it would need a horizontal scrollbar too.
            available -= self.styles.scrollbar_size_vertical
        total = sum(widths) + self.GAP * max(0, len(widths) - 1) + 1
        if available and total > available:
            # Every flexible column gives up room in proportion to what it can spare, so that no
            # single one (the first) is squeezed to its minimum while the others stay wide.
            spare = {position: widths[position] - column.min_width for position, column in enumerate(self.columns)
                     if column.flex and widths[position] > column.min_width}
            overflow = min(total - available, sum(spare.values()))
            if overflow > 0:
                weight = {position: room * self.columns[position].squeeze for position, room in spare.items()}
                pool = sum(weight.values())
                cuts = {position: min(spare[position], overflow * weight[position] // pool) for position in spare}
                left = overflow - sum(cuts.values())
                while left > 0:  # what rounding and the caps left over, from whoever still has room
                    position = max(spare, key=lambda p: ((spare[p] - cuts[p]) * self.columns[p].squeeze, -p))
                    cuts[position] += 1
                    left -= 1
                for position, cut in cuts.items():
                    widths[position] -= cut
        return widths

    def on_resize(self) -> None:
        self._changed(structure=False)

    def _changed(self, *, structure: bool) -> None:
        self._generation += 1
        self._cache.clear()
        self._render_widths = self._effective_widths()
        self._laid_out_for = self.scrollable_content_region.width
        total_width = sum(self._render_widths) + self.GAP * max(0, len(self._render_widths) - 1) + 1
        self.virtual_size = Size(total_width, len(self._visible) + 1)
        if self._visible and self._cursor >= len(self._visible):
            self._cursor = len(self._visible) - 1
        self.refresh()

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._cache.clear()

    def _plain_line(self, cells: Sequence[Cell]) -> str | None:
        """The whole line as one string when every cell is plain printable text (the common
        case: one segment, no ``Text`` objects); None otherwise."""
        parts = []
        for position, column in enumerate(self.columns):
            cell = cells[position] if position < len(cells) else ""
            if not isinstance(cell, str) or not cell.isprintable():
                return None
            parts.append(_fit(cell, self._render_widths[position], column.align))
        return (" " * self.GAP).join(parts) + " "

    def _line_text(self, cells: Sequence[Cell], style: Style) -> Text:
        line = Text(style=style, no_wrap=True, end="")
        gap = " " * self.GAP
        for position, column in enumerate(self.columns):
            width = self._render_widths[position]
            cell = cells[position] if position < len(cells) else ""
            if isinstance(cell, Shortens) and cell_len(cell) > width:
                cell = cell.shorten(width)
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

    def _strip_for(self, key: tuple[Any, ...], cells: Sequence[Cell], style: Style, scroll_x: int,
                   width: int) -> Strip:
        cached = self._cache.get(key)
        if cached is not None:
            return cached
        plain = self._plain_line(cells)
        if plain is not None:
            segments = [Segment(plain, style)]
            length = len(plain) if plain.isascii() else cell_len(plain)
        else:
            text = self._line_text(cells, style)
            # every segment carries a style: Textual's NO_COLOR (monochrome) filter needs one
            segments = [Segment(s.text, s.style or style) for s in text.render(self.app.console) if s.text != "\n"]
            length = text.cell_len
        strip = _window(segments, length, scroll_x, width, style)
        self._cache[key] = strip
        return strip

    def render_line(self, y: int) -> Strip:
        """Line 0 is the header; the others are the visible rows under the scroll offset."""
        scroll_x, scroll_y = self.scroll_offset
        width = self.scrollable_content_region.width
        base = self.rich_style
        if y == 0:
            if width != self._laid_out_for:
                # The columns were fitted to another width (a layout pass ran before the table had
                # its final size, and no resize followed): fit them again before this frame is drawn.
                self._changed(structure=False)
            style = base + self.get_component_rich_style("resource-table--header")
            return self._strip_for(("header", self._generation, scroll_x, width),
                                   [c.label for c in self.columns], style, scroll_x, width)
        index = scroll_y + y - 1
        if index >= len(self._visible):
            return Strip.blank(width, base)
        position = self._visible[index]
        is_cursor = index == self._cursor
        style = base + self.get_component_rich_style("resource-table--cursor") if is_cursor else base
        row_key = self._keys[position]
        key = ("row", self._generation, row_key, self._versions.get(row_key, 0), is_cursor, scroll_x, width)
        return self._strip_for(key, self._cells[position], style, scroll_x, width)
