"""How wide and how long a log view is: the extent its scrollbars show.

The width is that of every line read, not only of the lines drawn so far: measured as they were
drawn, the horizontal extent grew while the user scrolled, and the first screen depended on which
rows happened to be drawn first."""

from __future__ import annotations

from rich.cells import cell_len
from textual.geometry import Size
from textual.scroll_view import ScrollView

from labdeck.ui.widgets.trace.document import TraceDocument
from labdeck.ui.widgets.trace.lines import MAX_LINE_CHARS


def set_virtual_size(view: ScrollView, size: Size) -> None:
    """Give a log view (``overflow-y: scroll``) the extent of its rows, with a layout pass of the
    screen only when one is needed.

    A log that grows only gets longer: the vertical scrollbar is always there, so nothing around
    the view moves and the screen needs no layout pass. A reactive ``virtual_size`` asks for one,
    which repaints every widget of the screen: at each frame of a busy log (at 20,000 lines/s, at
    each slice), and keys wait behind it. The scrollbar's thumb follows the new height."""
    current = view.virtual_size
    if size == current:
        return
    if (size.width == current.width and size.height > current.height and view.is_mounted
            and view.styles.overflow_y == "scroll"):
        view.set_reactive(ScrollView.virtual_size, size)
        view.vertical_scrollbar.window_virtual_size = size.height
        return
    view.virtual_size = size


def widest_read(document: TraceDocument, start: int, end: int, widest: int) -> int:
    """The cells of the widest of ``widest`` and the lines ``start``..``end`` of ``document`` (their
    text without styles, tabs expanded, cut as the view cuts them)."""
    for line in range(start, end):
        display = document.line(line)
        if len(display) <= widest and display.isascii() and "\t" not in display:
            continue  # ASCII without tabs is no wider than its length (SGR included)
        plain = document.plain_line(line)[:MAX_LINE_CHARS].expandtabs(8)
        widest = max(widest, cell_len(plain))
    return widest
