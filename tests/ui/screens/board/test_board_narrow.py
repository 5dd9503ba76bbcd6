"""The board at 80 columns says what matters and drops decoration first (issue 29, point 5): a
row keeps its failure count (``unit-0001 +39``) and the pipeline a break started in (``#127``),
and ``c`` moves to the clusters and stays there."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import replace
from types import SimpleNamespace
from typing import Any

import pytest

from labdeck.triage.report import Cluster
from labdeck.ui.screens.board.board import BoardScreen
from labdeck.ui.screens.board.clusters import ClusterStrip
from tests.support.pilot import wait_until
from tests.ui.board_support import FAST, open_board, open_board_storm_safe, show_rows
from tests.ui.conftest import SimConsole, shared_sim
from tests.ui.helpers import screen_lines
from tests.ui.jobs_support import advance

COUNTDOWN = re.compile(r"retry(?:ing)? (?:in \d+ s|now)")


def show_failing_row(board: BoardScreen, why: str, path: str = "platform/payments-service") -> None:
    """One failed pipeline with 40 failed jobs and the verdict ``why``, the poller kept away."""
    board._pipelines.set_visible(False)  # the poller's next snapshot would replace the test's row
    row = replace(board.snapshot.rows[0], status="failed", failed_known=True, failed_count=None,
                  failed_jobs=tuple(f"unit-{index:04d}" for index in range(1, 41)),
                  project_path=path)
    board.why = lambda row: why  # type: ignore[method-assign]
    show_rows(board, row)


@shared_sim
async def test_at_80_columns_a_row_keeps_its_count_and_the_pipeline_number(console: SimConsole) -> None:
    async with console.run(board=FAST, size=(80, 24)) as (app, pilot):
        board = await open_board(app, pilot)
        show_failing_row(board, "broken since #127")
        await pilot.pause()
        line = next(line for line in screen_lines(app) if "payments" in line)
        assert "+39" in line, line
        assert "#127" in line, line


@shared_sim
async def test_at_80_columns_a_deep_path_keeps_the_project_s_own_name(console: SimConsole) -> None:
    # Cut at its end, two projects of one group read the same (`platform/infra/generate…`).
    async with console.run(board=FAST, size=(80, 24)) as (app, pilot):
        board = await open_board(app, pilot)
        show_failing_row(board, "?", path="platform/infra/generated-01134")
        await pilot.pause()
        line = next(line for line in screen_lines(app) if "#" in line and "unit-0" in line)
        assert "/generated-01134" in line and line.lstrip().startswith("plat"), line


@shared_sim
async def test_at_120_columns_the_row_says_it_in_full(console: SimConsole) -> None:
    async with console.run(board=FAST, size=(120, 40)) as (app, pilot):
        board = await open_board(app, pilot)
        show_failing_row(board, "broken since #127")
        await pilot.pause()
        line = next(line for line in screen_lines(app) if "payments" in line)
        assert "unit-0001 +39 more" in line and "broken since #127" in line, line


async def press_c(app: Any, pilot: Any, board: BoardScreen) -> bool:
    await pilot.press("c")
    await pilot.pause()
    return bool(board.query_one("#board-clusters").has_focus)


def a_cluster(projects: int) -> Cluster:
    """A cluster of one long error in ``projects`` projects (verdict: broken)."""
    failures = tuple(SimpleNamespace(project=f"platform/service-{index}", instance=None,
                                     where=f"platform/service-{index}", job=SimpleNamespace(id=index),
                                     verdict=SimpleNamespace(reason="503 from the registry"))
                     for index in range(projects))
    signature = "error: failed to solve: failed to fetch oauth token: unexpected status from POST request " \
                "to https://registry.example.com/oauth2/token: 503 Service Unavailable while pulling base image"
    return Cluster(signature=signature, verdict="broken", failures=failures)  # type: ignore[arg-type]


@shared_sim
@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
async def test_a_cluster_line_keeps_its_verdict_and_project_count(console: SimConsole,
                                                                   size: tuple[int, int]) -> None:
    async with console.run(board=FAST, size=size) as (app, pilot):
        board = await open_board(app, pilot)
        board._untriage()  # the test's cluster stays
        board.query_one("#board-clusters", ClusterStrip).show_clusters([a_cluster(4)])
        await pilot.pause()
        line = next(line for line in screen_lines(app) if "failed to solve" in line)
        assert "· 4 projects · broken" in line, line


@shared_sim
async def test_c_moves_to_the_clusters_and_stays_there(console: SimConsole) -> None:
    async with console.run(board=FAST, size=(120, 40)) as (app, pilot):
        board = await open_board(app, pilot)
        board._untriage()
        board.query_one("#board-clusters", ClusterStrip).show_clusters([a_cluster(3), a_cluster(2)])
        await pilot.pause()
        assert await press_c(app, pilot, board)
        assert await press_c(app, pilot, board)  # again: still there, not back to the pipelines


async def test_at_80_columns_a_long_reason_gives_way_to_the_countdown_and_the_stale_mark(
        behind_switch: Any, console: SimConsole, gate_timing: Callable[[float, float], None]) -> None:
    """Tried at 80 columns in a wrong-shape storm: the header said ``not the API'… · last rows kept
    (stale) · 7 projects watched``, no word of when the next try is. The reason is shortened
    instead (``not the API's ans… — retry in 12 s``); the stale mark and the count stay."""
    server, switch, via = behind_switch
    gate_timing(8.0, 30.0)  # waits long enough to be said in seconds
    async with console.run(via=via, board=FAST, size=(80, 24)) as (app, pilot):
        board = await open_board_storm_safe(app, pilot)
        switch.set("wrong_shape")
        await advance(server, 60)  # jobs move on: changed pages answer 200 (wrapped)
        await wait_until(pilot, lambda: "retry in" in board.context_text or "retrying in" in board.context_text,
                         limit=30, what="the countdown in the board's header")
        said = []
        for _ in range(8):  # the whole storm: the countdown and the stale mark all along
            await pilot.pause(0.25)
            said.append(board.context_text)
        assert all(COUNTDOWN.search(text) and "(stale)" in text and "projects watched" in text for text in said), said
        title = next(line for line in screen_lines(app) if line.startswith("Board"))
        assert said[-1].split(" — ")[1].split(" ·")[0] in title and "(stale)" in title, title
        switch.set("pass")
