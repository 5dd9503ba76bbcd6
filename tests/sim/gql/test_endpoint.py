"""``/api/graphql`` as a GitLab client meets it: the board's query and its shapes (global ids, ``iid``
as a string, upper-case statuses, ISO 8601 times), who sees what, how a token is refused, GitLab's
error bodies, GET, injected faults, and no GraphQL at all in the spec dialect."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import httpx
import pytest

from labdeck.sim.core.state import SimState
from labdeck.sim.dataset.build import DEMO_TOKENS
from labdeck.sim.server import SimServer
from tests.sim.helpers import advance, client, graphql, pipeline, quiet, user_id
from tests.support.sim_control import set_faults as set_faults_for

PROJECT = 1  # platform/api-gateway, public
ONE = [{"name": "test", "jobs": [{"name": "unit", "duration": 30}, {"name": "lint", "duration": 60, "fail": True}]}]
BOARD = """
query($ids: [ID!], $fullPaths: [String!], $first: Int, $after: String) {
  projects(ids: $ids, fullPaths: $fullPaths, first: $first, after: $after) {
    pageInfo { hasNextPage endCursor }
    nodes { id fullPath lastActivityAt
      pipelines(first: 1) { nodes {
        id iid status updatedAt createdAt startedAt finishedAt ref sha duration
        failedJobs: jobs(statuses: [FAILED], retried: false) { count }
        runningJobs: jobs(statuses: [RUNNING, PENDING]) { count } } } } } }
