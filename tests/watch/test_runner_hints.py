"""The runners' job lists as a change source where no GraphQL says which pipelines moved (spec
servers): a job that stops running has its project read at once, so a failure in a busy project
(one of many, each read only every minute or so once the busy share is spread) reaches the board
sooner; a token that may not read the runners (403) is not asked again. Real HTTP, simulator."""

from __future__ import annotations

from collections.abc import Callable

import httpx

from labdeck.sim.server import SimServer
from labdeck.watch import BoardSnapshot, RunningNowSnapshot, WatchedProject, WatchedProjects
from tests.watch.helpers import (
    BUSY_FAILING,
    api_client,
    busy_board,
    failure_delays,
    fake_clock,
    lockstep,
    make_poller,
    push_failures,
    push_pipeline,
    run_for,
)


async def test_a_failure_in_a_busy_project_is_read_when_its_job_stops(sim_factory: Callable[..., SimServer]) -> None:
    server = sim_factory(dialect="spec", projects=120)
    async with busy_board(server) as loaded:
        poller, board, busy = loaded.poller, loaded.board, loaded.busy
        assert board[-1].loading == 0 and all(poller.tracks[pid].lane == "hot" for pid in busy[len(BUSY_FAILING):])
        pushed = push_failures(server, 150)
        delays = await failure_delays(poller, loaded.fake, server, board, pushed, seconds=700)
        # Without the runners' lists (busy projects read every 70 s): 13, 22, 30, 42, 46, 46 s (mean 33).
        # A reading comes every 35 s here, so a delay depends on where a failure falls between two:
        # the same code gave medians of 10, 16 and 25 s for jobs 0, 3 and 7 s longer. The mean is
        # what the hints buy (14-20 s over those three).
        assert sum(delays) / len(delays) <= 22 and max(delays) <= 45, delays
        assert poller.busy_interval() >= 60  # the busy ones leave their share to the rotation
        assert poller.stats.by_kind["runners"] > 0


async def test_a_token_that_may_not_read_the_runners_is_not_asked_again(sim_factory: Callable[..., SimServer]) -> None:
    server = sim_factory(dialect="spec", projects=20)
    fake = fake_clock()
    board: list[BoardSnapshot] = []
    asked: list[str] = []
    async with api_client(server, "user") as client:
        async def note(request: object) -> None:
            if "/runners" in str(getattr(request, "url", "")):
                asked.append(str(getattr(request, "url", "")))

        client.http.event_hooks["request"].append(note)
        poller = make_poller(client, server, fake)
        poller.subscribe_board(board.append, watched=WatchedProjects(tuple(
            WatchedProject(p, str(p)) for p in sorted(server.state.projects))))
        await run_for(poller, fake, 300)
        assert board and board[-1].loading == 0
        assert len(asked) == 1 and poller.runner_hints.refused
        poller.close()


async def test_the_running_now_strip_learns_from_a_403_and_says_it_once(sim_factory: Callable[..., SimServer]) -> None:
    """The board subscribes to the admin strip whatever the token: a token that may not read the
    runners was asked ``/runners/all`` every 60 s (a 403 each time), and again each time the board
    opened. Now it is asked again only at the long pace of refused reads, and the strip is told
    once (the board says it)."""
    server = sim_factory(dialect="spec", projects=20)
    fake = fake_clock()
    strips: list[RunningNowSnapshot] = []
    asked: list[str] = []
    async with api_client(server, "user") as client:
        async def note(request: httpx.Request) -> None:
            if "/runners" in request.url.path:
                asked.append(request.url.path)

        client.http.event_hooks["request"].append(note)
        poller = make_poller(client, server, fake)
        poller.subscribe_board(lambda snapshot: None, watched=WatchedProjects(tuple(
            WatchedProject(p, str(p)) for p in sorted(server.state.projects))))
        first = poller.subscribe_running_now(strips.append)
        await run_for(poller, fake, 300)
        first.close()
        poller.subscribe_running_now(strips.append)  # the board opened again
        await run_for(poller, fake, 240)
        assert asked == ["/api/v4/runners/all"]
        assert len(strips) == 1 and strips[0].refused and strips[0].error
        poller.close()



async def test_a_short_failing_job_pushed_into_a_long_busy_project_is_seen_within_seconds(
        sim_factory: Callable[..., SimServer]) -> None:
    """A busy project is read every minute while the runners' lists follow its jobs. A push into it
    brings a new pipeline whose first job may start and fail between two readings of those lists
    (unseen by them): the push makes the project fresh again, read every ``interval`` as a push
    into a quiet project is. Before, such a failure waited for the busy cadence (61 s in
    ``bench_board.py --scenario fresh``, spec dialect, 300 projects; 40–50 s here)."""
    server = sim_factory(dialect="spec", projects=40)
    fake = fake_clock()
    board: list[BoardSnapshot] = []
    busy = BUSY_FAILING[0]
    async with api_client(server) as client:
        poller = make_poller(client, server, fake, stuck_after=3600.0)
        poller.subscribe_board(board.append, watched=WatchedProjects(tuple(
            WatchedProject(p, str(p)) for p in sorted(server.state.projects))))
        # Busy for hours: a job that waits for a runner that never comes.
        push_pipeline(server, busy, [{"name": "soak", "duration": 86_400, "tags": ["nowhere"]}])
        await lockstep(poller, fake, server, 300)
        assert poller.tracks[busy].lane == "hot" and poller.busy_interval() >= 60
        delays = []
        for duration in (3, 4, 5):
            pushed = {busy: push_pipeline(server, busy, [{"name": "unit", "fail": True, "duration": duration}])}
            delays += await failure_delays(poller, fake, server, board, pushed, seconds=200)
            await lockstep(poller, fake, server, 150)  # settled again: read at the busy cadence
        assert max(delays) <= 10, delays
        poller.close()
