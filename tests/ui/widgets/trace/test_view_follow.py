"""The trace view while a log streams in fast: new output is scrolled into view frame by frame
(not after every piece), and nothing is left behind when the pieces stop or the log ends."""

from __future__ import annotations

from typing import Any

import pytest
from textual.app import App, ComposeResult

from labdeck.ui.widgets.trace import view as trace_view
from labdeck.ui.widgets.trace.view import TraceView
from tests.support.pilot import wait_until


class _ViewApp(App[None]):
    def compose(self) -> ComposeResult:
        yield TraceView(id="trace")


def _rows(view: TraceView) -> list[str]:
    return [view.strip_text(y) for y in range(view.scrollable_content_region.height)]


def _at_the_end(view: TraceView, last: str) -> bool:
    return (any(last in row for row in _rows(view)) and view.cursor_line == view.line_count - 1
            and view.scroll_y == view.max_scroll_y)


async def _open(pilot: Any) -> TraceView:
    view = pilot.app.query_one(TraceView)
    view.focus()
    await pilot.pause()
    return view


async def test_pieces_arriving_faster_than_frames_end_on_the_last_line() -> None:
    app = _ViewApp()
    async with app.run_test(size=(80, 20)) as pilot:
        view = await _open(pilot)
        for piece in range(300):
            view.append("".join(f"piece {piece} line {line}\n" for line in range(10)))
        assert view.line_count == 3000
        await wait_until(pilot, lambda: _at_the_end(view, "piece 299 line 9"), what="the last line on screen")
        assert view.following and view.pending_lines == 0


async def test_a_finished_log_shows_its_end_at_once(monkeypatch: pytest.MonkeyPatch) -> None:
    # Frames far apart: only the end of the log itself may bring the last lines into view.
    monkeypatch.setattr(trace_view, "FOLLOW_FRAME_SECONDS", 60.0)
    app = _ViewApp()
    async with app.run_test(size=(80, 20)) as pilot:
        view = await _open(pilot)
        view.append("".join(f"early {n}\n" for n in range(100)))
        await pilot.pause()
        view.append("".join(f"late {n}\n" for n in range(100)) + "the very end")
        view.finish()  # right after a frame: the end must not wait for the next one
        await pilot.pause()
        assert _at_the_end(view, "the very end")


async def test_paused_view_stays_put_while_lines_stream_in_and_counts_them() -> None:
    app = _ViewApp()
    async with app.run_test(size=(80, 20)) as pilot:
        view = await _open(pilot)
        view.append("".join(f"line {n}\n" for n in range(200)))
        await wait_until(pilot, lambda: _at_the_end(view, "line 199"), what="the end")
        await pilot.press("pageup")
        assert not view.following
        top, shown = view.scroll_y, _rows(view)
        for piece in range(50):
            view.append(f"new {piece}\n")
        await pilot.pause(0.2)
        assert view.scroll_y == top and _rows(view) == shown
        assert view.pending_lines == 50
        await pilot.press("G")
        await wait_until(pilot, lambda: _at_the_end(view, "new 49"), what="the end after G")


async def test_a_wide_last_line_keeps_the_end_in_view_above_the_new_scrollbar(monkeypatch: pytest.MonkeyPatch) -> None:
    # The horizontal scrollbar appears with the layout after the view scrolled to the end: the
    # view is a row shorter then, and the last line must not end up hidden under the scrollbar
    # until some later paint or piece of output puts it back.
    monkeypatch.setattr(trace_view, "FOLLOW_FRAME_SECONDS", 60.0)
    app = _ViewApp()
    async with app.run_test(size=(80, 20)) as pilot:
        view = await _open(pilot)
        view.append("".join(f"short {n}\n" for n in range(100)))
        await pilot.pause()
        assert not view.show_horizontal_scrollbar
        view.append("x" * 200 + "\nthe very end")
        view.finish()
        await pilot.pause()
        await pilot.pause()
        assert view.show_horizontal_scrollbar
        assert _at_the_end(view, "the very end")
