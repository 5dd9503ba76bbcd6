"""The job engine: pipelines advance through simulated time as a discrete-event simulation.

Registered with ``state.add_ticker``, :meth:`CiStore.advance` processes every event due up to the
current simulated time in time order (a runner picking a pending job, a running job finishing, a
new pipeline being pushed), so the outcome does not depend on how often requests arrive. Jobs move
created → pending → running → success|failed (docs/wire-facts.md §4.2); later stages wait for earlier ones;
``when: manual`` jobs sit in ``manual`` until played. Pipelines take the composite status of their
latest jobs (:mod:`labdeck.sim.ci.status`: 10.x ``HasStatus.status_sql`` in the spec dialect,
current GitLab's ``Composite`` in the gitlab dialect). In the gitlab dialect jobs also pass through
current GitLab's statuses (:mod:`labdeck.sim.ci.lifecycle`), stuck jobs are dropped, and a pipeline
resets the project's last activity only when it is an hour old
(``Event::RESET_PROJECT_ACTIVITY_INTERVAL``).

A pipeline's ``updated_at``, in the gitlab dialect, moves only when the pipeline's own status
changes, as current GitLab saves it (``AtomicProcessingService`` calls ``pipeline.set_status``,
whose state machine does nothing for the same status), and when the pipeline is retried or canceled
(:meth:`CiStore.touch`). A job failing, retried or played deep inside a pipeline that stays
``running`` does not move it, so ``GET /projects/:id/pipelines?updated_after=`` does not show that
change: a client must find it otherwise (the failed jobs' count). The spec dialect, which has no
pipelines API, moves it on every job change.

Scale: every job tells the store when its status changes (``Job.observer``), which keeps
per-pipeline tallies (:mod:`labdeck.sim.ci.tally`) and the run queue (:mod:`labdeck.sim.ci.queue`)
up to date, so that an event costs the same with 45,000 jobs in flight as with 50.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from datetime import datetime, timedelta

from labdeck.sim.ci import lifecycle
from labdeck.sim.ci.artifacts import ArtifactStore
from labdeck.sim.ci.model import COMPLETED_STATUSES, Job, Pipeline, Runner
from labdeck.sim.ci.plan import JobSpec, StageSpec, go_duration
from labdeck.sim.ci.queue import RunQueue
from labdeck.sim.ci.status import composite, stage_done
from labdeck.sim.ci.tally import IndexedStore, PipelineTally
from labdeck.sim.ci.trace_store import TraceStore
from labdeck.sim.core.dialect import ACTIVITY_RESET_INTERVAL, is_gitlab
from labdeck.sim.core.state import Project, SimState, User

# Older finished pipelines are pruned beyond this many jobs: room for 30 projects running 1,500-job
# pipelines at once (45,000 jobs) and their history.
MAX_JOBS = 60_000
MAX_CATCH_UP = timedelta(hours=3)  # pipelines are generated for at most this much of a long gap
_CANCELABLE = frozenset({"created", "pending", "running", "manual"})
_CURRENT_CANCELABLE = _CANCELABLE | {"scheduled", "preparing", "waiting_for_resource"}
_NOT_STARTED = frozenset({"created", "waiting_for_resource", "preparing", "pending"})


def store(state: SimState) -> CiStore:
    """The CI family of ``state`` (created empty when the data set did not populate it)."""
    existing = state.extra.get("ci")
    if isinstance(existing, CiStore):
        return existing
    created = CiStore(state, int(state.extra.get("seed", 0)))
    state.extra["ci"] = created
    state.add_ticker(created.advance)
    return created



def runner_fault(job: Job, runner: Runner) -> None:
    """A failing runner (``Runner.failing``) fails what it picks up: a runner system failure."""
    if runner.failing:
        job.will_fail = True
        job.planned_failure = "runner_system_failure"
        job.planned_duration = min(job.planned_duration or 40.0, 40.0)

class CiStore(TraceStore, IndexedStore):
    """Runners, pipelines and jobs of one simulator, with their generated traces and archives."""

    def __init__(self, state: SimState, seed: int) -> None:
        self.state = state
        self.seed = seed
        self.artifacts = ArtifactStore()
        self.cursor = state.now()
        # Jobs with events ahead: pending and running (and, in the gitlab dialect, scheduled,
        # waiting_for_resource, preparing and canceling).
        self.active: set[int] = set()
        self.pinned: set[int] = set()  # benchmark jobs never pruned
        self.generator_projects: list[int] = []
        self.generator_rng = random.Random(seed * 17 + 3)
        self.next_pipeline_at: datetime | None = None
        self.pipeline_factory: Callable[[CiStore, Project, datetime], None] | None = None
        self._init_indexes()
        self.queue = RunQueue()
        self._touched: set[int] = set()  # pipelines one of whose jobs changed status since the last update
        self._init_traces()

    @property
    def gitlab(self) -> bool:
        """Whether jobs follow current GitLab (the gitlab dialect)."""
        return is_gitlab(self.state)

    # --- entities -----------------------------------------------------------------------------------

    def create_pipeline(self, project: Project, ref: str, stages: list[StageSpec], user: User, at: datetime,
                        *, title: str = "Update CI configuration", sha: str | None = None,
                        author: User | None = None, source: str = "push") -> Pipeline:
        """A new pipeline with its jobs (all ``created``), processed at once so stage 1 is queued.
        Its commit is ``sha`` (a new one when None) by ``author`` (the user when None)."""
        pipeline_id = self.state.next_id("pipeline")
        rng = random.Random(self.seed * 131 + pipeline_id)
        sha = sha or f"{rng.getrandbits(160):040x}"
        author = author or user
        pipeline = Pipeline(
            id=pipeline_id, project_id=project.id, ref=ref, sha=sha, user_id=user.id, created_at=at,
            stages=[stage.name for stage in stages], commit_title=title,
            commit_message=f"{title}\n\nSigned-off-by: {author.name} <{author.email}>\n",
            author_name=author.name, author_email=author.email, parent_sha=f"{rng.getrandbits(160):040x}",
            tag=ref.startswith("v") and ref[1:2].isdigit(), updated_at=at, source=source,
        )
        self.pipelines[pipeline.id] = pipeline
        self._tallies[pipeline.id] = PipelineTally()
        pipeline.iid = self.index.add_pipeline(project.id, pipeline.id)
        # A pipeline comes from a push: real servers count it as project activity. Current GitLab
        # (and 10.x, not modelled in the spec dialect) resets it at most once an hour.
        recent = self.gitlab and project.last_activity_at > at - ACTIVITY_RESET_INTERVAL
        if project.last_activity_at < at and not recent:
            project.last_activity_at = at
        for index, stage in enumerate(stages):
            for spec in stage.jobs:
                self._new_job(pipeline, spec, stage.name, index, user.id, at)
        self.process(pipeline, at)
        return pipeline

    def _new_job(self, pipeline: Pipeline, spec: JobSpec, stage: str, stage_idx: int, user_id: int,
                 at: datetime) -> Job:
        job_id = self.state.next_id("job")
        allow_failure = spec.allow_failure if spec.allow_failure is not None else spec.when == "manual"
        job = Job(
            id=job_id, project_id=pipeline.project_id, pipeline_id=pipeline.id, name=spec.name, stage=stage,
            stage_idx=stage_idx, ref=pipeline.ref, user_id=user_id, created_at=at, seed=self.seed,
            tag=pipeline.tag, when=spec.when, allow_failure=allow_failure, tags=list(spec.tags),
            script=list(spec.script), planned_duration=spec.duration, will_fail=spec.fail or spec.flaky,
            artifacts=spec.artifacts, artifact_bytes=spec.artifact_bytes, trace_kind=spec.trace_kind,
            bulk_initial_bytes=spec.bulk_initial_bytes, bulk_rate=spec.bulk_rate, bulk_lines=spec.bulk_lines,
            outcome_fixed=spec.outcome_fixed, planned_failure=spec.failure, flaky=spec.flaky,
            resource_group=spec.resource_group, prepare=spec.prepare, start_in=spec.start_in,
            failure_log=spec.failure_log,
        )
        self.jobs[job.id] = job
        self._tallies[pipeline.id].add(job)
        self.index.add_job(pipeline.project_id, job.id)
        job.observer = self._moved
        return job

    def _moved(self, job: Job, name: str, old: object) -> None:
        """A job's status, ``retried`` or ``queued_at`` changed: keep the tallies and the queue."""
        tally = self._tallies.get(job.pipeline_id)
        if tally is not None:
            tally.moved(job, name, old)
        if name != "queued_at":
            self._touched.add(job.pipeline_id)
        self.queue.moved(job, name, old)

    # --- transitions ---------------------------------------------------------------------------------

    def process(self, pipeline: Pipeline, at: datetime) -> None:
        """Queue, actionize or skip created jobs whose earlier stages are complete; update the status.
        Reads only the stages' tallies, and the jobs of a stage that still has created ones."""
        tally = self._tallies.get(pipeline.id)
        if tally is None:
            return
        gitlab = self.gitlab
        prior_ok = True
        for index in sorted(tally.stage_counts):
            if tally.has_created(index):
                for job_id in tally.stage_jobs[index]:
                    job = self.jobs.get(job_id)
                    if job is not None and not job.retried and job.status == "created":
                        self._start(job, prior_ok, at)
            counts = tally.stage_counts[index]
            if not stage_done(counts):
                break
            prior_ok = prior_ok and composite(counts, gitlab=gitlab) in ("success", "skipped", "manual")
        self._update_pipeline(pipeline, at)

    def _start(self, job: Job, prior_ok: bool, at: datetime) -> None:
        """A created job whose earlier stages are done: queued, scheduled, manual or skipped."""
        if job.when == "always" or (job.when == "on_success" and prior_ok):
            self.enqueue(job, at)
        elif job.when == "on_failure" and not prior_ok:
            self.enqueue(job, at)
        elif job.when == "delayed" and prior_ok:
            # 10.x has no delayed jobs: the spec dialect queues them at once.
            if self.gitlab:
                lifecycle.schedule(self, job, at)
            else:
                self.enqueue(job, at)
        elif job.when == "manual" and prior_ok:
            job.status = "manual"
        else:
            job.status = "skipped"

    def _update_pipeline(self, pipeline: Pipeline, at: datetime) -> None:
        """The pipeline's status from its tally. Its ``updated_at`` moves to ``at`` when that status
        changes; in the spec dialect also whenever one of its jobs changed status (current GitLab
        saves the pipeline only when its own status changes: the gitlab dialect does the same)."""
        tally = self._tallies.get(pipeline.id)
        status = composite(tally.counts if tally else {}, gitlab=self.gitlab)
        touched = pipeline.id in self._touched and not self.gitlab
        self._touched.discard(pipeline.id)
        previous = pipeline.status
        if status != previous:
            pipeline.status = status
            touched = True
        if touched:
            self.touch(pipeline, at)
        if self.gitlab:
            # Ci::Pipeline's state machine: ``before_transition [:created, :waiting_for_resource,
            # :preparing, :pending] => :running`` sets started_at; nothing else does, so a pipeline
            # canceled (or dropped) while it waited never gets one.
            if status == "running" and previous in _NOT_STARTED:
                pipeline.started_at = at
        elif pipeline.started_at is None and status not in ("created", "pending"):
            pipeline.started_at = at
        if status in COMPLETED_STATUSES or status == "manual":
            pipeline.finished_at = pipeline.finished_at or at
        else:
            pipeline.finished_at = None

    def touch(self, pipeline: Pipeline, at: datetime) -> None:
        """The pipeline was saved at ``at``: its status changed, or it was retried or canceled
        (``Ci::RetryPipelineService`` / ``Ci::CancelPipelineService`` update it even when its
        status stays the same)."""
        pipeline.updated_at = max(pipeline.updated_at or at, at)

    def flush(self, at: datetime) -> None:
        """Update the pipelines whose jobs changed outside :meth:`process` (a job done preparing)."""
        for pipeline_id in list(self._touched):
            pipeline = self.pipelines.get(pipeline_id)
            if pipeline is None:
                self._touched.discard(pipeline_id)
            else:
                self._update_pipeline(pipeline, at)

    def enqueue(self, job: Job, at: datetime) -> None:
        """``enqueue``: → pending (queued_at set); in the gitlab dialect possibly
        waiting_for_resource or preparing first."""
        if self.gitlab:
            lifecycle.enqueue(self, job, at)
            return
        job.status = "pending"
        job.queued_at = at
        self.active.add(job.id)

    def run(self, job: Job, runner: Runner, at: datetime) -> None:
        """``run``: pending → running on ``runner``; a job longer than the runner's timeout will fail."""
        job.status = "running"
        job.started_at = at
        job.runner_id = runner.id
        job.runner_label = f"{runner.description} {runner.token}"
        runner_fault(job, runner)
        if runner.maximum_timeout and job.planned_duration and job.planned_duration > runner.maximum_timeout:
            job.planned_duration = float(runner.maximum_timeout)
            job.will_fail = True
            job.planned_failure = "job_execution_timeout"
            job.failure_message = f"execution took longer than {go_duration(runner.maximum_timeout)} seconds"
        pipeline = self.pipelines.get(job.pipeline_id)
        if pipeline is not None:
            self._update_pipeline(pipeline, at)

    def finish(self, job: Job, at: datetime) -> None:
        """``success`` or ``drop`` as planned; artifacts expire in a week."""
        job.status = "failed" if job.will_fail else "success"
        job.finished_at = at
        if job.will_fail:
            job.failure_reason = job.planned_failure or "script_failure"
        self.active.discard(job.id)
        if job.artifacts:
            job.artifacts_expire_at = at + timedelta(days=7)
        if job.status == "success" and job.stage == "test":
            job.coverage = round(random.Random(job.seed + job.id).uniform(55, 98), 2)
        self._after_change(job, at)

    def cancel(self, job: Job, at: datetime, *, immediate: bool = False) -> bool:
        """``cancel`` event: created, pending, running or manual → canceled. False when it does not fire.

        In the gitlab dialect scheduled, preparing and waiting jobs can be canceled too, and a running
        one is ``canceling`` until its runner acknowledges (unless ``immediate``)."""
        if job.status not in (_CURRENT_CANCELABLE if self.gitlab else _CANCELABLE):
            return False
        if self.gitlab and job.status == "running" and not immediate:
            lifecycle.begin_cancel(self, job, at)
            pipeline = self.pipelines.get(job.pipeline_id)
            if pipeline is not None:
                self._update_pipeline(pipeline, at)
            return True
        self.finish_cancel(job, at)
        return True

    def finish_cancel(self, job: Job, at: datetime) -> None:
        """→ canceled."""
        job.status = "canceled"
        job.finished_at = at
        self.active.discard(job.id)
        self._after_change(job, at)

    def drop(self, job: Job, at: datetime, reason: str) -> None:
        """``drop``: → failed with ``reason`` (a stuck job, in the gitlab dialect)."""
        job.status = "failed"
        job.failure_reason = reason
        job.finished_at = at
        self.active.discard(job.id)
        self._after_change(job, at)

    def retry(self, job: Job, user: User, at: datetime) -> Job:
        """``Ci::Build.retry``: a NEW pending job copying the old one; later skipped jobs reprocess."""
        pipeline = self.pipelines[job.pipeline_id]
        # A timeout or a runner system failure is the runner's doing, not the job's, and a flaky
        # job passes the next time: the retry runs the original plan again.
        runner_fault = job.planned_failure in ("job_execution_timeout", "runner_system_failure")
        if job.flaky or job.planned_failure == "runner_system_failure":
            fail = False
        elif job.outcome_fixed:
            fail = job.will_fail and not runner_fault
        else:
            fail = random.Random(self.seed + job.id * 7).random() < 0.25
        spec = JobSpec(
            name=job.name, tags=job.tags, when=job.when, script=job.script, fail=fail,
            duration=job.planned_duration,
            allow_failure=job.allow_failure, artifacts=job.artifacts, artifact_bytes=job.artifact_bytes,
            trace_kind=job.trace_kind, bulk_initial_bytes=job.bulk_initial_bytes, bulk_rate=job.bulk_rate,
            bulk_lines=job.bulk_lines, outcome_fixed=job.outcome_fixed,
            failure=None if runner_fault else job.planned_failure, resource_group=job.resource_group,
            prepare=job.prepare, start_in=job.start_in, failure_log=job.failure_log,
        )
        clone = self._new_job(pipeline, spec, job.stage, job.stage_idx, user.id, at)
        clone.flaky = job.flaky
        job.retried = True
        for other in self.pipeline_jobs(pipeline):
            if other.stage_idx > job.stage_idx and other.status == "skipped":
                other.status = "created"
        self.enqueue(clone, at)
        self.process(pipeline, at)
        return clone

    def play(self, job: Job, user: User, at: datetime) -> Job:
        """``Ci::PlayBuildService``: a manual (or scheduled) job is queued; a finished one is retried
        (a clone)."""
        if job.status in ("manual", "scheduled"):
            job.user_id = user.id
            self.enqueue(job, at)
            self._update_pipeline(self.pipelines[job.pipeline_id], at)
            return job
        return self.retry(job, user, at)

    def erase(self, job: Job, user: User, at: datetime) -> None:
        """Remove trace and artifacts (``erased_at``/``erased_by`` set)."""
        job.erased_at = at
        job.erased_by = user.id
        job.artifacts_expire_at = None
        job.trace_erased = True
        job.trace_log = None
        self.artifacts.drop(job.id)
        self._forget_trace(job.id)

    def _after_change(self, job: Job, at: datetime) -> None:
        if self.gitlab:
            lifecycle.release(self, job, at)
        pipeline = self.pipelines.get(job.pipeline_id)
        if pipeline is not None:
            self.process(pipeline, at)

    # --- the event loop ------------------------------------------------------------------------------

    def advance(self, now: datetime) -> None:
        """Process every event due up to ``now`` (the ticker registered with the state)."""
        if now > self.cursor:
            if self.next_pipeline_at is not None and now - self.next_pipeline_at > MAX_CATCH_UP:
                self.next_pipeline_at = now - MAX_CATCH_UP
            while True:
                event = self._next_event(now)
                if event is None:
                    break
                at, action = event
                self.cursor = max(self.cursor, at)
                action()
                self.flush(at)
            self.cursor = now
        self.flush(now)
        for runner in self.runners.values():
            if runner.connected and runner.contacted_at is not None:
                runner.contacted_at = max(runner.contacted_at, now - timedelta(seconds=runner.id % 7 + 1))

    def _next_event(self, now: datetime) -> tuple[datetime, Callable[[], None]] | None:
        """The earliest event due by ``now``: a running job finishing, a timed transition, a new
        pipeline, a runner picking a pending job, a stuck job dropped (in that order at one time;
        the lowest job id first among equals)."""
        best: tuple[datetime, int, int, Callable[[], None]] | None = None

        def offer(at: datetime, rank: int, order: int, action: Callable[[], None]) -> None:
            nonlocal best
            if at <= now and (best is None or (at, rank, order) < best[:3]):
                best = (at, rank, order, action)

        busy = self.queue.busy(self)
        finishing = self.queue.next_finish(self)
        if finishing is not None:
            done, ending = finishing
            offer(done, 0, ending.id, lambda: self.finish(ending, done))
        for job_id in sorted(self.queue.timed):
            job = self.jobs.get(job_id)
            if job is not None and job_id in self.active:
                timed = lifecycle.timed_event(self, job)
                if timed is not None:
                    offer(timed[0], timed[1], job.id, timed[2])
        if self.next_pipeline_at is not None:
            at = self.next_pipeline_at
            offer(at, 1, 1 << 62, lambda: self._generate(at))
        for event in self.queue.events(self, self.cursor, now, busy, gitlab=self.gitlab):
            offer(*event)
        if best is None:
            return None
        return best[0], best[3]

    def can_run(self, runner: Runner, job: Job, project: Project) -> bool:
        """Whether ``runner`` would pick ``job`` (active, connected, allowed in the project, tags)."""
        if not runner.active or not runner.connected or runner.contacted_at is None:
            return False
        if runner.is_shared:
            if not project.settings.get("shared_runners_enabled", True):
                return False
        elif project.id not in runner.project_ids:
            return False
        if job.tags:
            if not set(job.tags) <= set(runner.tags):
                return False
        elif not runner.run_untagged:
            return False
        if runner.access_level == "ref_protected":
            return job.tag or (project.id, job.ref) in self.state.protected_branches
        return True

    def _generate(self, at: datetime) -> None:
        rng = self.generator_rng
        self.next_pipeline_at = at + timedelta(seconds=rng.uniform(120, 420))
        if not self.generator_projects or self.pipeline_factory is None:
            return
        project = self.state.projects.get(rng.choice(self.generator_projects))
        if project is not None and not project.deleted and not project.archived:
            self.pipeline_factory(self, project, at)
        self.prune(MAX_JOBS)
