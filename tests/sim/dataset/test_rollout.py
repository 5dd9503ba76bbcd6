"""The rollout scenario (``labdeck serve --rollout``, the demo): six regions deployed at once, logs
growing at different speeds, one region failing half-way; and ``line_rate`` on the control surface."""

from __future__ import annotations

from collections.abc import Callable

import httpx

from labdeck.sim.core.clock import SimClock
from labdeck.sim.dataset.build import DEMO_TOKENS, build_state
from labdeck.sim.server import SimServer


def deploy_jobs(server: SimServer) -> dict[str, dict[str, object]]:
    headers = {"PRIVATE-TOKEN": DEMO_TOKENS["admin"]}
    project = server.state.project_by_ref("platform/api-gateway")
    assert project is not None
    jobs = httpx.get(f"{server.base_url}/api/v4/projects/{project.id}/jobs", headers=headers,
                     params={"per_page": 100}).json()
    return {job["name"]: job for job in jobs if job["ref"] == "release-2.4"}


def trace_size(server: SimServer, job: dict[str, object]) -> int:
    headers = {"PRIVATE-TOKEN": DEMO_TOKENS["admin"]}
    project = server.state.project_by_ref("platform/api-gateway")
    assert project is not None
    return len(httpx.get(f"{server.base_url}/api/v4/projects/{project.id}/jobs/{job['id']}/trace",
                         headers=headers).content)


def advance(server: SimServer, seconds: float) -> None:
    answer = httpx.post(f"{server.base_url}/-/sim/clock/advance", params={"seconds": seconds},
                        headers={"PRIVATE-TOKEN": DEMO_TOKENS["admin"]})
    assert answer.status_code == 200


def test_six_regions_run_at_once_at_their_own_pace_and_one_fails_half_way() -> None:
    server = SimServer(build_state(seed=42, clock=SimClock(mode="manual"), rollout=True)).start()
    try:
        advance(server, 200)
        jobs = deploy_jobs(server)
        assert sorted(jobs) == [f"deploy-{region}" for region in sorted(("eu", "us", "ap", "ca", "sa", "au"))]
        assert {job["status"] for job in jobs.values()} == {"running"}
        sizes = {name: trace_size(server, job) for name, job in jobs.items()}
        assert sizes["deploy-sa"] > 3 * sizes["deploy-au"]
        advance(server, 260)
        jobs = deploy_jobs(server)
        assert jobs["deploy-ap"]["status"] == "failed"
        assert {job["status"] for name, job in jobs.items() if name != "deploy-ap"} == {"running"}
    finally:
        server.stop()


def test_without_the_option_the_data_set_has_no_rollout(sim: SimServer) -> None:
    assert deploy_jobs(sim) == {}


def test_line_rate_sets_how_fast_a_generated_log_grows(sim_factory: Callable[..., SimServer]) -> None:
    server = sim_factory()
    headers = {"PRIVATE-TOKEN": DEMO_TOKENS["admin"]}
    refused = httpx.post(f"{server.base_url}/-/sim/projects/1/pipelines", headers=headers, json={"stages": [
        {"name": "deploy", "jobs": [{"name": "x", "line_rate": "fast"}]}]})
    assert refused.status_code == 400 and "line_rate" in refused.text
    made = httpx.post(f"{server.base_url}/-/sim/projects/1/pipelines", headers=headers, json={"stages": [
        {"name": "deploy", "jobs": [{"name": "slow", "line_rate": 1, "duration": 100, "script_lines": ["make"]},
                                    {"name": "fast", "line_rate": 50, "duration": 100, "script_lines": ["make"]}]}]})
    assert made.status_code == 201, made.text
    advance(server, 200)
    lines = {}
    for job in made.json()["jobs"]:
        text = httpx.get(f"{server.base_url}/api/v4/projects/1/jobs/{job['id']}/trace", headers=headers).text
        lines[job["name"]] = text.count("\n")
    assert lines["fast"] > 20 * lines["slow"] / 2 and lines["fast"] > 3_000
