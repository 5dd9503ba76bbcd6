"""``KeyBar``: the keys of the screen on top, on one line, drawn by one widget.

Textual's ``Footer`` mounts a widget per key and mounts them all again whenever the bindings change
(the focus moves, a ``check_action`` answer changes, a screen opens): about 1.5 ms a key with the
console's thirty-odd keys, several times while a screen starts. This bar draws the same line from
``screen.active_bindings`` in one render, and only when what it shows changed.

What it shows: each key with ``show=True`` once per action (the first binding of an action wins),
disabled ones dimmed, as many whole entries as fit the width (the screen's own keys come first, so
``? Keys`` is always there), and the command palette's key at the right. A click runs the key.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar

from rich.style import Style
from rich.text import Text
from textual import events
from textual.binding import Binding
from textual.widget import Widget

if TYPE_CHECKING:
    from textual.screen import Screen

SEPARATOR = "▏"
"""Between the keys and the command palette's key at the right."""


@dataclass(frozen=True)
class KeyEntry:
    """One key as the bar shows it."""

    key: str
    """The key to simulate when the entry is clicked."""
    display: str
    description: str
    enabled: bool

    @property
    def width(self) -> int:
        """Cells taken: `` key description ``."""
        return len(self.label)

    @property
    def label(self) -> str:
        """The entry's text, padded as Textual's footer pads it."""
        return f" {self.display} {self.description} " if self.description else f" {self.display} "


class KeyBar(Widget, can_focus=False):
    """The footer line of keys (see the module docstring)."""

    ALLOW_SELECT = False
    COMPONENT_CLASSES: ClassVar[set[str]] = {"key-bar--key", "key-bar--description", "key-bar--hover"}
    DEFAULT_CSS = """
    KeyBar {
        height: 1;
        width: 100%;
        dock: bottom;
        color: $footer-foreground;
        background: $footer-background;
        & > .key-bar--key { color: $footer-key-foreground; background: $footer-key-background; text-style: bold; }
        & > .key-bar--description { color: $footer-description-foreground; background: $footer-description-background; }
        & > .key-bar--hover { background: $block-hover-background; }
    }
    """

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self._entries: tuple[KeyEntry, ...] = ()
        self._palette: KeyEntry | None = None
        self._spans: list[tuple[int, int, KeyEntry]] = []
        """Where each drawn entry lies (start and end cell), for clicks and hovering."""
        self._hover: KeyEntry | None = None
        self._read_due = False

    # --- following the screen's bindings -------------------------------------------------------

    def on_mount(self) -> None:
        self.screen.bindings_updated_signal.subscribe(self, self._bindings_changed)
        self._read_bindings()

    def on_unmount(self) -> None:
        self.screen.bindings_updated_signal.unsubscribe(self)

    def _bindings_changed(self, screen: Screen[object]) -> None:
        # Changes come in bursts (focus, then each widget's check_action): read once, after them.
        if not self._read_due and self.is_attached and screen is self.screen:
            self._read_due = True
            self.call_after_refresh(self._read_bindings)

    def _read_bindings(self) -> None:
        self._read_due = False
        if not self.is_attached:
            return
        entries: list[KeyEntry] = []
        actions: set[str] = set()
        palette: KeyEntry | None = None
        palette_key = self.app.COMMAND_PALETTE_BINDING if self.app.ENABLE_COMMAND_PALETTE else None
        for key, (_node, binding, enabled, _tooltip) in self.screen.active_bindings.items():
            if key == palette_key:
                palette = self._entry(binding, enabled)
            if not binding.show or binding.action in actions:
                continue
            actions.add(binding.action)
            entries.append(self._entry(binding, enabled))
        if tuple(entries) != self._entries or palette != self._palette:
            self._entries, self._palette = tuple(entries), palette
            self.refresh()

    def _entry(self, binding: Binding, enabled: bool) -> KeyEntry:
        return KeyEntry(binding.key, self.app.get_key_display(binding), binding.description, enabled)

    @property
    def entries(self) -> tuple[KeyEntry, ...]:
        """The keys offered, in order (the palette's key not included)."""
        return self._entries

    # --- drawing ------------------------------------------------------------------------------

    def render(self) -> Text:
        width = self.size.width
        palette = self._palette
        palette_width = palette.width if palette is not None else 0  # the separator takes its lead space
        room = width - palette_width if palette_width <= width // 2 else width
        line = Text(no_wrap=True, overflow="crop", end="")
        self._spans = []
        for entry in self._entries:
            if line.cell_len + entry.width > room:
                break
            self._append(line, entry)
        if palette is not None and room < width:
            line.append(" " * (room - line.cell_len))
            line.append(SEPARATOR, self._separator_style())
            self._append(line, palette, lead="")
        return line

    def _append(self, line: Text, entry: KeyEntry, lead: str = " ") -> None:
        start = line.cell_len
        key_style = self.get_component_rich_style("key-bar--key")
        description_style = self.get_component_rich_style("key-bar--description")
        extra = Style(dim=True) if not entry.enabled else Style()
        if entry == self._hover:
            extra += self.get_component_rich_style("key-bar--hover")
        line.append(f"{lead}{entry.display} ", key_style + extra)
        if entry.description:
            line.append(f"{entry.description} ", description_style + extra)
        self._spans.append((start, line.cell_len, entry))

    def _separator_style(self) -> Style:
        # A faint rule, as Textual's footer draws before the palette's key.
        colour = self.styles.color.with_alpha(0.2)
        background = self.styles.background
        return Style(color=(background + colour).rich_color, bgcolor=background.rich_color)

    # --- the mouse ----------------------------------------------------------------------------

    def _entry_at(self, x: int) -> KeyEntry | None:
        for start, end, entry in self._spans:
            if start <= x < end:
                return entry
        return None

    def on_mouse_down(self, event: events.MouseDown) -> None:
        entry = self._entry_at(event.x)
        if entry is None:
            return
        if entry.enabled:
            self.app.simulate_key(entry.key)
        else:
            self.app.bell()

    def on_mouse_move(self, event: events.MouseMove) -> None:
        hover = self._entry_at(event.x)
        if hover != self._hover:
            self._hover = hover
            self.refresh()

    def on_leave(self, event: events.Leave) -> None:
        if self._hover is not None:
            self._hover = None
            self.refresh()
