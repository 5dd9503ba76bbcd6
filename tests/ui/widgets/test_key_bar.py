"""The key bar at the bottom: whole keys only, the palette's key at the right, keys follow the screen
(read-only mode hides the changes), and a click runs the key."""

from __future__ import annotations

from labdeck.ui.dialogs.keys import KeysScreen
from labdeck.ui.widgets.key_bar import SEPARATOR, KeyBar
from tests.support.pilot import settle
from tests.ui.board_support import ROOMY
from tests.ui.conftest import SimConsole, shared_sim
from tests.ui.helpers import screen_lines


@shared_sim
async def test_only_whole_keys_fit_and_the_palette_key_stays_at_the_right(console: SimConsole) -> None:
    async with console.run(size=(80, 24)) as (app, pilot):
        await settle(app, pilot, rounds=3)
        bar = app.screen.query_one(KeyBar)
        line = screen_lines(app)[-1]
        keys, _, palette = line.partition(SEPARATOR)
        assert palette.strip() == "^p Palette"
        shown = [entry for entry in bar.entries if entry.label.strip() in keys]
        assert shown and shown[0].label.strip() == "? Keys"
        # Every entry drawn is drawn whole, in order, and the first one left out did not fit.
        assert keys.rstrip() == "".join(entry.label for entry in shown).rstrip()
        left_out = bar.entries[len(shown)]
        assert len("".join(entry.label for entry in shown)) + left_out.width > 80 - len(" ^p Palette ")


@shared_sim
async def test_keys_follow_the_screen_and_read_only_mode(console: SimConsole) -> None:
    async with console.run(board=ROOMY, size=(160, 30)) as (app, pilot):
        await settle(app, pilot, rounds=3)
        assert "s Star" in screen_lines(app)[-1]
        app.set_read_only(True)
        await settle(app, pilot, rounds=3)
        assert "s Star" not in screen_lines(app)[-1] and "? Keys" in screen_lines(app)[-1]
        await pilot.press("0")  # the board: its own keys
        await settle(app, pilot, rounds=3)
        assert "f Status" in screen_lines(app)[-1] and "d Details" not in screen_lines(app)[-1]


@shared_sim
async def test_a_click_on_a_key_runs_it(console: SimConsole) -> None:
    async with console.run(size=(100, 30)) as (app, pilot):
        await settle(app, pilot, rounds=3)
        await pilot.click(KeyBar, offset=(2, 0))  # on "? Keys"
        await settle(app, pilot, rounds=3)
        assert isinstance(app.screen, KeysScreen)
