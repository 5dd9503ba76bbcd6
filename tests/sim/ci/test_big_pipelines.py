"""Pipelines of 1,500 jobs in both dialects: the status the simulator gives a pipeline (and embeds in
every job's ``pipeline.status``) follows GitLab's rules at any size — a failed first job fails the
pipeline and skips the next stage, one running job keeps it running, a retried job counts once,
an allowed failure does not fail it — and the control surface's ``count``/``fail``/``allow_failure``
and ``sha``/``title``/``user``."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from labdeck.sim.server import SimServer
from tests.sim.helpers import advance, client, control, pipeline, quiet

PROJECT = 1


def _stages(test: list[dict[str, Any]], deploy: int = 300) -> list[dict[str, Any]]:
    return [{"name": "test", "jobs": test},
            {"name": "deploy", "jobs": [{"name": "deploy", "count": deploy, "duration": 5}]}]


def _jobs(server: SimServer, pipeline_id: int, *scopes: str) -> tuple[list[dict[str, Any]], int]:
    """The first page (100) of the pipeline's jobs in ``scopes``, and how many there are."""
    with client(server) as root:
        response = root.get(f"/projects/{PROJECT}/pipelines/{pipeline_id}/jobs",
                            params={"scope[]": list(scopes), "per_page": 100})
    assert response.status_code == 200, response.text
    body: list[dict[str, Any]] = response.json()
    return body, int(response.headers["X-Total"])


def _server(sim_factory: Callable[..., SimServer], dialect: str) -> SimServer:
    return quiet(sim_factory(dialect=dialect))


@pytest.mark.parametrize("dialect", ["spec", "gitlab"])
def test_first_of_1500_jobs_fails(sim_factory: Callable[..., SimServer], dialect: str) -> None:
    server = _server(sim_factory, dialect)
    created = pipeline(server, PROJECT, _stages([{"name": "unit", "count": 1200, "fail": [1], "duration": 5}]))
    assert len(created["jobs"]) == 1500 and created["jobs"][0]["name"] == "unit-0001"
    advance(server, 4 * 3600)
    failed, failed_count = _jobs(server, created["id"], "failed")
    assert failed_count == 1 and failed[0]["name"] == "unit-0001"
    assert failed[0]["pipeline"]["status"] == "failed"
    skipped, skipped_count = _jobs(server, created["id"], "skipped")
    assert skipped_count == 300 and {job["stage"] for job in skipped} == {"deploy"}
    assert _jobs(server, created["id"], "success")[1] == 1199
    assert all(job["pipeline"]["status"] == "failed" for job in skipped)


@pytest.mark.parametrize("dialect", ["spec", "gitlab"])
def test_one_running_job_of_1500_keeps_the_pipeline_running(sim_factory: Callable[..., SimServer],
                                                              dialect: str) -> None:
    server = _server(sim_factory, dialect)
    created = pipeline(server, PROJECT, _stages([{"name": "unit", "count": 1199, "duration": 5},
                                                 {"name": "slow", "duration": None}]))
    advance(server, 4 * 3600)
    running, running_count = _jobs(server, created["id"], "running")
    assert running_count == 1 and running[0]["name"] == "slow"
    assert running[0]["pipeline"]["status"] == "running"
    assert _jobs(server, created["id"], "success")[1] == 1199
    waiting, waiting_count = _jobs(server, created["id"], "created")
    assert waiting_count == 300 and waiting[0]["pipeline"]["status"] == "running"


@pytest.mark.parametrize("dialect", ["spec", "gitlab"])
def test_a_retried_job_counts_once(sim_factory: Callable[..., SimServer], dialect: str) -> None:
    server = _server(sim_factory, dialect)
    created = pipeline(server, PROJECT, _stages([{"name": "flaky", "flaky": True, "duration": 5},
                                                 {"name": "unit", "count": 1199, "duration": 5}]))
    advance(server, 4 * 3600)
    failed, _ = _jobs(server, created["id"], "failed")
    assert [job["name"] for job in failed] == ["flaky"] and failed[0]["pipeline"]["status"] == "failed"
    with client(server) as root:
        assert root.post(f"/projects/{PROJECT}/jobs/{failed[0]['id']}/retry").status_code == 201
    advance(server, 4 * 3600)
    passed, passed_count = _jobs(server, created["id"], "success")
    # The failed try stays in the list (every try is listed in the spec dialect, and in the gitlab
    # dialect with include_retried), but the pipeline's status takes only the newest one.
    assert passed_count == 1500 and passed[0]["pipeline"]["status"] == "success"
    assert _jobs(server, created["id"], "skipped")[1] == 0


