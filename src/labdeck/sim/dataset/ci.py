"""Deterministic CI demo data: runners, a history of finished pipelines, pipelines in flight, and a
generator that keeps pushing new pipelines on a handful of active projects as simulated time passes.

Finished history is written directly (cheap); the last 40 simulated minutes are played through the
job engine itself, so runners are busy, traces are mid-way and queues are realistic at start.

Benchmark options (read from ``state.extra`` or ``state.extra["options"]``, or passed to
:func:`add_benchmark_jobs`): ``ci_huge_trace_bytes`` (+ ``ci_huge_trace_rate``, default 10240 B/s),
``ci_million_line_trace`` (a line count) and ``ci_big_artifact_bytes``. The created jobs are listed in
``state.extra["ci_benchmark_jobs"]`` as ``{"huge_trace"|"million_lines"|"big_artifact":
{"project_id": …, "job_id": …}}``.
"""

from __future__ import annotations

import random
from datetime import datetime, timedelta
from typing import Any

from labdeck.sim.ci.engine import CiStore, JobSpec, StageSpec, store
from labdeck.sim.ci.model import Job, Pipeline, Runner
from labdeck.sim.core.dialect import is_gitlab
from labdeck.sim.core.state import DEVELOPER, Project, SimState, User
from labdeck.sim.dataset import oncall_scenarios, rollout, triage_stories

_COMMIT_TITLES = (
    "Fix flaky retry in the HTTP client", "Bump dependencies", "Add pagination to the export endpoint",
    "Refactor settings loading", "Handle empty responses from upstream", "Speed up the test suite",
    "Document the deployment process", "Drop support for the legacy API", "Add metrics for queue depth",
    "Tighten input validation", "Merge branch 'feature/search-filters' into 'master'", "Update CI images",
    "Revert \"Enable the new cache\"", "Add a health check endpoint", "Rename internal modules",
)
_BRANCHES = ("feature/search-filters", "fix/timeout-handling", "chore/deps", "feature/export-v2", "release-2.4")

_RUNNERS: list[dict[str, Any]] = [
    # shared
    {"description": "shared-docker-01", "is_shared": True, "tags": ["docker", "linux"], "concurrent": 4},
    {"description": "shared-docker-02", "is_shared": True, "tags": ["docker", "linux"], "concurrent": 3,
     "ip_address": "10.0.0.12"},
    {"description": "shared-windows", "is_shared": True, "tags": ["windows", "shell"], "run_untagged": False,
     "connected": False, "platform": "windows", "offline_days": 3},
    # specific
    {"description": "build-box-01", "tags": ["docker", "linux", "build"], "projects": 3, "concurrent": 2},
    {"description": "gpu-trainer", "tags": ["gpu", "cuda"], "projects": 2, "active": False,
     "run_untagged": False},
    {"description": "deploy-production", "tags": ["deploy", "production"], "projects": 1, "locked": True,
     "access_level": "ref_protected", "run_untagged": False, "maximum_timeout": 3600},
    {"description": "macos-builder", "tags": ["macos", "xcode", "ios"], "projects": 2, "connected": False,
     "platform": "darwin", "run_untagged": False, "offline_days": 9},
    {"description": "k8s-autoscaler", "tags": ["kubernetes", "docker"], "projects": 4, "run_untagged": False,
     "maximum_timeout": 1800, "concurrent": 3},
    {"description": "arm64-runner", "tags": ["arm64", "docker"], "projects": 2, "never_contacted": True,
     "architecture": "arm64", "run_untagged": False},
    {"description": "team-runner", "tags": [], "projects": 2, "locked": False},
]


