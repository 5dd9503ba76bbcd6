"""A project a change source saw move is read before projects that are merely due. On GitLab, with
the budget taken by thirty busy projects and the rotation of the others, a failure in a busy
project reaches the board within 10 s (in a 2,000-project trial with a real clock, one came 30 s
late behind reads that were merely due). Real HTTP against the simulator, the poller's clock in
lockstep with the simulator's (no request latency: this guards the order, the trial the timing)."""

from __future__ import annotations

from collections.abc import Callable

from labdeck.sim.server import SimServer
from tests.watch.helpers import (
    busy_board,
    failure_delays,
    push_failures,
)


async def test_a_new_failure_in_a_busy_project_is_read_before_the_due_reads(
        sim_factory: Callable[..., SimServer]) -> None:
    server = sim_factory(dialect="gitlab", projects=300)
    async with busy_board(server) as loaded:
        poller, board = loaded.poller, loaded.board
        assert board[-1].loading == 0 and poller.batches.available is True

        pushed = push_failures(server, 20)
        delays = await failure_delays(poller, loaded.fake, server, board, pushed, seconds=300)
        assert max(delays) <= 10, delays
        assert poller.stats.by_kind["activity"] > 0
