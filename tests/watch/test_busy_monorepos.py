"""Twenty projects running big pipelines at once on GitLab (GraphQL batches): a failure deep in one
of them reaches the board within seconds, within the budget, also while their running counts move.

The batches state every latest pipeline's failed count at each change check; a busy project's own
failed-count probe is spared while they state the same (its read, which then sends nothing, gives
its budget token back), a count the batch saw move is read at once, and reads for progress alone
come after the change check. Before, each busy project was probed at its own round, which the
budget stretched to 20 s and more. Real HTTP against the simulator, the poller's clock in lockstep
with the simulator's."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from labdeck.sim.ci.engine import store
from labdeck.sim.server import SimServer
from labdeck.watch import BoardSnapshot, WatchedProject, WatchedProjects
from tests.support.sim_control import advance, big_stages, push_stages
from tests.watch.helpers import api_client, busiest_minute, failure_delays, fake_clock, lockstep, make_poller

BUSY = 20
FIRST_FAILURE = 3600
"""Seconds after the push when the first deep failure comes (then one every :data:`SPACING` s,
project by project)."""
SPACING = 7


@pytest.mark.parametrize("churning", [False, True], ids=["steady", "churning"])
async def test_deep_failures_in_busy_monorepos_show_within_seconds_within_the_budget(
        sim_factory: Callable[..., SimServer], churning: bool) -> None:
    """``churning``: the monorepos' other test jobs end all through the failures, so their running
    counts move at every check (each batch sees every busy project move)."""
    server = sim_factory(dialect="gitlab", projects=60)
    live = sorted(p.id for p in server.state.projects.values() if not p.archived)
    with server.state.lock:
        store(server.state).next_pipeline_at = None  # the monorepos' pipelines stay their latest
        for runner in store(server.state).runners.values():
            runner.concurrent = max(runner.concurrent, 400)  # every job of every pipeline at once

    def durations(index: int) -> dict[int, float]:
        ends = {i: FIRST_FAILURE - 120 + (i * 37 + index * 11) % 400 for i in range(2, 60)} if churning else {}
        return {1: FIRST_FAILURE + SPACING * index, **ends}

    pushed = {pid: push_stages(server, pid, big_stages(tests=60, deploys=45, fail=(1,), long=(60,),
                                                      durations=durations(index)))
              for index, pid in enumerate(live[:BUSY + 12])}
    advance(server, 1800)  # every other test job has run (or, churning, runs until the failures)

    def first_job(pid: int) -> int:
        return int(next(job["id"] for job in pushed[pid]["jobs"] if job["name"] == "unit-0001"))

    # Those whose jobs a runner took (some projects' jobs need tags no runner has).
    busy = [pid for pid in pushed if server.state.jobs[first_job(pid)].status == "running"][:BUSY]
    assert len(busy) == BUSY
    fake = fake_clock()
    board: list[BoardSnapshot] = []
    watched = WatchedProjects(tuple(WatchedProject(pid, str(pid)) for pid in live))
    async with api_client(server) as client:
        poller = make_poller(client, server, fake)
        poller.subscribe_board(board.append, watched=watched)
        await lockstep(poller, fake, server, 240)
        rows = {row.project_id: row for row in board[-1].rows if row.pipeline_id in {p["id"] for p in pushed.values()}}
        assert board[-1].loading == 0 and poller.batches.available is True
        assert all(rows[pid].partial and rows[pid].status == "running" for pid in busy)
        sent: list[float] = []

        async def note(request: object) -> None:
            sent.append(fake.now)

        client.http.event_hooks["request"].append(note)
        # The busy projects an hour on (settled), then a deep failure every SPACING s.
        await lockstep(poller, fake, server, 60)
        advance(server, FIRST_FAILURE - 1800 - 300 - 1)
        # failure_delays times each pipeline's first listed job: here its failing unit-0001.
        failing = {pid: {**pushed[pid], "jobs": [{"id": first_job(pid)}]} for pid in busy}
        delays = await failure_delays(poller, fake, server, board, failing, seconds=SPACING * BUSY + 60)
        # Before: up to 13-19 s steady, 63 s churning (each busy project probed at its own round,
        # stretched by the budget); churning, with progress read before the change check, 31 s.
        assert max(delays) <= (12 if churning else 6), delays
        assert busiest_minute(sent) <= poller.settings.requests_per_minute  # a read that sent nothing gave its token back
        poller.close()