"""
TIME = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ")


@pytest.fixture
def server(sim_factory: Callable[..., SimServer]) -> SimServer:
    return quiet(sim_factory(dialect="gitlab"))


def _data(response: httpx.Response) -> dict[str, Any]:
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    assert "errors" not in body, body
    data: dict[str, Any] = body["data"]
    return data


def _hidden_from(state: SimState, username: str) -> int:
    """A project ``username`` may not read."""
    alice = state.users[user_id(state, username)]
    return next(p.id for p in state.projects.values() if not state.can_read(alice, p))


def test_the_boards_query_answers_in_gitlabs_shapes(server: SimServer) -> None:
    made = pipeline(server, PROJECT, ONE)
    advance(server, 45)
    data = _data(graphql(server, BOARD, {"ids": [f"gid://gitlab/Project/{PROJECT}"]}))
    [node] = data["projects"]["nodes"]
    assert node["id"] == "gid://gitlab/Project/1" and node["fullPath"] == "platform/api-gateway"
    assert TIME.fullmatch(node["lastActivityAt"])
    [latest] = node["pipelines"]["nodes"]
    assert latest["id"] == f"gid://gitlab/Ci::Pipeline/{made['id']}" and latest["iid"] == str(made["iid"])
    assert latest["status"] == "RUNNING" and latest["ref"] == "master" and latest["sha"] == made["sha"]
    assert latest["failedJobs"] == {"count": 0} and latest["runningJobs"] == {"count": 1}
    assert TIME.fullmatch(latest["createdAt"]) and TIME.fullmatch(latest["startedAt"])
    assert latest["finishedAt"] is None and latest["duration"] is None
    assert data["projects"]["pageInfo"] == {"hasNextPage": False, "endCursor": data["projects"]["pageInfo"]["endCursor"]}
    advance(server, 300)
    [node] = _data(graphql(server, BOARD, {"fullPaths": ["platform/api-gateway"]}))["projects"]["nodes"]
    [latest] = node["pipelines"]["nodes"]
    assert latest["status"] == "FAILED" and latest["failedJobs"] == {"count": 1} and latest["runningJobs"] == {"count": 0}
    assert isinstance(latest["duration"], int) and latest["duration"] >= 60 and TIME.fullmatch(latest["finishedAt"])


def test_the_same_pipeline_as_the_rest_api(server: SimServer) -> None:
    """Same id, iid, status and updated_at (GraphQL's to the second) as ``GET …/pipelines``."""
    pipeline(server, PROJECT, ONE)
    advance(server, 100)
    with client(server, "user") as api:
        rest = api.get(f"/projects/{PROJECT}/pipelines", params={"per_page": 1}).json()[0]
    query = '{ project(fullPath: "platform/api-gateway") { pipelines(first: 1) { nodes { id iid status updatedAt } } } }'
    [latest] = _data(graphql(server, query))["project"]["pipelines"]["nodes"]
    assert latest == {"id": f"gid://gitlab/Ci::Pipeline/{rest['id']}", "iid": str(rest["iid"]),
                      "status": rest["status"].upper(), "updatedAt": rest["updated_at"][:19] + "Z"}


def test_only_what_the_token_may_read(server: SimServer) -> None:
    hidden = _hidden_from(server.state, "alice")
    ids = [f"gid://gitlab/Project/{number}" for number in (PROJECT, hidden)]
    seen = _data(graphql(server, BOARD, {"ids": ids}))["projects"]["nodes"]
    assert [node["id"] for node in seen] == [ids[0]]
    assert len(_data(graphql(server, BOARD, {"ids": ids}, role="admin"))["projects"]["nodes"]) == 2
    anonymous = _data(graphql(server, BOARD, {"ids": ids}, role=None))["projects"]["nodes"]
    assert [node["id"] for node in anonymous] == [ids[0]]
    path = server.state.project_full_path(server.state.projects[hidden])
    assert _data(graphql(server, f'{{ project(fullPath: "{path}") {{ id }} }}')) == {"project": None}
    assert _data(graphql(server, "{ currentUser { username } }")) == {"currentUser": {"username": "alice"}}


@pytest.mark.parametrize("header", ["Authorization", "PRIVATE-TOKEN"])
def test_a_token_gitlab_does_not_know_is_401(server: SimServer, header: str) -> None:
    value = "Bearer not-a-token" if header == "Authorization" else "not-a-token"
    response = httpx.post(f"{server.base_url}/api/graphql", json={"query": "{ currentUser { username } }"},
                          headers={header: value})
    assert response.status_code == 401 and response.json() == {"errors": [{"message": "Invalid token"}]}
    with_private = httpx.post(f"{server.base_url}/api/graphql", json={"query": "{ currentUser { username } }"},
                              headers={"PRIVATE-TOKEN": DEMO_TOKENS["readonly"]})
    assert _data(with_private) == {"currentUser": {"username": "viewer"}}


def test_errors_in_gitlabs_shape(server: SimServer) -> None:
    unknown = graphql(server, "{ projects { nodes { idx } } }")
    assert unknown.status_code == 200
    [error] = unknown.json()["errors"]
    assert error == {"message": "Field 'idx' doesn't exist on type 'Project'", "locations": [{"line": 1, "column": 22}],
                     "extensions": {"code": "undefinedField", "typeName": "Project", "fieldName": "idx"}}
    argument = graphql(server, "{ projects(color: 1) { count } }").json()["errors"][0]
    assert argument["message"] == "Field 'projects' doesn't accept argument 'color'"
    broken = graphql(server, "{ projects { nodes { id } ")
    assert broken.status_code == 200 and broken.json()["errors"][0]["locations"] == [{"line": 1, "column": 27}]
    bad_id = graphql(server, BOARD, {"ids": ["gid://gitlab/Group/1"]}).json()
    assert bad_id["data"] == {"projects": None}
    assert bad_id["errors"] == [{"message": "gid://gitlab/Group/1 is not a valid ID for Project.",
                                 "locations": [{"line": 3, "column": 3}], "path": ["projects"]}]
    too_many = graphql(server, BOARD, {"fullPaths": [f"g/p{i}" for i in range(51)]}).json()
    assert too_many["errors"][0]["message"] == "You cannot provide more than 50 full_paths"
    assert graphql(server, "").json() == {"errors": [{"message": "No query string was present"}]}


def test_get_with_the_query_in_the_url(server: SimServer) -> None:
    response = httpx.get(f"{server.base_url}/api/graphql",
                         params={"query": "query($p: ID!) { project(fullPath: $p) { id } }",
                                 "variables": '{"p": "platform/api-gateway"}'},
                         headers={"PRIVATE-TOKEN": DEMO_TOKENS["user"]})
    assert _data(response) == {"project": {"id": "gid://gitlab/Project/1"}}


def test_faults_and_latency_apply(server: SimServer) -> None:
    set_faults_for(server, {"error_rate": 1.0, "error_statuses": [502], "path_prefix": "/graphql"})
    assert graphql(server, "{ currentUser { username } }").status_code == 502
    with client(server, "user") as api:
        assert api.get("/version").status_code == 200  # the prefix spares the REST API
    set_faults_for(server, {"latency_ms": 300})
    response = graphql(server, "{ currentUser { username } }")
    assert response.status_code == 200 and response.elapsed.total_seconds() >= 0.3
    set_faults_for(server, {})


def test_the_spec_dialect_has_no_graphql(sim: SimServer) -> None:
    response = graphql(sim, "{ currentUser { username } }")
    assert response.status_code == 404
    assert httpx.get(f"{sim.base_url}/api/graphql", params={"query": "{ currentUser { id } }"}).status_code == 404


def test_pipeline_filters(server: SimServer) -> None:
    first = pipeline(server, PROJECT, ONE, ref="feature/x")
    advance(server, 200)
    second = pipeline(server, PROJECT, [{"name": "test", "jobs": [{"name": "long", "duration": 5000}]}])
    advance(server, 10)
    query = """query($p: ID!, $ref: String, $status: PipelineStatusEnum, $after: Time) {
      project(fullPath: $p) { pipelines(first: 1, ref: $ref, status: $status, updatedAfter: $after) {
        count nodes { iid status } } } }"""

    def latest(**filters: Any) -> list[dict[str, Any]]:
        found = _data(graphql(server, query, {"p": "platform/api-gateway", **filters}))
        nodes: list[dict[str, Any]] = found["project"]["pipelines"]["nodes"]
        return nodes

    assert latest(ref="feature/x") == [{"iid": str(first["iid"]), "status": "FAILED"}]
    assert latest(status="FAILED") == [{"iid": str(first["iid"]), "status": "FAILED"}]
    assert latest() == [{"iid": str(second["iid"]), "status": "RUNNING"}]
    with client(server, "user") as api:
        updated = api.get(f"/projects/{PROJECT}/pipelines/{second['id']}").json()["updated_at"]
    assert latest(after=updated) == []
    assert latest(after="2020-01-01T00:00:00Z") == [{"iid": str(second["iid"]), "status": "RUNNING"}]


def test_a_multiplexed_request_answers_each_query(server: SimServer) -> None:
    """A JSON array of queries gets an array of answers; the complexity limit holds for them all."""
    url = f"{server.base_url}/api/graphql"
    headers = {"PRIVATE-TOKEN": DEMO_TOKENS["user"]}
    one = {"query": "{ currentUser { username } }"}
    two = {"query": "query($p: ID!) { project(fullPath: $p) { id } }", "variables": {"p": "platform/api-gateway"}}
    answers = httpx.post(url, json=[one, two], headers=headers).json()
    assert answers == [{"data": {"currentUser": {"username": "alice"}}},
                       {"data": {"project": {"id": "gid://gitlab/Project/1"}}}]
    heavy = {"query": BOARD, "variables": {"first": 100}}
    single = httpx.post(url, json=heavy, headers=headers).json()
    assert "errors" not in single
    refused = httpx.post(url, json=[heavy] * 6, headers=headers).json()
    assert len(refused) == 6 and all("exceeds max complexity of 250" in answer["errors"][0]["message"]
                                     for answer in refused)
