"""Runner endpoints over loopback HTTP: lists and scopes, details, updates, removal, job lists, and
enabling/disabling runners in projects."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest

from labdeck.sim.ci.model import Runner
from labdeck.sim.core.clock import SimClock
from labdeck.sim.core.state import MAINTAINER, SimState, User
from labdeck.sim.dataset.build import DEMO_TOKENS, build_state
from labdeck.sim.server import SimServer


@pytest.fixture(scope="module")
def server() -> Iterator[SimServer]:
    """A private simulator for this module (the tests below change runners)."""
    server = SimServer(build_state(seed=42, clock=SimClock(mode="manual"))).start()
    yield server
    server.stop()


def _client(server: SimServer, role: str) -> httpx.Client:
    return httpx.Client(base_url=server.api_url, headers={"PRIVATE-TOKEN": DEMO_TOKENS[role]}, timeout=10)


def _user(state: SimState, username: str) -> User:
    return next(user for user in state.users.values() if user.username == username)


def _runner(state: SimState, description: str) -> Runner:
    return next(r for r in state.runners.values() if r.description == description)


def _owned(state: SimState, user: User) -> set[int]:
    maintained = {p.id for p in state.projects.values() if state.access_level(user, p) >= MAINTAINER}
    return {r.id for r in state.runners.values() if not r.is_shared and maintained & set(r.project_ids)}


def test_user_lists_only_specific_runners_of_projects_they_maintain(server: SimServer) -> None:
    alice = _user(server.state, "alice")
    expected = _owned(server.state, alice)
    assert expected, "the data set gives alice runners"
    with _client(server, "user") as client:
        response = client.get("/runners")
    assert response.status_code == 200
    body = response.json()
    assert {r["id"] for r in body} == expected
    assert all(not r["is_shared"] for r in body)
    assert set(body[0]) >= {"id", "description", "active", "is_shared", "name", "online", "status"}
    assert response.headers["X-Total"] == str(len(expected))


def test_user_runner_scopes_and_invalid_scope(server: SimServer) -> None:
    with _client(server, "user") as client:
        online = client.get("/runners", params={"scope": "online"}).json()
        paused = client.get("/runners", params={"scope": "paused"}).json()
        bad = client.get("/runners", params={"scope": "shared"})
    assert all(r["online"] for r in online)
    assert all(not r["active"] for r in paused)
    assert bad.status_code == 400
    assert bad.json() == {"message": "Scope contains invalid value"}


def test_all_runners_is_admin_only_and_filters(server: SimServer) -> None:
    with _client(server, "admin") as admin, _client(server, "user") as user:
        everything = admin.get("/runners/all", params={"per_page": 100}).json()
        shared = admin.get("/runners/all", params={"scope": "shared"}).json()
        specific = admin.get("/runners/all", params={"scope": "specific"}).json()
        paused = admin.get("/runners/all", params={"scope": "paused"}).json()
        bad = admin.get("/runners/all", params={"scope": "bogus"})
        forbidden = user.get("/runners/all")
    assert len(everything) >= 8
    assert {r["status"] for r in everything} >= {"online", "offline", "paused"}
    assert shared and all(r["is_shared"] for r in shared)
    assert specific and all(not r["is_shared"] for r in specific)
    assert len(shared) + len(specific) == len(everything)
    assert paused and all(r["status"] == "paused" for r in paused)
    assert bad.status_code == 400 and bad.json() == {"message": "Scope contains invalid value"}
    assert forbidden.status_code == 403


def test_runner_detail_for_admin_owner_and_stranger(server: SimServer) -> None:
    state = server.state
    alice = _user(state, "alice")
    mine = state.runners[min(_owned(state, alice))]
    foreign = next(r for r in state.runners.values() if not r.is_shared and r.id not in _owned(state, alice))
    shared = next(r for r in state.runners.values() if r.is_shared)
    with _client(server, "admin") as admin, _client(server, "user") as user:
        detail = admin.get(f"/runners/{mine.id}").json()
        own = user.get(f"/runners/{mine.id}")
        stranger = user.get(f"/runners/{foreign.id}")
        shared_view = user.get(f"/runners/{shared.id}")
        missing = admin.get("/runners/99999")
    assert detail["token"] == mine.token
    assert detail["tag_list"] == mine.tags
    assert {p["id"] for p in detail["projects"]} == set(mine.project_ids)
    assert set(detail["projects"][0]) >= {"id", "name", "name_with_namespace", "path", "path_with_namespace"}
    assert detail["access_level"] in ("not_protected", "ref_protected")
    assert own.status_code == 200 and own.json()["id"] == mine.id
    assert stranger.status_code == 403
    assert stranger.json() == {"message": "403 Forbidden - No access granted"}
    assert shared_view.status_code == 200 and "token" not in shared_view.json()
    assert missing.status_code == 404 and missing.json() == {"message": "404 Not found"}


def test_update_runner_replaces_tags_and_validates(server: SimServer) -> None:
    runner = _runner(server.state, "team-runner")
    with _client(server, "admin") as admin:
        response = admin.put(f"/runners/{runner.id}", json={
            "tag_list": ["alpha", "beta"], "description": "team runner (renamed)", "locked": True,
            "run_untagged": True, "access_level": "ref_protected", "maximum_timeout": 7200})
        again = admin.put(f"/runners/{runner.id}", data={"tag_list": "gamma"})
        bad_level = admin.put(f"/runners/{runner.id}", data={"access_level": "everyone"})
        nothing = admin.put(f"/runners/{runner.id}", data={})
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["tag_list"] == ["alpha", "beta"]
    assert body["description"] == "team runner (renamed)"
    assert body["access_level"] == "ref_protected" and body["maximum_timeout"] == 7200
    assert runner.locked is True
    assert again.json()["tag_list"] == ["gamma"]
    assert bad_level.status_code == 400
    assert nothing.status_code == 400


def test_pause_runner_changes_status(server: SimServer) -> None:
    runner = _runner(server.state, "build-box-01")
    with _client(server, "admin") as admin:
        paused = admin.put(f"/runners/{runner.id}", data={"active": "false"}).json()
        resumed = admin.put(f"/runners/{runner.id}", data={"active": "true"}).json()
    assert paused["status"] == "paused" and paused["active"] is False
    assert resumed["status"] == "online"


def test_non_maintainer_cannot_update_runner(server: SimServer) -> None:
    alice = _user(server.state, "alice")
    foreign = next(r for r in server.state.runners.values()
                   if not r.is_shared and r.id not in _owned(server.state, alice))
    shared = next(r for r in server.state.runners.values() if r.is_shared)
    with _client(server, "user") as user, _client(server, "readonly") as viewer:
        response = user.put(f"/runners/{foreign.id}", data={"description": "mine now"})
        shared_response = user.put(f"/runners/{shared.id}", data={"description": "mine now"})
        read_only = viewer.put(f"/runners/{foreign.id}", data={"description": "x"})
    assert response.status_code == 403
    assert shared_response.json() == {"message": "403 Forbidden - Runner is shared"}
    assert read_only.status_code == 403
    assert foreign.description != "mine now"


def test_runner_jobs_filter_by_status(server: SimServer) -> None:
    runner = _runner(server.state, "shared-docker-01")
    with _client(server, "admin") as admin:
        everything = admin.get(f"/runners/{runner.id}/jobs", params={"per_page": 100})
        success = admin.get(f"/runners/{runner.id}/jobs", params={"status": "success"}).json()
        bad = admin.get(f"/runners/{runner.id}/jobs", params={"status": "manual"})
    assert everything.status_code == 200
    jobs = everything.json()
    assert jobs and [j["id"] for j in jobs] == sorted((j["id"] for j in jobs), reverse=True)
    assert success and all(j["status"] == "success" for j in success)
    first = jobs[0]
    assert set(first["project"]) >= {"id", "name", "name_with_namespace", "path", "path_with_namespace"}
    assert set(first["pipeline"]) >= {"id", "sha", "ref", "status"}
    assert set(first["user"]) >= {"id", "username", "created_at", "bio"}
    assert set(first["commit"]) >= {"id", "short_id", "title", "parent_ids", "author_email"}
    assert bad.status_code == 400


def test_project_runners_include_shared_only_when_enabled(server: SimServer) -> None:
    runner = _runner(server.state, "k8s-autoscaler")
    project = server.state.projects[runner.project_ids[0]]
    with _client(server, "admin") as admin:
        listed = {r["id"] for r in admin.get(f"/projects/{project.id}/runners").json()}
        project.settings["shared_runners_enabled"] = False
        try:
            without_shared = admin.get(f"/projects/{project.id}/runners").json()
        finally:
            project.settings["shared_runners_enabled"] = True
    shared = {r.id for r in server.state.runners.values() if r.is_shared}
    assert runner.id in listed and shared <= listed
    assert {r["id"] for r in without_shared} == listed - shared


def test_enable_and_disable_runner_in_project(server: SimServer) -> None:
    state = server.state
    runner = _runner(state, "arm64-runner")
    target = next(p for p in sorted(state.projects.values(), key=lambda p: p.id)
                  if p.id not in runner.project_ids and not p.archived)
    with _client(server, "admin") as admin:
        enabled = admin.post(f"/projects/{target.id}/runners", data={"runner_id": str(runner.id)})
        twice = admin.post(f"/projects/{target.id}/runners", data={"runner_id": str(runner.id)})
        disabled = admin.delete(f"/projects/{target.id}/runners/{runner.id}")
        not_there = admin.delete(f"/projects/{target.id}/runners/{runner.id}")
        no_id = admin.post(f"/projects/{target.id}/runners", data={})
    assert enabled.status_code == 201
    assert enabled.json()["id"] == runner.id and "token" not in enabled.json()
    assert twice.status_code == 409
    assert disabled.status_code == 204 and disabled.content == b""
    assert target.id not in runner.project_ids
    assert not_there.status_code == 404 and not_there.json() == {"message": "404 Runner Not Found"}
    assert no_id.status_code == 400 and no_id.json() == {"error": "runner_id is missing"}


def test_locked_and_shared_runners_cannot_be_enabled(server: SimServer) -> None:
    state = server.state
    locked = _runner(state, "deploy-production")
    shared = _runner(state, "shared-docker-02")
    target = next(p for p in sorted(state.projects.values(), key=lambda p: p.id) if p.id not in locked.project_ids)
    with _client(server, "admin") as admin:
        response = admin.post(f"/projects/{target.id}/runners", data={"runner_id": str(locked.id)})
        shared_response = admin.post(f"/projects/{target.id}/runners", data={"runner_id": str(shared.id)})
    assert response.status_code == 403
    assert response.json() == {"message": "403 Forbidden - Runner is locked"}
    assert shared_response.status_code == 403


def test_disabling_the_only_project_is_refused(server: SimServer) -> None:
    runner = _runner(server.state, "deploy-production")
    assert len(runner.project_ids) == 1
    with _client(server, "admin") as admin:
        response = admin.delete(f"/projects/{runner.project_ids[0]}/runners/{runner.id}")
    assert response.status_code == 403
    assert response.json() == {
        "message": "403 Forbidden - Only one project associated with the runner. Please remove the runner instead"}
    assert len(runner.project_ids) == 1


def test_project_runner_routes_need_maintainer(server: SimServer) -> None:
    state = server.state
    alice = _user(state, "alice")
    project = next(p for p in sorted(state.projects.values(), key=lambda p: p.id)
                   if 0 < state.access_level(alice, p) < MAINTAINER)
    with _client(server, "user") as user:
        response = user.get(f"/projects/{project.id}/runners")
    assert response.status_code == 403


def test_delete_runner(server: SimServer) -> None:
    runner = _runner(server.state, "macos-builder")
    alice = _user(server.state, "alice")
    foreign = next(r for r in server.state.runners.values()
                   if not r.is_shared and r.id not in _owned(server.state, alice) and r.id != runner.id)
    with _client(server, "user") as user:
        refused = user.delete(f"/runners/{foreign.id}")
    with _client(server, "admin") as admin:
        response = admin.delete(f"/runners/{runner.id}")
        gone = admin.get(f"/runners/{runner.id}")
    assert refused.status_code == 403
    assert response.status_code == 204
    assert gone.status_code == 404
