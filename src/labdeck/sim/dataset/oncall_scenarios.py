"""On-call scenarios in the demo data set, in both dialects: what a board watching many projects
should see at once and keep seeing as simulated time passes.

At start (added after the rest of the CI data, so that the ids and activity times of the rest stay
what they were):

- ``platform/feature-flags`` and ``platform/auth-service`` (starred by root and alice) have an
  ``ios-build`` job (tags ``macos``) pending because the only runner with that tag, ``macos-builder``,
  was last contacted 9 days ago; auth-service also shows an earlier one that gave up (canceled after
  waiting; in the gitlab dialect dropped as ``stuck_or_timeout_failure``);
- ``platform/notifications`` waits on the paused ``gpu-trainer`` (from the warm-up);
- ``platform/search`` has shared runners disabled and an untagged job pending: its only project
  runner, ``gpu-trainer``, is paused and does not run untagged jobs (every pipeline of search waits
  from now on);
- ``platform/api-gateway`` (alice) has a failed pipeline whose ``e2e-browser`` job is flaky: it
  passes on retry;
- ``platform/infra/k8s-manifests`` (root) has a pipeline failed by a runner system failure.

Live: the pipelines the generator pushes fail on their own (failed tests or lint, a runner system
failure, a flaky browser test) about half the time, and the stuck scenarios come back when their
job is gone (dropped, canceled or played). In the gitlab dialect deployments also use resource
groups (``waiting_for_resource``), staging deployments prepare first (``preparing``) and default
branch pipelines roll out a canary after five minutes (``when: delayed`` → ``scheduled``).
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from labdeck.sim.ci.engine import CiStore, JobSpec, StageSpec, runner_fault
from labdeck.sim.ci.model import Job, Pipeline, Runner
from labdeck.sim.core.dialect import is_gitlab
from labdeck.sim.core.state import Project, SimState, User

_KEY = "ci_scenarios"
# Jobs that wait for a runner nobody can provide, kept alive per project: (project, job name, tags).
_STUCK = (("platform/feature-flags", "ios-build", ("macos",)),
          ("platform/notifications", "gpu-train", ("gpu",)),
          ("platform/search", "compile", ()))
_WAITING = ("pending", "waiting_for_resource", "preparing", "created")


@dataclass
class ScenarioState:
    """What the live part needs between generator events."""

    rng: random.Random
    stuck: list[tuple[int, str, list[str]]] = field(default_factory=list)  # project id, job name, tags


def _state(ci: CiStore) -> ScenarioState:
    existing = ci.state.extra.get(_KEY)
    if isinstance(existing, ScenarioState):
        return existing
    created = ScenarioState(random.Random(ci.seed * 7919 + 5))
    ci.state.extra[_KEY] = created
    return created


def _project(state: SimState, path: str) -> Project | None:
    project = state.project_by_ref(path)
    return project if project is not None and not project.archived else None


def _runner(ci: CiStore, description: str) -> Runner | None:
    return next((r for r in ci.runners.values() if r.description == description), None)


def _author(state: SimState, project: Project) -> User:
    developers = [u for u in sorted(state.users.values(), key=lambda u: u.id)
                  if not u.is_admin and state.can_develop(u, project)]
    return developers[0] if developers else state.users[project.creator_id]


# --- at start ---------------------------------------------------------------------------------------


def add_scenarios(ci: CiStore, now: datetime) -> None:
    """Add the start-up scenarios (see the module docstring) to a populated CI store."""
    state = ci.state
    scenarios = _state(ci)
    macos = _runner(ci, "macos-builder")
    for path in ("platform/feature-flags", "platform/auth-service"):
        project = _project(state, path)
        if macos is not None and project is not None and project.id not in macos.project_ids:
            macos.project_ids.append(project.id)
    for path, name, tags in _STUCK:
        project = _project(state, path)
        if project is not None:
            scenarios.stuck.append((project.id, name, list(tags)))
    auth = _project(state, "platform/auth-service")
    if auth is not None:
        _gave_up(ci, auth, _before(auth, now, minutes=190))
        _stuck_pipeline(ci, auth, "ios-build", ["macos"], _before(auth, now, minutes=5),
                        "Build the iOS app in the release pipeline")
    search = _project(state, "platform/search")
    if search is not None:
        search.settings["shared_runners_enabled"] = False
        _stuck_pipeline(ci, search, "compile", [], _before(search, now, minutes=4), "Compile the query parser")
    gateway = _project(state, "platform/api-gateway")
    if gateway is not None:
        _flaky_failure(ci, gateway, _before(gateway, now, minutes=25))
    manifests = _project(state, "platform/infra/k8s-manifests")
    if manifests is not None:
        _system_failure(ci, manifests, _before(manifests, now, minutes=20))


def _before(project: Project, now: datetime, *, minutes: int) -> datetime:
    # Never later than the project's last activity: the scenario does not change what is shown.
    return min(project.last_activity_at, now) - timedelta(minutes=minutes)


def _stuck_pipeline(ci: CiStore, project: Project, name: str, tags: list[str], at: datetime, title: str) -> Pipeline:
    stages = [StageSpec("build", [JobSpec(name, list(tags), script=_script(name), duration=300.0)]),
              StageSpec("test", [JobSpec("smoke-tests", [], script=["make smoke"], duration=90.0)])]
    return ci.create_pipeline(project, project.default_branch, stages, _author(ci.state, project), at, title=title)


def _gave_up(ci: CiStore, project: Project, at: datetime) -> None:
    """An earlier macOS job that waited until it was given up: canceled by hand after 50 minutes
    (spec dialect), dropped by GitLab after an hour (gitlab dialect)."""
    pipeline = _stuck_pipeline(ci, project, "ios-build", ["macos"], at, "Add an iOS build job")
    job = next(j for j in ci.pipeline_jobs(pipeline) if j.name == "ios-build")
    if is_gitlab(ci.state):
        ci.drop(job, at + timedelta(hours=1), "stuck_or_timeout_failure")
    else:
        ci.cancel(job, at + timedelta(minutes=50), immediate=True)


def _flaky_failure(ci: CiStore, project: Project, at: datetime) -> None:
    stages = [
        StageSpec("build", [JobSpec("build", ["docker"], script=["npm ci", "npm run build"], duration=95.0,
                                    artifacts="small")]),
        StageSpec("test", [JobSpec("unit-tests", ["docker"], script=["npm test"], duration=140.0),
                           _e2e()]),
        StageSpec("deploy", [JobSpec("deploy-production", ["deploy"], when="manual", duration=60.0,
                                     script=["./scripts/deploy.sh production"])]),
    ]
    pipeline = ci.create_pipeline(project, project.default_branch, stages, _author(ci.state, project), at,
                                  title="Show the order confirmation page sooner")
    _play_out(ci, pipeline, at)


def _system_failure(ci: CiStore, project: Project, at: datetime) -> None:
    stages = [
        StageSpec("build", [JobSpec("validate", ["kubernetes"], script=["kubeconform -strict manifests/"],
                                    duration=45.0, fail=True, failure="runner_system_failure")]),
        StageSpec("deploy", [JobSpec("apply-staging", ["kubernetes"], script=["kubectl apply -k overlays/staging"],
                                     duration=60.0)]),
    ]
    pipeline = ci.create_pipeline(project, project.default_branch, stages, _author(ci.state, project), at,
                                  title="Raise the ingress timeouts")
    _play_out(ci, pipeline, at)


def _play_out(ci: CiStore, pipeline: Pipeline, start: datetime) -> None:
    """Run a pipeline to its end from ``start``, stage by stage, on runners that can take its jobs."""
    project = ci.state.projects[pipeline.project_id]
    at = start
    for stage_idx in sorted({job.stage_idx for job in ci.pipeline_jobs(pipeline)}):
        stage_end = at
        for job in [j for j in ci.pipeline_jobs(pipeline) if j.stage_idx == stage_idx and j.status == "pending"]:
            runner = next((r for r in sorted(ci.runners.values(), key=lambda r: r.id)
                           if ci.can_run(r, job, project)), None)
            if runner is None:
                continue
            job.started_at = at + timedelta(seconds=3 + job.id % 20)
            job.status, job.runner_id = "running", runner.id
            job.runner_label = f"{runner.description} {runner.token}"
            runner_fault(job, runner)
            finished = job.started_at + timedelta(seconds=job.planned_duration or 60.0)
            ci.finish(job, finished)
            stage_end = max(stage_end, finished)
        at = stage_end + timedelta(seconds=2)


# --- live -------------------------------------------------------------------------------------------


def shape_generated(ci: CiStore, project: Project, stages: list[StageSpec]) -> list[StageSpec]:
    """Give a generated pipeline its own failure, about half the time (both dialects)."""
    roll = _state(ci).rng.random()
    by_name = {job.name: job for stage in stages for job in stage.jobs}
    if roll < 0.25 and "unit-tests" in by_name:
        by_name["unit-tests"].fail = True
    elif roll < 0.35 and "lint" in by_name:
        by_name["lint"].fail = True
    elif roll < 0.43 and "build" in by_name:
        build = by_name["build"]
        build.fail, build.failure, build.duration = True, "runner_system_failure", 40.0
    elif roll < 0.55:
        stages[1].jobs.append(_e2e())
    return stages


def gitlab_extras(project: Project, ref: str, stages: list[StageSpec]) -> list[StageSpec]:
    """Current GitLab features in a pipeline (gitlab dialect): resource groups for deployments, a
    staging environment that prepares, and a delayed canary rollout on the default branch."""
    for stage in stages:
        for job in stage.jobs:
            if job.name.startswith("deploy-"):
                job.resource_group = job.name.removeprefix("deploy-")
                job.prepare = job.name == "deploy-staging"
    if ref == project.default_branch and stages and stages[-1].name == "deploy":
        stages[-1].jobs.append(JobSpec("canary-rollout", ["docker"], when="delayed", start_in=300.0,
                                       resource_group="production", duration=50.0, outcome_fixed=False,
                                       script=["./scripts/rollout.sh --canary 10%"]))
    return stages


def keep_stuck(ci: CiStore, at: datetime) -> None:
    """Bring back each stuck scenario whose job is no longer waiting (dropped, canceled, played)."""
    state = ci.state
    for project_id, name, tags in _state(ci).stuck:
        project = state.projects.get(project_id)
        if project is None or project.deleted or project.archived:
            continue
        if any(_waiting(job, project_id, name) for job in ci.project_jobs(project_id)):
            continue
        _stuck_pipeline(ci, project, name, tags, at, f"Retry {name} on a fresh runner image")


def _waiting(job: Job, project_id: int, name: str) -> bool:
    return job.project_id == project_id and job.name == name and job.status in _WAITING and not job.retried


def _e2e() -> JobSpec:
    return JobSpec("e2e-browser", ["docker"], script=["npm ci", "npx playwright test --retries=0"], duration=210.0,
                   flaky=True, artifacts="small")


def _script(name: str) -> list[str]:
    return {"ios-build": ["bundle exec fastlane ios build"], "gpu-train": ["python train.py --epochs 40"]}.get(
        name, ["make"])
