"""Triage over real HTTP against the simulator, both dialects, with the four stories built through
the control surface (a registry outage in three projects, a flaky test that passes on retry, a break
by a named commit, a runner that fails what it picks up) and the hard cases; then ``labdeck triage
--json`` end to end, and a warm round that reads no log."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest

from labdeck.api import ApiClient
from labdeck.base.secret import Secret
from labdeck.base.statefile import StateStore
from labdeck.commands import cli
from labdeck.sim.ci.engine import store
from labdeck.sim.dataset.build import DEMO_TOKENS
from labdeck.sim.server import SimServer
from labdeck.triage.collect import Triager
from labdeck.triage.logcache import LogCache
from labdeck.triage.report import Failure, TriageReport
from labdeck.watch.watched import WatchedSet, WatchStore
from tests.sim.helpers import advance, control, pipeline, quiet

ADMIN = DEMO_TOKENS["admin"]
OUTAGE = {"name": "build-image", "tags": ["docker"], "fail": True, "failure_log": "image_pull", "duration": 30}


def _shared_only(server: SimServer) -> list[tuple[int, str]]:
    """Projects only shared runners serve (so the test knows which runner takes a job)."""
    state = server.state
    specific = {pid for r in store(state).runners.values() if not r.is_shared for pid in r.project_ids}
    return [(p.id, state.project_full_path(p)) for p in sorted(state.projects.values(), key=lambda p: p.id)[:40]
            if p.id not in specific and not p.archived and not p.deleted
            and p.settings.get("shared_runners_enabled", True)][:3]


def _run(server: SimServer) -> None:
    advance(server, 600)


def _one(stage_jobs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{"name": "test", "jobs": stage_jobs}]


async def _retry(server: SimServer, project: int, job_id: int) -> None:
    async with ApiClient(server.base_url, Secret(ADMIN)) as client:
        await client.jobs.retry(project, job_id)
    _run(server)


def _runner_id(server: SimServer, description: str) -> int:
    return next(r.id for r in store(server.state).runners.values() if r.description == description)


def _by(report: TriageReport, path: str, name: str, ref: str = "master") -> Failure:
    return next(f for f in report.failures if f.project == path and f.job.name == name and f.job.ref == ref)


@pytest.fixture
def stories(sim_factory: Callable[..., SimServer], dialect: str) -> tuple[SimServer, list[tuple[int, str]]]:
    server = quiet(sim_factory(dialect=dialect))
    (a, path_a), (b, _), (c, _) = projects = _shared_only(server)
    with control(server) as admin:
        # The outage: the same image pull error on two different runners.
        assert admin.put(f"/-/sim/runners/{_runner_id(server, 'shared-docker-02')}", json={"connected": False}).is_success
        pipeline(server, a, _one([OUTAGE]))
        pipeline(server, b, _one([OUTAGE]))
        _run(server)
        assert admin.put(f"/-/sim/runners/{_runner_id(server, 'shared-docker-02')}", json={"connected": True}).is_success
        assert admin.put(f"/-/sim/runners/{_runner_id(server, 'shared-docker-01')}", json={"connected": False}).is_success
        pipeline(server, c, _one([OUTAGE]))
        _run(server)
        assert admin.put(f"/-/sim/runners/{_runner_id(server, 'shared-docker-01')}", json={"connected": True}).is_success
        # A runner that fails whatever it picks up.
        windows = _runner_id(server, "shared-windows")
        assert admin.put(f"/-/sim/runners/{windows}", json={"connected": True, "failing": True}).json()["failing"] is True
        for project, _ in projects:
            pipeline(server, project, _one([{"name": "package-win", "tags": ["windows"], "duration": 20}]))
        _run(server)
    return server, projects


async def _round(server: SimServer, projects: list[tuple[int, str]], cache: LogCache | None = None) -> TriageReport:
    async with ApiClient(server.base_url, Secret(ADMIN)) as client:
        return await Triager(client, cache).round(projects)


async def test_the_four_stories_and_the_hard_cases(stories: tuple[SimServer, list[tuple[int, str]]],
                                                   dialect: str) -> None:
    server, projects = stories
    (a, path_a), (b, path_b), (c, path_c) = projects
    early = await _round(server, projects)
    # The failing runner against the rest of the fleet (the other stories would raise the fleet's rate).
    assert [share.describe() for share in early.flagged_runners] == ["shared-windows: 3 of its last 3 jobs failed"]
    # Flaky: fails, passes on retry on the same commit.
    flaky = pipeline(server, a, _one([{"name": "integration", "tags": ["docker"], "flaky": True, "duration": 30}]))
    _run(server)
    await _retry(server, a, flaky["jobs"][0]["id"])
    # A flaky job whose retry also failed: it passed on retry before, now it fails twice.
    before = pipeline(server, a, _one([{"name": "e2e", "tags": ["docker"], "flaky": True, "duration": 30}]))
    _run(server)
    await _retry(server, a, before["jobs"][0]["id"])
    again = pipeline(server, a, _one([{"name": "e2e", "tags": ["docker"], "fail": True, "duration": 30}]))
    _run(server)
    await _retry(server, a, again["jobs"][0]["id"])
    # A break by a named commit: green, then red from Bob's commit on.
    for title, user, fail in (("Group notes by notebook", "alice", False), ("Store notes in SQLite", "bob", True),
                              ("Fix the typo in the README", "alice", True)):
        pipeline(server, b, _one([{"name": "unit", "tags": ["docker"], "fail": fail, "duration": 30,
                                   "script_lines": ["pytest -q"]}]), title=title, user=user)
        _run(server)
    # A break on a ref with no green run before it.
    for _ in range(2):
        pipeline(server, b, _one([{"name": "unit", "tags": ["docker"], "fail": True, "duration": 30}]), ref="release")
        _run(server)
    # A single new failure with no history.
    pipeline(server, c, _one([{"name": "lint", "tags": ["docker"], "fail": True, "duration": 30,
                               "script_lines": ["ruff check"]}]))
    _run(server)

    report = await _round(server, projects, LogCache())
    assert report.problems == ()
    outage = [_by(report, path, "build-image") for path in (path_a, path_b, path_c)]
    assert {f.verdict.kind for f in outage} == {"infrastructure"}
    assert {f.verdict.reason for f in outage} == {"image pull from registry.example.com failed"}
    assert len({f.job.runner.id for f in outage if f.job.runner}) == 2  # the same error on two runners
    if dialect == "gitlab":
        assert {f.job.failure_reason for f in outage} == {"script_failure"}  # only the log tells
    cluster = next(c for c in report.clusters if set(c.job_ids) == {f.job.id for f in outage})
    assert cluster.projects == sorted([path_a, path_b, path_c]) and cluster.verdict == "infrastructure"
    assert cluster.title == "image pull from registry.example.com failed · 3 projects · infra"

    windows = [_by(report, path, "package-win") for path in (path_a, path_b, path_c)]
    assert {f.verdict.kind for f in windows} == {"infrastructure"}
    # Without failure_reason, the runner's own line (a system failure while pulling an image) says it.
    expected = {"runner_system_failure"} if dialect == "gitlab" else {
        "image pull from registry-1.docker.io failed", "runner system failure"}
    assert len({f.verdict.reason for f in windows}) == 1 and {f.verdict.reason for f in windows} <= expected
    assert {f.owner for f in windows} == {"shared-windows: 3 of its last 3 jobs failed"}
    assert sum(f.log_read for f in windows) == (0 if dialect == "gitlab" else 3)

    flaky_failure = _by(report, path_a, "integration")
    assert flaky_failure.job.id == flaky["jobs"][0]["id"]
    assert flaky_failure.verdict.kind == "flaky" and flaky_failure.owner == path_a
    assert flaky_failure.verdict.reason == "passed on retry"
    retried = _by(report, path_a, "e2e")
    assert retried.job.id > again["jobs"][0]["id"]  # the newest failed attempt is the one reported
    assert retried.verdict.kind == "unknown" and retried.verdict.reason == "failed again on retry, but flaky before"

    broken = _by(report, path_b, "unit")
    assert broken.verdict.kind == "broken"
    first = broken.as_json()["first_failure"]
    assert first["title"] == "Store notes in SQLite" and first["author"] == "Bob Okafor"
    assert broken.owner == "Bob Okafor" and broken.verdict.history is not None
    assert broken.verdict.history.strip().startswith("✗✗✓")  # newest first
    no_green = _by(report, path_b, "unit", ref="release")
    assert no_green.verdict.kind == "broken" and no_green.verdict.first_failure is None

    lone = _by(report, path_c, "lint")
    assert lone.verdict.kind == "unknown" and "retry to tell flaky from broken" in lone.verdict.evidence

    # Warm: the same round again reads no log from the server.
    warm = await _round(server, projects, LogCache())
    assert warm.logs_read == 0 and [f.verdict for f in warm.failures] == [f.verdict for f in report.failures]


def test_triage_json_end_to_end(stories: tuple[SimServer, list[tuple[int, str]]], dialect: str,
                                monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    server, projects = stories
    monkeypatch.setenv("LABDECK_TOKEN", ADMIN)
    code = cli.main(["triage", "--url", server.base_url, "--json", *(path for _, path in projects)])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert ADMIN not in out + err
    data = json.loads(out)
    keys = {"project", "pipeline_id", "job_id", "job_name", "ref", "verdict", "reason", "signature",
            "first_failure", "runner"}
    assert data["failures"] and all(keys <= set(item) for item in data["failures"])
    outage = [f for f in data["failures"] if f["job_name"] == "build-image"]
    assert len(outage) == 3 and {f["verdict"] for f in outage} == {"infrastructure"}
    assert all(set(f["runner"]) == {"id", "description"} for f in outage)
    cluster = next(c for c in data["clusters"] if set(c["job_ids"]) == {f["job_id"] for f in outage})
    assert set(cluster) >= {"signature", "verdict", "projects", "job_ids"}
    assert cluster["verdict"] == "infrastructure" and len(cluster["projects"]) == 3
    assert "registry.example.com" in cluster["signature"]
    assert data["stats"]["logs_read"] > 0

    # People's table, warm: clusters first, every failure with its verdict; no log read this time.
    code = cli.main(["triage", "--url", server.base_url, *(path for _, path in projects)])
    out, err = capsys.readouterr()
    assert code == 0, err
    lines = out.splitlines()
    header = next(line for line in lines if line.startswith("PROJECT"))
    assert "cluster  image pull from registry.example.com failed · 3 projects · infra" in lines[:lines.index(header)]
    assert header.split() == ["PROJECT", "REF", "JOB", "PIPELINE", "WHY", "WHOSE", "HISTORY", "(newest", "first)"]
    assert sum(" infra " in line and "build-image" in line for line in lines) == 3
    assert "runner failing above the fleet: shared-windows: 3 of its last 3 jobs failed" in lines
    code = cli.main(["triage", "--url", server.base_url, "--json", *(path for _, path in projects)])
    assert code == 0 and json.loads(capsys.readouterr().out)["stats"]["logs_read"] == 0


async def test_the_demo_tells_the_four_stories_on_alices_starred_projects(sim_factory: Callable[..., SimServer],
                                                                         dialect: str) -> None:
    server = quiet(sim_factory(dialect=dialect))
    async with ApiClient(server.base_url, Secret(DEMO_TOKENS["user"])) as client:
        watched = await WatchedSet(client, WatchStore(StateStore(), client.base_url)).resolve()
        projects = [(p.id, p.path) for p in watched.projects]
        report = await Triager(client).round(projects)
    kinds = {(f.project, f.job.name): f for f in report.failures}
    outage = [kinds[(path, "build-image")] for path in ("web/design-system", "web/admin-console", "tools/ci-templates")]
    assert {f.verdict.reason for f in outage} == {"image pull from registry.example.com failed"}
    assert any(c.title == "image pull from registry.example.com failed · 3 projects · infra" for c in report.clusters)
    assert kinds[("web/design-system", "integration-tests")].verdict.kind == "flaky"
    broken = kinds[("alice/notes", "unit-tests")]
    assert broken.verdict.kind == "broken" and broken.verdict.first_failure is not None
    assert broken.verdict.first_failure.title == "Store notes in SQLite"
    runner = [f for f in report.failures if f.job.name == "deploy-review"]
    assert len(runner) == 3 and {f.verdict.kind for f in runner} == {"infrastructure"}
    assert "k8s-autoscaler" in [share.description for share in report.flagged_runners]
    assert kinds[("platform/api-gateway", "e2e-browser")].verdict.kind == "unknown"
    # The round keeps each project's page (within the window): the UI's other verdicts need no request.
    notes = next(pid for pid, path in projects if path == "alice/notes")
    assert broken.job.id in {job.id for job in report.pages[notes]}
