"""A console under test paints its screen when the test reads it, and once more as the test ends.

Textual paints whenever something on the screen changed, also headless, where the painted frame
goes nowhere: the console tests spent about a fifth of their CPU painting frames no one read
(the board and pipeline tests, two workers: 206 s of CPU, 168 s without those paints; pacing them
to one every 2 s still took 196 s, the first paint of each screen being the dear one). What a test
reads is painted when it reads it (``export_screenshot``, the snapshots, ``render_line``), the
layout is worked out as before (sizes, scrolling, ``call_after_refresh`` callbacks), and each
test's last screen is painted in full when its ``run_test`` ends, so a widget that cannot be
drawn still fails its test. The pty tests (``tests/pty``) run the real executable, which paints
every frame to a terminal.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from textual.app import App
from textual.screen import Screen


def install() -> None:
    """Headless screens in this process paint on demand only (a real terminal is left as it is)."""
    original_refresh = Screen._compositor_refresh
    if getattr(original_refresh, "labdeck_on_demand", False):
        return

    def refresh_on_demand(self: Screen[Any]) -> None:
        app = self.app
        if not app.is_headless or app.is_inline or self is not app.screen:
            original_refresh(self)
            return
        # What a paint would have cleared after drawing it (the next read draws it all anyway).
        self._compositor._dirty_regions.clear()
        self._dirty_widgets.clear()
        app._update_mouse_over(self)

    original_run_test = App.run_test

    @asynccontextmanager
    async def run_test_painting_last(self: App[Any], *args: Any, **kwargs: Any) -> AsyncIterator[Any]:
        async with original_run_test(self, *args, **kwargs) as pilot:
            yield pilot
            if self.is_running and self.screen.is_attached:
                self.screen._compositor.render_update(full=True, screen_stack=self._background_screens)

    refresh_on_demand.labdeck_on_demand = True  # type: ignore[attr-defined]
    Screen._compositor_refresh = refresh_on_demand  # type: ignore[method-assign]
    App.run_test = run_test_painting_last  # type: ignore[method-assign,assignment]
