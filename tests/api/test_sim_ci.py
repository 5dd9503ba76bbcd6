"""Runners and jobs families against the simulator (artifacts, traces, job actions)."""

from __future__ import annotations

import zipfile
from pathlib import Path
from typing import Any

import pytest

from labdeck.api import ApiClient, errors
from labdeck.api.models import Job, JobStatus, RunnerStatus

PROJECT = "platform/api-gateway"


async def _job(client: ApiClient, status: str, *, pid: int | str = PROJECT, artifacts: bool = False) -> Job:
    for project in ([pid] if pid != "*" else [p.id for p in await client.projects.list().all()]):
        for job in await client.jobs.list(project, scope=[status]).all():  # type: ignore[list-item]
            if not artifacts or job.artifacts_file:
                return job
    pytest.skip(f"no {status} job in the data set")


# --- runners ----------------------------------------------------------------------------------------


async def test_runner_lists_and_detail(admin: ApiClient, user: ApiClient) -> None:
    everything = await admin.runners.list_all().all()
    shared = await admin.runners.list_all(scope="shared").all()
    online = await admin.runners.list_all(scope="online").all()
    assert shared and all(r.is_shared for r in shared)
    assert online and all(r.online for r in online) and len(online) < len(everything)
    assert {r.status for r in everything} <= RunnerStatus.KNOWN | {None}
    assert RunnerStatus.NOT_CONNECTED in {r.status for r in everything}  # kept, not fatal
    specific = next(r for r in everything if not r.is_shared)
    detail = await admin.runners.get(specific.id)
    assert detail.projects and detail.tag_list is not None
    assert "token" not in repr(detail)
    mine = await user.runners.list().all()
    assert all(not r.is_shared for r in mine)
    with pytest.raises(errors.Forbidden):
        await user.runners.list_all().all()


async def test_runner_jobs_and_project_runners(admin: ApiClient) -> None:
    runner = next(r for r in await admin.runners.list_all().all() if not r.is_shared and r.status == "online")
    jobs = await admin.runners.jobs(runner.id).all()
    succeeded = await admin.runners.jobs(runner.id, status="success").all()
    assert all(j.status == "success" for j in succeeded) and len(succeeded) <= len(jobs)
    assert all(j.project is not None for j in jobs)
    runners = await admin.runners.project_runners(PROJECT).all()
    assert runners


async def test_runner_update_enable_disable_delete(private_admin: ApiClient) -> None:
    client = private_admin
    runners = await client.runners.list_all().all()
    details = [await client.runners.get(r.id) for r in runners if not r.is_shared]
    detail = next(d for d in details if len(d.projects) == 1)
    runner = detail
    updated = await client.runners.update(runner.id, description="renamed", tag_list=["x", "y"], active=False,
                                          access_level="ref_protected", maximum_timeout=3600, locked=False)
    assert updated.description == "renamed" and sorted(updated.tag_list) == ["x", "y"]
    assert updated.active is False and updated.access_level == "ref_protected"
    with pytest.raises(errors.Forbidden):  # its only project: the server refuses
        await client.runners.disable(detail.projects[0].id, runner.id)
    other = next(p for p in await client.projects.list().all() if p.id != detail.projects[0].id)
    enabled = await client.runners.enable(other.id, runner.id)
    assert enabled.id == runner.id
    await client.runners.disable(other.id, runner.id)
    await client.runners.delete(runner.id)
    with pytest.raises(errors.NotFound):
        await client.runners.get(runner.id)


# --- jobs -------------------------------------------------------------------------------------------


async def test_job_list_scope_and_pipeline(admin: ApiClient) -> None:
    jobs = await admin.jobs.list(PROJECT).all()
    assert jobs and all(j.status for j in jobs)
    finished = await admin.jobs.list(PROJECT, scope=["success", "failed"]).all()
    assert finished and {j.status for j in finished} <= {"success", "failed"}
    pipeline = next(j.pipeline for j in jobs if j.pipeline is not None)
    assert pipeline is not None and pipeline.id is not None
    in_pipeline = await admin.jobs.pipeline_jobs(PROJECT, pipeline.id).all()
    assert in_pipeline and all(j.pipeline is None or j.pipeline.id == pipeline.id for j in in_pipeline)
    single = await admin.jobs.get(PROJECT, jobs[0].id)
    assert single.id == jobs[0].id and single.created_at is not None and single.created_at.tzinfo
    with pytest.raises(errors.NotFound):
        await admin.jobs.get(PROJECT, 99_999_999)


