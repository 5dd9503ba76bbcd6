"""Contract test: unmodified python-gitlab against the gitlab dialect's pipelines API — what changed
since a moment (``updated_after``), one pipeline, its failed jobs, retry and cancel — and against
the spec dialect, which has no such list."""

from __future__ import annotations

from collections.abc import Callable

import gitlab
import gitlab.exceptions
import pytest

from labdeck.sim.core.clock import iso
from labdeck.sim.dataset.build import DEMO_TOKENS
from labdeck.sim.server import SimServer
from tests.sim.helpers import advance, pipeline, quiet

PROJECT = 1


def _gl(server: SimServer) -> gitlab.Gitlab:
    return gitlab.Gitlab(server.base_url, private_token=DEMO_TOKENS["admin"])


def test_pipelines_with_python_gitlab(sim_factory: Callable[..., SimServer]) -> None:
    server = quiet(sim_factory(dialect="gitlab"))
    project = _gl(server).projects.get(PROJECT)
    since = iso(server.state.now())
    advance(server, 5)
    assert project.pipelines.list(updated_after=since, get_all=True) == []
    failing = pipeline(server, PROJECT, [
        {"name": "test", "jobs": [{"name": "unit", "count": 40, "fail": [1, 40], "duration": 20}]},
        {"name": "deploy", "jobs": [{"name": "ship", "duration": 20}]}])
    running = pipeline(server, PROJECT, [{"name": "test", "jobs": [{"name": "serve", "duration": None}]}])
    advance(server, 1800)
    changed = project.pipelines.list(updated_after=since, get_all=True)
    moved = {p.id for p in server.state.pipelines.values()
             if p.project_id == PROJECT and iso(p.updated_at) > since}  # type: ignore[operator]
    assert {p.id for p in changed} == moved and len(moved) < len(project.pipelines.list(get_all=True))
    assert [(p.id, p.status) for p in changed][:2] == [(running["id"], "running"), (failing["id"], "failed")]

    one = project.pipelines.get(failing["id"])
    assert (one.status, one.ref, one.sha, one.source) == ("failed", "master", failing["sha"], "push")
    assert one.user["username"] == "root" and one.finished_at is not None and one.duration > 0
    failed = one.jobs.list(scope="failed", get_all=True)
    assert sorted(job.name for job in failed) == ["unit-0001", "unit-0040"]
    assert {job.pipeline["status"] for job in failed} == {"failed"}

    answer = one.retry()
    assert isinstance(answer, dict) and answer["id"] == one.id and answer["status"] in ("pending", "running")
    assert project.pipelines.get(one.id).status in ("pending", "running")

    live = project.pipelines.get(running["id"])
    canceled = live.cancel()
    assert isinstance(canceled, dict) and canceled["status"] in ("canceling", "canceled")
    advance(server, 60)
    assert project.pipelines.get(live.id).status == "canceled"
    latest = project.pipelines.list(updated_after=changed[0].updated_at, get_all=True)
    assert {running["id"], failing["id"]} <= {p.id for p in latest}


def test_the_spec_dialect_answers_404_to_python_gitlab(sim: SimServer) -> None:
    project = _gl(sim).projects.get(PROJECT, lazy=True)
    with pytest.raises(gitlab.exceptions.GitlabListError) as missing:
        project.pipelines.list(get_all=False)
    assert missing.value.response_code == 404
