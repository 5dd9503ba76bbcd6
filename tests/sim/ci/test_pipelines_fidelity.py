"""What the gitlab dialect's pipelines API got wrong or left unchecked (issue 29, point 7): the
``name`` and ``yaml_errors`` filters, ``queued_duration`` in whole seconds and null until the
pipeline starts, no ``started_at`` for a pipeline canceled while it waited; when a pipeline's
``updated_at`` moves (its status changed, it was retried or canceled) and when it does not; the
job a retry creates; a project's ``last_activity_at`` moved at most once an hour."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import httpx
import pytest

from labdeck.sim.server import SimServer
from tests.sim.helpers import advance, client, pipeline, quiet

PROJECT = 1
ONE = [{"name": "test", "jobs": [{"name": "unit", "duration": 30}]}]
NO_RUNNER = [{"name": "test", "jobs": [{"name": "mac", "tags": ["macos-nowhere"], "duration": 30}]}]


@pytest.fixture
def server(sim_factory: Callable[..., SimServer]) -> SimServer:
    return quiet(sim_factory(dialect="gitlab"))


def _get(api: httpx.Client, path: str, **params: Any) -> Any:
    response = api.get(path, params=params)
    assert response.status_code == 200, response.text
    return response.json()


def test_name_and_yaml_errors_filter_the_list(server: SimServer) -> None:
    nightly = pipeline(server, PROJECT, ONE, name="Nightly build")
    plain = pipeline(server, PROJECT, ONE)
    with client(server) as api:
        assert [p["id"] for p in _get(api, f"/projects/{PROJECT}/pipelines", name="Nightly build")] == [nightly["id"]]
        assert _get(api, f"/projects/{PROJECT}/pipelines", name="Nightly") == []
        assert _get(api, f"/projects/{PROJECT}/pipelines", yaml_errors="true") == []
        every = _get(api, f"/projects/{PROJECT}/pipelines", yaml_errors="false", per_page=100)
        assert {nightly["id"], plain["id"]} <= {p["id"] for p in every}
        shown = _get(api, f"/projects/{PROJECT}/pipelines/{nightly['id']}")
    assert shown["name"] == "Nightly build"


def test_queued_duration_is_whole_seconds_once_started(server: SimServer) -> None:
    waiting = pipeline(server, PROJECT, NO_RUNNER)
    made = pipeline(server, PROJECT, ONE)
    advance(server, 100)
    with client(server) as api:
        stuck = _get(api, f"/projects/{PROJECT}/pipelines/{waiting['id']}")
        started = _get(api, f"/projects/{PROJECT}/pipelines/{made['id']}")
    assert stuck["status"] == "pending" and stuck["started_at"] is None and stuck["queued_duration"] is None
    assert started["started_at"] is not None
    assert started["queued_duration"] is None or isinstance(started["queued_duration"], int)


def test_a_pipeline_canceled_while_pending_never_started(server: SimServer) -> None:
    waiting = pipeline(server, PROJECT, NO_RUNNER)
    advance(server, 60)
    with client(server) as api:
        assert api.post(f"/projects/{PROJECT}/pipelines/{waiting['id']}/cancel").status_code == 200
        canceled = _get(api, f"/projects/{PROJECT}/pipelines/{waiting['id']}")
    assert canceled["status"] == "canceled" and canceled["started_at"] is None
    assert canceled["queued_duration"] is None and canceled["finished_at"] is not None


def test_updated_at_moves_with_the_status_retry_and_cancel(server: SimServer) -> None:
    made = pipeline(server, PROJECT, [{"name": "test", "jobs": [{"name": "unit", "duration": 30, "fail": True},
                                                                {"name": "long", "duration": 5000}]}])
    path = f"/projects/{PROJECT}/pipelines/{made['id']}"
    with client(server) as api:
        advance(server, 5)
        running = _get(api, path)
        advance(server, 60)
        # A job failed, but the pipeline is still running (``long``): GitLab saves the pipeline only
        # when its own status changes, so ``updated_at`` stays; the failed jobs' count tells.
        still = _get(api, path)
        assert still["status"] == "running" and still["updated_at"] == running["updated_at"]
        failed_job = next(job for job in _get(api, f"{path}/jobs", scope="failed"))
        advance(server, 5)
        retried = api.post(f"/projects/{PROJECT}/jobs/{failed_job['id']}/retry")
        assert retried.status_code == 201
        clone = retried.json()
        assert clone["id"] != failed_job["id"] and clone["name"] == "unit" and clone["status"] == "pending"
        jobs = _get(api, f"{path}/jobs", per_page=100)
        assert [job["id"] for job in jobs if job["name"] == "unit"] == [clone["id"]]
        every_try = _get(api, f"{path}/jobs", per_page=100, include_retried="true")
        assert {failed_job["id"], clone["id"]} <= {job["id"] for job in every_try}
        advance(server, 5)
        before_cancel = _get(api, path)
        assert api.post(f"{path}/cancel").status_code == 200
        canceled = _get(api, path)
    assert canceled["status"] in ("canceling", "canceled") and canceled["updated_at"] > before_cancel["updated_at"]


def test_updated_at_moves_when_a_failure_fails_the_pipeline(server: SimServer) -> None:
    made = pipeline(server, PROJECT, [{"name": "test", "jobs": [{"name": "unit", "duration": 30, "fail": True}]}])
    path = f"/projects/{PROJECT}/pipelines/{made['id']}"
    with client(server) as api:
        advance(server, 5)
        running = _get(api, path)
        advance(server, 120)
        failed = _get(api, path)
        assert failed["status"] == "failed" and failed["updated_at"] > running["updated_at"]
        failed_job = _get(api, f"{path}/jobs", scope="failed")[0]
        advance(server, 60)
        assert api.post(f"/projects/{PROJECT}/jobs/{failed_job['id']}/retry").status_code == 201
        again = _get(api, path)
    assert again["status"] in ("pending", "running") and again["updated_at"] > failed["updated_at"]


def test_last_activity_moves_at_most_once_an_hour(server: SimServer) -> None:
    with client(server) as api:
        advance(server, 2 * 3600)
        assert api.put(f"/projects/{PROJECT}", data={"description": "first edit"}).status_code == 200
        first = _get(api, f"/projects/{PROJECT}")["last_activity_at"]
        advance(server, 600)
        assert api.put(f"/projects/{PROJECT}", data={"description": "second edit"}).status_code == 200
        pipeline(server, PROJECT, ONE)
        second = _get(api, f"/projects/{PROJECT}")
        assert second["last_activity_at"] == first and second["description"] == "second edit"
        advance(server, 3600)
        pipeline(server, PROJECT, ONE)
        assert _get(api, f"/projects/{PROJECT}")["last_activity_at"] > first
