"""The GraphQL read of many projects' latest pipelines, against the simulator over real HTTP: a
read (allowed in read-only mode), global ids and upper-case statuses turned into ours, and a
server without GraphQL said as such."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from labdeck.api import ApiClient, errors
from labdeck.api.recorder import is_read
from labdeck.api.resources.graphql import NoGraphql, global_id, latest_pipelines, number_of
from labdeck.base.secret import Secret
from labdeck.sim.dataset.build import DEMO_TOKENS
from labdeck.sim.server import SimServer


def test_a_graphql_query_is_a_read_and_nothing_else_posted_is() -> None:
    assert is_read("POST", "http://h/api/graphql") and is_read("GET", "projects")
    assert not is_read("POST", "projects/1/jobs/2/retry") and not is_read("POST", "http://h/api/graphql-x")
    assert (global_id("Project", 12), number_of("gid://gitlab/Ci::Pipeline/7")) == ("gid://gitlab/Project/12", 7)


async def test_latest_pipelines_in_read_only_mode(sim_factory: Callable[..., SimServer]) -> None:
    server = sim_factory(dialect="gitlab", projects=40)
    ids = sorted(server.state.projects)
    async with ApiClient(server.base_url, Secret(DEMO_TOKENS["admin"]), read_only=True) as client:
        found = await latest_pipelines(client, ids)
    assert {item.project_id for item in found} == set(ids)
    with_pipeline = [item for item in found if item.pipeline_id is not None]
    assert with_pipeline and all(item.status == (item.status or "").lower() for item in with_pipeline)


async def test_a_server_without_graphql_says_so(sim_factory: Callable[..., SimServer]) -> None:
    server = sim_factory(dialect="spec", projects=20)
    async with ApiClient(server.base_url, Secret(DEMO_TOKENS["admin"])) as client:
        with pytest.raises(NoGraphql):
            await latest_pipelines(client, sorted(server.state.projects)[:5])


async def test_a_refused_token_is_not_taken_for_a_server_without_graphql(sim_factory: Callable[..., SimServer]) -> None:
    server = sim_factory(dialect="gitlab", projects=20)
    async with ApiClient(server.base_url, Secret("not-a-token-the-server-knows")) as client:
        with pytest.raises(errors.Unauthorized):
            await latest_pipelines(client, sorted(server.state.projects)[:5])
