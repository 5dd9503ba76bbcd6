"""The job engine over loopback HTTP: pipelines created through the control surface move through
their states as simulated time advances; runners pick by tags; traces grow; bulk logs; Range."""

from __future__ import annotations

import io
import re
import zipfile
from collections.abc import Callable
from datetime import timedelta
from typing import Any

import httpx
import pytest

from labdeck.sim.ci import engine
from labdeck.sim.ci.engine import store
from labdeck.sim.ci.model import Runner
from labdeck.sim.dataset.build import DEMO_TOKENS
from labdeck.sim.server import SimServer

TAG = "engine-test"
SECTION = re.compile(rb"section_(start|end):(\d+):([a-zA-Z0-9_.-]+)\r\x1b\[0K")


@pytest.fixture
def server(sim_factory: Callable[..., SimServer]) -> SimServer:
    """A private simulator with its pipeline generator stopped and a runner of our own."""
    server = sim_factory()
    state = server.state
    ci = store(state)
    ci.next_pipeline_at = None
    project = _project(server)
    runner = Runner(id=state.next_id("runner"), description="engine-runner", token="e" * 20, is_shared=False,
                    tags=[TAG], run_untagged=False, project_ids=[project.id], contacted_at=state.now(),
                    concurrent=4)
    state.runners[runner.id] = runner
    return server


def _project(server: SimServer) -> Any:
    return min((p for p in server.state.projects.values() if not p.archived), key=lambda p: p.id)


def _admin(server: SimServer) -> httpx.Client:
    return httpx.Client(base_url=server.base_url, headers={"PRIVATE-TOKEN": DEMO_TOKENS["admin"]}, timeout=10)


def _pipeline(client: httpx.Client, project_id: int, stages: list[dict[str, Any]], ref: str = "master") -> dict[str, Any]:
    response = client.post(f"/-/sim/projects/{project_id}/pipelines", json={"ref": ref, "stages": stages})
    assert response.status_code == 201, response.text
    return response.json()


def _advance(client: httpx.Client, seconds: float) -> None:
    response = client.post("/-/sim/clock/advance", params={"seconds": seconds})
    assert response.status_code == 200, response.text


def _job(client: httpx.Client, project_id: int, job_id: int) -> dict[str, Any]:
    response = client.get(f"/api/v4/projects/{project_id}/jobs/{job_id}")
    assert response.status_code == 200
    return response.json()


def _trace(client: httpx.Client, project_id: int, job_id: int, **headers: str) -> httpx.Response:
    return client.get(f"/api/v4/projects/{project_id}/jobs/{job_id}/trace", headers=headers)


def _three_stages(fail: bool = False) -> list[dict[str, Any]]:
    return [
        {"name": "build", "jobs": [{"name": "compile", "tags": [TAG], "script_lines": ["make all"],
                                    "duration": 100, "fail": fail, "artifacts": True}]},
        {"name": "test", "jobs": [{"name": "unit", "tags": [TAG], "script_lines": ["make test"], "duration": 50}]},
        {"name": "deploy", "jobs": [{"name": "ship", "tags": [TAG], "when": "manual", "duration": 20}]},
    ]


def test_pipeline_runs_stage_by_stage(server: SimServer) -> None:
    project = _project(server)
    with _admin(server) as client:
        created = _pipeline(client, project.id, _three_stages())
        compile_id, unit_id, ship_id = (job["id"] for job in created["jobs"])
        assert [job["status"] for job in created["jobs"]] == ["pending", "created", "created"]
        assert created["status"] == "pending"
        _advance(client, 10)
        running = _job(client, project.id, compile_id)
        assert running["status"] == "running" and running["started_at"] and running["finished_at"] is None
        assert running["runner"]["description"] == "engine-runner"
        assert running["pipeline"]["status"] == "running"
        assert _job(client, project.id, unit_id)["status"] == "created"
        _advance(client, 100)
        done = _job(client, project.id, compile_id)
        assert done["status"] == "success" and done["duration"] == pytest.approx(100, abs=0.01)
        assert done["artifacts_file"] is not None
        assert _job(client, project.id, unit_id)["status"] in ("pending", "running")
        _advance(client, 100)
        assert _job(client, project.id, unit_id)["status"] == "success"
        ship = _job(client, project.id, ship_id)
        assert ship["status"] == "manual"
        assert ship["pipeline"]["status"] == "success"
        played = client.post(f"/api/v4/projects/{project.id}/jobs/{ship_id}/play")
        assert played.status_code == 200 and played.json()["status"] == "pending"
        _advance(client, 60)
        assert _job(client, project.id, ship_id)["status"] == "success"


