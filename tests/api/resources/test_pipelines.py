"""The pipelines resource against both dialects of the simulator: the gitlab dialect lists,
reads, retries and cancels pipelines; the spec dialect has no such route, and the client learns
that once (one request) and keeps it."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta
from typing import Any

import pytest

from labdeck.api import errors
from labdeck.api.models import Pipeline
from tests.api.conftest import client_for
from tests.support.sim_control import advance, big_stages, project_id, push_stages

PROJECT = "platform/infra/observability"


async def test_gitlab_lists_reads_retries_and_cancels_pipelines(sim_factory: Callable[..., Any],
                                                                 tokens: dict[str, str]) -> None:
    server = sim_factory(dialect="gitlab")
    pid = project_id(server, PROJECT)
    async with client_for(server, tokens["admin"]) as client:
        assert await client.has_pipelines_api(pid) is True
        before = server.state.now()
        pushed = push_stages(server, pid, big_stages(tests=30, deploys=10, fail=(1, 2)))
        advance(server, 600)
        listed = await client.pipelines.list(pid, updated_after=before - timedelta(seconds=1)).all()
        assert [p.id for p in listed] == [pushed["id"]]
        assert isinstance(listed[0], Pipeline) and listed[0].status == "failed" and listed[0].updated_at
        assert pushed["id"] in [p.id for p in await client.pipelines.list(pid, status="failed", ref="master").all()]
        detail = await client.pipelines.get(pid, pushed["id"])
        assert detail.started_at and detail.finished_at and detail.finished_at >= detail.started_at
        retried = await client.pipelines.retry(pid, pushed["id"])
        assert retried.id == pushed["id"] and retried.status in ("pending", "running")
        failed = await client.jobs.list(pid, pipeline_id=pushed["id"], scope=["failed"]).all()
        pending = await client.jobs.list(pid, pipeline_id=pushed["id"], scope=["pending", "running"]).all()
        assert failed == []  # current GitLab lists the newest try of each job unless include_retried
        assert {j.name for j in pending} >= {"unit-0001", "unit-0002"}  # each a new try
        canceled = await client.pipelines.cancel(pid, pushed["id"])
        assert canceled.id == pushed["id"]
        assert (await client.pipelines.get(pid, pushed["id"])).status == "canceled"
        with pytest.raises(TypeError):
            client.pipelines.list(pid, colour="blue")


async def test_the_spec_dialect_answers_404_and_the_client_asks_once(sim_factory: Callable[..., Any],
                                                                      tokens: dict[str, str]) -> None:
    server = sim_factory(dialect="spec")
    pid = project_id(server, PROJECT)
    async with client_for(server, tokens["admin"]) as client:
        seen: list[str] = []

        async def note(response: Any) -> None:
            seen.append(response.request.url.path)

        client.http.event_hooks["response"].append(note)
        with pytest.raises(errors.NotFound):
            await client.pipelines.list(pid).all()
        assert await client.has_pipelines_api(pid) is False
        assert await client.has_pipelines_api() is False
        assert client.dialect.lists_pipelines is False
        assert seen.count(f"/api/v4/projects/{pid}/pipelines") == 2  # the listing above, the one probe


async def test_a_missing_project_does_not_teach_that_pipelines_are_missing(sim_factory: Callable[..., Any],
                                                                             tokens: dict[str, str]) -> None:
    server = sim_factory(dialect="gitlab")
    async with client_for(server, tokens["admin"]) as client:
        assert await client.has_pipelines_api() is True  # asked about a project that cannot exist
