"""Why-pending against the simulator over real HTTP: a stuck macOS job, then the same job with its
runner paused, a job only shared runners could take once shared runners are disabled, and a job
an idle runner is about to take."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from labdeck.api import ApiClient
from labdeck.base.secret import Secret
from labdeck.triage.gather import explain_job, gather_pending_facts
from tests.support.sim_control import call, sim_now

AUDIT_LOG = 7  # platform/audit-log: its one specific runner is macos-builder, offline for 9 days
DOCS_PORTAL = 19  # web/docs-portal: shared runners only


def _pipeline(server: Any, token: str, project: int, tags: list[str]) -> int:
    created = call(server, token, "POST", f"/projects/{project}/pipelines",
                   json={"stages": [{"name": "build", "jobs": [{"name": "compile", "tags": tags, "duration": 60}]}]})
    job = created["jobs"][0]
    assert job["status"] == "pending"
    return int(job["id"])


async def test_stuck_macos_job_then_paused_runner(sim_factory: Callable[..., Any], tokens: dict[str, str]) -> None:
    server = sim_factory()
    token = tokens["admin"]
    job_id = _pipeline(server, token, AUDIT_LOG, ["macos"])
    now = sim_now(server, token)
    async with ApiClient(server.base_url, Secret(token)) as client:
        facts = await gather_pending_facts(client, AUDIT_LOG, job_id, now=now)
        assert facts.job.tags == ("macos",) and facts.shared_runners_enabled is True
        answer = facts.explain()
        assert answer.reason == "none_online"
        assert answer.headline.startswith("no online runner has tags [macos] — `macos-builder` (tags macos, xcode, "
                                          "ios) is offline since 9d")
        macos = next(r for r in facts.runners if r.description == "macos-builder")
        assert answer.candidates == (macos.id,)
        assert any(line.startswith("`shared-docker-01` (shared, tags docker, linux) is online; lacks a tag")
                   for line in answer.details)

        await client.runners.update(macos.id, active=False)
        paused = await explain_job(client, AUDIT_LOG, job_id, now=now)
        assert paused.headline == "no online runner has tags [macos] — `macos-builder` (tags macos, xcode, ios) is paused"


async def test_shared_runners_disabled(sim_factory: Callable[..., Any], tokens: dict[str, str]) -> None:
    server = sim_factory()
    token = tokens["admin"]
    job_id = _pipeline(server, token, DOCS_PORTAL, ["windows"])  # only the shared Windows runner has it
    now = sim_now(server, token)
    async with ApiClient(server.base_url, Secret(token)) as client:
        before = await explain_job(client, DOCS_PORTAL, job_id, now=now)
        assert before.reason == "none_online" and "`shared-windows`" in before.headline
        project = await client.projects.get(DOCS_PORTAL)
        await client.projects.update(DOCS_PORTAL, name=project.name or "docs-portal", shared_runners_enabled=False)
        # The project's runner list no longer shows shared runners; the admin list still does.
        assert await client.runners.project_runners(DOCS_PORTAL).all() == []
        after = await explain_job(client, DOCS_PORTAL, job_id, now=now)
        assert after.reason == "shared_disabled"
        assert after.headline == "shared runners disabled for this project — `shared-windows` would take the job"
    # Someone who may not list shared runners learns only that nothing serves the project.
    async with ApiClient(server.base_url, Secret(tokens["user"])) as alice:
        seen = await explain_job(alice, DOCS_PORTAL, job_id, now=now)
        assert seen.reason == "no_runners"
        assert seen.details[0] == "shared runners are disabled for this project"


async def test_idle_matching_runner(sim_factory: Callable[..., Any], tokens: dict[str, str]) -> None:
    server = sim_factory()
    token = tokens["admin"]
    job_id = _pipeline(server, token, 1, ["build"])  # build-box-01 is the only runner tagged build
    now = sim_now(server, token)
    async with ApiClient(server.base_url, Secret(token)) as client:
        facts = await gather_pending_facts(client, 1, job_id, now=now)
        box = next(r for r in facts.runners if r.description == "build-box-01")
        running = len(await client.runners.jobs(box.id, status="running").all())
        assert box.running_jobs == running
        answer = facts.explain()
        if running:
            assert answer.headline == f"all matching runners busy — `build-box-01` is running {running}"
        else:
            assert answer.headline == "waiting for a runner to pick it up (matching online runner: `build-box-01`)"
