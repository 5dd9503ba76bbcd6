"""Job traces and artifacts over loopback HTTP: whole-log reads, ETags, archives by id and by ref,
and single files extracted from an archive."""

from __future__ import annotations

import io
import zipfile

import httpx

from labdeck.sim.ci.model import Job
from labdeck.sim.server import SimServer


def _client(sim: SimServer, token: str) -> httpx.Client:
    return httpx.Client(base_url=sim.api_url, headers={"PRIVATE-TOKEN": token}, timeout=10)


def _job(sim: SimServer, status: str, *, artifacts: bool | None = None) -> Job:
    for job in sorted(sim.state.jobs.values(), key=lambda j: j.id):
        if job.status != status or job.erased_at is not None or job.retried:
            continue
        if artifacts is None or bool(job.artifacts) == artifacts:
            return job
    raise AssertionError(f"no {status} job")


def _url(job: Job, action: str) -> str:
    return f"/projects/{job.project_id}/jobs/{job.id}/{action}"


def test_trace_of_finished_job(sim: SimServer, tokens: dict[str, str]) -> None:
    job = _job(sim, "success")
    with _client(sim, tokens["admin"]) as client:
        response = client.get(_url(job, "trace"))
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/plain")
    assert response.headers["content-disposition"] == f'infile; filename="{job.id}.log"'
    text = response.content.decode()
    assert text.startswith("Running with gitlab-runner 10.8.0 (")
    assert "section_start:" in text and "\r\x1b[0K" in text
    assert "\x1b[32;1m$ " in text
    assert text.endswith("\x1b[32;1mJob succeeded\n\x1b[0;m")


def test_trace_of_failed_job_ends_with_error(sim: SimServer, tokens: dict[str, str]) -> None:
    job = _job(sim, "failed")
    with _client(sim, tokens["admin"]) as client:
        text = client.get(_url(job, "trace")).content.decode()
    assert text.endswith("\x1b[31;1mERROR: Job failed: exit code 1\x1b[0;m\n") or "ERROR: Job failed: execution took" in text


def test_trace_of_job_not_started_is_empty(sim: SimServer, tokens: dict[str, str]) -> None:
    job = _job(sim, "created")
    with _client(sim, tokens["admin"]) as client:
        response = client.get(_url(job, "trace"))
    assert response.status_code == 200 and response.content == b""


def test_trace_etag_and_304(sim: SimServer, tokens: dict[str, str]) -> None:
    job = _job(sim, "success")
    with _client(sim, tokens["admin"]) as client:
        first = client.get(_url(job, "trace"))
        etag = first.headers["etag"]
        again = client.get(_url(job, "trace"), headers={"If-None-Match": etag})
    assert etag.startswith('W/"')
    assert again.status_code == 304 and again.content == b""


def test_range_is_ignored_unless_enabled(sim: SimServer, tokens: dict[str, str]) -> None:
    job = _job(sim, "success")
    with _client(sim, tokens["admin"]) as client:
        response = client.get(_url(job, "trace"), headers={"Range": "bytes=10-"})
    assert response.status_code == 200
    assert response.content.startswith(b"Running with")


def test_unknown_job_trace(sim: SimServer, tokens: dict[str, str]) -> None:
    job = _job(sim, "success")
    with _client(sim, tokens["admin"]) as client:
        response = client.get(f"/projects/{job.project_id}/jobs/987654/trace")
    assert response.status_code == 404 and response.json() == {"message": "404 Not found"}


def test_download_archive(sim: SimServer, tokens: dict[str, str]) -> None:
    job = _job(sim, "success", artifacts=True)
    with _client(sim, tokens["admin"]) as client:
        response = client.get(_url(job, "artifacts"))
        record = client.get(f"/projects/{job.project_id}/jobs/{job.id}").json()
    assert response.status_code == 200
    assert response.headers["content-disposition"] == 'attachment; filename="artifacts.zip"'
    assert int(response.headers["content-length"]) == len(response.content) == record["artifacts_file"]["size"]
    names = zipfile.ZipFile(io.BytesIO(response.content)).namelist()
    assert "coverage/lcov/nested/deep/lcov.info" in names and "reports/junit.xml" in names


def test_failed_job_has_archive_too(sim: SimServer, tokens: dict[str, str]) -> None:
    job = _job(sim, "failed", artifacts=True)
    with _client(sim, tokens["admin"]) as client:
        response = client.get(_url(job, "artifacts"))
    assert response.status_code == 200
    assert zipfile.ZipFile(io.BytesIO(response.content)).testzip() is None


def test_archive_range_request(sim: SimServer, tokens: dict[str, str]) -> None:
    job = _job(sim, "success", artifacts=True)
    with _client(sim, tokens["admin"]) as client:
        whole = client.get(_url(job, "artifacts")).content
        part = client.get(_url(job, "artifacts"), headers={"Range": "bytes=0-9"})
    assert part.status_code == 206
    assert part.content == whole[:10]
    assert part.headers["content-range"] == f"bytes 0-9/{len(whole)}"


def test_job_without_archive_is_404(sim: SimServer, tokens: dict[str, str]) -> None:
    job = _job(sim, "success", artifacts=False)
    with _client(sim, tokens["admin"]) as client:
        response = client.get(_url(job, "artifacts"))
    assert response.status_code == 404


def test_archive_by_ref_is_latest_successful(sim: SimServer, tokens: dict[str, str]) -> None:
    jobs = [j for j in sim.state.jobs.values() if j.name == "build" and j.status == "success" and j.artifacts
            and j.erased_at is None]
    job = jobs[0]
    latest = max((j for j in jobs if j.project_id == job.project_id and j.ref == job.ref),
                 key=lambda j: (j.pipeline_id, j.id))
    base = f"/projects/{job.project_id}/jobs/artifacts/{job.ref.replace('/', '%2F')}/download"
    with _client(sim, tokens["admin"]) as client:
        response = client.get(base, params={"job": "build"})
        expected = client.get(_url(latest, "artifacts")).content
        unknown = client.get(base, params={"job": "no-such-job"})
        missing = client.get(base)
    assert response.status_code == 200 and response.content == expected
    assert unknown.status_code == 404
    assert missing.status_code == 400 and missing.json() == {"error": "job is missing"}


def test_single_artifact_file(sim: SimServer, tokens: dict[str, str]) -> None:
    job = _job(sim, "success", artifacts=True)
    with _client(sim, tokens["admin"]) as client:
        archive = zipfile.ZipFile(io.BytesIO(client.get(_url(job, "artifacts")).content))
        response = client.get(_url(job, "artifacts/coverage/lcov/nested/deep/lcov.info"))
        absent = client.get(_url(job, "artifacts/coverage/nope.txt"))
        traversal = client.get(_url(job, "artifacts/..%2Fsecret.txt"))
        absolute = client.get(_url(job, "artifacts/%2Fetc%2Fpasswd"))
    assert response.status_code == 200
    assert response.content == archive.read("coverage/lcov/nested/deep/lcov.info")
    assert absent.status_code == 404
    assert traversal.status_code == 400
    assert absolute.status_code == 400
