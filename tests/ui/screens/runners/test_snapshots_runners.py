"""SVG snapshot of the runners list at 80x24 and 120x40 (the section snapshots' simulator)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from labdeck.ui.app import LabdeckApp
from labdeck.ui.screens.runners.list import RunnersScreen
from tests.ui.screens.conftest import SIZES, showing


@pytest.mark.parametrize("size", SIZES)
def test_runner_list(snap_compare: Any, section_app: Callable[[], LabdeckApp], size: tuple[int, int]) -> None:
    assert snap_compare(section_app(), run_before=showing(lambda: RunnersScreen(all_runners=True), "down"),
                        terminal_size=size)