def populate(state: SimState, rng: random.Random) -> None:
    """Add runners, pipelines and jobs to ``state`` (called by ``dataset.build_state``)."""
    ci = store(state)
    ci.seed = rng.getrandbits(32)
    ci.generator_rng = random.Random(ci.seed * 17 + 3)
    now = state.now()
    projects = _ci_projects(state)
    if not projects:
        return
    _build_runners(state, rng, projects, now)
    history_projects = projects[:14] + projects[20:24] + projects[25:28]
    for project in history_projects:
        _history(ci, rng, project, now)
    active = [p for p in projects[:10] if not p.archived]
    ci.generator_projects = [p.id for p in active[:6]]
    ci.pipeline_factory = _generated_pipeline
    _warm_up(ci, rng, active, now)
    ci.next_pipeline_at = now + timedelta(seconds=rng.uniform(60, 240))
    oncall_scenarios.add_scenarios(ci, now)
    triage_stories.add_triage_stories(ci, now)
    if state.extra.get("rollout"):
        rollout.add_rollout(ci, now)
    options = dict(state.extra.get("options") or {})
    options.update({k: v for k, v in state.extra.items() if k.startswith("ci_")})
    if any(options.get(name) for name in ("ci_huge_trace_bytes", "ci_million_line_trace", "ci_big_artifact_bytes")):
        add_benchmark_jobs(state, **options)


def _ci_projects(state: SimState) -> list[Project]:
    """Projects with CI: live ones, hand-written first (a stable order by id)."""
    return [p for p in sorted(state.projects.values(), key=lambda p: p.id) if not p.deleted][:40]


def _developers(state: SimState, project: Project) -> list[User]:
    users = [u for u in state.users.values() if state.access_level(u, project) >= DEVELOPER]
    return users or [state.users[project.creator_id]]


def _build_runners(state: SimState, rng: random.Random, projects: list[Project], now: datetime) -> None:
    pool = [p for p in projects if not p.archived]
    cursor = 0
    for config in _RUNNERS:
        runner_id = state.next_id("runner")
        count = int(config.get("projects", 0))
        assigned = []
        for _ in range(count):
            assigned.append(pool[cursor % len(pool)].id)
            cursor += 1
        if config.get("never_contacted"):
            contacted: datetime | None = None
        elif config.get("connected", True):
            contacted = now - timedelta(seconds=runner_id % 7 + 1)
        else:
            contacted = now - timedelta(days=int(config.get("offline_days", 2)), minutes=rng.randint(0, 600))
        runner = Runner(
            id=runner_id,
            description=str(config["description"]),
            token=f"{rng.getrandbits(80):020x}",
            is_shared=bool(config.get("is_shared", False)),
            active=bool(config.get("active", True)),
            tags=list(config.get("tags", [])),
            run_untagged=bool(config.get("run_untagged", True)),
            locked=bool(config.get("locked", False)),
            access_level=str(config.get("access_level", "not_protected")),
            maximum_timeout=config.get("maximum_timeout"),
            project_ids=assigned,
            platform=str(config.get("platform", "linux")),
            architecture=str(config.get("architecture", "amd64")),
            ip_address=str(config.get("ip_address", f"10.0.{runner_id}.{rng.randint(2, 250)}")),
            contacted_at=contacted,
            connected=bool(config.get("connected", True)) and not config.get("never_contacted"),
            concurrent=int(config.get("concurrent", 2)),
        )
        if config.get("never_contacted"):
            runner.version = runner.revision = runner.platform = runner.architecture = runner.ip_address = None
        state.runners[runner.id] = runner


def typical_stages(rng: random.Random, project: Project, *, long: bool = False) -> list[StageSpec]:
    """build / test / deploy with realistic commands; ``long`` jobs run for many minutes."""
    scale = 6.0 if long else 1.0

    def seconds(low: float, high: float) -> float:
        return round(rng.uniform(low, high) * scale, 1)

    flaky = rng.random() < 0.22
    build = [JobSpec("build", ["docker"], script=["pip install -r requirements.txt", "make build"],
                     duration=seconds(40, 180), artifacts="small", outcome_fixed=False)]
    if rng.random() < 0.4:
        build.append(JobSpec("build:docs", [], script=["make docs"], duration=seconds(20, 90), artifacts="small",
                             outcome_fixed=False))
    tests = [
        JobSpec("unit-tests", ["docker"], script=["pip install -e .[test]", "pytest -q --junitxml=reports/junit.xml"],
                duration=seconds(60, 400), fail=flaky, artifacts="small", outcome_fixed=False),
        JobSpec("lint", [], script=["ruff check .", "make lint"], duration=seconds(15, 80), outcome_fixed=False),
    ]
    if rng.random() < 0.5:
        tests.append(JobSpec("integration", ["docker", "linux"], script=["docker compose up -d", "make test-integration"],
                             duration=seconds(120, 600), fail=rng.random() < 0.1, allow_failure=rng.random() < 0.3,
                             outcome_fixed=False))
    deploy = [
        JobSpec("deploy-staging", ["docker"], script=["./scripts/deploy.sh staging", "kubectl rollout status deploy/web"],
                duration=seconds(30, 120), outcome_fixed=False),
        JobSpec("deploy-production", ["deploy"], when="manual",
                script=["./scripts/deploy.sh production", "helm upgrade web ./chart"], duration=seconds(40, 150),
                outcome_fixed=False),
    ]
    return [StageSpec("build", build), StageSpec("test", tests), StageSpec("deploy", deploy)]


