"""Titles change on every poll round; their labels are laid out again only when their size may change."""

from __future__ import annotations

from rich.text import Text
from textual.app import App, ComposeResult
from textual.containers import Horizontal
from textual.widgets import Label

from labdeck.ui.widgets.shown_text import show_text


class TitleRow(App[None]):
    CSS = "Horizontal { height: 1; } #context { width: 1fr; text-wrap: nowrap; } #counts { width: auto; }"

    def compose(self) -> ComposeResult:
        with Horizontal():
            yield Label("", id="context")
            yield Label("", id="counts")


async def test_a_longer_count_gets_its_room_and_a_same_width_one_is_shown_in_place() -> None:
    app = TitleRow()
    async with app.run_test(size=(40, 3)) as pilot:
        counts = app.query_one("#counts", Label)
        show_text(counts, Text("9 rows"))
        await pilot.pause()
        assert counts.region.width == 6
        show_text(counts, Text("10 rows"))  # wider: laid out again, not cut to "10 row"
        await pilot.pause()
        assert counts.region.width == 7
        assert "10 rows" in "".join(segment.text for segment in counts.render_line(0))
        show_text(counts, Text("11 rows"))  # the same width: repainted where it is
        await pilot.pause()
        assert counts.region.width == 7
        assert "11 rows" in "".join(segment.text for segment in counts.render_line(0))
        show_text(counts, Text("9 rows"))  # narrower: its room given back
        await pilot.pause()
        assert counts.region.width == 6
