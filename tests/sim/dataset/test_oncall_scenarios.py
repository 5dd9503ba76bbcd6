"""The on-call scenarios of the demo data set, seen through the API a board would use, in both
dialects: failures and stuck jobs on the demo users' starred projects, why jobs are pending, manual
deployments, a flaky job, and failures that keep happening as simulated time passes."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any

import httpx
import pytest

from labdeck.sim.ci.engine import store
from labdeck.sim.cli import build_parser, prepare_state
from labdeck.sim.server import SimServer
from tests.sim.helpers import advance, client, project


def _jobs(api: httpx.Client, project_id: int, *scopes: str) -> list[dict[str, Any]]:
    response = api.get(f"/projects/{project_id}/jobs", params={"scope[]": list(scopes), "per_page": 100})
    assert response.status_code == 200, response.text
    jobs: list[dict[str, Any]] = response.json()
    return jobs


@pytest.mark.parametrize("role", ["admin", "user"])
def test_starred_projects_show_failures_and_stuck_jobs_at_once(any_sim: SimServer, role: str) -> None:
    with client(any_sim, role) as api:
        starred = api.get("/projects", params={"starred": "true", "simple": "true", "per_page": 100}).json()
        failed = [job for p in starred for job in _jobs(api, p["id"], "failed")
                  if job["created_at"] >= "2026-11-02"]
        pending = [job for p in starred for job in _jobs(api, p["id"], "pending")]
    assert failed, "a starred project failed today"
    if role == "admin":
        assert any("macos" in job["tag_list"] for job in pending)


def test_job_pending_because_its_only_runner_is_offline(any_sim: SimServer) -> None:
    with client(any_sim) as root:
        for path in ("platform/feature-flags", "platform/auth-service"):
            target = project(any_sim.state, path)
            pending = [job for job in _jobs(root, target.id, "pending") if job["tag_list"] == ["macos"]]
            assert pending, path
            runners = [root.get(f"/runners/{r['id']}").json() for r in root.get(f"/projects/{target.id}/runners").json()]
            matching = [r for r in runners if "macos" in r["tag_list"]]
            assert [r["description"] for r in matching] == ["macos-builder"]
            assert matching[0]["online"] is False
            age = any_sim.state.now() - datetime.fromisoformat(matching[0]["contacted_at"].replace("Z", "+00:00"))
            assert 8 < age.days < 10


def test_job_pending_behind_a_paused_runner(any_sim: SimServer, dialect: str) -> None:
    with client(any_sim) as root:
        target = project(any_sim.state, "platform/notifications")
        assert any(job["tag_list"] == ["gpu"] for job in _jobs(root, target.id, "pending"))
        gpu = [r for r in root.get(f"/projects/{target.id}/runners").json() if r["description"] == "gpu-trainer"]
    assert gpu and gpu[0]["active"] is False
    assert gpu[0]["status"] == "paused" and gpu[0].get("paused", True) is True


def test_job_pending_because_shared_runners_are_disabled(any_sim: SimServer) -> None:
    target = project(any_sim.state, "platform/search")
    with client(any_sim) as root:
        assert root.get(f"/projects/{target.id}").json()["shared_runners_enabled"] is False
        untagged = [job for job in _jobs(root, target.id, "pending") if job["tag_list"] == []]
        runners = [root.get(f"/runners/{r['id']}").json() for r in root.get(f"/projects/{target.id}/runners").json()]
        shared_online = [r for r in root.get("/runners/all", params={"scope": "shared"}).json() if r["online"]]
    assert untagged and shared_online
    assert runners and all(not r["is_shared"] and r["run_untagged"] is False for r in runners)


def test_manual_deployments_wait_in_pipelines(any_sim: SimServer) -> None:
    with client(any_sim) as root:
        manual = [job for pid in (1, 2, 3, 4, 6) for job in _jobs(root, pid, "manual")]
    assert manual and all(job["stage"] == "deploy" for job in manual)
    assert any(job["name"] == "deploy-production" for job in manual)


def test_flaky_job_failed_on_a_starred_project_and_passes_on_retry(sim_factory: Callable[..., SimServer],
                                                                     dialect: str) -> None:
    server = sim_factory(dialect=dialect)
    gateway = project(server.state, "platform/api-gateway")
    with client(server, "user") as alice:
        flaky = next(job for job in _jobs(alice, gateway.id, "failed") if job["name"] == "e2e-browser")
        assert flaky["pipeline"]["status"] == "failed"
        trace = alice.get(f"/projects/{gateway.id}/jobs/{flaky['id']}/trace").text
        assert "TimeoutError" in trace and "ERROR: Job failed" in trace
        retried = alice.post(f"/projects/{gateway.id}/jobs/{flaky['id']}/retry").json()
        advance(server, 600)
        assert alice.get(f"/projects/{gateway.id}/jobs/{retried['id']}").json()["status"] == "success"


def test_runner_system_failure_on_a_starred_project(any_sim: SimServer, dialect: str) -> None:
    manifests = project(any_sim.state, "platform/infra/k8s-manifests")
    with client(any_sim) as root:
        failed = [job for job in _jobs(root, manifests.id, "failed") if job["name"] == "validate"]
        trace = root.get(f"/projects/{manifests.id}/jobs/{failed[0]['id']}/trace").text
    assert "ERROR: Job failed (system failure)" in trace
    if dialect == "gitlab":
        assert failed[0]["failure_reason"] == "runner_system_failure"


def test_failures_keep_happening_on_their_own(sim_factory: Callable[..., SimServer], dialect: str) -> None:
    server = sim_factory(dialect=dialect)
    ci = store(server.state)
    before = {job.id for job in ci.jobs.values() if job.status == "failed"}
    failures_by_quarter = []
    for _ in range(8):
        advance(server, 15 * 60)
        failures_by_quarter.append({job.id for job in ci.jobs.values() if job.status == "failed"} - before)
    new = set().union(*failures_by_quarter)
    assert len(new) >= 4 and sum(1 for quarter in failures_by_quarter if quarter) >= 3
    with client(server) as root:
        for job in sorted((ci.jobs[job_id] for job_id in new), key=lambda j: j.id)[:6]:
            body = root.get(f"/projects/{job.project_id}/jobs/{job.id}").json()
            if dialect == "gitlab":
                assert body["failure_reason"] in ("script_failure", "runner_system_failure",
                                                  "stuck_or_timeout_failure", "job_execution_timeout")
            if body["started_at"]:
                assert "ERROR: Job failed" in root.get(f"/projects/{job.project_id}/jobs/{job.id}/trace").text


def test_gitlab_drops_the_stuck_job_and_the_scenario_comes_back(sim_factory: Callable[..., SimServer]) -> None:
    server = sim_factory(dialect="gitlab")
    flags = project(server.state, "platform/feature-flags")
    ci = store(server.state)
    first = next(j for j in ci.jobs.values() if j.project_id == flags.id and j.name == "ios-build"
                 and j.status == "pending")
    advance(server, 75 * 60)
    assert (first.status, first.failure_reason) == ("failed", "stuck_or_timeout_failure")
    advance(server, 20 * 60)
    assert any(j.status == "pending" and j.id > first.id for j in ci.jobs.values()
               if j.project_id == flags.id and j.name == "ios-build")


def test_gitlab_deployments_use_current_statuses(sim_factory: Callable[..., SimServer]) -> None:
    server = sim_factory(dialect="gitlab")
    ci = store(server.state)
    seen: set[str] = set()
    for _ in range(540):  # up to 90 simulated minutes, in steps shorter than a preparation
        advance(server, 10)
        seen |= {job.status for job in ci.jobs.values()}
        if {"scheduled", "preparing"} <= seen:
            break
    assert {"scheduled", "preparing"} <= seen


def test_faults_and_a_big_data_set_with_the_scenarios() -> None:
    args = build_parser().parse_args(["--clock", "manual", "--projects", "500", "--faults", "latency=1",
                                      "--dialect", "gitlab"])
    state = prepare_state(args)
    assert len(state.projects) == 500 and state.extra["faults"].latency_ms == 1
    assert state.project_by_ref("platform/search") is not None
    assert any(job.name == "e2e-browser" and job.status == "failed" for job in store(state).jobs.values())
