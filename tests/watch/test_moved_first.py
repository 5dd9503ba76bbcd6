"""A project a change source saw move is read before projects that are merely due. On GitLab, with
the budget taken by thirty busy projects and the rotation of the others, a failure in a busy
project reaches the board within 10 s (in a 2,000-project trial with a real clock, one came 30 s
late behind reads that were merely due). Real HTTP against the simulator, the poller's clock in
lockstep with the simulator's (no request latency: this guards the order, the trial the timing)."""

from __future__ import annotations

from collections.abc import Callable

from labdeck.sim.server import SimServer
from labdeck.watch import BoardSnapshot, WatchedProject, WatchedProjects
from tests.support.sim_control import advance, push_pipeline
from tests.watch.helpers import api_client, failure_delays, fake_clock, make_poller, run_for


async def test_a_new_failure_in_a_busy_project_is_read_before_the_due_reads(
        sim_factory: Callable[..., SimServer]) -> None:
    server = sim_factory(dialect="gitlab", projects=300)
    ids = sorted(server.state.projects)
    failing = [1, 2, 10, 11, 12, 17]  # projects with runners of their own: their jobs start at once
    busy = failing + [pid for pid in ids if pid not in failing][:24]
    for pid in busy[len(failing):]:
        push_pipeline(server, pid, [{"name": "soak", "duration": 86_400, "tags": ["nowhere"]}])
    advance(server, 5)
    fake = fake_clock()
    board: list[BoardSnapshot] = []
    watched = WatchedProjects(tuple(WatchedProject(pid, str(pid)) for pid in ids))
    async with api_client(server) as client:
        poller = make_poller(client, server, fake, stuck_after=3600.0)
        poller.subscribe_board(board.append, watched=watched)
        for _ in range(240):  # loaded, and the busy ones past their first minutes
            advance(server, 1)
            await run_for(poller, fake, 1)
        assert board[-1].loading == 0 and poller.batches.available is True

        pushed = {}
        for index, pid in enumerate(failing):
            pushed[pid] = push_pipeline(server, pid, [{"name": f"unit-{index}", "fail": True, "duration": 20 + 7 * index}])
        delays = await failure_delays(poller, fake, server, board, pushed, seconds=300)
        assert max(delays) <= 10, delays
        assert poller.stats.by_kind["activity"] > 0
        poller.close()
