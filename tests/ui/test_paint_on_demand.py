"""The test consoles paint only what a test reads, and their last screen as the test ends
(``tests/support/paint_on_demand.py``): a widget that cannot be drawn still fails its test."""

from __future__ import annotations

import pytest
from rich.console import RenderableType
from textual.app import App, ComposeResult
from textual.widgets import Static

from tests.ui.helpers import screen_lines


class _Undrawable(Static):
    def render(self) -> RenderableType:
        raise RuntimeError("this widget cannot be drawn")


class _Broken(App[None]):
    def compose(self) -> ComposeResult:
        yield Static("fine")
        yield _Undrawable()


class _Fine(App[None]):
    def compose(self) -> ComposeResult:
        yield Static("all of it drawn")


async def test_a_widget_that_cannot_be_drawn_still_fails_the_test_that_shows_it() -> None:
    with pytest.raises(RuntimeError, match="cannot be drawn"):
        async with _Broken().run_test(size=(40, 5)) as pilot:
            await pilot.pause()


async def test_what_a_test_reads_is_painted_when_it_reads_it() -> None:
    app = _Fine()
    async with app.run_test(size=(40, 5)) as pilot:
        await pilot.pause()
        assert any("all of it drawn" in line for line in screen_lines(app))  # type: ignore[arg-type]
