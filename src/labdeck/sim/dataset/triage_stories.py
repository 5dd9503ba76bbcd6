"""Triage stories in the demo data (both dialects), on projects the demo users star: why did it
fail, and whose is it. Added after the on-call scenarios, so earlier ids stay as they were; the
stories happened in the last three hours; the projects' ``last_activity_at`` is left as it was (so
the projects list and the activity check see the rest of the demo unchanged). The on-call
scenarios' projects (auth-service, api-gateway, k8s-manifests…) are left as they were.

- a registry outage: ``build-image`` fails in ``web/design-system``, ``web/admin-console`` and
  ``tools/ci-templates`` with the same image pull error from ``registry.example.com`` in the log,
  reported as ``script_failure`` (as the docker and kubernetes executors do);
- a flaky integration test: ``integration-tests`` of ``web/design-system`` fails, then passes
  when retried on the same commit (before the outage reached that project);
- a break introduced by a named commit: ``unit-tests`` of ``alice/notes`` passed on "Group notes by
  notebook", then fails on "Store notes in SQLite" and on the commit after it;
- a runner that failed what it picked up: ``k8s-autoscaler`` failed its recent ``kubernetes`` jobs
  in ``tools/ci-templates``, ``web/admin-console`` and ``alice/notes`` with
  ``runner_system_failure`` (the spec dialect has no ``failure_reason``: its log says so). Live
  jobs it takes later pass as before; ``PUT /-/sim/runners/:id {"failing": true}`` makes a runner
  fail for good.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from labdeck.sim.ci.engine import CiStore, JobSpec, StageSpec
from labdeck.sim.ci.model import Pipeline
from labdeck.sim.core.state import Project, User
from labdeck.sim.dataset.oncall_scenarios import _author, _play_out, _project, _runner

OUTAGE = ("web/design-system", "web/admin-console", "tools/ci-templates")
FLAKY = "web/design-system"
BROKEN = "alice/notes"
FAILING_RUNNER = "k8s-autoscaler"
RUNNER_PROJECTS = ("tools/ci-templates", "web/admin-console", "alice/notes")


def add_triage_stories(ci: CiStore, now: datetime) -> None:
    """Add the stories of the module docstring (15 jobs: a multiple of 5, so the run queue's order
    among jobs created later, ``(id * 7 + seed) % 5``, stays what it was without them)."""
    state = ci.state
    # The projects' last activity stays what the rest of the demo made it (as for the on-call
    # scenarios): the projects list and the poller's activity check see the demo as before.
    saved = {project.id: project.last_activity_at for project in state.projects.values()}
    _add(ci, now)
    for project in state.projects.values():
        project.last_activity_at = saved[project.id]


def _add(ci: CiStore, now: datetime) -> None:
    state = ci.state
    runner = _runner(ci, FAILING_RUNNER)
    if runner is not None:
        # Failing while it ran the stories' jobs; live jobs are left alone (the rest of the demo
        # runs on it too). The control surface can make it fail for good: PUT /-/sim/runners/:id.
        runner.failing = True
        for offset, path in enumerate(RUNNER_PROJECTS):
            project = _project(state, path)
            if project is None:
                continue
            if project.id not in runner.project_ids:
                runner.project_ids.append(project.id)
            stages = [StageSpec("deploy", [JobSpec("deploy-review", ["kubernetes"], duration=60.0,
                                                   script=["helm upgrade --install review ./chart"])])]
            _run(ci, project, stages, now - timedelta(minutes=70 - offset * 7),
                 "Deploy a review app for every merge request")
        runner.failing = False
    flaky = _project(state, FLAKY)
    if flaky is not None:
        stages = [StageSpec("test", [JobSpec("integration-tests", ["docker"], flaky=True, duration=120.0,
                                             script=["npx playwright test tests/integration --retries=0"]),
                                     JobSpec("lint", ["docker"], duration=30.0, script=["ruff check"])])]
        at = now - timedelta(minutes=55)
        pipeline = _run(ci, flaky, stages, at, "Cache the session lookups")
        job = next(j for j in ci.pipeline_jobs(pipeline) if j.name == "integration-tests")
        ci.retry(job, _author(state, flaky), at + timedelta(minutes=4))
        _play_out(ci, pipeline, at + timedelta(minutes=4))
    for offset, path in enumerate(OUTAGE):
        project = _project(state, path)
        if project is None:
            continue
        stages = [StageSpec("build", [JobSpec("build-image", ["docker"], duration=50.0, fail=True,
                                              failure_log="image_pull",
                                              script=["docker build -t $CI_REGISTRY_IMAGE ."])]),
                  StageSpec("test", [JobSpec("unit-tests", ["docker"], duration=60.0, script=["make test"])])]
        _run(ci, project, stages, now - timedelta(minutes=40 - offset * 3), "Rebuild the base image")
    broken = _project(state, BROKEN)
    if broken is not None:
        culprit = _culprit(ci, broken)
        for minutes, title, author, fail in ((150, "Group notes by notebook", None, False),
                                             (100, "Store notes in SQLite", culprit, True),
                                             (45, "Fix the typo in the README", None, True)):
            stages = [StageSpec("test", [JobSpec("unit-tests", ["docker"], fail=fail, duration=80.0,
                                                 script=["pytest -q"])])]
            _run(ci, broken, stages, now - timedelta(minutes=minutes), title, author)


def _culprit(ci: CiStore, project: Project) -> User:
    """A developer of the project other than the usual author, when there is one."""
    usual = _author(ci.state, project)
    others = [u for u in sorted(ci.state.users.values(), key=lambda u: u.id)
              if not u.is_admin and u.id != usual.id and ci.state.can_develop(u, project)]
    return others[0] if others else usual


def _run(ci: CiStore, project: Project, stages: list[StageSpec], at: datetime, title: str,
         author: User | None = None) -> Pipeline:
    pipeline = ci.create_pipeline(project, project.default_branch, stages, author or _author(ci.state, project), at,
                                  title=title)
    _play_out(ci, pipeline, at)
    return pipeline
