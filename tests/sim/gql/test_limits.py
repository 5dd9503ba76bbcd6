"""GitLab's limits on a GraphQL query: pages of at most 100 projects, complexity (200 anonymous, 250
signed in, 300 admin, with GitLab's error text) and depth; a board of 300 projects read in three
pages, each under the limit."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import pytest

from labdeck.sim.server import SimServer
from tests.sim.helpers import graphql, quiet, user_id

PIPELINE = """pipelines(first: 1) { nodes { id iid status updatedAt createdAt startedAt finishedAt ref sha duration
  failedJobs: jobs(statuses: [FAILED], retried: false) { count }
  runningJobs: jobs(statuses: [RUNNING, PENDING]) { count } } }"""
PAGE = ("query($ids: [ID!], $first: Int, $after: String) { queryComplexity { limit score }"
        " projects(ids: $ids, first: $first, after: $after) { pageInfo { hasNextPage endCursor }"
        " nodes { id fullPath lastActivityAt " + PIPELINE + " } } }")
OVER = re.compile(r"Query has complexity of (\d+), which exceeds max complexity of (\d+)")


@pytest.fixture
def server(sim_factory: Callable[..., SimServer]) -> SimServer:
    return quiet(sim_factory(dialect="gitlab", projects=400))


def _readable(server: SimServer, username: str, count: int) -> list[str]:
    state = server.state
    user = state.users[user_id(state, username)]
    ids = [f"gid://gitlab/Project/{p.id}" for p in state.projects.values() if state.can_read(user, p)]
    assert len(ids) >= count
    return ids[:count]


def test_300_projects_in_three_pages_under_the_limit(server: SimServer) -> None:
    ids = _readable(server, "alice", 300)
    seen: list[str] = []
    after = None
    pages = 0
    while True:
        response = graphql(server, PAGE, {"ids": ids, "first": 100, "after": after})
        body = response.json()
        assert response.status_code == 200 and "errors" not in body, body
        pages += 1
        assert body["data"]["queryComplexity"]["limit"] == 250
        assert body["data"]["queryComplexity"]["score"] <= 250
        projects = body["data"]["projects"]
        seen += [node["id"] for node in projects["nodes"]]
        if not projects["pageInfo"]["hasNextPage"]:
            break
        after = projects["pageInfo"]["endCursor"]
    assert pages == 3 and sorted(seen) == sorted(ids) and len(set(seen)) == 300


def test_a_page_holds_at_most_100(server: SimServer) -> None:
    body = graphql(server, PAGE, {"ids": _readable(server, "alice", 150), "first": 150}).json()
    assert len(body["data"]["projects"]["nodes"]) == 100 and body["data"]["projects"]["pageInfo"]["hasNextPage"]


def _aliased(count: int) -> str:
    """The board's page with ``count`` copies of the pipeline selection (aliases)."""
    copies = " ".join(f"p{i}: {PIPELINE}" for i in range(count))
    return ("query($first: Int) { queryComplexity { limit score } projects(first: $first) { nodes { id "
            + copies + " } } }")


def test_an_over_complex_query_gets_gitlabs_error(server: SimServer) -> None:
    query = _aliased(7)
    refused = graphql(server, query, {"first": 100})
    assert refused.status_code == 200
    body: dict[str, Any] = refused.json()
    assert "data" not in body and len(body["errors"]) == 1
    match = OVER.fullmatch(body["errors"][0]["message"])
    assert match is not None and match.group(2) == "250", body
    complexity = int(match.group(1))
    assert 250 < complexity <= 300
    # The admin's limit is 300: the same query runs, and reports the same score.
    allowed = graphql(server, query, {"first": 100}, role="admin").json()
    assert "errors" not in allowed
    assert allowed["data"]["queryComplexity"] == {"limit": 300, "score": complexity}
    # Fewer projects per page cost less: the client adapts by asking for smaller pages.
    smaller = graphql(server, query, {"first": 50}).json()
    assert "errors" not in smaller and smaller["data"]["queryComplexity"]["score"] < complexity
    anonymous = graphql(server, _aliased(6), {"first": 100}, role=None).json()
    assert OVER.fullmatch(anonymous["errors"][0]["message"]).group(2) == "200"  # type: ignore[union-attr]


def test_too_deep_a_query_is_refused(server: SimServer) -> None:
    nested = "id"
    for _ in range(5):
        nested = f"pipelines(first: 1) {{ nodes {{ project {{ {nested} }} }} }}"
    query = f'{{ project(fullPath: "platform/api-gateway") {{ {nested} }} }}'
    body = graphql(server, query).json()
    assert body == {"errors": [{"message": "Query has depth of 17, which exceeds max depth of 15"}]}
