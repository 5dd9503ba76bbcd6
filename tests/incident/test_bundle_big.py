"""The incident bundle of a monorepo pipeline (1,500 jobs), both dialects: the summary says the
server's status, every job once (retries apart), the failures as ``unit-0001 +39 more``, and the
evidence (JSON, log) is read for the failed jobs only, not for 1,500."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from labdeck.api import ApiClient
from labdeck.base.secret import Secret
from labdeck.incident.collect import collect_incident
from labdeck.incident.summary import render_summary
from tests.support.sim_control import advance, big_stages, control, project_id, push_stages

PROJECT = "platform/infra/observability"


@pytest.mark.parametrize("dialect", ["spec", "gitlab"])
async def test_a_monorepo_pipeline_bundle(sim_factory: Callable[..., Any], tokens: dict[str, str],
                                          dialect: str) -> None:
    server = sim_factory(dialect=dialect)
    pid = project_id(server, PROJECT)
    pushed = push_stages(server, pid, big_stages(fail=tuple(range(1, 41)), allowed=(41,), flaky=(1200,)))
    advance(server, 900)
    with control(server) as admin:
        flaky = admin.get(f"/api/v4/projects/{pid}/pipelines/{pushed['id']}/jobs",
                          params={"scope[]": "failed", "per_page": 100}).json()
        retry = next(job for job in flaky if job["name"] == "unit-1200")
        assert admin.post(f"/api/v4/projects/{pid}/jobs/{retry['id']}/retry").status_code == 201
    advance(server, 900)  # the retry passes; 40 blocking failures keep the pipeline failed
    async with ApiClient(server.base_url, Secret(tokens["admin"])) as client:
        with await collect_incident(client, pid, pipeline=pushed["id"]) as incident:
            names = sorted(evidence.job.name or "" for evidence in incident.jobs)
            assert names == sorted([f"unit-{i:04d}" for i in range(1, 42)])  # 40 failed + 1 allowed, not 1,500
            summary = render_summary(incident)
    line = next(line for line in summary.splitlines() if line.startswith(f"- Pipeline #{pushed['id']}"))
    assert line.startswith(f"- Pipeline #{pushed['id']}: failed · 1,500 jobs")
    assert "failed: `unit-0001` +39 more" in line and "allowed to fail: 1" in line
    assert "1,459 of 1,500 jobs of the pipeline without their log" in summary