def _pick_ref(rng: random.Random, project: Project) -> str:
    return project.default_branch if rng.random() < 0.6 else rng.choice(_BRANCHES)


def _history(ci: CiStore, rng: random.Random, project: Project, now: datetime) -> None:
    """Finished pipelines over the past days, written directly with plausible timings."""
    count = rng.randint(3, 5)
    for index in range(count):
        created = now - timedelta(days=count - index, hours=rng.randint(1, 20), minutes=rng.randint(0, 59))
        user = rng.choice(_developers(ci.state, project))
        stages = typical_stages(rng, project)
        if project.id % 5 == 0 and index == 0:
            stages[1].jobs.append(JobSpec("windows-build", ["windows"], script=["msbuild app.sln"], duration=200.0))
        pipeline = ci.create_pipeline(project, _pick_ref(rng, project), stages, user, created,
                                      title=rng.choice(_COMMIT_TITLES))
        _resolve_history(ci, rng, pipeline, created, cancel=rng.random() < 0.12)


def _resolve_history(ci: CiStore, rng: random.Random, pipeline: Pipeline, created: datetime, *, cancel: bool) -> None:
    state = ci.state
    project = state.projects[pipeline.project_id]
    jobs = sorted(ci.pipeline_jobs(pipeline), key=lambda j: (j.stage_idx, j.id))
    at = created
    canceled = False
    for stage_idx in sorted({j.stage_idx for j in jobs}):
        stage_end = at
        for job in [j for j in jobs if j.stage_idx == stage_idx]:
            if job.status in ("skipped", "manual"):
                continue
            if job.status == "created":
                ci.process(pipeline, at)
                if job.status != "pending":
                    continue
            runner = _history_runner(ci, job, project)
            if runner is None:
                # Nobody could ever pick it: it was canceled after waiting.
                ci.cancel(job, at + timedelta(minutes=rng.randint(20, 90)))
                continue
            ci.active.discard(job.id)
            queued = at + timedelta(seconds=rng.randint(1, 40))
            job.queued_at = at
            job.status = "running"
            job.started_at = queued
            job.runner_id = runner.id
            job.runner_label = f"{runner.description} {runner.token}"
            duration = job.planned_duration or 60.0
            if cancel and not canceled and stage_idx == 1:
                canceled = True
                job.planned_duration = round(duration * rng.uniform(0.2, 0.7), 1)
                ci.cancel(job, queued + timedelta(seconds=job.planned_duration), immediate=True)
            else:
                ci.active.add(job.id)
                ci.finish(job, queued + timedelta(seconds=duration))
            stage_end = max(stage_end, job.finished_at or stage_end)
        at = stage_end + timedelta(seconds=rng.randint(1, 15))
        ci.process(pipeline, at)
    deployer = next((r for r in ci.runners.values() if "deploy" in r.tags), None)
    if rng.random() < 0.3 and deployer is not None:
        for job in jobs:
            if job.status == "manual":
                # Somebody played the production deploy; it ran on the deploy runner.
                job.status = "success"
                job.queued_at = at
                job.started_at = at + timedelta(seconds=5)
                job.finished_at = job.started_at + timedelta(seconds=job.planned_duration or 60.0)
                job.runner_id = deployer.id
                job.runner_label = f"{deployer.description} {deployer.token}"
        ci.process(pipeline, at)