def test_failure_skips_later_stages(server: SimServer) -> None:
    project = _project(server)
    with _admin(server) as client:
        created = _pipeline(client, project.id, _three_stages(fail=True))
        compile_id, unit_id, ship_id = (job["id"] for job in created["jobs"])
        _advance(client, 200)
        failed = _job(client, project.id, compile_id)
        trace = _trace(client, project.id, compile_id).content
        later = [_job(client, project.id, job_id)["status"] for job_id in (unit_id, ship_id)]
    assert failed["status"] == "failed"
    assert failed["pipeline"]["status"] == "failed"
    assert later == ["skipped", "skipped"]
    assert trace.endswith(b"\x1b[31;1mERROR: Job failed: exit code 1\x1b[0;m\n")
    assert b"upload_artifacts_on_failure" in trace


def test_trace_grows_with_simulated_time(server: SimServer) -> None:
    project = _project(server)
    with _admin(server) as client:
        job_id = _pipeline(client, project.id, [{"name": "build", "jobs": [
            {"name": "slow", "tags": [TAG], "script_lines": ["pip install -r requirements.txt", "pytest"],
             "duration": 600}]}])["jobs"][0]["id"]
        sizes = []
        previous = b""
        for _ in range(4):
            _advance(client, 120)
            current = _trace(client, project.id, job_id).content
            assert current.startswith(previous)
            sizes.append(len(current))
            previous = current
        _advance(client, 400)
        final = _trace(client, project.id, job_id).content
    assert sizes == sorted(sizes) and sizes[0] < sizes[-1]
    assert final.startswith(previous) and final.endswith(b"Job succeeded\n\x1b[0;m")
    text = final.decode()
    assert text.startswith("Running with gitlab-runner 10.8.0 (")
    names = [m.group(3).decode() for m in SECTION.finditer(final) if m.group(1) == b"start"]
    assert names[:4] == ["prepare_executor", "prepare_script", "get_sources", "build_script"]
    assert "upload_artifacts_on_success" not in names
    assert "\x1b[32;1m$ pytest\x1b[0;m" in text
    assert re.search(r"\r[^\n]", text), "progress lines rewrite themselves with \\r"


def test_cancel_freezes_the_trace(server: SimServer) -> None:
    project = _project(server)
    with _admin(server) as client:
        job_id = _pipeline(client, project.id, [{"name": "build", "jobs": [
            {"name": "long", "tags": [TAG], "duration": 900}]}])["jobs"][0]["id"]
        _advance(client, 300)
        canceled = client.post(f"/api/v4/projects/{project.id}/jobs/{job_id}/cancel").json()
        before = _trace(client, project.id, job_id).content
        _advance(client, 900)
        after = _trace(client, project.id, job_id).content
        record = _job(client, project.id, job_id)
    assert canceled["status"] == "canceled"
    assert before == after and before
    assert record["status"] == "canceled" and record["pipeline"]["status"] == "canceled"


def test_runner_selection_by_tags_and_state(server: SimServer) -> None:
    state = server.state
    project = _project(server)
    ours = next(r for r in state.runners.values() if r.description == "engine-runner")
    with _admin(server) as client:
        created = _pipeline(client, project.id, [{"name": "build", "jobs": [
            {"name": "nobody-has-this", "tags": ["no-such-tag"], "duration": 10},
            {"name": "ours", "tags": [TAG], "duration": 500},
        ]}])
        stuck_id, ours_id = (job["id"] for job in created["jobs"])
        client.put(f"/api/v4/runners/{ours.id}", data={"active": "false"})
        _advance(client, 60)
        paused_status = _job(client, project.id, ours_id)["status"]
        client.put(f"/api/v4/runners/{ours.id}", data={"active": "true"})
        offline = client.put(f"/-/sim/runners/{ours.id}", json={"connected": False})
        _advance(client, 60)
        offline_status = _job(client, project.id, ours_id)["status"]
        client.put(f"/-/sim/runners/{ours.id}", json={"connected": True})
        _advance(client, 60)
        resumed = _job(client, project.id, ours_id)
        stuck = _job(client, project.id, stuck_id)
    assert paused_status == "pending"
    assert offline.status_code == 200 and offline_status == "pending"
    assert resumed["status"] == "running" and resumed["runner"]["id"] == ours.id
    assert stuck["status"] == "pending"


def test_untagged_jobs_go_to_run_untagged_runners(server: SimServer) -> None:
    project = _project(server)
    with _admin(server) as client:
        job_id = _pipeline(client, project.id, [{"name": "build", "jobs": [
            {"name": "untagged", "duration": 30}]}])["jobs"][0]["id"]
        _advance(client, 600)
        job = _job(client, project.id, job_id)
    runner = server.state.runners[job["runner"]["id"]]
    assert runner.run_untagged and runner.description != "engine-runner"


