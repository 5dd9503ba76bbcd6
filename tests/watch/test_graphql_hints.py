"""GraphQL batches as the change check on GitLab, over real HTTP against the simulator: a failure
in a project active within the last hour (GitLab's ``last_activity_at`` does not move again that
hour) reaches the board within 15 s; a canceled 5,000-job pipeline's row says ``canceled`` within
one round; a server without GraphQL (spec dialect) is asked once, then the REST check is used."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from labdeck.api.client import ApiClient
from labdeck.api.core import TOKEN_REFUSED
from labdeck.base.secret import Secret
from labdeck.sim.ci.engine import store
from labdeck.sim.dataset.build import DEMO_TOKENS
from labdeck.sim.server import SimServer
from labdeck.watch import BoardSnapshot, WatchedProject, WatchedProjects
from labdeck.watch.pipelines import FAILED
from tests.support.fault_switch import FaultSwitch
from tests.support.sim_control import advance, big_stages, project_id, push_pipeline, push_stages
from tests.watch.helpers import api_client, fake_clock, make_poller, one_project_board, run_for, run_until

QUIET = "platform/infra/observability"


async def lockstep(poller: object, fake: object, server: SimServer, seconds: int, done: Callable[[], bool]) -> int | None:
    for second in range(seconds):
        if done():
            return second
        advance(server, 1)
        await run_for(poller, fake, 1)  # type: ignore[arg-type]
    return None


async def test_a_failure_in_a_project_active_within_the_hour_shows_within_15_s(
        sim_factory: Callable[..., SimServer]) -> None:
    server = sim_factory(dialect="gitlab", projects=60)
    pid = project_id(server, QUIET)
    push_pipeline(server, pid, [{"name": "plan", "duration": 20}])
    advance(server, 120)  # finished: the project was active two minutes ago
    fake = fake_clock()
    board: list[BoardSnapshot] = []
    watched = WatchedProjects(tuple(WatchedProject(p, str(p)) for p in sorted(server.state.projects)))
    async with api_client(server, "user") as client:
        poller = make_poller(client, server, fake)
        poller.subscribe_board(board.append, watched=watched)
        await run_until(poller, fake, lambda: bool(board) and board[-1].loading == 0, limit=120)
        await run_for(poller, fake, 60)
        assert poller.batches.available is True
        assert poller.tracks[pid].lane == "cold"
        pushed = push_pipeline(server, pid, [{"name": "unit-tests", "fail": True, "duration": 5}])
        job_id = pushed["jobs"][0]["id"]
        assert await lockstep(poller, fake, server, 60, lambda: server.state.jobs[job_id].status == "failed") is not None
        late = await lockstep(poller, fake, server, 60, lambda: any(
            row.pipeline_id == pushed["id"] and row.status == FAILED for row in board[-1].rows))
        assert late is not None and late <= 15
        assert poller.stats.by_kind["activity"] > 0
        poller.close()


async def test_a_server_without_graphql_is_asked_once(sim_factory: Callable[..., SimServer]) -> None:
    server = sim_factory(dialect="spec", projects=20)
    fake = fake_clock()
    board: list[BoardSnapshot] = []
    asked: list[str] = []
    async with api_client(server) as client:
        async def note(request: object) -> None:
            if "/graphql" in str(getattr(request, "url", "")):
                asked.append("graphql")

        client.http.event_hooks["request"].append(note)
        poller = make_poller(client, server, fake)
        poller.subscribe_board(board.append, watched=WatchedProjects(tuple(
            WatchedProject(p, str(p)) for p in sorted(server.state.projects))))
        await run_until(poller, fake, lambda: bool(board) and board[-1].loading == 0)
        await run_for(poller, fake, 60)
        assert poller.batches.available is not True
        assert len(asked) <= 1  # the spec dialect is not GitLab: not even asked
        poller.close()


@pytest.mark.parametrize("dialect", ["spec", "gitlab"])
async def test_a_canceled_big_pipeline_says_canceled_within_one_round(
        sim_factory: Callable[..., SimServer], dialect: str) -> None:
    server = sim_factory(dialect=dialect)
    async with one_project_board(server, QUIET) as (client, poller, fake, board, pid):
        await run_until(poller, fake, lambda: bool(board) and board[-1].loading == 0)
        pushed = push_stages(server, pid, big_stages(tests=4000, deploys=1000, long=(4000,)))
        advance(server, 600)

        def status() -> str | None:
            return next((row.status for row in board[-1].rows if row.pipeline_id == pushed["id"]), None)

        await run_until(poller, fake, lambda: status() == "running", limit=300)
        await run_for(poller, fake, 30)
        # Canceled elsewhere (the web UI; the spec has no pipeline cancel: each job): no hint from
        # the console. Running jobs are `canceling` until their runner notices (up to 4 s).
        ci = store(server.state)
        pipeline = ci.pipelines[pushed["id"]]
        for job in ci.pipeline_jobs(pipeline):
            ci.cancel(job, server.state.now())
        ci.touch(pipeline, server.state.now())
        took = await lockstep(poller, fake, server, 60, lambda: status() == "canceled")
        assert took is not None and took <= 4 + poller.settings.interval + 1
        poller.close()


async def test_the_batch_shrinks_to_the_complexity_limit_and_stays_there(
        sim_factory: Callable[..., SimServer], monkeypatch: pytest.MonkeyPatch) -> None:
    import labdeck.sim.gql.cost as cost
    from labdeck.watch.batches import GraphqlBatches

    monkeypatch.setattr(cost, "AUTHENTICATED_COMPLEXITY", 32)  # a server with a tighter limit than 250
    server = sim_factory(dialect="gitlab", projects=120)
    ids = sorted(server.state.projects)
    async with api_client(server, "user") as client:
        batches = GraphqlBatches(client)
        first = await batches.round(ids)
        assert batches.available is True and batches.batch < 100
        assert len(first.confirmed) >= 60  # every project the user can see, in smaller batches
        size = batches.batch
        sent: list[str] = []

        async def note(request: object) -> None:
            sent.append(str(getattr(request, "url", "")))

        client.http.event_hooks["request"].append(note)
        again = await batches.round(ids)
        assert batches.batch == size and again.confirmed == first.confirmed
        assert len(sent) == batches.requests_per_round(len(ids))  # no query over the limit again


async def test_a_token_refused_by_graphql_alone_keeps_the_rest_check_and_says_no_refusal(
        sim_factory: Callable[..., SimServer]) -> None:
    # A server (or a proxy in front of it) that answers 401 on /api/graphql only, while REST takes
    # the token: the board lost its change check and said "token refused (401)" beside fresh rows.
    server = sim_factory(dialect="gitlab", projects=20)
    fake = fake_clock()
    board: list[BoardSnapshot] = []
    with FaultSwitch(server.base_url) as switch:
        switch.set("revoked", only="/api/graphql", graphql=True)
        async with ApiClient(switch.url, Secret(DEMO_TOKENS["user"])) as client:
            poller = make_poller(client, server, fake)
            poller.subscribe_board(board.append, watched=WatchedProjects(tuple(
                WatchedProject(p, str(p)) for p in sorted(server.state.projects))))
            await run_until(poller, fake, lambda: bool(board) and board[-1].loading == 0)
            checks = poller.stats.by_kind["activity"]
            await run_for(poller, fake, 120)
            assert poller.batches.available is False and "GraphQL refused" in (poller.batches.refusal or "")
            assert poller.stats.by_kind["activity"] > checks  # the REST check goes on
            assert poller.freshness().error is None
            assert client.health.reason != TOKEN_REFUSED
            graphql = [path for _, _, path, _ in switch.requests if path.startswith("/api/graphql")]
            assert len(graphql) == 1  # asked once, then REST alone until a sign-in
            poller.close()
