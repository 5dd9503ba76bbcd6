"""Runners as a board polls them, in both dialects: the fields, current GitLab's ``paused``,
``runner_type`` and statuses, its filters, and ``paused`` on update."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta

from labdeck.sim.ci.engine import store
from labdeck.sim.server import SimServer
from tests.sim.helpers import client

DETAIL_KEYS = {"id", "description", "active", "is_shared", "online", "status", "tag_list", "run_untagged",
               "contacted_at", "locked", "maximum_timeout", "access_level", "projects"}


def _by_description(server: SimServer) -> dict[str, int]:
    return {runner.description: runner.id for runner in server.state.runners.values()}


def test_detail_fields_in_both_dialects(any_sim: SimServer, dialect: str) -> None:
    ids = _by_description(any_sim)
    with client(any_sim) as root:
        macos = root.get(f"/runners/{ids['macos-builder']}").json()
        gpu = root.get(f"/runners/{ids['gpu-trainer']}").json()
        arm = root.get(f"/runners/{ids['arm64-runner']}").json()
    assert DETAIL_KEYS <= set(macos)
    assert {"macos", "xcode"} <= set(macos["tag_list"]) and macos["run_untagged"] is False
    assert macos["online"] is False and macos["contacted_at"].startswith("2026-10-24")
    assert gpu["active"] is False and gpu["status"] == "paused"
    if dialect == "gitlab":
        assert macos["status"] == "stale"  # not contacted for more than 7 days
        assert arm["status"] == "never_contacted"
        assert (gpu["paused"], gpu["runner_type"], gpu["is_shared"]) == (True, "project_type", False)
        assert macos["ip_address"] is None and "token" not in macos and macos["groups"] == []
    else:
        assert macos["status"] == "offline" and arm["status"] == "not_connected"
        assert "paused" not in gpu and "runner_type" not in gpu and "token" in macos


def test_gitlab_list_filters(sim_gitlab: SimServer) -> None:
    state = sim_gitlab.state
    with client(sim_gitlab) as root:
        def ids(**params: str) -> set[int]:
            response = root.get("/runners/all", params={"per_page": "100", **params})
            assert response.status_code == 200, response.text
            return {runner["id"] for runner in response.json()}

        everything = root.get("/runners/all", params={"per_page": 100}).json()
        assert all({"paused", "runner_type", "is_shared"} <= set(r) for r in everything)
        assert {r["runner_type"] for r in everything} == {"instance_type", "project_type"}
        paused = {r.id for r in state.runners.values() if not r.active}
        assert ids(paused="true") == paused == ids(scope="paused") == ids(status="paused")
        assert ids(paused="false") == {r.id for r in state.runners.values()} - paused
        assert ids(type="instance_type") == {r.id for r in state.runners.values() if r.is_shared}
        assert ids(status="stale") == {r.id for r in state.runners.values() if r.description == "macos-builder"}
        assert ids(status="never_contacted") == {r.id for r in state.runners.values() if r.contacted_at is None}
        assert ids(tag_list="macos,xcode") == ids(status="stale")
        bad = root.get("/runners/all", params={"type": "specific_type"})
        assert bad.status_code == 400 and bad.json() == {"error": "type does not have a valid value"}


def test_gitlab_pause_and_resume(sim_factory: Callable[..., SimServer]) -> None:
    server = sim_factory(dialect="gitlab")
    runner = next(r for r in server.state.runners.values() if r.description == "team-runner")
    with client(server) as root:
        paused = root.put(f"/runners/{runner.id}", data={"paused": "true", "maintenance_note": "disk full"})
        assert paused.status_code == 200
        body = paused.json()
        assert (body["paused"], body["active"], body["status"], body["maintenance_note"]) == \
               (True, False, "paused", "disk full")
        assert runner.id in {r["id"] for r in root.get("/runners/all", params={"paused": "true"}).json()}
        resumed = root.put(f"/runners/{runner.id}", data={"paused": "false"}).json()
        assert resumed["paused"] is False and resumed["status"] == "online"
        both = root.put(f"/runners/{runner.id}", data={"paused": "true", "active": "true"})
        assert both.status_code == 400 and both.json() == {"error": "active, paused are mutually exclusive"}
    assert runner.active is True


def test_spec_does_not_know_paused(sim_factory: Callable[..., SimServer]) -> None:
    server = sim_factory()
    runner = next(r for r in server.state.runners.values() if r.description == "team-runner")
    with client(server) as root:
        ignored = root.put(f"/runners/{runner.id}", data={"paused": "true"})
        assert ignored.status_code == 400 and "at least one parameter" in ignored.json()["error"]
        assert root.put(f"/runners/{runner.id}", data={"active": "false"}).json()["status"] == "paused"


def test_runner_jobs_by_status(any_sim: SimServer, dialect: str) -> None:
    ci = store(any_sim.state)
    busy = next(r for r in any_sim.state.runners.values() if r.description == "shared-docker-01")
    running = {j.id for j in ci.jobs.values() if j.runner_id == busy.id and j.status == "running"}
    assert running
    with client(any_sim) as root:
        listed = root.get(f"/runners/{busy.id}/jobs", params={"status": "running", "per_page": 100})
        current = root.get(f"/runners/{busy.id}/jobs", params={"status": "canceling"})
    assert {job["id"] for job in listed.json()} == running
    assert all(job["project"]["path_with_namespace"] and job["status"] == "running" for job in listed.json())
    assert current.status_code == (200 if dialect == "gitlab" else 400)


def test_project_runners_follow_shared_runners_enabled(any_sim: SimServer) -> None:
    search = any_sim.state.project_by_ref("platform/search")
    gateway = any_sim.state.project_by_ref("platform/api-gateway")
    assert search is not None and gateway is not None
    with client(any_sim) as root:
        assert root.get(f"/projects/{search.id}").json()["shared_runners_enabled"] is False
        assert root.get(f"/projects/{gateway.id}").json()["shared_runners_enabled"] is True
        search_runners = root.get(f"/projects/{search.id}/runners").json()
        gateway_runners = root.get(f"/projects/{gateway.id}/runners").json()
    assert search_runners and not any(r["is_shared"] for r in search_runners)
    assert any(r["is_shared"] for r in gateway_runners)


def test_gitlab_counts_a_runner_online_for_two_hours(sim_factory: Callable[..., SimServer]) -> None:
    server = sim_factory(dialect="gitlab")
    runner = next(r for r in server.state.runners.values() if r.description == "team-runner")
    runner.connected = False
    runner.contacted_at = server.state.now() - timedelta(minutes=90)
    with client(server) as root:
        assert root.get(f"/runners/{runner.id}").json()["online"] is True
    spec = sim_factory()
    other = next(r for r in spec.state.runners.values() if r.description == "team-runner")
    other.connected = False
    other.contacted_at = spec.state.now() - timedelta(minutes=90)
    with client(spec) as root:
        assert root.get(f"/runners/{other.id}").json()["online"] is False
