"""Watching for a board over several instances (issue 30): a board is complete as soon as its
projects are read, whatever triage spent of the budget."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from labdeck.base.statefile import StateStore
from labdeck.sim.server import SimServer
from labdeck.watch import BoardSnapshot, WatchedSet, WatchStore
from tests.watch.helpers import api_client, fake_clock, make_poller, run_until


async def test_the_watched_listing_is_not_kept_waiting_by_first_reads_nor_by_triage(
        sim_factory: Callable[..., SimServer], tmp_path: Path) -> None:
    """300 projects added with ``w`` and the starred ones: the board says ``loading…`` until the
    listing of the watched set is in. It went after the 300 first reads, and then waited for the
    steady tokens the board's triage had spent meanwhile (15 s for one instance, over a minute
    for each of two)."""
    server = sim_factory(projects=300)
    store = WatchStore(StateStore(tmp_path / "state.json"), server.base_url)
    for pid in sorted(server.state.projects):
        store.add(pid, str(pid))
    fake = fake_clock()
    board: list[BoardSnapshot] = []
    async with api_client(server) as client:
        watched = WatchedSet(client, store)
        poller = make_poller(client, server, fake)
        poller.subscribe_board(board.append, watched=watched)
        poller.budget.charge(30)  # triage's first round paid its 40 reads from the steady budget
        took = await run_until(poller, fake, lambda: watched.resolved and bool(board) and board[-1].loading == 0)
        assert took < 15  # the first reads' own pace (30 a second), not 30 s of steady tokens
        poller.close()
