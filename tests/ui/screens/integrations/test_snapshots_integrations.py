"""SVG snapshot of a project's integrations list at 80x24 and 120x40 (the section snapshots' simulator)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from labdeck.ui.app import LabdeckApp
from labdeck.ui.screens.integrations.list import IntegrationsScreen
from tests.ui.screens.conftest import SIZES, showing


@pytest.mark.parametrize("size", SIZES)
def test_integration_list(snap_compare: Any, section_app: Callable[[], LabdeckApp], size: tuple[int, int]) -> None:
    assert snap_compare(section_app(), run_before=showing(lambda: IntegrationsScreen(14, "web/storefront")),
                        terminal_size=size)