def test_appended_trace_bytes(server: SimServer) -> None:
    project = _project(server)
    with _admin(server) as client:
        job_id = _pipeline(client, project.id, [{"name": "build", "jobs": [
            {"name": "quiet", "tags": [TAG], "generate_trace": False, "duration": None}]}])["jobs"][0]["id"]
        _advance(client, 10)
        first = client.post(f"/-/sim/projects/{project.id}/jobs/{job_id}/trace", content=b"hello\x1b]0;evil\x07\n")
        client.post(f"/-/sim/projects/{project.id}/jobs/{job_id}/trace", content=b"\x1b[31mred\x1b[0m\n")
        trace = _trace(client, project.id, job_id).content
        unknown = client.post(f"/-/sim/projects/{project.id}/jobs/999999/trace", content=b"x")
    assert first.status_code == 201 and first.json()["size"] == len(b"hello\x1b]0;evil\x07\n")
    assert trace == b"hello\x1b]0;evil\x07\n\x1b[31mred\x1b[0m\n"
    assert unknown.status_code == 404


def test_appended_bytes_stay_in_place_while_the_log_grows(server: SimServer) -> None:
    project = _project(server)
    with _admin(server) as client:
        job_id = _pipeline(client, project.id, [{"name": "build", "jobs": [
            {"name": "mixed", "tags": [TAG], "duration": 300}]}])["jobs"][0]["id"]
        _advance(client, 60)
        before = _trace(client, project.id, job_id).content
        client.post(f"/-/sim/projects/{project.id}/jobs/{job_id}/trace", content=b"<marker>\n")
        _advance(client, 60)
        after = _trace(client, project.id, job_id).content
    assert after.startswith(before + b"<marker>\n") and len(after) > len(before) + 9


def test_trace_range_when_enabled(server: SimServer) -> None:
    server.state.extra["trace_range"] = True
    project = _project(server)
    with _admin(server) as client:
        job_id = _pipeline(client, project.id, [{"name": "build", "jobs": [
            {"name": "ranged", "tags": [TAG], "duration": 60}]}])["jobs"][0]["id"]
        _advance(client, 120)
        whole = _trace(client, project.id, job_id).content
        part = _trace(client, project.id, job_id, Range="bytes=100-")
        beyond = _trace(client, project.id, job_id, Range=f"bytes={len(whole)}-")
    assert part.status_code == 206
    assert part.content == whole[100:]
    assert part.headers["content-range"] == f"bytes 100-{len(whole) - 1}/{len(whole)}"
    assert beyond.status_code == 416
    assert beyond.headers["content-range"] == f"bytes */{len(whole)}"


def test_bulk_trace_grows_at_its_rate(server: SimServer) -> None:
    project = _project(server)
    with _admin(server) as client:
        job_id = _pipeline(client, project.id, [{"name": "build", "jobs": [
            {"name": "huge", "tags": [TAG], "duration": None, "trace_bytes": 300_000, "trace_rate": 10240}]}])["jobs"][0]["id"]
        _advance(client, 5)
        first = _trace(client, project.id, job_id).content
        _advance(client, 10)
        second = _trace(client, project.id, job_id).content
        assert _job(client, project.id, job_id)["status"] == "running"
    assert len(second) - len(first) == pytest.approx(102_400, abs=2)
    assert second.startswith(first)
    assert second.startswith(b"Running with gitlab-runner")


def test_bulk_trace_with_a_line_count(server: SimServer) -> None:
    project = _project(server)
    with _admin(server) as client:
        job_id = _pipeline(client, project.id, [{"name": "build", "jobs": [
            {"name": "lines", "tags": [TAG], "duration": 30, "trace_lines": 20_000}]}])["jobs"][0]["id"]
        _advance(client, 60)
        trace = _trace(client, project.id, job_id).content
    assert trace.count(b"\n") == 20_000
    assert trace.endswith(b"Job succeeded\n\x1b[0;m")


def test_big_artifact_streams_with_exact_size(server: SimServer) -> None:
    project = _project(server)
    payload = 3 * 1024 * 1024 + 17
    with _admin(server) as client:
        job_id = _pipeline(client, project.id, [{"name": "build", "jobs": [
            {"name": "big", "tags": [TAG], "duration": 10, "artifacts": "big", "artifact_bytes": payload}]}])["jobs"][0]["id"]
        _advance(client, 30)
        record = _job(client, project.id, job_id)
        response = client.get(f"/api/v4/projects/{project.id}/jobs/{job_id}/artifacts")
        member = client.get(f"/api/v4/projects/{project.id}/jobs/{job_id}/artifacts/dist/payload.bin")
    assert response.status_code == 200
    assert len(response.content) == int(response.headers["content-length"]) == record["artifacts_file"]["size"]
    archive = zipfile.ZipFile(io.BytesIO(response.content))
    assert archive.getinfo("dist/payload.bin").file_size == payload
    assert member.content == archive.read("dist/payload.bin")


