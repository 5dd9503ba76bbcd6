"""SVG snapshots of the console's screens at 80x24 and 120x40 (private simulator, seed 42, manual
clock, a fixed instance name), so layout regressions show up in review."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from labdeck.ui.app import LabdeckApp
from labdeck.ui.dialogs.confirm import ConfirmScreen
from tests.support.pilot import settle
from tests.support.snapshots import SHOWN_HOST
from tests.ui.helpers import ci_column_complete

SIZES = [(80, 24), (120, 40)]
SHOWN_URL = f"http://{SHOWN_HOST}"


async def _ready(pilot: Any) -> None:
    await settle(pilot.app, pilot, rounds=3)
    await ci_column_complete(pilot)
    for field in pilot.app.screen.query("Input"):
        field.cursor_blink = False
    await pilot.pause()


def _then(*keys: str) -> Callable[[Any], Any]:
    async def run_before(pilot: Any) -> None:
        await _ready(pilot)
        if keys:
            await pilot.press(*keys)
        await _ready(pilot)

    return run_before


@pytest.mark.parametrize("size", SIZES)
def test_projects(snap_compare: Any, snap_app: Callable[..., LabdeckApp], size: tuple[int, int]) -> None:
    assert snap_compare(snap_app(), run_before=_then("down", "down"), terminal_size=size)


@pytest.mark.parametrize("size", SIZES)
def test_projects_filtered(snap_compare: Any, snap_app: Callable[..., LabdeckApp], size: tuple[int, int]) -> None:
    assert snap_compare(snap_app(), run_before=_then("slash", *"web"), terminal_size=size)


@pytest.mark.parametrize("size", SIZES)
def test_project_detail(snap_compare: Any, snap_app: Callable[..., LabdeckApp], size: tuple[int, int]) -> None:
    assert snap_compare(snap_app(), run_before=_then("d"), terminal_size=size)


@pytest.mark.parametrize("size", SIZES)
def test_archive_confirmation(snap_compare: Any, snap_app: Callable[..., LabdeckApp], size: tuple[int, int]) -> None:
    assert snap_compare(snap_app(), run_before=_then("A"), terminal_size=size)


@pytest.mark.parametrize("size", SIZES)
def test_typed_confirmation(snap_compare: Any, snap_app: Callable[..., LabdeckApp], size: tuple[int, int]) -> None:
    async def run_before(pilot: Any) -> None:
        await _ready(pilot)
        pilot.app.push_screen(ConfirmScreen("Erase job", "Erase the log and artifacts of job #1234?",
                                            action_label="Erase", target="web/storefront · job #1234",
                                            typed="1234"))
        await _ready(pilot)

    assert snap_compare(snap_app(), run_before=run_before, terminal_size=size)


@pytest.mark.parametrize("size", SIZES)
def test_keys_help(snap_compare: Any, snap_app: Callable[..., LabdeckApp], size: tuple[int, int]) -> None:
    assert snap_compare(snap_app(), run_before=_then("question_mark"), terminal_size=size)


@pytest.mark.parametrize("size", SIZES)
def test_command_line(snap_compare: Any, snap_app: Callable[..., LabdeckApp], size: tuple[int, int]) -> None:
    assert snap_compare(snap_app(), run_before=_then("colon", *"proj"), terminal_size=size)


@pytest.mark.parametrize("size", SIZES)
def test_read_only_production_theme(snap_compare: Any, snap_app: Callable[..., LabdeckApp],
                                    size: tuple[int, int]) -> None:
    app = snap_app(read_only=True, theme="labdeck-production", insecure_storage=True)
    assert snap_compare(app, run_before=_then(), terminal_size=size)


@pytest.mark.parametrize("theme", ["labdeck-light", "labdeck-high-contrast"])
def test_other_themes(snap_compare: Any, snap_app: Callable[..., LabdeckApp], theme: str) -> None:
    assert snap_compare(snap_app(theme=theme), run_before=_then(), terminal_size=(100, 30))
