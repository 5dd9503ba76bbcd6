"""A board left open keeps what it remembers about its rows to the rows it shows (issue 29, point
6: memory flat over a simulated day): every pipeline the world starts becomes a row for a while,
and what the board noted about the rows that went must go with them."""

from __future__ import annotations

from dataclasses import replace

from labdeck.ui.screens.board.board import BoardScreen
from tests.ui.board_support import FAST, open_board, show_rows
from tests.ui.conftest import SimConsole, shared_sim

PIPELINES = 200


def show_new_pipeline(board: BoardScreen, pipeline_id: int) -> None:
    """The board shows one row, of a pipeline it has not shown before (the poller kept away)."""
    row = replace(board.snapshot.rows[0], pipeline_id=pipeline_id)
    show_rows(board, row)


@shared_sim
async def test_the_rows_of_pipelines_gone_leave_nothing_behind(console: SimConsole) -> None:
    async with console.run(board=FAST, size=(120, 40)) as (app, pilot):
        board = await open_board(app, pilot)
        board._pipelines.set_visible(False)  # the poller's next snapshot would replace the test's rows
        first = max(row.pipeline_id for row in board.snapshot.rows) + 1
        for pipeline_id in range(first, first + PIPELINES):
            show_new_pipeline(board, pipeline_id)
            board._retime(app.clock())  # a clock tick between two snapshots
        await pilot.pause()
        assert [row.data.pipeline_id for row in board.table.visible_rows()] == [first + PIPELINES - 1]
        # What is noted per row (its age as shown, whether it is stale) is for the rows shown: it
        # was kept for every pipeline ever shown, growing for as long as the board stayed open.
        assert set(board._timed) == set(board._stale) == set(board._rows), (len(board._timed), len(board._stale))
