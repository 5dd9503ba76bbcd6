"""What the shared poller costs while nothing changes, counted on its own clock (no timing): it
wakes up only when a read is due and affordable, not over and over while its budget is spent."""

from __future__ import annotations

from collections.abc import Callable

from labdeck.sim.server import SimServer
from labdeck.watch import BoardPoller, BoardSnapshot, WatchedProject, WatchedProjects
from tests.watch.helpers import FakeClock, api_client, make_poller, project_id, push_pipeline, run_until

BUSY = ("platform/infra/observability", "web/storefront", "platform/search", "data/reports")


async def count_steps(poller: BoardPoller, fake: FakeClock, seconds: float) -> int:
    """Step the poller for ``seconds`` of its clock as the app's worker does (a sleep of what it
    asks after each step); returns how many steps it took."""
    end, steps = fake.now + seconds, 0
    while fake.now < end:
        delay = await poller.step()
        steps += 1
        fake.now = min(end, fake.now + delay)
        assert steps < 100_000
    return steps


async def test_a_spent_budget_puts_the_poller_to_sleep_until_it_refills(sim_factory: Callable[..., SimServer]) -> None:
    """Four projects with running jobs at the live cadence want 48 reads a minute, the activity
    check 12 more; a budget of 20 a minute can afford a third of that. The poller waits for each
    token (a wake-up per read, give or take), instead of planning every 50 ms in vain."""
    server = sim_factory()
    ids = [project_id(server, path) for path in BUSY]
    for pid in ids:
        push_pipeline(server, pid, [{"name": "long-build", "duration": 3600}])
    fake = FakeClock()
    board: list[BoardSnapshot] = []
    async with api_client(server) as client:
        poller = make_poller(client, server, fake, requests_per_minute=20.0)
        poller.subscribe_board(board.append, watched=WatchedProjects(tuple(WatchedProject(pid, str(pid)) for pid in ids)))
        await run_until(poller, fake, lambda: bool(board) and board[-1].loading == 0)
        assert {board[-1].projects[pid].lane for pid in ids} == {"hot"}
        await count_steps(poller, fake, 60)  # the burst is spent
        requests = poller.stats.requests
        steps = await count_steps(poller, fake, 120)
        made = poller.stats.requests - requests
        assert 30 <= made <= 2 * 20 + 2  # the budget is used, and kept to
        assert steps <= 2 * made + 10  # one step reads, the next one sleeps until a token is there
        poller.close()
