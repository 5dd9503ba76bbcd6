"""Current GitLab's pipelines API in the gitlab dialect (the list's filters, order, pages and ETags,
one pipeline, retry and cancel), and its absence from the spec dialect."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import httpx
import pytest

from labdeck.sim.core.clock import iso
from labdeck.sim.server import SimServer
from tests.sim.helpers import advance, client, pipeline, quiet

PROJECT = 1
ONE = [{"name": "test", "jobs": [{"name": "unit", "duration": 30}]}]


@pytest.fixture
def server(sim_factory: Callable[..., SimServer]) -> SimServer:
    return quiet(sim_factory(dialect="gitlab"))


def _list(root: httpx.Client, **params: Any) -> list[dict[str, Any]]:
    response = root.get(f"/projects/{PROJECT}/pipelines", params={"per_page": 100, **params})
    assert response.status_code == 200, response.text
    body: list[dict[str, Any]] = response.json()
    return body


def test_list_is_newest_first_with_basic_entities(server: SimServer) -> None:
    made = [pipeline(server, PROJECT, ONE)["id"] for _ in range(3)]
    with client(server) as root:
        listed = _list(root)
        first = root.get(f"/projects/{PROJECT}/pipelines", params={"per_page": 2})
    ids = [item["id"] for item in listed]
    assert ids == sorted(ids, reverse=True) and ids[:3] == made[::-1]
    assert set(listed[0]) == {"id", "iid", "project_id", "sha", "ref", "status", "source", "created_at",
                              "updated_at", "web_url", "name"}
    assert listed[0]["web_url"].endswith(f"/platform/api-gateway/-/pipelines/{made[-1]}")
    assert listed[0]["iid"] == listed[1]["iid"] + 1 and listed[0]["source"] == "push"
    assert first.headers["X-Total"] == str(len(listed)) and first.headers["X-Next-Page"] == "2"
    assert [item["id"] for item in first.json()] == ids[:2]
    assert 'rel="next"' in first.headers["Link"] and "order_by=id" in first.headers["Link"]


def test_filters(server: SimServer) -> None:
    feature = pipeline(server, PROJECT, ONE, ref="feature/x", sha="cd" * 20, user="alice", source="web")
    tagged = pipeline(server, PROJECT, ONE, ref="v2.0.0")
    long_one = pipeline(server, PROJECT, [{"name": "test", "jobs": [{"name": "forever", "duration": None}]}])
    advance(server, 300)
    with client(server) as root:
        assert [p["id"] for p in _list(root, ref="feature/x")] == [feature["id"]]
        assert [p["id"] for p in _list(root, sha="cd" * 20)] == [feature["id"]]
        alice = next(u.id for u in server.state.users.values() if u.username == "alice")
        by_alice = {p.id for p in server.state.pipelines.values() if p.project_id == PROJECT and p.user_id == alice}
        assert feature["id"] in by_alice and {p["id"] for p in _list(root, username="alice")} == by_alice
        assert [p["id"] for p in _list(root, source="web")] == [feature["id"]]
        assert [p["id"] for p in _list(root, scope="tags")] == [tagged["id"]]
        assert feature["id"] in {p["id"] for p in _list(root, scope="branches")}
        for running in (_list(root, scope="running"), _list(root, status="running")):
            assert long_one["id"] in {p["id"] for p in running} and {p["status"] for p in running} == {"running"}
        finished = _list(root, scope="finished")
        assert finished and all(p["status"] in ("success", "failed", "canceled") for p in finished)
        assert long_one["id"] not in {p["id"] for p in finished}
        assert _list(root, username="nobody-at-all") == []
        for bad in ({"status": "bogus"}, {"scope": "all"}, {"order_by": "name"}, {"sort": "up"},
                    {"updated_after": "yesterday"}, {"source": "mail"}):
            assert root.get(f"/projects/{PROJECT}/pipelines", params=bad).status_code == 400, bad


def test_order_by_and_sort(server: SimServer) -> None:
    for ref in ("b-branch", "a-branch", "c-branch"):
        pipeline(server, PROJECT, ONE, ref=ref)
    with client(server) as root:
        ascending = [p["id"] for p in _list(root, sort="asc")]
        assert ascending == sorted(ascending)
        refs = [p["ref"] for p in _list(root, order_by="ref", sort="asc")]
        assert refs == sorted(refs)
        updated = [p["updated_at"] for p in _list(root, order_by="updated_at")]
        assert updated == sorted(updated, reverse=True)
        users = [p["id"] for p in _list(root, order_by="user_id", sort="asc")]
        assert len(users) == len(ascending)


def test_updated_at_moves_only_with_the_pipelines_own_status(server: SimServer) -> None:
    """As current GitLab (``pipeline.set_status`` saves nothing for the same status): a job failing
    inside a pipeline that stays ``running`` does not move its ``updated_at``, so ``updated_after``
    does not list it; only the failed jobs' count shows the failure. The pipeline's end, a cancel
    and a retry move it."""
    made = pipeline(server, PROJECT, [{"name": "test", "jobs": [{"name": "quick", "duration": 30, "fail": True},
                                                              {"name": "slow", "duration": 3000}]}])
    advance(server, 20)
    url = f"/projects/{PROJECT}/pipelines/{made['id']}"
    with client(server) as root:
        before = root.get(url).json()
        assert before["status"] == "running"
        since = before["updated_at"]
        assert made["id"] not in {p["id"] for p in _list(root, updated_after=since)}
        assert made["id"] in {p["id"] for p in _list(root, updated_before="2100-01-01T00:00:00Z")}
        advance(server, 60)
        after = root.get(url).json()
        failed = root.get(f"{url}/jobs", params={"scope[]": "failed", "per_page": 1})
        assert failed.headers["X-Total"] == "1" and failed.json()[0]["name"] == "quick"
        assert after["status"] == "running" and after["updated_at"] == since
        assert made["id"] not in {p["id"] for p in _list(root, updated_after=since)}
        advance(server, 1)
        assert root.post(f"{url}/cancel").status_code == 200
        canceled = root.get(url).json()
        assert canceled["status"] in ("canceling", "canceled") and canceled["updated_at"] > since
        assert [p["id"] for p in _list(root, updated_after=since)] == [made["id"]]
        assert made["id"] not in {p["id"] for p in _list(root, updated_before=since)}
        advance(server, 120)
        settled = root.get(url).json()
        assert settled["status"] in ("canceled", "failed")
        advance(server, 1)
        assert root.post(f"{url}/retry").status_code == 201
        assert root.get(url).json()["updated_at"] > settled["updated_at"]


def test_list_etag_answers_304_until_something_changes(server: SimServer) -> None:
    pipeline(server, PROJECT, [{"name": "test", "jobs": [{"name": "unit", "duration": 600}]}])
    advance(server, 30)
    with client(server) as root:
        first = root.get(f"/projects/{PROJECT}/pipelines")
        etag = first.headers["ETag"]
        again = root.get(f"/projects/{PROJECT}/pipelines", headers={"If-None-Match": etag})
        assert again.status_code == 304 and again.content == b""
        advance(server, 900)
        changed = root.get(f"/projects/{PROJECT}/pipelines", headers={"If-None-Match": etag})
        assert changed.status_code == 200 and changed.headers["ETag"] != etag


def test_one_pipeline(server: SimServer) -> None:
    made = pipeline(server, PROJECT, [{"name": "test", "jobs": [{"name": "unit", "duration": 30}]},
                                      {"name": "lint", "jobs": [{"name": "lint", "duration": 50}]}], user="alice")
    advance(server, 600)
    with client(server) as root:
        body = root.get(f"/projects/{PROJECT}/pipelines/{made['id']}").json()
        missing = root.get(f"/projects/{PROJECT}/pipelines/999999")
        elsewhere = root.get(f"/projects/2/pipelines/{made['id']}")
    assert body["status"] == "success" and body["user"]["username"] == "alice" and body["name"] is None
    for key in ("before_sha", "tag", "yaml_errors", "started_at", "finished_at", "committed_at", "duration",
                "queued_duration", "coverage", "detailed_status", "web_url", "created_at", "updated_at"):
        assert key in body, key
    assert body["finished_at"] >= body["started_at"] > body["created_at"]
    # Two stages one after the other: 80 s of jobs running (the gap between them does not count).
    assert body["duration"] == 80 and body["queued_duration"] > 0
    assert body["detailed_status"]["text"] == "passed" and body["detailed_status"]["group"] == "success"
    assert missing.status_code == 404 and missing.json() == {"message": "404 Not found"}
    assert elsewhere.status_code == 404


def test_retry_retries_every_failed_job(server: SimServer) -> None:
    made = pipeline(server, PROJECT, [{"name": "test", "jobs": [{"name": "shard", "count": 5, "fail": [2, 4],
                                                               "duration": 30}]}])
    advance(server, 900)
    with client(server) as root:
        assert root.get(f"/projects/{PROJECT}/pipelines/{made['id']}").json()["status"] == "failed"
        retried = root.post(f"/projects/{PROJECT}/pipelines/{made['id']}/retry")
        assert retried.status_code == 201 and retried.json()["status"] in ("pending", "running")
        assert "name" not in retried.json() and retried.json()["id"] == made["id"]
        latest = root.get(f"/projects/{PROJECT}/pipelines/{made['id']}/jobs", params={"per_page": 100}).json()
        every = root.get(f"/projects/{PROJECT}/pipelines/{made['id']}/jobs",
                         params={"per_page": 100, "include_retried": "true"}).json()
        assert len(latest) == 5 and len(every) == 7
        assert sorted(job["name"] for job in latest if job["status"] in ("pending", "running")) == \
               ["shard-0002", "shard-0004"]
        assert root.post(f"/projects/{PROJECT}/pipelines/999999/retry").status_code == 404


def test_cancel_cancels_every_unfinished_job(server: SimServer) -> None:
    made = pipeline(server, PROJECT, [{"name": "test", "jobs": [{"name": "long", "count": 3, "duration": 3000}]},
                                      {"name": "deploy", "jobs": [{"name": "ship", "duration": 30}]}])
    advance(server, 60)
    with client(server) as root:
        answer = root.post(f"/projects/{PROJECT}/pipelines/{made['id']}/cancel")
        assert answer.status_code == 200 and answer.json()["status"] in ("canceling", "canceled")
        advance(server, 60)
        assert root.get(f"/projects/{PROJECT}/pipelines/{made['id']}").json()["status"] == "canceled"
        jobs = root.get(f"/projects/{PROJECT}/pipelines/{made['id']}/jobs").json()
        assert {job["status"] for job in jobs} == {"canceled"}
        # Nothing left to cancel: still 200, as GitLab answers whatever the pipeline's state.
        assert root.post(f"/projects/{PROJECT}/pipelines/{made['id']}/cancel").status_code == 200
    with client(server, "readonly") as viewer:
        assert viewer.post(f"/projects/{PROJECT}/pipelines/{made['id']}/cancel").status_code == 403


@pytest.mark.parametrize(("method", "path"), [("GET", ""), ("GET", "/{id}"), ("POST", "/{id}/retry"),
                                              ("POST", "/{id}/cancel")])
def test_the_spec_dialect_has_no_pipelines_api(sim: SimServer, method: str, path: str) -> None:
    pipeline_id = next(iter(sim.state.pipelines))
    with client(sim) as root:
        response = root.request(method, f"/projects/{PROJECT}/pipelines" + path.format(id=pipeline_id))
    assert response.status_code == 404 and response.json() == {"error": "404 Not Found"}
    with client(sim) as root:
        assert root.get(f"/projects/{PROJECT}/pipelines/{pipeline_id}/jobs").status_code in (200, 404)


def test_anonymous_callers_read_a_public_projects_pipelines(server: SimServer) -> None:
    public = next(p for p in sorted(server.state.projects.values(), key=lambda p: p.id)
                  if p.visibility == "public" and not p.deleted)
    made = pipeline(server, public.id, ONE)
    with httpx.Client(base_url=server.api_url, timeout=10) as anonymous:
        listed = anonymous.get(f"/projects/{public.id}/pipelines")
        assert listed.status_code == 200 and made["id"] in {p["id"] for p in listed.json()}
        assert anonymous.post(f"/projects/{public.id}/pipelines/{made['id']}/retry").status_code == 401


def test_created_times_are_iso(server: SimServer) -> None:
    made = pipeline(server, PROJECT, ONE)
    with client(server) as root:
        body = root.get(f"/projects/{PROJECT}/pipelines/{made['id']}").json()
    assert body["created_at"] == iso(server.state.pipelines[made["id"]].created_at)
