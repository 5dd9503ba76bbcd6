"""SVG snapshot of a project's issues list at 80x24 and 120x40 (the section snapshots' simulator)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from labdeck.ui.app import LabdeckApp
from labdeck.ui.screens.issues.list import IssuesScreen
from tests.ui.screens.conftest import SIZES, showing


@pytest.mark.parametrize("size", SIZES)
def test_issue_list(snap_compare: Any, section_app: Callable[[], LabdeckApp], size: tuple[int, int]) -> None:
    screen = lambda: IssuesScreen(project_id=1, project_path="platform/api-gateway",  # noqa: E731
                                  filters={"state": "all"})
    assert snap_compare(section_app(), run_before=showing(screen), terminal_size=size)
