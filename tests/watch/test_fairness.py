"""The budget is shared fairly: however much busy projects would take, every watched project is
read again within the bound the board's help shows (202 projects, five of them running jobs all
the time, 60 requests a minute: the rotation, not the sweep period, sets the bound), and the rows
say how old they are."""

from __future__ import annotations

from collections.abc import Callable

from labdeck.sim.server import SimServer
from labdeck.watch import BoardSnapshot, WatchedProject, WatchedProjects
from labdeck.watch.ages import RowAges
from tests.support.sim_control import advance, push_pipeline
from tests.watch.helpers import api_client, fake_clock, make_poller, run_for, run_until


async def test_every_project_is_read_within_the_bound_whatever_busy_ones_take(
        sim_factory: Callable[..., SimServer]) -> None:
    server = sim_factory(projects=202)
    ids = sorted(server.state.projects)
    for pid in ids[:5]:
        for _ in range(3):
            push_pipeline(server, pid, [{"name": "soak", "duration": 86_400}])
    advance(server, 5)
    fake = fake_clock()
    board: list[BoardSnapshot] = []
    async with api_client(server) as client:
        poller = make_poller(client, server, fake)
        poller.subscribe_board(board.append, watched=WatchedProjects(tuple(WatchedProject(pid, str(pid)) for pid in ids)))
        await run_until(poller, fake, lambda: bool(board) and board[-1].loading == 0, limit=300)
        assert all(poller.tracks[pid].lane == "hot" for pid in ids[:5])
        bound = poller.read_bound()
        assert poller.settings.sweep_period < bound <= 15 * 60
        # The help's bound follows the number of projects (`:board help` before the first round):
        # 802 projects at 60 a minute, about three quarters of an hour.
        assert poller.read_bound(202) == bound and poller.read_bound(802) <= 50 * 60
        assert poller.read_bound(2000) > 2 * poller.read_bound(300)
        start = fake.now
        await run_for(poller, fake, bound)
        unread = [pid for pid in ids if (poller.tracks[pid].last_ok or 0.0) < start]
        assert unread == []
        ages = poller.row_ages()
        assert ages.oldest(board[-1].rows) is not None and ages.oldest(board[-1].rows) <= bound  # type: ignore[operator]
        poller.close()


def test_a_row_older_than_its_class_allows_is_stale() -> None:
    from labdeck.watch.pipelines import PipelineRow

    def row(pid: int, status: str) -> PipelineRow:
        from datetime import UTC, datetime
        return PipelineRow(pid, str(pid), pid, "main", None, status, (), (), 0, 0, 0, None, None, None, None, (),
                           0, datetime(2026, 1, 1, tzinfo=UTC))

    ages = RowAges(1000.0, {1: 960.0, 2: 960.0, 3: 600.0, 4: None})
    assert ages.stale(row(1, "failed")) and ages.stale(row(2, "running"))  # 40 s > 30 s
    assert not ages.stale(row(2, "success"))  # 40 s < 5 min
    assert ages.stale(row(3, "success")) and not ages.stale(row(4, "failed"))  # never read: not "stale", loading
    assert ages.label([row(1, "failed"), row(3, "success")]) == "oldest 6m"
