"""A virtualised viewer for job traces (Line API).

Only the rows on screen are rendered: lines live in a :class:`TraceDocument` (an offset index over
a spooled file, see :mod:`labdeck.logtext`), each visible line is turned into a ``Strip`` from
*sanitized* text (SGR only) with ``Text.from_ansi``, and rendered strips are kept in an LRU cache
whose key includes everything that changes their look (search term, fold state, cursor, width).

Folding: a collapsed section shows its header line only; the display rows are mapped to line
numbers through a sorted list of hidden ranges (bisect, so a million lines cost nothing).
Following: new output scrolls into view while ``following`` is on; any upward scroll turns it off
and the count of lines that arrived since is kept in ``pending_lines``; ``end``/``G`` resumes.
A log that grows fast is scrolled and repainted at most every :data:`FOLLOW_FRAME_SECONDS`: each
such frame shows lines never rendered before, and painting every slice of a 20,000-lines/s job
would keep the event loop busy enough to delay keys.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass

from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual import events
from textual.binding import Binding
from textual.cache import LRUCache
from textual.geometry import Region, Size
from textual.message import Message
from textual.scroll_view import ScrollView
from textual.strip import Strip
from textual.timer import Timer

from labdeck.logtext.sections import Section
from labdeck.ui.widgets.trace.document import TraceDocument
from labdeck.ui.widgets.trace.extent import set_virtual_size as set_virtual_size
from labdeck.ui.widgets.trace.extent import widest_read
from labdeck.ui.widgets.trace.folds import FoldMap, SectionLookup
from labdeck.ui.widgets.trace.lines import MAX_LINE_CHARS as MAX_LINE_CHARS
from labdeck.ui.widgets.trace.lines import LineLook, Part, Row, line_text, wrapped_rows

STRIP_CACHE_SIZE = 320
"""Rendered lines kept (a few screens), as segments: a ``Strip`` is made from them at each paint.
A kept ``Strip`` would also keep every strip Textual derives from it while painting (cropped,
styled, filtered, divided: some forty objects for the garbage collector), and while following a
fast log a screen of those per frame lives long enough to be walked by every full collection."""
FOLLOW_FRAME_SECONDS = 0.1
"""New output is shown (scrolled into view while following, the scrollbar updated) at most this
often: a person cannot read a firehose faster, and every frame of one is a screen of lines never
rendered before (10-20 ms)."""


@dataclass(frozen=True)
class _Paint:
    """What every row of one repaint shares (worked out once per repaint, not once per row)."""

    width: int
    style: Style
    rows: list[Row]
    scroll_x: int


class TraceView(ScrollView, can_focus=True):
    """Shows a :class:`TraceDocument`; see the module docstring."""

    BINDING_GROUP_TITLE = "Trace"
    COMPONENT_CLASSES = {
        "trace-view--gutter", "trace-view--cursor", "trace-view--fold", "trace-view--duration",
        "trace-view--match", "trace-view--current-match", "trace-view--failed", "trace-view--long",
        "trace-view--error-line", "trace-view--new",
    }
    DEFAULT_CSS = """
    TraceView {
        background: $surface;
        color: $foreground;
        overflow-y: scroll;
        overflow-x: auto;
        height: 1fr;
        &:focus { background-tint: $foreground 3%; }
        & > .trace-view--gutter { color: $text-muted; }
        & > .trace-view--cursor { background: $boost; }
        & > .trace-view--fold { color: $accent; text-style: bold; }
        & > .trace-view--duration { color: $text-muted; }
        & > .trace-view--match { background: $warning 60%; color: $text; }
        & > .trace-view--current-match { background: $accent; color: $text; text-style: bold; }
        & > .trace-view--failed { color: $text-error; text-style: bold; }
        & > .trace-view--long { color: $text-warning; text-style: bold; }
        & > .trace-view--error-line { text-style: bold underline; }
        & > .trace-view--new { color: $text-success; text-style: bold; }
    }
    """
    BINDINGS = [
        Binding("up,k", "cursor_up", "Up", show=False),
        Binding("down,j", "cursor_down", "Down", show=False),
        Binding("pageup,ctrl+b", "page_up", "Page up", show=False),
        Binding("pagedown,ctrl+f,space", "page_down", "Page down", show=False),
        Binding("home,g", "scroll_home", "Top", show=False),
        Binding("end,G", "follow", "End/follow", id="trace.follow",
                tooltip="Go to the end and follow new output"),
        Binding("enter,t", "toggle_fold", "Fold", id="trace.fold",
                tooltip="Fold or unfold the section at the cursor"),
        Binding("z", "fold_all", "Fold all", id="trace.fold_all"),
        Binding("Z", "unfold_all", "Unfold all", id="trace.unfold_all"),
    ]

    class Changed(Message):
        """Following, pending lines, search results or folds changed (coalesced)."""

        def can_replace(self, message: Message) -> bool:
            return isinstance(message, TraceView.Changed)

    def __init__(self, document: TraceDocument | None = None, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.document = document if document is not None else TraceDocument()
        self.following = True
        """New output scrolls into view."""
        self.pending_lines = 0
        """Lines that arrived while not following."""
        self.wrap = False
        self.raw = False
        self.cursor_line = 0
        self.search_term = ""
        self.match_line: int | None = None
        """Line of the current search match."""
        self.match_total: int | None = None
        """Lines matching the search (None while counting)."""
        self.match_ordinal: int | None = None
        self.error_line: int | None = None
        """A line to mark as the first error (set after a jump)."""
        self._strips: LRUCache[tuple[object, ...], list[Part]] = LRUCache(STRIP_CACHE_SIZE)
        self._collapsed: set[int] = set()
        self._seen_sections = 0
        self._folds = FoldMap()
        self._header_version = 0
        self._stable_lines = 0
        self._generation = 0
        self._width = 0
        self._body_widest = 0
        self._adjusting = False
        self._search_re: re.Pattern[str] | None = None
        self._sections = SectionLookup()
        self._frame_timer: Timer | None = None
        self._frame_shown_at = 0.0
        self._repaint_due = False
        self._paint: _Paint | None = None

    # -- data ---------------------------------------------------------------------------------

    @property
    def line_count(self) -> int:
        """Lines in the document."""
        return len(self.document)

    @property
    def display_count(self) -> int:
        """Rows when nothing wraps (lines minus folded ones)."""
        return max(0, self.line_count - self._folds.hidden_total)

    def append(self, text: str) -> int:
        """Add raw trace text (any chunking); return the number of new lines."""
        before = self.line_count
        self.document.feed(text)
        return self.after_growth(before)

    def finish(self) -> None:
        """The trace is complete: flush any partial last line."""
        before = self.line_count
        self.document.finish()
        self.after_growth(before)
        self._show_now()  # the end is shown at once, not a frame later

    def reset(self, note: str = "") -> None:
        """Forget everything (the server's trace was truncated or erased)."""
        self.document.clear()
        if note:
            self.document.feed(note + "\n")
        self._strips.clear()
        self._collapsed.clear()
        self._seen_sections = 0
        self._stable_lines = 0
        self.pending_lines = 0
        self.cursor_line = 0
        self.match_line = None
        self._rebuild_folds()
        self._update_virtual_size()
        self.refresh()
        self._changed()

    def after_growth(self, before: int) -> int:
        """Update scrolling, folds and counters after the document grew from ``before`` lines."""
        after = self.line_count
        self._measure(max(0, before - 1), after)
        # The old last line may have been completed or overwritten by \r.
        self._stable_lines = max(0, before - 1)
        self._generation += 1
        sections = self.document.sections
        refolded = len(sections) != self._seen_sections or self._open_fold_exists()
        if refolded:
            for index in range(self._seen_sections, len(sections)):
                if sections[index].collapsed:
                    self._collapsed.add(index)
            self._seen_sections = len(sections)
            self._rebuild_folds()
        added = after - before
        if not self.following and added > 0:
            self.pending_lines += added
        # Paused above the end, only a screen that reaches the new lines (or shows a section
        # header that may have changed) needs repainting.
        self._repaint_due = self._repaint_due or self.following or refolded or \
            self._shows_line(max(0, before - 1))
        self._show_soon()
        if added and not self.following:
            self._changed()  # the "+N new lines" count moved; while following nothing shown changes
        return added

    def _shows_line(self, line: int) -> bool:
        """True if ``line`` (or a line after it) is on screen: the viewport reaches it."""
        height = max(1, self.scrollable_content_region.height)
        return self.line_to_display(min(line, max(0, self.line_count - 1))) < int(self.scroll_y) + height

    def _show_soon(self) -> None:
        """Show what arrived now, or at the next frame if one was shown just now."""
        if self._frame_timer is not None:
            return
        wait = self._frame_shown_at + FOLLOW_FRAME_SECONDS - time.monotonic()
        if wait <= 0 or not self.is_mounted:
            self._show_now()
        else:
            self._frame_timer = self.set_timer(wait, self._show_now, name="trace-frame")

    def _show_now(self) -> None:
        """Bring the view up to date with the document: its extent and, while following, the end
        of the log with the cursor on the last line."""
        if self._frame_timer is not None:
            self._frame_timer.stop()
            self._frame_timer = None
        self._frame_shown_at = time.monotonic()
        self._update_virtual_size()
        if self.following:
            self.cursor_line = max(0, self.line_count - 1)
            self._scroll_to_end()
        if self._repaint_due or self.following:
            self._repaint_due = False
            self.refresh()

    def _open_fold_exists(self) -> bool:
        sections = self.document.sections
        return any(sections[index].end_line is None for index in self._collapsed)

    def _update_virtual_size(self) -> None:
        set_virtual_size(self, Size(self._extent_width() + 8, self.display_count))

    def _extent_width(self) -> int:
        """Cells of the widest line: every line read (not only those drawn) with gutter and fold
        marks, or a wider one measured when drawn (a section header with its duration).

        Measuring only the lines drawn so far let the horizontal extent grow as the user scrolled
        (and what the first screen showed depended on which rows happened to be drawn first)."""
        fold = 2 if self.document.sections else 0
        gutter = max(4, len(str(self.line_count))) + 1
        return max(self._width, gutter + fold + self._body_widest)

    def _measure(self, start: int, end: int) -> None:
        """Widen the extent to the lines ``start``..``end`` as read (their text without styles)."""
        self._body_widest = widest_read(self.document, start, end, self._body_widest)

    def _changed(self) -> None:
        self.post_message(self.Changed())

    # -- folding ------------------------------------------------------------------------------

    def _rebuild_folds(self) -> None:
        self._folds.rebuild(self.document.sections, self._collapsed, self.line_count)

    def display_to_line(self, row: int) -> int:
        """Line number shown at display row ``row`` (no wrapping)."""
        return self._folds.display_to_line(row)

    def line_to_display(self, line: int) -> int:
        """Display row of ``line`` (a folded line maps to its section's header)."""
        return self._folds.line_to_display(line)

    def is_hidden(self, line: int) -> bool:
        """True when ``line`` is inside a folded section."""
        return self._folds.is_hidden(line)

    def section_for(self, line: int) -> int | None:
        """Index of the innermost section whose header is ``line`` or which contains it."""
        return self._sections.section_for(self.document.sections, line)

    def set_collapsed(self, index: int, collapsed: bool) -> None:
        """Fold or unfold one section."""
        if collapsed:
            self._collapsed.add(index)
        else:
            self._collapsed.discard(index)
        self._refold()

    def _refold(self) -> None:
        self._adjusting = True
        try:
            self._rebuild_folds()
            self._update_virtual_size()
            if self.is_hidden(self.cursor_line):
                self.cursor_line = self.display_to_line(self.line_to_display(self.cursor_line))
            if self.following:
                self._scroll_to_end()
            else:
                self._scroll_cursor_into_view()
        finally:
            self._adjusting = False
        self.refresh()
        self._changed()

    def action_toggle_fold(self) -> None:
        """Fold/unfold the section at the cursor."""
        index = self.section_for(self.cursor_line)
        if index is None:
            return
        section = self.document.sections[index]
        if index not in self._collapsed:
            self.cursor_line = section.start_line
        self.set_collapsed(index, index not in self._collapsed)

    def action_fold_all(self) -> None:
        """Fold every section."""
        self._collapsed = set(range(len(self.document.sections)))
        self._refold()

    def action_unfold_all(self) -> None:
        """Unfold every section."""
        self._collapsed.clear()
        self._refold()

    def refresh_sections(self) -> None:
        """Section headers changed look (e.g. the failed one is now known)."""
        self._header_version += 1
        self.refresh()

    def collapsed_sections(self) -> list[Section]:
        """The folded sections (for tests and the header)."""
        return [self.document.sections[index] for index in sorted(self._collapsed)]

    # -- following and cursor ---------------------------------------------------------------

    def _scroll_to_end(self) -> None:
        self._adjusting = True
        try:
            self.scroll_end(animate=False, immediate=True, x_axis=False, force=True)
        finally:
            self._adjusting = False

    def watch_scroll_y(self, old_value: float, new_value: float) -> None:
        """Scrolling up (wheel, scrollbar, keys) pauses following."""
        super().watch_scroll_y(old_value, new_value)
        if self._adjusting:
            return
        # Only a scroll that leaves the bottom pauses: a taller window (a resize, a tmux reattach)
        # also lowers scroll_y, but to the new bottom, and following must go on.
        if new_value < old_value and self.following and new_value < self.max_scroll_y:
            self.following = False
            self._changed()

    def watch_show_horizontal_scrollbar(self, shown: bool) -> None:
        """A horizontal scrollbar that appears takes the bottom row: a following view scrolls
        the last line back above it (its scroll to the end came before the layout showed it)."""
        if shown and self.following:
            self.call_after_refresh(self._scroll_to_end)

    def on_resize(self) -> None:
        """A resize keeps a following view at the bottom."""
        if self.following:
            self.call_after_refresh(self._scroll_to_end)

    def set_following(self, following: bool) -> None:
        """Resume (True) or pause (False) following new output."""
        self.following = following
        if following:
            self.pending_lines = 0
            self._show_now()
        self._changed()

    def action_follow(self) -> None:
        """Jump to the end and follow new output."""
        self.set_following(True)

    def _pause(self) -> None:
        if self.following:
            self.following = False
            self._changed()

    def move_cursor_to(self, line: int, *, center: bool = False) -> None:
        """Put the cursor on ``line``, unfolding sections that hide it."""
        line = max(0, min(line, self.line_count - 1))
        if self.is_hidden(line):
            sections = self.document.sections
            self._collapsed = {index for index in self._collapsed if not sections[index].contains(line)
                               or sections[index].start_line == line}
            self._rebuild_folds()
        self._update_virtual_size()  # the line may have arrived after the last frame
        self.cursor_line = line
        self._scroll_cursor_into_view(center=center)
        self.refresh()

    def _scroll_cursor_into_view(self, center: bool = False) -> None:
        row = self.line_to_display(self.cursor_line)
        height = max(1, self.scrollable_content_region.height)
        top = int(self.scroll_y)
        if center:
            target = max(0, row - height // 2)
        elif row < top:
            target = row
        elif row >= top + height:
            target = row - height + 1
        else:
            return
        self._adjusting = target >= top
        try:
            self.scroll_to(y=target, animate=False, immediate=True, force=True)
        finally:
            self._adjusting = False

    def action_cursor_up(self) -> None:
        """Move the cursor one line up (pauses following)."""
        self._pause()
        self.move_cursor_to(self.display_to_line(max(0, self.line_to_display(self.cursor_line) - 1)))

    def action_cursor_down(self) -> None:
        """Move the cursor one line down."""
        row = self.line_to_display(self.cursor_line) + 1
        if row < self.display_count:
            self.move_cursor_to(self.display_to_line(row))

    def action_page_up(self) -> None:
        """One screen up (pauses following)."""
        self._pause()
        height = max(1, self.scrollable_content_region.height)
        self.move_cursor_to(self.display_to_line(max(0, self.line_to_display(self.cursor_line) - height)))

    def action_page_down(self) -> None:
        """One screen down."""
        height = max(1, self.scrollable_content_region.height)
        row = min(self.display_count - 1, self.line_to_display(self.cursor_line) + height)
        self.move_cursor_to(self.display_to_line(max(0, row)))

    def action_scroll_home(self) -> None:
        """Go to the first line (pauses following)."""
        self._pause()
        self.move_cursor_to(0)

    def on_click(self, event: events.Click) -> None:
        """A click moves the cursor; a click on a section header folds it."""
        rows = self._layout()
        if not 0 <= event.y < len(rows):
            return
        line = rows[event.y].line
        self._pause()
        self.cursor_line = line
        index = self.section_for(line)
        if index is not None and self.document.sections[index].start_line == line:
            self.set_collapsed(index, index not in self._collapsed)
        self.refresh()

    # -- display options -----------------------------------------------------------------------

    def set_wrap(self, wrap: bool) -> None:
        """Wrap long lines (True) or scroll horizontally (False)."""
        self.wrap = wrap
        self.refresh()
        self._changed()

    def set_raw(self, raw: bool) -> None:
        """Show the raw text with every control character made visible."""
        self.raw = raw
        self.refresh()
        self._changed()

    def set_search(self, term: str) -> None:
        """Highlight ``term`` (case-insensitive, literal)."""
        self.search_term = term
        self._search_re = re.compile(re.escape(term), re.IGNORECASE) if term else None
        self.match_line = None
        self.match_total = None
        self.match_ordinal = None
        self.refresh()
        self._changed()

    # -- rendering ----------------------------------------------------------------------------

    def notify_style_update(self) -> None:
        """Theme changed: rendered strips are stale."""
        super().notify_style_update()
        self._strips.clear()

    def _layout(self) -> list[Row]:
        height = self.scrollable_content_region.height
        count = self.display_count
        top = int(self.scroll_y)
        if not self.wrap:
            return [Row(self.display_to_line(row), 0) for row in range(top, min(count, top + height))]
        width = max(1, self.scrollable_content_region.width)
        return wrapped_rows(count, top, height, self.display_to_line,
                            lambda line: len(self._parts_for(line, width)))

    def render_lines(self, crop: Region) -> list[Strip]:
        """Render the rows in ``crop`` (Textual calls :meth:`render_line` for each)."""
        self._paint = self._paint_context()
        try:
            return super().render_lines(crop)
        finally:
            self._paint = None

    def _paint_context(self) -> _Paint:
        # The style and the region are recomputed after every refresh: once per repaint, not per row.
        return _Paint(self.scrollable_content_region.width, self.rich_style, self._frame_rows(),
                      int(self.scroll_x))

    def render_line(self, y: int) -> Strip:
        """Render row ``y`` of the widget."""
        paint = self._paint or self._paint_context()
        width, rich_style, rows = paint.width, paint.style, paint.rows
        if y >= len(rows):
            return Strip.blank(width, rich_style)
        row = rows[y]
        parts = self._parts_for(row.line, width if self.wrap else None)
        if row.part >= len(parts):
            return Strip.blank(width, rich_style)
        strip = Strip(*parts[row.part])
        if self.wrap:
            return strip.crop_extend(0, width, rich_style)
        return strip.crop_extend(paint.scroll_x, paint.scroll_x + width, rich_style)

    def _frame_rows(self) -> list[Row]:
        key = (int(self.scroll_y), self.scrollable_content_region.size, self.wrap,
               self._folds.version + self._header_version,
               self.line_count, self._generation, self.raw)
        if getattr(self, "_frame_key", None) != key:
            self._frame_key = key
            self._frame = self._layout()
            if self.following and self._frame_timer is None and self.scroll_y < self.max_scroll_y:
                # The viewport shrank after the last scroll (a horizontal scrollbar appeared).
                self.call_later(self._scroll_to_end)
        return self._frame

    def _parts_for(self, line: int, width: int | None) -> list[Part]:
        """The rendered rows of ``line`` (one, or several when wrapping at ``width``)."""
        section_index = self._sections.header_of(self.document.sections, line)
        key = (
            line,
            self._generation if line >= self._stable_lines else 0,
            width,
            self.raw,
            self.search_term,
            line == self.match_line,
            line == self.cursor_line and self.has_focus,
            line == self.error_line,
            line in self.document.new_lines,
            section_index is not None and section_index in self._collapsed,
            self._folds.version + self._header_version if section_index is not None else 0,
        )
        cached = self._strips.get(key)
        if cached is not None:
            return cached
        text = self._line_text(line, section_index)
        console = self.app.console
        if width is None:
            parts: list[Part] = [(list(text.render(console)), text.cell_len)]
            self._width = max(self._width, text.cell_len)
            if self._extent_width() + 8 > self.virtual_size.width:
                self.call_later(self._update_virtual_size)
        else:
            parts = [
                (list(part.render(console)), part.cell_len)
                for part in text.wrap(console, width, no_wrap=False, overflow="fold")
            ] or [([Segment(" " * width)], width)]
        self._strips[key] = parts
        return parts

    def _style(self, name: str) -> Style:
        return self.get_component_rich_style(f"trace-view--{name}", partial=True)

    def _line_text(self, line: int, section_index: int | None) -> Text:
        document = self.document
        section = document.sections[section_index] if section_index is not None else None
        folded = section_index is not None and section_index in self._collapsed
        if section is not None:
            fold = "▸ " if folded else "▾ "
        else:
            fold = "  " if document.sections and self.section_for(line) is not None else ""
        look = LineLook(gutter_width=max(4, len(str(self.line_count))), wrap=self.wrap, raw=self.raw, fold=fold,
                        section=section, folded=folded, search=self._search_re,
                        current_match=line == self.match_line, error=line == self.error_line,
                        cursor=line == self.cursor_line and self.has_focus, new=line in self.document.new_lines)
        return line_text(document, line, look, self._style)

    def strip_text(self, y: int) -> str:
        """Plain text of widget row ``y`` (tests)."""
        return "".join(segment.text for segment in self.render_line(y) if isinstance(segment, Segment))