@pytest.mark.parametrize("dialect", ["spec", "gitlab"])
def test_an_allowed_failure_does_not_fail_1500_jobs(sim_factory: Callable[..., SimServer], dialect: str) -> None:
    server = _server(sim_factory, dialect)
    created = pipeline(server, PROJECT, _stages([{"name": "unit", "count": 1200, "fail": [1], "allow_failure": [1],
                                                  "duration": 5}]))
    assert created["jobs"][0]["allow_failure"] is True and created["jobs"][1]["allow_failure"] is False
    advance(server, 4 * 3600)
    failed, _ = _jobs(server, created["id"], "failed")
    assert [job["name"] for job in failed] == ["unit-0001"] and failed[0]["pipeline"]["status"] == "success"
    assert _jobs(server, created["id"], "success")[1] == 1499


def test_count_fail_and_allow_failure_indexes(sim_factory: Callable[..., SimServer]) -> None:
    server = _server(sim_factory, "spec")
    created = pipeline(server, PROJECT, [{"name": "test", "jobs": [
        {"name": "shard", "count": 3, "fail": [2, 3], "allow_failure": [3], "duration": 5}]}])
    assert [job["name"] for job in created["jobs"]] == ["shard-0001", "shard-0002", "shard-0003"]
    assert [job["allow_failure"] for job in created["jobs"]] == [False, False, True]
    advance(server, 600)
    with client(server) as root:
        jobs = {job["name"]: job for job in root.get(f"/projects/{PROJECT}/pipelines/{created['id']}/jobs").json()}
    assert [jobs[f"shard-000{i}"]["status"] for i in (1, 2, 3)] == ["success", "failed", "failed"]
    assert jobs["shard-0001"]["pipeline"]["status"] == "failed"
    everyone = pipeline(server, PROJECT, [{"name": "test", "jobs": [{"name": "all", "count": 2, "fail": True}]}])
    advance(server, 600)
    with client(server) as root:
        statuses = {job["status"] for job in root.get(f"/projects/{PROJECT}/pipelines/{everyone['id']}/jobs").json()}
    assert statuses == {"failed"}


@pytest.mark.parametrize("body", [{"count": 0}, {"count": 3, "fail": [4]}, {"count": 3, "allow_failure": [0]},
                                  {"count": "3"}, {"count": 2, "fail": "yes"}])
def test_bad_counts_are_refused(sim_factory: Callable[..., SimServer], body: dict[str, Any]) -> None:
    server = _server(sim_factory, "spec")
    with control(server) as admin:
        response = admin.post(f"/-/sim/projects/{PROJECT}/pipelines",
                              json={"stages": [{"name": "test", "jobs": [{"name": "x", **body}]}]})
    assert response.status_code == 400


@pytest.mark.parametrize("dialect", ["spec", "gitlab"])
def test_sha_title_and_user_make_the_commit(sim_factory: Callable[..., SimServer], dialect: str) -> None:
    server = _server(sim_factory, dialect)
    one = [{"name": "test", "jobs": [{"name": "unit", "duration": 5}]}]
    first = pipeline(server, PROJECT, one, sha="ab" * 20, title="Split the monorepo tests", user="alice")
    job = first["jobs"][0]
    assert first["sha"] == "ab" * 20
    assert job["commit"]["id"] == "ab" * 20 and job["commit"]["title"] == "Split the monorepo tests"
    assert job["commit"]["author_name"] == "Alice Moreau" and job["user"]["username"] == "alice"
    again = pipeline(server, PROJECT, one, sha="ab" * 20)
    assert again["jobs"][0]["commit"]["title"] == "Split the monorepo tests"
    assert again["jobs"][0]["commit"]["author_name"] == "Alice Moreau"
    assert again["jobs"][0]["user"]["username"] == "root"
    fresh = pipeline(server, PROJECT, one)
    assert fresh["sha"] not in ("ab" * 20, first["sha"]) and fresh["iid"] == again["iid"] + 1
    with control(server) as admin:
        refused = admin.post(f"/-/sim/projects/{PROJECT}/pipelines", json={"stages": one, "user": "nobody-here"})
    assert refused.status_code == 400


def test_a_runner_made_wide_runs_1500_jobs_at_once(sim_factory: Callable[..., SimServer]) -> None:
    server = _server(sim_factory, "gitlab")
    shared = next(r for r in server.state.runners.values() if r.description == "shared-docker-01")
    with control(server) as admin:
        assert admin.put(f"/-/sim/runners/{shared.id}", json={"concurrent": 0}).status_code == 400
        widened = admin.put(f"/-/sim/runners/{shared.id}", json={"concurrent": 5000})
    assert widened.status_code == 200 and widened.json()["concurrent"] == 5000
    created = pipeline(server, PROJECT, _stages([{"name": "unit", "count": 1200, "fail": [1200], "duration": 30}]))
    advance(server, 10)
    assert _jobs(server, created["id"], "running")[1] == 1200
    advance(server, 30)
    failed, _ = _jobs(server, created["id"], "failed")
    assert [job["name"] for job in failed] == ["unit-1200"] and failed[0]["pipeline"]["status"] == "failed"
    assert _jobs(server, created["id"], "skipped")[1] == 300
