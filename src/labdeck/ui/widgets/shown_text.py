"""Putting new text in a label without laying out the whole screen when nothing moves.

Textual's ``Static.update`` asks for a layout every time, and one widget's layout reflows the
whole screen (every widget arranged again, then repainted): 10-30 ms for a busy screen. Titles and
headers change on every poll round, mostly to the same text or to a text of the same size (a count
that stays two digits, an age going from ``4s`` to ``5s``); for those a repaint of the label is
all that changed on screen.
"""

from __future__ import annotations

from rich.cells import cell_len
from rich.text import Text
from textual.widgets import Static


def _line_widths(text: Text) -> list[int]:
    return [cell_len(line) for line in text.plain.split("\n")]


def _size_follows_text(label: Static) -> bool:
    """Whether the label's size may change with its text: an ``auto`` width or height (a label's
    default)."""
    width, height = label.styles.width, label.styles.height
    return width is None or width.is_auto or height is None or height.is_auto


def show_text(label: Static, text: Text) -> None:
    """Show ``text`` in ``label``: nothing when it is already shown, a repaint of the label alone
    when its size cannot change, a layout of the screen when it may (a wider or longer text in an
    ``auto``-sized label)."""
    shown = label.content
    if isinstance(shown, Text) and shown == text and shown.style == text.style:
        return
    if not label.is_mounted or not isinstance(shown, Text):
        label.update(text)
        return
    # The same line widths keep the size when no line wraps, before or after.
    keeps_size = _line_widths(shown) == _line_widths(text) and (
        label.styles.text_wrap == "nowrap" or _fits_unwrapped(label, text))
    needs_layout = _size_follows_text(label) and not keeps_size
    label.update(text, layout=needs_layout)


def _fits_unwrapped(label: Static, text: Text) -> bool:
    """Every line of ``text`` fits the label's width as it is now: nothing wraps."""
    room = label.content_region.width
    return room > 0 and all(width <= room for width in _line_widths(text))
