"""The board in UI tests: a poller that reads often, opening the board, its rows."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from labdeck.base.config import BoardSettings
from labdeck.base.secret import Secret
from labdeck.base.session import Session
from labdeck.base.statefile import StateStore
from labdeck.sim.server import SimServer
from labdeck.ui.app import LabdeckApp
from labdeck.ui.screens.board.board import BoardScreen
from labdeck.ui.ui_state import UiState
from labdeck.watch import BoardSnapshot, PipelineRow
from tests.support.pilot import settle, wait_until

FAST = BoardSettings(interval=0.3, requests_per_minute=6000, max_in_flight=8)
"""A poller that reads often: tests wait seconds, not minutes."""
ROOMY = BoardSettings(requests_per_minute=6000)
"""The default cadence with a budget that never holds a read back: for tests of other screens,
whose triage (a pipeline view's 40 failed jobs) would otherwise read at 60 a minute."""


def rows(screen: BoardScreen) -> list[PipelineRow]:
    return [row.data for row in screen.table.visible_rows()]


def show_rows(board: BoardScreen, *rows: PipelineRow) -> None:
    """The board shows ``rows`` as if the poller had sent them (keep the poller away first:
    ``board._pipelines.set_visible(False)``, or its next snapshot replaces them)."""
    board.snapshot = BoardSnapshot(rows=rows, generation=board.snapshot.generation)
    board._show()


async def open_board(app: LabdeckApp, pilot: Any) -> BoardScreen:
    await settle(app, pilot)
    await pilot.press("0")
    screen = app.screen
    assert isinstance(screen, BoardScreen)
    await wait_until(pilot, lambda: screen.table.row_count > 0 and not screen.snapshot.loading)
    # Rows show as their pages arrive: the first round is over when no read is under way any more.
    poller = app.watching.poller
    await wait_until(pilot, lambda: not any(track.in_flight for track in poller.tracks.values()))
    await settle(app, pilot)
    return screen


async def open_board_storm_safe(app: LabdeckApp, pilot: Any) -> BoardScreen:
    """Open the board and wait for its first round to be said in the header (``nothing failing``
    or ``N failed ·``). Safe in a storm: never :func:`settle` once the board reads (settling waits
    for every worker, and in a storm the readers wait out their back-off: 15 s and more a time)."""
    await settle(app, pilot)
    await pilot.press("0")
    screen = app.screen
    assert isinstance(screen, BoardScreen)
    await wait_until(pilot, lambda: screen.table.row_count > 0 and ("nothing failing" in screen.context_text
                                                                     or "failed ·" in screen.context_text),
                     what="the board's first round")
    return screen


def starred_project(server: SimServer) -> int:
    root = next(user for user in server.state.users.values() if user.username == "root")
    return min(p.id for p in server.state.projects.values() if root.id in p.starred_by)


def owner(screen: BoardScreen, row: PipelineRow) -> str:
    """The short name of the instance a row of a board over several instances comes from."""
    instance = screen.instance_of_row(row)
    assert instance is not None
    return instance.short


async def open_merged_board(app: LabdeckApp, pilot: Any) -> BoardScreen:
    """Open the board over prod and staging and wait until both instances' rows are on it and
    nothing is loading."""
    await settle(app, pilot)
    await pilot.press("0")
    screen = app.screen
    assert isinstance(screen, BoardScreen)
    await wait_until(pilot, lambda: {owner(screen, row) for row in rows(screen)} == {"prod", "staging"}
                     and not screen.snapshot.loading and "loading" not in screen.context_text,
                     limit=30, what="both instances' rows")
    return screen


def prod_and_staging_app(prod_url: str, staging_url: str, tokens: dict[str, str], state_path: Path, *,
                         prod_role: str = "admin") -> LabdeckApp:
    """A console over two instances: ``prod`` (profile production, ``prod_role``'s token) and
    ``staging`` (the user's token), both with the fast board."""
    first = Session(base_url=prod_url, token=Secret(tokens[prod_role]), profile="production", short_name="prod",
                    board=FAST)
    second = Session(base_url=staging_url, token=Secret(tokens["user"]), profile="staging", board=FAST)
    return LabdeckApp(first, ui_state=UiState(StateStore(state_path)), more_sessions=[second])


def why_cells(screen: BoardScreen) -> dict[tuple[str, str], str]:
    """(project, failed job name) → the Why cell of its first failed pipeline shown (the newest of its ref)."""
    columns = [column.key for column in screen.table.columns]
    cells: dict[tuple[str, str], str] = {}
    for row in screen.table.visible_rows():
        if row.data.status == "failed":
            for name in row.data.failed_jobs:
                cells.setdefault((row.data.project_path, name), str(row.cells[columns.index("why")]))
    return cells