def test_retry_reprocesses_skipped_stages(server: SimServer) -> None:
    project = _project(server)
    with _admin(server) as client:
        created = _pipeline(client, project.id, [
            {"name": "build", "jobs": [{"name": "flaky", "tags": [TAG], "duration": 20, "fail": True}]},
            {"name": "test", "jobs": [{"name": "after", "tags": [TAG], "duration": 20}]},
        ])
        flaky_id, after_id = (job["id"] for job in created["jobs"])
        _advance(client, 60)
        assert _job(client, project.id, after_id)["status"] == "skipped"
        server.state.jobs[flaky_id].will_fail = False
        server.state.jobs[flaky_id].outcome_fixed = True
        retried = client.post(f"/api/v4/projects/{project.id}/jobs/{flaky_id}/retry").json()
        assert _job(client, project.id, after_id)["status"] == "created"
        _advance(client, 120)
        new = _job(client, project.id, retried["id"])
        after = _job(client, project.id, after_id)
        old = _job(client, project.id, flaky_id)
    assert new["status"] == "success" and old["status"] == "failed"
    assert after["status"] == "success" and after["pipeline"]["status"] == "success"


def test_generator_keeps_pipelines_coming(server: SimServer) -> None:
    ci = store(server.state)
    ci.next_pipeline_at = server.state.now()
    before = len(ci.pipelines)
    with _admin(server) as client:
        _advance(client, 3600)
    assert len(ci.pipelines) >= before + 5
    assert any(job.status == "running" for job in ci.jobs.values())


def test_old_pipelines_are_pruned(server: SimServer, monkeypatch: pytest.MonkeyPatch) -> None:
    ci = store(server.state)
    monkeypatch.setattr(engine, "MAX_JOBS", 200)
    ci.next_pipeline_at = server.state.now()
    with _admin(server) as client:
        _advance(client, 7200)
    assert len(ci.jobs) <= 200 + 20
    assert all(job.pipeline_id in ci.pipelines for job in ci.jobs.values())


def test_control_surface_needs_admin(server: SimServer) -> None:
    project = _project(server)
    with httpx.Client(base_url=server.base_url, headers={"PRIVATE-TOKEN": DEMO_TOKENS["user"]}) as client:
        response = client.post(f"/-/sim/projects/{project.id}/pipelines", json={"stages": [{"name": "x", "jobs": []}]})
    with _admin(server) as client:
        invalid = client.post(f"/-/sim/projects/{project.id}/pipelines", json={"stages": []})
        unknown = client.post("/-/sim/projects/99999/pipelines", json={"stages": [{"name": "x", "jobs": []}]})
    assert response.status_code == 403
    assert invalid.status_code == 400
    assert unknown.status_code == 404


def test_benchmark_jobs_option() -> None:
    from labdeck.sim.core.clock import SimClock
    from labdeck.sim.dataset.build import build_state
    from labdeck.sim.dataset.ci import add_benchmark_jobs

    state = build_state(seed=7, clock=SimClock(mode="manual"))
    made = add_benchmark_jobs(state, ci_huge_trace_bytes=50_000, ci_huge_trace_rate=1000,
                              ci_million_line_trace=3_000, ci_big_artifact_bytes=200_000)
    assert state.extra["ci_benchmark_jobs"] == made
    with SimServer(state) as server, _admin(server) as client:
        huge, lines, big = made["huge_trace"], made["million_lines"], made["big_artifact"]
        huge_trace = _trace(client, huge["project_id"], huge["job_id"]).content
        assert _job(client, huge["project_id"], huge["job_id"])["status"] == "running"
        _advance(client, 4)
        grown = _trace(client, huge["project_id"], huge["job_id"]).content
        line_trace = _trace(client, lines["project_id"], lines["job_id"]).content
        record = _job(client, big["project_id"], big["job_id"])
    assert len(huge_trace) == 50_000 and len(grown) == 54_000
    assert line_trace.count(b"\n") == 3_000
    assert record["status"] == "success" and record["artifacts_file"]["size"] > 200_000


def test_data_set_running_jobs_keep_logging(server: SimServer) -> None:
    running = [j for j in server.state.jobs.values() if j.status == "running" and j.planned_duration]
    job = max(running, key=lambda j: j.started_at + timedelta(seconds=j.planned_duration or 0))
    with _admin(server) as client:
        before = _trace(client, job.project_id, job.id).content
        _advance(client, 45)
        after = _trace(client, job.project_id, job.id).content
    assert before and after.startswith(before) and len(after) > len(before)
