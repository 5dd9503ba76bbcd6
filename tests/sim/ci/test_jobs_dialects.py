"""Jobs in the gitlab dialect: ``failure_reason``, the current statuses where they naturally occur
(canceling, scheduled, waiting_for_resource, preparing), stuck jobs dropped, the current scope list
and the uncounted project job list; the spec dialect keeps the 10.x behaviour."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from labdeck.sim.ci.engine import store
from labdeck.sim.ci.model import Runner
from labdeck.sim.server import SimServer
from tests.sim.helpers import advance, client, pipeline

TAG = "dialect-test"


def _server(sim_factory: Callable[..., SimServer], dialect: str) -> SimServer:
    """A private simulator without its pipeline generator, with a runner of our own on project 1."""
    server = sim_factory(dialect=dialect)
    state = server.state
    store(state).next_pipeline_at = None
    runner = Runner(id=state.next_id("runner"), description="dialect-runner", token="d" * 20, is_shared=False,
                    tags=[TAG], run_untagged=False, project_ids=[1], contacted_at=state.now(), concurrent=4)
    state.runners[runner.id] = runner
    return server


def _job(server: SimServer, job_id: int) -> dict[str, Any]:
    with client(server) as root:
        response = root.get(f"/projects/1/jobs/{job_id}")
    assert response.status_code == 200
    body: dict[str, Any] = response.json()
    return body


def _one(name: str, **extra: Any) -> list[dict[str, Any]]:
    return [{"name": "build", "jobs": [{"name": name, "tags": [TAG], "duration": 60, **extra}]}]


@pytest.mark.parametrize("dialect", ["spec", "gitlab"])
def test_failure_reason_only_in_gitlab(sim_factory: Callable[..., SimServer], dialect: str) -> None:
    server = _server(sim_factory, dialect)
    failed = pipeline(server, 1, _one("broken", fail=True))["jobs"][0]["id"]
    passed = pipeline(server, 1, _one("fine"))["jobs"][0]["id"]
    advance(server, 120)
    failed_body, passed_body = _job(server, failed), _job(server, passed)
    assert failed_body["status"] == "failed" and passed_body["status"] == "success"
    assert "failure_reason" not in passed_body
    if dialect == "gitlab":
        assert failed_body["failure_reason"] == "script_failure" and failed_body["archived"] is False
        assert failed_body["runner"]["runner_type"] == "project_type"
    else:
        assert "failure_reason" not in failed_body


def test_runner_system_failure_and_its_retry(sim_factory: Callable[..., SimServer]) -> None:
    server = _server(sim_factory, "gitlab")
    job_id = pipeline(server, 1, _one("image", fail=True, failure_reason="runner_system_failure",
                                      duration=30))["jobs"][0]["id"]
    advance(server, 60)
    assert _job(server, job_id)["failure_reason"] == "runner_system_failure"
    with client(server) as root:
        trace = root.get(f"/projects/1/jobs/{job_id}/trace").text
        assert "ERROR: Job failed (system failure)" in trace and "gitlab-runner 18." in trace
        retried = root.post(f"/projects/1/jobs/{job_id}/retry").json()
    advance(server, 120)
    assert _job(server, retried["id"])["status"] == "success"


@pytest.mark.parametrize("dialect", ["spec", "gitlab"])
def test_cancel_of_a_running_job(sim_factory: Callable[..., SimServer], dialect: str) -> None:
    server = _server(sim_factory, dialect)
    job_id = pipeline(server, 1, _one("long", duration=600))["jobs"][0]["id"]
    advance(server, 30)
    assert _job(server, job_id)["status"] == "running"
    with client(server) as root:
        canceled = root.post(f"/projects/1/jobs/{job_id}/cancel")
    assert canceled.status_code == 201
    if dialect == "gitlab":
        assert canceled.json()["status"] == "canceling"
        advance(server, 10)
    else:
        assert canceled.json()["status"] == "canceled"
    assert _job(server, job_id)["status"] == "canceled"


def test_delayed_job_is_scheduled_then_runs(sim_factory: Callable[..., SimServer]) -> None:
    server = _server(sim_factory, "gitlab")
    jobs = pipeline(server, 1, [{"name": "deploy", "jobs": [
        {"name": "canary", "tags": [TAG], "when": "delayed", "start_in": 300, "duration": 30},
        {"name": "later", "tags": [TAG], "when": "delayed", "start_in": 3600, "duration": 30}]}])["jobs"]
    canary, later = (job["id"] for job in jobs)
    assert (jobs[0]["status"], jobs[1]["status"]) == ("scheduled", "scheduled")
    with client(server) as root:
        scoped = root.get("/projects/1/jobs", params={"scope[]": "scheduled", "per_page": 100}).json()
        assert {canary, later} <= {job["id"] for job in scoped}
        advance(server, 320)
        assert _job(server, canary)["status"] in ("pending", "running")
        played = root.post(f"/projects/1/jobs/{later}/play")
        assert played.status_code == 200 and played.json()["status"] == "pending"
    with client(sim_factory()) as spec:
        refused = spec.get("/projects/1/jobs", params={"scope[]": "scheduled"})
        assert refused.status_code == 400 and refused.json() == {"message": "Scope contains invalid value(s)"}


def test_resource_group_makes_the_second_deployment_wait(sim_factory: Callable[..., SimServer]) -> None:
    server = _server(sim_factory, "gitlab")
    deploy = _one("deploy", duration=120, resource_group="production")
    first = pipeline(server, 1, deploy)["jobs"][0]
    second = pipeline(server, 1, deploy)["jobs"][0]
    assert (first["status"], second["status"]) == ("pending", "waiting_for_resource")
    advance(server, 60)
    assert _job(server, second["id"])["status"] == "waiting_for_resource"
    assert _job(server, second["id"])["pipeline"]["status"] == "waiting_for_resource"
    advance(server, 120)
    assert _job(server, first["id"])["status"] == "success"
    assert _job(server, second["id"])["status"] in ("pending", "running")


def test_environment_prerequisites_make_a_job_prepare(sim_factory: Callable[..., SimServer]) -> None:
    server = _server(sim_factory, "gitlab")
    job = pipeline(server, 1, _one("deploy-staging", prepare=True))["jobs"][0]
    assert job["status"] == "preparing"
    advance(server, 15)
    assert _job(server, job["id"])["status"] in ("pending", "running")


@pytest.mark.parametrize("dialect", ["spec", "gitlab"])
def test_stuck_job_is_dropped_only_by_current_gitlab(sim_factory: Callable[..., SimServer], dialect: str) -> None:
    server = _server(sim_factory, dialect)
    job_id = pipeline(server, 1, [{"name": "build", "jobs": [{"name": "ios", "tags": ["visionos"]}]}])["jobs"][0]["id"]
    advance(server, 50 * 60)
    assert _job(server, job_id)["status"] == "pending"
    advance(server, 15 * 60)
    body = _job(server, job_id)
    if dialect == "gitlab":
        assert (body["status"], body["failure_reason"]) == ("failed", "stuck_or_timeout_failure")
        assert body["started_at"] is None
    else:
        assert body["status"] == "pending"


def test_runner_timeout_is_job_execution_timeout(sim_factory: Callable[..., SimServer]) -> None:
    server = _server(sim_factory, "gitlab")
    runner = next(r for r in server.state.runners.values() if r.description == "dialect-runner")
    runner.maximum_timeout = 600
    job_id = pipeline(server, 1, _one("slow", duration=900))["jobs"][0]["id"]
    advance(server, 700)
    assert _job(server, job_id)["failure_reason"] == "job_execution_timeout"


@pytest.mark.parametrize("dialect", ["spec", "gitlab"])
def test_flaky_job_passes_on_retry(sim_factory: Callable[..., SimServer], dialect: str) -> None:
    server = _server(sim_factory, dialect)
    job_id = pipeline(server, 1, _one("e2e", flaky=True, duration=40))["jobs"][0]["id"]
    advance(server, 60)
    assert _job(server, job_id)["status"] == "failed"
    with client(server) as root:
        retried = root.post(f"/projects/1/jobs/{job_id}/retry").json()
        advance(server, 60)
        again = root.post(f"/projects/1/jobs/{retried['id']}/retry").json()
    advance(server, 60)
    assert _job(server, retried["id"])["status"] == "success"
    assert _job(server, again["id"])["status"] == "success"


def test_project_job_list_is_not_counted_in_gitlab(sim: SimServer, sim_gitlab: SimServer) -> None:
    with client(sim) as spec, client(sim_gitlab) as gitlab:
        counted = spec.get("/projects/1/jobs", params={"per_page": 5})
        uncounted = gitlab.get("/projects/1/jobs", params={"per_page": 5})
    assert counted.headers["X-Total"] and 'rel="last"' in counted.headers["Link"]
    assert "X-Total" not in uncounted.headers and "X-Total-Pages" not in uncounted.headers
    assert uncounted.headers["X-Next-Page"] == "2" and 'rel="next"' in uncounted.headers["Link"]
    assert 'rel="last"' not in uncounted.headers["Link"]
