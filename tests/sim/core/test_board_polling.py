"""What an on-call board polls: recently active projects, project activity after a push, and
conditional GETs (weak ETag, 304) on every endpoint it reads, in both dialects."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta

import pytest

from labdeck.sim.core.clock import iso
from labdeck.sim.server import SimServer
from tests.sim.helpers import advance, client, pipeline, project

ACTIVITY = {"order_by": "last_activity_at", "sort": "desc", "per_page": "100"}


@pytest.mark.parametrize("extra", [{}, {"starred": "true"}, {"membership": "true"}, {"simple": "true"}])
def test_gitlab_filters_on_last_activity(sim_gitlab: SimServer, extra: dict[str, str]) -> None:
    since = sim_gitlab.state.now() - timedelta(hours=1)
    with client(sim_gitlab) as root:
        everything = root.get("/projects", params={**ACTIVITY, **extra}).json()
        recent = root.get("/projects", params={**ACTIVITY, **extra, "last_activity_after": iso(since)}).json()
    expected = [p["id"] for p in everything if p["last_activity_at"] > iso(since)]
    assert [p["id"] for p in recent] == expected
    stamps = [p["last_activity_at"] for p in recent]
    assert stamps == sorted(stamps, reverse=True)
    if not extra:
        assert 0 < len(recent) < len(everything)


def test_gitlab_last_activity_before_and_bad_dates(sim_gitlab: SimServer) -> None:
    middle = sim_gitlab.state.now() - timedelta(days=2)
    with client(sim_gitlab) as root:
        older = root.get("/projects", params={**ACTIVITY, "last_activity_before": iso(middle)}).json()
        bad = root.get("/projects", params={"last_activity_after": "yesterday"})
    assert older and all(p["last_activity_at"] < iso(middle) for p in older)
    assert bad.status_code == 400 and bad.json() == {"error": "last_activity_after is invalid"}


def test_spec_ignores_last_activity_after_as_10x_does(sim: SimServer) -> None:
    since = sim.state.now() - timedelta(hours=1)
    with client(sim) as root:
        plain = root.get("/projects", params=ACTIVITY).json()
        filtered = root.get("/projects", params={**ACTIVITY, "last_activity_after": iso(since)}).json()
    assert [p["id"] for p in filtered] == [p["id"] for p in plain]


@pytest.mark.parametrize("dialect", ["spec", "gitlab"])
def test_a_push_counts_as_activity_a_job_status_change_does_not(sim_factory: Callable[..., SimServer],
                                                                  dialect: str) -> None:
    server = sim_factory(dialect=dialect)
    quiet = project(server.state, "platform/infra/observability")  # last active more than a day ago
    stages = [{"name": "build", "jobs": [{"name": "plan", "duration": 60}]}]
    with client(server) as root:
        def activity() -> str:
            return str(root.get(f"/projects/{quiet.id}").json()["last_activity_at"])

        before = activity()
        first = pipeline(server, quiet.id, stages)
        pushed = activity()
        assert pushed > before and pushed == iso(server.state.now())
        advance(server, 600)  # the job runs and succeeds
        assert root.get(f"/projects/{quiet.id}/jobs/{first['jobs'][0]['id']}").json()["status"] == "success"
        assert activity() == pushed
        pipeline(server, quiet.id, stages)  # a second push ten minutes later
        if dialect == "gitlab":
            assert activity() == pushed  # reset at most once an hour (Event::RESET_PROJECT_ACTIVITY_INTERVAL)
        else:
            assert activity() == iso(server.state.now())
        since = iso(server.state.now() - timedelta(minutes=15))
        recent = root.get("/projects", params={**ACTIVITY, "last_activity_after": since, "simple": "true"}).json()
        assert quiet.id in [p["id"] for p in recent]


def _polled_paths(server: SimServer) -> list[str]:
    gateway = project(server.state, "platform/api-gateway")
    runner = next(r for r in server.state.runners.values() if r.description == "shared-docker-01")
    since = iso(server.state.now() - timedelta(hours=2))
    return [
        f"/projects?order_by=last_activity_at&sort=desc&last_activity_after={since}&starred=true&simple=true",
        "/projects?membership=true&per_page=50",
        f"/projects/{gateway.id}",
        f"/projects/{gateway.id}/jobs?scope[]=failed&scope[]=running",
        f"/projects/{gateway.id}/jobs/{max(j.id for j in server.state.jobs.values() if j.project_id == gateway.id)}",
        f"/projects/{gateway.id}/runners",
        f"/projects/{gateway.id}/integrations",
        "/runners/all?per_page=100",
        f"/runners/{runner.id}",
        f"/runners/{runner.id}/jobs?status=running",
    ]


def test_every_polled_get_has_a_weak_etag_and_answers_304(any_sim: SimServer) -> None:
    with client(any_sim) as root:
        for path in _polled_paths(any_sim):
            first = root.get(path)
            assert first.status_code == 200, (path, first.text)
            etag = first.headers["ETag"]
            assert etag.startswith('W/"') and len(etag) == 3 + 32 + 1
            again = root.get(path, headers={"If-None-Match": etag})
            assert again.status_code == 304 and again.content == b"", path
            assert again.headers["ETag"] == etag


def test_a_change_changes_the_etag(sim_factory: Callable[..., SimServer]) -> None:
    server = sim_factory(dialect="gitlab")
    gateway = project(server.state, "platform/api-gateway")
    path = f"/projects/{gateway.id}/jobs?scope[]=running&scope[]=pending"
    with client(server) as root:
        etag = root.get(path).headers["ETag"]
        advance(server, 900)
        changed = root.get(path, headers={"If-None-Match": etag})
    assert changed.status_code == 200 and changed.headers["ETag"] != etag


def test_rate_limit_headers_in_the_gitlab_dialect(sim_factory: Callable[..., SimServer]) -> None:
    server = sim_factory(dialect="gitlab")
    with client(server) as root:
        assert root.put(f"{server.base_url}/-/sim/faults", json={"rate_limit": 1}).status_code == 200
        throttled = root.get("/runners/all")
    assert throttled.status_code == 429 and throttled.text == "Retry later"
    for name in ("RateLimit-Limit", "RateLimit-Observed", "RateLimit-Remaining", "RateLimit-Reset", "Retry-After"):
        assert name in throttled.headers
