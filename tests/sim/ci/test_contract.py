"""Contract test: unmodified python-gitlab drives the simulator's runner and job endpoints."""

from __future__ import annotations

import io
import zipfile
from collections.abc import Callable

import gitlab
import pytest

from labdeck.sim.ci.engine import store
from labdeck.sim.dataset.build import DEMO_TOKENS
from labdeck.sim.server import SimServer


@pytest.fixture
def server(sim_factory: Callable[..., SimServer]) -> SimServer:
    return sim_factory()


def _gl(server: SimServer, role: str = "admin") -> gitlab.Gitlab:
    return gitlab.Gitlab(server.base_url, private_token=DEMO_TOKENS[role])


def test_runners_with_python_gitlab(server: SimServer) -> None:
    gl = _gl(server)
    state = server.state
    everything = gl.runners.all(get_all=True)
    assert len(everything) == len(state.runners)
    assert {r.id for r in gl.runners.all(scope="shared")} == {r.id for r in state.runners.values() if r.is_shared}
    alice_runners = _gl(server, "user").runners.list(get_all=True)
    assert alice_runners and all(not r.is_shared for r in alice_runners)
    assert len(gl.runners_all.list(get_all=True)) == len(state.runners)

    team = next(r for r in state.runners.values() if r.description == "team-runner")
    runner = gl.runners.get(team.id)
    assert runner.token == team.token and runner.tag_list == team.tags
    runner.tag_list = ["one", "two"]
    runner.description = "renamed by python-gitlab"
    runner.save()
    assert gl.runners.get(team.id).tag_list == ["one", "two"]
    assert team.description == "renamed by python-gitlab"

    busy = next(r for r in state.runners.values() if r.description == "shared-docker-01")
    jobs = gl.runners.get(busy.id, lazy=True).jobs.list(status="success", get_all=False, per_page=5)
    assert jobs and all(job.status == "success" and job.project["id"] for job in jobs)

    gl.runners.delete(team.id)
    assert team.id not in state.runners
    with pytest.raises(gitlab.GitlabGetError):
        gl.runners.get(team.id)


def test_project_runners_with_python_gitlab(server: SimServer) -> None:
    gl = _gl(server)
    state = server.state
    runner = next(r for r in state.runners.values() if r.description == "k8s-autoscaler")
    target = next(p for p in sorted(state.projects.values(), key=lambda p: p.id)
                  if p.id not in runner.project_ids and not p.archived)
    project = gl.projects.get(target.id, lazy=True)
    enabled = project.runners.create({"runner_id": runner.id})
    assert enabled.id == runner.id
    assert runner.id in {r.id for r in project.runners.list(get_all=True)}
    with pytest.raises(gitlab.GitlabCreateError) as conflict:
        project.runners.create({"runner_id": runner.id})
    assert conflict.value.response_code == 409
    project.runners.delete(runner.id)
    assert target.id not in runner.project_ids
    only = next(r for r in state.runners.values() if len(r.project_ids) == 1 and not r.is_shared)
    with pytest.raises(gitlab.GitlabDeleteError) as refused:
        gl.projects.get(only.project_ids[0], lazy=True).runners.delete(only.id)
    assert refused.value.response_code == 403


def test_jobs_with_python_gitlab(server: SimServer) -> None:
    gl = _gl(server)
    state = server.state
    ci = store(state)
    failed = next(j for j in sorted(ci.jobs.values(), key=lambda j: j.id) if j.status == "failed" and j.artifacts)
    project = gl.projects.get(failed.project_id, lazy=True)

    listed = project.jobs.list(scope=["failed", "success"], get_all=True)
    assert listed and {job.status for job in listed} <= {"failed", "success"}
    assert failed.id in {job.id for job in listed}

    job = project.jobs.get(failed.id)
    assert job.status == "failed" and job.artifacts_file["filename"] == "artifacts.zip"
    trace = job.trace()
    assert trace.startswith(b"Running with gitlab-runner") and b"ERROR: Job failed" in trace
    archive = zipfile.ZipFile(io.BytesIO(job.artifacts()))
    assert "reports/junit.xml" in archive.namelist()
    assert job.artifact("reports/junit.xml") == archive.read("reports/junit.xml")

    job.keep_artifacts()
    assert failed.artifacts_expire_at is None
    retried = job.retry()
    assert retried["id"] != failed.id and retried["status"] == "pending"
    job.erase()
    assert failed.erased_at is not None and job.trace() == b""

    running = next(j for j in ci.jobs.values() if j.status == "running")
    running_job = gl.projects.get(running.project_id, lazy=True).jobs.get(running.id)
    assert running_job.cancel()["status"] == "canceled"

    manual = next(j for j in ci.jobs.values() if j.status == "manual")
    gl.projects.get(manual.project_id, lazy=True).jobs.get(manual.id).play()
    assert manual.status == "pending"

    ref_job = next(j for j in ci.jobs.values() if j.name == "build" and j.status == "success" and j.artifacts
                   and j.erased_at is None)
    by_ref = gl.projects.get(ref_job.project_id, lazy=True).artifacts.download(ref_name=ref_job.ref, job="build")
    assert zipfile.ZipFile(io.BytesIO(by_ref)).testzip() is None