async def test_trace_reads_and_offsets(admin: ApiClient) -> None:
    job = await _job(admin, "success")
    full = await admin.jobs.trace(PROJECT, job.id)
    assert full.status == 200 and full.data.startswith(b"Running with gitlab-runner")
    assert full.total_length == len(full.data)
    tail = await admin.jobs.trace(PROJECT, job.id, offset=10)
    assert tail.data == full.data[10:]
    if full.etag:
        unchanged = await admin.jobs.trace(PROJECT, job.id, offset=len(full.data), etag=full.etag)
        assert unchanged.status in (200, 304) and unchanged.data == b""


async def test_trace_ranges_when_the_server_honours_them(private_admin: ApiClient) -> None:
    private_admin.server.state.extra["trace_range"] = True  # type: ignore[attr-defined]
    job = await _job(private_admin, "success")
    full = await private_admin.jobs.trace(PROJECT, job.id)
    part = await private_admin.jobs.trace(PROJECT, job.id, offset=25)
    past = await private_admin.jobs.trace(PROJECT, job.id, offset=len(full.data) + 10)
    assert part.status == 206 and part.range_honoured and part.data == full.data[25:]
    assert part.total_length == len(full.data)
    assert past.status == 416 and past.data == b"" and past.truncated_below(len(full.data) + 10)


async def test_artifacts_downloads(admin: ApiClient, tmp_path: Path) -> None:
    job = await _job(admin, "success", artifacts=True)
    progress: list[tuple[int, int | None]] = []
    archive = await admin.jobs.download_artifacts(PROJECT, job.id, tmp_path / "a.zip",
                                                  progress=lambda done, total: progress.append((done, total)))
    assert zipfile.is_zipfile(archive) and progress[-1][0] == archive.stat().st_size
    names = [n for n in zipfile.ZipFile(archive).namelist() if not n.endswith("/")]
    inner = await admin.jobs.artifact_file(PROJECT, job.id, names[0], tmp_path)
    assert inner.read_bytes() == zipfile.ZipFile(archive).read(names[0])
    with pytest.raises((errors.NotFound, errors.ValidationError)):
        await admin.jobs.artifact_file(PROJECT, job.id, "no/such/file.txt", tmp_path / "missing")
    assert job.ref and job.name
    by_ref = await admin.jobs.artifacts_by_ref(PROJECT, job.ref, job.name, tmp_path / "ref.zip")
    assert zipfile.is_zipfile(by_ref)


async def test_job_actions(private_admin: ApiClient) -> None:
    client = private_admin
    running = await _job(client, "running", pid="*")
    pid = running.pipeline.project_id if running.pipeline and running.pipeline.project_id else None
    project = pid or next(p.id for p in await client.projects.list().all()
                          if running.id in {j.id for j in await client.jobs.list(p.id).all()})
    canceled = await client.jobs.cancel(project, running.id)
    assert canceled.status == JobStatus.CANCELED
    retried = await client.jobs.retry(project, running.id)
    assert retried.id != running.id and retried.status == JobStatus.PENDING
    manual = await _job(client, "manual", pid=project)
    played = await client.jobs.play(project, manual.id)
    assert played.status != JobStatus.MANUAL
    done = await _job(client, "success", pid=project, artifacts=True)
    kept = await client.jobs.keep_artifacts(project, done.id)
    assert kept.id == done.id
    erased = await client.jobs.erase(project, done.id)
    assert erased.id == done.id
    with pytest.raises(errors.NotFound):
        await client.jobs.download_artifacts(project, done.id, Path("/nonexistent-dir/x.zip"))


async def test_unplayable_and_unretryable_jobs_raise(admin: ApiClient) -> None:
    done = await _job(admin, "success")
    with pytest.raises((errors.ValidationError, errors.Forbidden)):
        await admin.jobs.play(PROJECT, done.id)


async def test_read_only_token_cannot_act(sim: Any, tokens: dict[str, str]) -> None:
    from tests.api.conftest import client_for

    async with client_for(sim, tokens["readonly"]) as client:
        job = (await client.jobs.list(PROJECT).first_page())[0]
        with pytest.raises(errors.Forbidden):
            await client.jobs.cancel(PROJECT, job.id)


async def test_conditional_polling_against_the_simulator(admin: ApiClient) -> None:
    job = await _job(admin, "success")
    first = await admin.jobs.poll(PROJECT, job.id)
    second = await admin.jobs.poll(PROJECT, job.id, since=first.etag)
    assert first.changed and first.value is not None and first.value.id == job.id
    assert second.changed is False and second.status == 304 and second.value is None
    listing = admin.runners.list_all(conditional=True, per_page=4)
    again = admin.runners.list_all(conditional=True, per_page=4)
    assert [r.id for r in await listing.all()] == [r.id for r in await again.all()]
    assert listing.changed is True and again.changed is True  # a fresh consumer has nothing yet
    assert listing.version is not None and listing.version == again.version
