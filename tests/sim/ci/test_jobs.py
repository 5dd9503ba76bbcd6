"""Job endpoints over loopback HTTP: lists and scopes, the job record, and the job actions."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest

from labdeck.sim.ci.model import JOB_STATUSES, Job
from labdeck.sim.core.clock import SimClock
from labdeck.sim.core.state import DEVELOPER, SimState
from labdeck.sim.dataset.build import DEMO_TOKENS, build_state
from labdeck.sim.server import SimServer


@pytest.fixture(scope="module")
def server() -> Iterator[SimServer]:
    server = SimServer(build_state(seed=42, clock=SimClock(mode="manual"))).start()
    yield server
    server.stop()


def _client(server: SimServer, role: str = "admin") -> httpx.Client:
    return httpx.Client(base_url=server.api_url, headers={"PRIVATE-TOKEN": DEMO_TOKENS[role]}, timeout=10)


def _jobs(state: SimState, status: str, *, taken: set[int] = set()) -> Job:  # noqa: B006
    """A not-yet-used job in ``status`` (tests in this module mutate jobs)."""
    for job in sorted(state.jobs.values(), key=lambda j: j.id):
        if job.status == status and job.id not in taken and not job.retried:
            taken.add(job.id)
            return job
    raise AssertionError(f"no {status} job left")


def _url(job: Job, action: str = "") -> str:
    return f"/projects/{job.project_id}/jobs/{job.id}" + (f"/{action}" if action else "")


def test_data_set_has_every_status(server: SimServer) -> None:
    statuses = {job.status for job in server.state.jobs.values()}
    assert statuses >= set(JOB_STATUSES)
    assert len(server.state.jobs) >= 300


def test_list_newest_first_paginated(server: SimServer) -> None:
    project_id = max({j.project_id for j in server.state.jobs.values()},
                     key=lambda pid: sum(1 for j in server.state.jobs.values() if j.project_id == pid))
    with _client(server) as client:
        first = client.get(f"/projects/{project_id}/jobs", params={"per_page": 5})
        second = client.get(f"/projects/{project_id}/jobs", params={"per_page": 5, "page": 2})
    assert first.status_code == 200
    ids = [j["id"] for j in first.json()] + [j["id"] for j in second.json()]
    assert ids == sorted(ids, reverse=True) and len(set(ids)) == 10
    total = sum(1 for j in server.state.jobs.values() if j.project_id == project_id)
    assert first.headers["X-Total"] == str(total)
    assert first.headers["X-Next-Page"] == "2"


def test_list_by_scope_scalar_and_array(server: SimServer) -> None:
    state = server.state
    project_id = next(j.project_id for j in state.jobs.values() if j.status == "failed")
    with _client(server) as client:
        failed = client.get(f"/projects/{project_id}/jobs", params={"scope": "failed", "per_page": 100}).json()
        both = client.get(f"/projects/{project_id}/jobs?scope[]=failed&scope[]=success&per_page=100").json()
        bad = client.get(f"/projects/{project_id}/jobs?scope[]=failed&scope[]=bogus")
    assert failed and {j["status"] for j in failed} == {"failed"}
    expected = {j.id for j in state.jobs.values() if j.project_id == project_id and j.status in ("failed", "success")}
    assert {j["id"] for j in both} == expected
    assert bad.status_code == 400
    assert bad.json() == {"message": "Scope contains invalid value(s)"}


def test_pipeline_jobs(server: SimServer) -> None:
    pipeline = next(iter(server.state.pipelines.values()))
    with _client(server) as client:
        response = client.get(f"/projects/{pipeline.project_id}/pipelines/{pipeline.id}/jobs")
        missing = client.get(f"/projects/{pipeline.project_id}/pipelines/999999/jobs")
    expected = {j.id for j in server.state.jobs.values() if j.pipeline_id == pipeline.id}
    assert {j["id"] for j in response.json()} == expected
    assert all(j["pipeline"]["id"] == pipeline.id for j in response.json())
    assert missing.status_code == 404


def test_job_record_shape(server: SimServer) -> None:
    job = next(j for j in server.state.jobs.values() if j.status == "success" and j.artifacts)
    with _client(server) as client:
        body = client.get(_url(job)).json()
    assert body["id"] == job.id and body["status"] == "success"
    assert set(body["pipeline"]) >= {"id", "ref", "sha", "status"}
    assert body["artifacts_file"]["filename"] == "artifacts.zip" and body["artifacts_file"]["size"] > 100
    assert body["runner"] is None or set(body["runner"]) >= {"id", "description", "is_shared", "status"}
    assert set(body["user"]) >= {"id", "name", "username", "state", "avatar_url", "web_url", "created_at"}
    assert set(body["commit"]) >= {"id", "short_id", "title", "message", "author_name", "author_email", "created_at"}
    assert body["web_url"].endswith(f"/-/jobs/{job.id}")
    assert body["duration"] > 0 and body["finished_at"] and body["started_at"]
    assert isinstance(body["allow_failure"], bool)
    assert "artifacts_expire_at" in body


def test_unknown_job_and_invisible_project(server: SimServer) -> None:
    state = server.state
    job = next(iter(state.jobs.values()))
    other_project = next(p for p in state.projects.values() if p.id != job.project_id)
    private = next(j for j in state.jobs.values() if state.projects[j.project_id].visibility == "private"
                   and state.access_level(next(u for u in state.users.values() if u.username == "viewer"),
                                          state.projects[j.project_id]) == 0)
    with _client(server) as client, _client(server, "readonly") as viewer:
        unknown = client.get(f"/projects/{job.project_id}/jobs/999999")
        elsewhere = client.get(f"/projects/{other_project.id}/jobs/{job.id}")
        hidden = viewer.get(_url(private))
        anonymous = httpx.get(f"{server.api_url}{_url(job)}")
    assert unknown.status_code == 404 and unknown.json() == {"message": "404 Not found"}
    assert elsewhere.status_code == 404
    assert hidden.status_code == 404 and hidden.json() == {"message": "404 Project Not Found"}
    assert anonymous.status_code == 401


def test_cancel_running_and_finished(server: SimServer) -> None:
    running = _jobs(server.state, "running")
    done = _jobs(server.state, "success")
    with _client(server) as client:
        canceled = client.post(_url(running, "cancel"))
        unchanged = client.post(_url(done, "cancel"))
    assert canceled.status_code == 201
    assert canceled.json()["status"] == "canceled" and canceled.json()["finished_at"]
    assert "pipeline" not in canceled.json()
    assert unchanged.status_code == 201 and unchanged.json()["status"] == "success"


def test_retry_creates_a_new_job(server: SimServer) -> None:
    failed = _jobs(server.state, "failed")
    pending = _jobs(server.state, "pending")
    with _client(server) as client:
        response = client.post(_url(failed, "retry"))
        old = client.get(_url(failed)).json()
        refused = client.post(_url(pending, "retry"))
    assert response.status_code == 201
    body = response.json()
    assert body["id"] != failed.id and body["name"] == failed.name
    assert body["status"] == "pending" and body["finished_at"] is None
    assert old["status"] == "failed"
    assert refused.status_code == 403
    assert refused.json() == {"message": "403 Forbidden - Job is not retryable"}


def test_play_manual_job(server: SimServer) -> None:
    manual = _jobs(server.state, "manual")
    success = next(j for j in server.state.jobs.values() if j.status == "success" and j.when != "manual")
    with _client(server) as client:
        played = client.post(_url(manual, "play"))
        refused = client.post(_url(success, "play"))
    assert played.status_code == 200
    assert played.json()["status"] == "pending"
    assert refused.status_code == 400
    assert refused.json() == {"message": '400 (Bad request) "Unplayable Job" not given'}


def test_erase_removes_trace_and_artifacts(server: SimServer) -> None:
    job = next(j for j in sorted(server.state.jobs.values(), key=lambda j: -j.id)
               if j.status == "failed" and j.artifacts and j.erased_at is None and not j.retried)
    running = _jobs(server.state, "running")
    with _client(server) as client:
        assert client.get(_url(job, "trace")).content
        erased = client.post(_url(job, "erase"))
        trace = client.get(_url(job, "trace"))
        archive = client.get(_url(job, "artifacts"))
        again = client.post(_url(job, "erase"))
        busy = client.post(_url(running, "erase"))
    assert erased.status_code == 201
    assert erased.json()["artifacts_file"] is None and erased.json()["download_url"] is None
    assert trace.status_code == 200 and trace.content == b""
    assert archive.status_code == 404
    assert again.status_code == 403 and again.json() == {"message": "403 Forbidden - Job is not erasable!"}
    assert busy.status_code == 403


def test_keep_artifacts(server: SimServer) -> None:
    job = next(j for j in server.state.jobs.values()
               if j.status == "success" and j.artifacts and j.artifacts_expire_at and j.erased_at is None)
    with _client(server) as client:
        response = client.post(_url(job, "artifacts/keep"))
    assert response.status_code == 200
    assert response.json()["artifacts_expire_at"] is None
    assert response.json()["artifacts_file"]["filename"] == "artifacts.zip"


def test_actions_need_developer_access(server: SimServer) -> None:
    state = server.state
    alice = next(u for u in state.users.values() if u.username == "alice")
    job = next(j for j in state.jobs.values() if j.status == "success"
               and state.can_read(alice, state.projects[j.project_id])
               and state.access_level(alice, state.projects[j.project_id]) < DEVELOPER)
    with _client(server, "user") as client, _client(server, "readonly") as read_only:
        response = client.post(_url(job, "retry"))
        scoped = read_only.post(_url(job, "retry"))
    assert response.status_code == 403 and response.json() == {"message": "403 Forbidden"}
    assert scoped.status_code == 403 and scoped.json()["error"] == "insufficient_scope"
