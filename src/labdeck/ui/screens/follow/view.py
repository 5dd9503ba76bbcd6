"""The lines of many jobs in one scrolling view (Line API: only the rows on screen are drawn).

Each row is ``label │ text``: the label in its job's colour (theme variables, by component class),
the text the job's own sanitized display line (SGR only, through ``Text.from_ansi``; never markup).
A job's end is one line of its own (``deploy-eu ✗ failed after 4m12s``).

The rows are the merged log's entries from the oldest still kept up to :attr:`FollowView.limit`
(the newest while following; frozen while paused), all of them or those a filter keeps (a text,
or one job alone): a filtered view lists the sequence numbers that match, checked as lines arrive.
"""

from __future__ import annotations

from array import array
from bisect import bisect_left
from collections.abc import Callable

from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual import events
from textual.binding import Binding
from textual.cache import LRUCache
from textual.geometry import Region, Size
from textual.scroll_view import ScrollView
from textual.strip import Strip

from labdeck.operations.following.merged import Entry, MergedLog
from labdeck.ui.widgets.trace.extent import set_virtual_size
from labdeck.ui.widgets.trace.lines import body_text

JOB_COLOURS = 6
"""Job label colours, in turn (component classes ``follow-view--job-0`` …): six, so that the six
regions of a deploy stage each have their own."""
RENDERED_LINES = 400
"""Rendered rows kept (a few screens)."""
MAX_LINE_CHARS = 2_000
"""Longer lines are cut before rendering (the job's own log keeps them whole)."""