def _history_runner(ci: CiStore, job: Job, project: Project) -> Runner | None:
    for runner in sorted(ci.runners.values(), key=lambda r: (not r.is_shared, r.id)):
        was = (runner.active, runner.connected)
        runner.active, runner.connected = True, True
        try:
            if runner.contacted_at is not None and ci.can_run(runner, job, project):
                return runner
        finally:
            runner.active, runner.connected = was
    return None


def _warm_up(ci: CiStore, rng: random.Random, projects: list[Project], now: datetime) -> None:
    """Play the last 40 minutes through the engine so that work is in flight at start."""
    start = now - timedelta(minutes=40)
    ci.cursor = start
    times = sorted(start + timedelta(seconds=rng.uniform(0, 2300)) for _ in range(9))
    for index, at in enumerate(times):
        ci.advance(at)
        project = projects[index % len(projects)]
        user = rng.choice(_developers(ci.state, project))
        stages = typical_stages(rng, project, long=index % 2 == 0)
        if index == 3:
            stages[1].jobs.append(JobSpec("gpu-train", ["gpu"], script=["python train.py --epochs 40"], duration=900.0))
        if index == 5:
            stages[0].jobs.append(JobSpec("ios-build", ["macos"], script=["xcodebuild -scheme App"], duration=600.0))
        ref = _pick_ref(rng, project)
        if is_gitlab(ci.state):
            stages = oncall_scenarios.gitlab_extras(project, ref, stages)
        ci.create_pipeline(project, ref, stages, user, at, title=rng.choice(_COMMIT_TITLES))
    ci.advance(now)


def _generated_pipeline(ci: CiStore, project: Project, at: datetime) -> None:
    """A pushed pipeline (failing on its own about half the time), then the stuck scenarios revived."""
    rng = ci.generator_rng
    user = rng.choice(_developers(ci.state, project))
    ref = _pick_ref(rng, project)
    stages = oncall_scenarios.shape_generated(ci, project, typical_stages(rng, project, long=rng.random() < 0.3))
    if is_gitlab(ci.state):
        stages = oncall_scenarios.gitlab_extras(project, ref, stages)
    ci.create_pipeline(project, ref, stages, user, at, title=rng.choice(_COMMIT_TITLES))
    oncall_scenarios.keep_stuck(ci, at)


def add_benchmark_jobs(state: SimState, **options: Any) -> dict[str, dict[str, int]]:
    """Create the benchmark jobs asked for (see the module docstring) and record them in
    ``state.extra["ci_benchmark_jobs"]``."""
    ci = store(state)
    now = state.now()
    projects = _ci_projects(state)
    project = projects[0]
    user = _developers(state, project)[0]
    made: dict[str, dict[str, int]] = state.extra.setdefault("ci_benchmark_jobs", {})
    specs: list[tuple[str, JobSpec]] = []
    if options.get("ci_huge_trace_bytes"):
        specs.append(("huge_trace", JobSpec(
            "huge-log", [], duration=None, trace_kind="bulk", bulk_initial_bytes=int(options["ci_huge_trace_bytes"]),
            bulk_rate=float(options.get("ci_huge_trace_rate") or 10240))))
    if options.get("ci_million_line_trace"):
        specs.append(("million_lines", JobSpec(
            "million-lines", [], duration=600.0, trace_kind="bulk", bulk_lines=int(options["ci_million_line_trace"]))))
    if options.get("ci_big_artifact_bytes"):
        specs.append(("big_artifact", JobSpec(
            "big-artifact", [], duration=120.0, artifacts="big", artifact_bytes=int(options["ci_big_artifact_bytes"]))))
    for key, spec in specs:
        pipeline = ci.create_pipeline(project, project.default_branch, [StageSpec("build", [spec])], user, now,
                                      title=f"Benchmark: {spec.name}")
        job = ci.pipeline_jobs(pipeline)[0]
        ci.pinned.add(job.id)
        runner = next((r for r in ci.runners.values() if ci.can_run(r, job, project)), None)
        if runner is not None:
            ci.run(job, runner, now)
        else:
            job.status, job.started_at = "running", now
        if spec.duration is not None:
            # Finished jobs: backdate so the whole log and archive exist at start.
            job.started_at = now - timedelta(seconds=spec.duration)
            ci.finish(job, now)
        made[key] = {"project_id": project.id, "job_id": job.id}
    return made