class FollowView(ScrollView, can_focus=True):
    """Shows a :class:`MergedLog`; see the module docstring."""

    COMPONENT_CLASSES = {
        *(f"follow-view--job-{number}" for number in range(JOB_COLOURS)),
        "follow-view--bar", "follow-view--cursor", "follow-view--error-line", "follow-view--failed",
        "follow-view--passed", "follow-view--note",
    }
    DEFAULT_CSS = """
    FollowView {
        background: $surface;
        color: $foreground;
        overflow-y: scroll;
        overflow-x: hidden;
        height: 1fr;
        & > .follow-view--job-0 { color: $text-primary; text-style: bold; }
        & > .follow-view--job-1 { color: $text-secondary; text-style: bold; }
        & > .follow-view--job-2 { color: $text-accent; text-style: bold; }
        & > .follow-view--job-3 { color: $text-success; text-style: bold; }
        & > .follow-view--job-4 { color: $text-warning; text-style: bold; }
        & > .follow-view--job-5 { color: $foreground; text-style: bold underline; }
        & > .follow-view--bar { color: $text-muted; }
        & > .follow-view--cursor { background: $boost; }
        & > .follow-view--error-line { text-style: bold underline; }
        & > .follow-view--failed { color: $text-error; text-style: bold; }
        & > .follow-view--passed { color: $text-success; text-style: bold; }
        & > .follow-view--note { color: $text-muted; text-style: italic; }
    }
    """
    BINDINGS = [
        Binding("up,k", "move(-1)", "Up", show=False),
        Binding("down,j", "move(1)", "Down", show=False),
        Binding("pageup,ctrl+b", "page(-1)", "Page up", show=False),
        Binding("pagedown,ctrl+f", "page(1)", "Page down", show=False),
        Binding("home,g", "top", "Top", show=False),
    ]

    def __init__(self, log: MergedLog, *, on_pause: Callable[[], None], id: str | None = None) -> None:
        super().__init__(id=id)
        self.merged = log
        self.width_of_labels = max((len(label) for label in log.labels), default=0)
        self.following = True
        self.limit = log.total
        """Entries up to this sequence number are shown (the newest while following)."""
        self.cursor = 0
        """Row of the cursor."""
        self.term = ""
        self.solo: int | None = None
        """The one job shown alone (None: every job)."""
        self._rows: array[int] | None = None
        """Sequence numbers of the rows while a filter is on (None: every entry)."""
        self._scanned = 0
        self._painted = (0, 0)
        """Rows and dropped entries at the last repaint :meth:`grow` asked for."""
        self._on_pause = on_pause
        self._frame: tuple[int, Style, str, bool] | None = None
        self._styles: dict[tuple[str, str], Style] = {}
        self._rendered: LRUCache[tuple[object, ...], list[Segment]] = LRUCache(RENDERED_LINES)
        """Rendered rows: a line never changes once shown, and a frame while following shows
        mostly the rows of the frame before, one or a few rows higher."""

    # -- rows ---------------------------------------------------------------------------------------

    @property
    def filtered(self) -> bool:
        """A text or one job narrows the rows."""
        return bool(self.term) or self.solo is not None

    @property
    def row_count(self) -> int:
        """Rows in the view."""
        if self._rows is not None:
            return len(self._rows)
        return max(0, self.limit - self.merged.dropped)

    def seq_at(self, row: int) -> int | None:
        """The entry shown on ``row`` (None when it left the window)."""
        if self._rows is not None:
            if not 0 <= row < len(self._rows):
                return None
            seq = self._rows[row]
        else:
            seq = self.merged.dropped + row
        return seq if self.merged.dropped <= seq < self.limit else None

    def row_of(self, seq: int) -> int | None:
        """The row showing entry ``seq`` (None when filtered out)."""
        if self._rows is None:
            return seq - self.merged.dropped if self.merged.dropped <= seq < self.limit else None
        position = bisect_left(self._rows, seq)
        return position if position < len(self._rows) and self._rows[position] == seq else None

    def matches(self, seq: int) -> bool:
        """Whether entry ``seq`` passes the filter."""
        return self._matches(seq)

    def reveal(self, seq: int) -> None:
        """Put the cursor on entry ``seq`` (shown even if it arrived after the view paused)."""
        if seq >= self.limit:
            self.limit = self.merged.total
            self._scan()
            self._resize_content()
        row = self.row_of(seq)
        if row is not None:
            self.move_cursor(row, center=True)

    def _matches(self, seq: int) -> bool:
        if self.solo is not None and self.merged.job_of(seq) != self.solo:
            return False
        if self.term:
            entry = self.merged.entry(seq)
            return self.term in self.merged.plain(seq).lower() or self.term in self.merged.labels[entry.job].lower()
        return True

    def set_filter(self, term: str | None = None, solo: int | None | bool = False) -> None:
        """Narrow the rows to ``term`` (``None``: keep the term) and to job ``solo`` (``False``: keep)."""
        seq = self.seq_at(self.cursor)
        if term is not None:
            self.term = term.lower()
        if solo is not False:
            self.solo = solo if isinstance(solo, int) and not isinstance(solo, bool) else None
        self._rows = array("q") if self.filtered else None
        self._scanned = self.merged.dropped
        self._scan()
        self._resize_content()
        target = self.row_of(seq) if seq is not None else None
        if self.following or target is None:
            self.cursor = max(0, self.row_count - 1)
            self.scroll_end(animate=False, immediate=True)
        else:
            self.move_cursor(target, center=True)
        self.refresh()

    def _scan(self) -> None:
        if self._rows is None:
            return
        start = max(self._scanned, self.merged.dropped)
        if self._rows and self._rows[0] < self.merged.dropped:
            keep = [seq for seq in self._rows if seq >= self.merged.dropped]
            self._rows = array("q", keep)
        for seq in range(start, self.limit):
            if self._matches(seq):
                self._rows.append(seq)
        self._scanned = max(start, self.limit)

    # -- growth -------------------------------------------------------------------------------------

    def grow(self, upto: int | None = None) -> None:
        """New entries arrived: show them while following, those before ``upto`` when given (the
        ones whose rows were rendered beforehand; the rest at the next frame). A paused view
        stays where it is, and is not repainted unless its rows moved: the oldest left the window."""
        if self.following:
            self.limit = self.merged.total if upto is None else max(self.limit, min(upto, self.merged.total))
        self._scan()
        self._resize_content()
        if self.following:
            self.cursor = max(0, self.row_count - 1)
            self.scroll_end(animate=False, immediate=True)
        painted = (self.row_count, self.merged.dropped)
        if (self.following and painted != self._painted) or self.merged.dropped != self._painted[1]:
            self._painted = painted
            self.refresh()

    def _resize_content(self) -> None:
        set_virtual_size(self, Size(self.scrollable_content_region.width, self.row_count))

    @property
    def pending(self) -> int:
        """Entries that arrived since the view was paused."""
        return self.merged.total - self.limit

    def pause(self) -> None:
        """Stop moving; reads go on and new lines are counted."""
        if self.following:
            self.following = False
            self.refresh_line(self.cursor)  # the cursor's row gets its mark (nothing else moves)
            self._on_pause()

    def resume(self, *, show: bool = True) -> None:
        """Go on following: every line that arrived is in the rows again. ``show=False``: the
        view scrolls to them at the next :meth:`grow` (after their rows are rendered, see
        :meth:`warm`)."""
        marked = self.cursor
        self.following = True
        self.limit = self.merged.total
        self._scan()
        if show:
            self.grow()
        self.refresh_line(marked)  # the cursor's row loses its mark even when no line arrived

    def on_resize(self, event: events.Resize) -> None:
        """A new size never pauses following: the newest lines stay in view."""
        self._resize_content()
        if self.following:
            self.cursor = max(0, self.row_count - 1)
            self.call_after_refresh(self.scroll_end, animate=False, immediate=True)

    # -- cursor ---------------------------------------------------------------------------------------

    def move_cursor(self, row: int, *, center: bool = False) -> None:
        """Put the cursor on ``row`` and scroll it into view."""
        self.cursor = max(0, min(row, self.row_count - 1))
        height = self.scrollable_content_region.height
        top = int(self.scroll_y)
        if center:
            self.scroll_to(y=max(0, self.cursor - height // 2), animate=False, immediate=True)
        elif self.cursor < top:
            self.scroll_to(y=self.cursor, animate=False, immediate=True)
        elif self.cursor >= top + height:
            self.scroll_to(y=self.cursor - height + 1, animate=False, immediate=True)
        self.refresh()

    def action_move(self, rows: int) -> None:
        """Up/down one row (moving pauses following)."""
        self.pause()
        self.move_cursor(self.cursor + rows)

    def action_page(self, pages: int) -> None:
        """A page up or down (pauses following)."""
        self.pause()
        self.move_cursor(self.cursor + pages * max(1, self.scrollable_content_region.height - 1))

    def action_top(self) -> None:
        """The oldest line kept (pauses following)."""
        self.pause()
        self.move_cursor(0)

    def on_mouse_scroll_up(self, event: events.MouseScrollUp) -> None:
        """Scrolling up with the mouse pauses following, as moving does."""
        self.pause()

    @property
    def cursor_entry(self) -> Entry | None:
        """The entry under the cursor."""
        seq = self.seq_at(self.cursor)
        return self.merged.entry(seq) if seq is not None else None

    # -- drawing --------------------------------------------------------------------------------------

    def render_lines(self, crop: Region) -> list[Strip]:
        """Render the rows in ``crop``: what every row shares is worked out once per repaint."""
        self._frame = (self.scrollable_content_region.width, self.rich_style, self.app.theme, self.has_focus)
        try:
            return super().render_lines(crop)
        finally:
            self._frame = None

    def render_line(self, y: int) -> Strip:
        """Row ``y`` of the widget."""
        frame = self._frame or (self.scrollable_content_region.width, self.rich_style, self.app.theme,
                                self.has_focus)
        width, base, theme, focus = frame
        row = int(self.scroll_y) + y
        seq = self.seq_at(row)
        if seq is None:
            return Strip.blank(width, base)
        cursor = row == self.cursor and not self.following
        key = (seq, cursor, theme, focus)
        segments = self._rendered.get(key)
        if segments is None:
            segments = list(self.line_text(self.merged.entry(seq), cursor=cursor).render(self.app.console))
            self._rendered[key] = segments
        return Strip(segments).crop_extend(0, width, base)

    def next_rows(self) -> range:
        """The entries the next frame while following will show (the newest, a screen of them);
        an empty range when that is not known in advance (paused, or a filter on)."""
        if not self.following or self.filtered:
            return range(0)
        total = self.merged.total
        return range(max(self.merged.dropped, total - self.scrollable_content_region.height), total)

    def warm(self, seqs: range) -> None:
        """Render the rows of entries ``seqs`` (as they look while following) ahead of the frame
        that shows them: a frame while following is a screen of rows never drawn, and drawing
        them in a few short turns beforehand keeps the frame itself short (keys wait behind a
        frame, not behind a turn)."""
        theme, focus = self.app.theme, self.has_focus
        for seq in seqs:
            key = (seq, False, theme, focus)
            if seq >= self.merged.dropped and key not in self._rendered:
                self._rendered[key] = list(self.line_text(self.merged.entry(seq)).render(self.app.console))

    def _style(self, name: str) -> Style:
        key = (name, self.app.theme)
        style = self._styles.get(key)
        if style is None:
            style = self._styles[key] = self.get_component_rich_style(f"follow-view--{name}", partial=True)
        return style

    def line_text(self, entry: Entry, *, cursor: bool = False) -> Text:
        """How ``entry`` looks: ``label │ text``, or ``label ✗ failed after 4m12s``."""
        label = self.merged.labels[entry.job]
        colour = self._style(f"job-{entry.job % JOB_COLOURS}")
        text = Text(no_wrap=True, end="")
        if entry.note == "end":
            text.append(label, style=colour)
            text.append(" ")
            text.append(entry.text, style=self._style("failed" if "✗" in entry.text else "passed"))
        else:
            text.append(label.ljust(self.width_of_labels), style=colour)
            text.append(" │ ", style=self._style("bar"))
            if entry.note:
                text.append(entry.text, style=self._style("note"))
            else:
                body = body_text(entry.text, MAX_LINE_CHARS)
                if entry.error:
                    body.stylize(self._style("error-line"))
                text.append_text(body)
        if cursor:
            text.stylize(self._style("cursor"))
        return text
