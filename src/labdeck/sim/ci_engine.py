"""The job engine: pipelines advance through simulated time as a discrete-event simulation.

Registered with ``state.add_ticker``, :meth:`CiStore.advance` processes every event due up to the
current simulated time in time order (a runner picking a pending job, a running job finishing, a
new pipeline being pushed), so the outcome does not depend on how often requests arrive. Jobs move
created → pending → running → success|failed (wire-facts §4.2); later stages wait for earlier ones;
``when: manual`` jobs sit in ``manual`` until played. Pipelines take the composite status of their
latest jobs (10.x ``HasStatus.status_sql``).
"""

from __future__ import annotations

import random
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from labdeck.sim.ci_artifacts import ArtifactStore
from labdeck.sim.ci_model import COMPLETED_STATUSES, Job, Pipeline, Runner
from labdeck.sim.ci_traces import BulkTrace, Script, ScriptSpec, build_script
from labdeck.sim.state import Project, SimState, User

MAX_JOBS = 4000  # older finished pipelines are pruned beyond this many jobs
MAX_CATCH_UP = timedelta(hours=3)  # pipelines are generated for at most this much of a long gap
_SCRIPT_CACHE_BYTES = 48 * 1024 * 1024


@dataclass
class JobSpec:
    """How to create one job (the control surface and the data set build these)."""

    name: str
    tags: list[str] = field(default_factory=list)
    when: str = "on_success"
    script: list[str] = field(default_factory=list)
    fail: bool = False
    duration: float | None = 60.0
    allow_failure: bool | None = None
    artifacts: str | None = None
    artifact_bytes: int = 0
    trace_kind: str = "script"
    bulk_initial_bytes: int = 0
    bulk_rate: float = 0.0
    bulk_lines: int | None = None
    outcome_fixed: bool = True


@dataclass
class StageSpec:
    name: str
    jobs: list[JobSpec]


def store(state: SimState) -> CiStore:
    """The CI family of ``state`` (created empty when the data set did not populate it)."""
    existing = state.extra.get("ci")
    if isinstance(existing, CiStore):
        return existing
    created = CiStore(state, int(state.extra.get("seed", 0)))
    state.extra["ci"] = created
    state.add_ticker(created.advance)
    return created


class CiStore:
    """Runners, pipelines and jobs of one simulator, with their generated traces and archives."""

    def __init__(self, state: SimState, seed: int) -> None:
        self.state = state
        self.seed = seed
        self.artifacts = ArtifactStore()
        self.cursor = state.now()
        self.active: set[int] = set()  # pending and running job ids
        self.pinned: set[int] = set()  # benchmark jobs never pruned
        self.generator_projects: list[int] = []
        self.generator_rng = random.Random(seed * 17 + 3)
        self.next_pipeline_at: datetime | None = None
        self.pipeline_factory: Callable[[CiStore, Project, datetime], None] | None = None
        self._scripts: OrderedDict[int, Script] = OrderedDict()
        self._script_bytes = 0
        self._bulk: dict[int, BulkTrace] = {}
        self._by_pipeline: dict[int, list[int]] = {}

    # --- entities ------------------------------------------------------------------------------------

    @property
    def runners(self) -> dict[int, Runner]:
        return self.state.runners

    @property
    def jobs(self) -> dict[int, Job]:
        return self.state.jobs

    @property
    def pipelines(self) -> dict[int, Pipeline]:
        return self.state.pipelines

    def create_pipeline(self, project: Project, ref: str, stages: list[StageSpec], user: User, at: datetime,
                        *, title: str = "Update CI configuration", sha: str | None = None) -> Pipeline:
        """A new pipeline with its jobs (all ``created``), processed at once so stage 1 is queued."""
        pipeline_id = self.state.next_id("pipeline")
        rng = random.Random(self.seed * 131 + pipeline_id)
        sha = sha or f"{rng.getrandbits(160):040x}"
        pipeline = Pipeline(
            id=pipeline_id, project_id=project.id, ref=ref, sha=sha, user_id=user.id, created_at=at,
            stages=[stage.name for stage in stages], commit_title=title,
            commit_message=f"{title}\n\nSigned-off-by: {user.name} <{user.email}>\n",
            author_name=user.name, author_email=user.email, parent_sha=f"{rng.getrandbits(160):040x}",
            tag=ref.startswith("v") and ref[1:2].isdigit(), updated_at=at,
        )
        self.pipelines[pipeline.id] = pipeline
        # A pipeline comes from a push: real servers count it as project activity.
        if project.last_activity_at < at:
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
            script=list(spec.script), planned_duration=spec.duration, will_fail=spec.fail,
            artifacts=spec.artifacts, artifact_bytes=spec.artifact_bytes, trace_kind=spec.trace_kind,
            bulk_initial_bytes=spec.bulk_initial_bytes, bulk_rate=spec.bulk_rate, bulk_lines=spec.bulk_lines,
            outcome_fixed=spec.outcome_fixed,
        )
        self.jobs[job.id] = job
        self._by_pipeline.setdefault(pipeline.id, []).append(job.id)
        return job

    def pipeline_jobs(self, pipeline: Pipeline, *, latest: bool = True) -> list[Job]:
        """Jobs of a pipeline; only the latest try of each unless ``latest`` is False."""
        jobs = [self.jobs[job_id] for job_id in self._by_pipeline.get(pipeline.id, ()) if job_id in self.jobs]
        return [job for job in jobs if not job.retried] if latest else jobs

    # --- transitions ---------------------------------------------------------------------------------

    def process(self, pipeline: Pipeline, at: datetime) -> None:
        """Queue, actionize or skip created jobs whose earlier stages are complete; update the status."""
        jobs = self.pipeline_jobs(pipeline)
        by_stage: dict[int, list[Job]] = {}
        for job in jobs:
            by_stage.setdefault(job.stage_idx, []).append(job)
        prior_ok = True
        for index in sorted(by_stage):
            stage_jobs = by_stage[index]
            for job in stage_jobs:
                if job.status != "created":
                    continue
                if job.when == "always" or (job.when == "on_success" and prior_ok):
                    self.enqueue(job, at)
                elif job.when == "on_failure" and not prior_ok:
                    self.enqueue(job, at)
                elif job.when == "manual" and prior_ok:
                    job.status = "manual"
                else:
                    job.status = "skipped"
            if not all(_stage_done(job) for job in stage_jobs):
                break
            prior_ok = prior_ok and composite_status(stage_jobs) in ("success", "skipped", "manual")
        self._update_pipeline(pipeline, jobs, at)

    def _update_pipeline(self, pipeline: Pipeline, jobs: list[Job], at: datetime) -> None:
        status = composite_status(jobs)
        if status != pipeline.status:
            pipeline.status = status
            pipeline.updated_at = at
        if pipeline.started_at is None and status not in ("created", "pending"):
            pipeline.started_at = at
        if status in COMPLETED_STATUSES or status == "manual":
            pipeline.finished_at = pipeline.finished_at or at
        else:
            pipeline.finished_at = None

    def enqueue(self, job: Job, at: datetime) -> None:
        """``enqueue``: → pending (queued_at set)."""
        job.status = "pending"
        job.queued_at = at
        self.active.add(job.id)

    def run(self, job: Job, runner: Runner, at: datetime) -> None:
        """``run``: pending → running on ``runner``; a job longer than the runner's timeout will fail."""
        job.status = "running"
        job.started_at = at
        job.runner_id = runner.id
        job.runner_label = f"{runner.description} {runner.token}"
        if runner.maximum_timeout and job.planned_duration and job.planned_duration > runner.maximum_timeout:
            job.planned_duration = float(runner.maximum_timeout)
            job.will_fail = True
            job.failure_reason = f"execution took longer than {_go_duration(runner.maximum_timeout)} seconds"
        pipeline = self.pipelines.get(job.pipeline_id)
        if pipeline is not None:
            self._update_pipeline(pipeline, self.pipeline_jobs(pipeline), at)

    def finish(self, job: Job, at: datetime) -> None:
        """``success`` or ``drop`` as planned; artifacts expire in a week."""
        job.status = "failed" if job.will_fail else "success"
        job.finished_at = at
        self.active.discard(job.id)
        if job.artifacts:
            job.artifacts_expire_at = at + timedelta(days=7)
        if job.status == "success" and job.stage == "test":
            job.coverage = round(random.Random(job.seed + job.id).uniform(55, 98), 2)
        self._after_change(job, at)

    def cancel(self, job: Job, at: datetime) -> bool:
        """``cancel`` event: created, pending, running or manual → canceled. False when it does not fire."""
        if job.status not in ("created", "pending", "running", "manual"):
            return False
        job.status = "canceled"
        job.finished_at = at
        self.active.discard(job.id)
        self._after_change(job, at)
        return True

    def retry(self, job: Job, user: User, at: datetime) -> Job:
        """``Ci::Build.retry``: a NEW pending job copying the old one; later skipped jobs reprocess."""
        pipeline = self.pipelines[job.pipeline_id]
        spec = JobSpec(
            name=job.name, tags=job.tags, when=job.when, script=job.script,
            # A timeout is the runner's doing, not the job's: the retry runs the original plan again.
            fail=(job.will_fail and job.failure_reason is None) if job.outcome_fixed
            else random.Random(self.seed + job.id * 7).random() < 0.25,
            duration=job.planned_duration,
            allow_failure=job.allow_failure, artifacts=job.artifacts, artifact_bytes=job.artifact_bytes,
            trace_kind=job.trace_kind, bulk_initial_bytes=job.bulk_initial_bytes, bulk_rate=job.bulk_rate,
            bulk_lines=job.bulk_lines, outcome_fixed=job.outcome_fixed,
        )
        clone = self._new_job(pipeline, spec, job.stage, job.stage_idx, user.id, at)
        job.retried = True
        for other in self.pipeline_jobs(pipeline):
            if other.stage_idx > job.stage_idx and other.status == "skipped":
                other.status = "created"
        self.enqueue(clone, at)
        self.process(pipeline, at)
        return clone

    def play(self, job: Job, user: User, at: datetime) -> Job:
        """``Ci::PlayBuildService``: a manual job is queued; a finished one is retried (a clone)."""
        if job.status == "manual":
            job.user_id = user.id
            self.enqueue(job, at)
            pipeline = self.pipelines[job.pipeline_id]
            self._update_pipeline(pipeline, self.pipeline_jobs(pipeline), at)
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
            self.cursor = now
        for runner in self.runners.values():
            if runner.connected and runner.contacted_at is not None:
                runner.contacted_at = max(runner.contacted_at, now - timedelta(seconds=runner.id % 7 + 1))

    def _next_event(self, now: datetime) -> tuple[datetime, Callable[[], None]] | None:
        best: tuple[datetime, int, Callable[[], None]] | None = None

        def offer(at: datetime, rank: int, action: Callable[[], None]) -> None:
            nonlocal best
            if at <= now and (best is None or (at, rank) < (best[0], best[1])):
                best = (at, rank, action)

        busy: dict[int, int] = {}
        pending: list[Job] = []
        for job_id in sorted(self.active):
            job = self.jobs.get(job_id)
            if job is None:
                continue
            if job.status == "running":
                busy[job.runner_id or 0] = busy.get(job.runner_id or 0, 0) + 1
                if job.planned_duration is not None and job.started_at is not None:
                    done = job.started_at + timedelta(seconds=job.planned_duration)
                    offer(done, 0, lambda job=job, done=done: self.finish(job, done))  # type: ignore[misc]
            elif job.status == "pending":
                pending.append(job)
        if self.next_pipeline_at is not None:
            at = self.next_pipeline_at
            offer(at, 1, lambda: self._generate(at))
        for job in pending:
            assert job.queued_at is not None
            ready = max(job.queued_at + timedelta(seconds=1 + (job.id * 7 + self.seed) % 5), self.cursor)
            if best is not None and ready > best[0]:
                continue
            runner = self._free_runner(job, busy)
            if runner is not None:
                offer(ready, 2, lambda job=job, runner=runner, ready=ready: self.run(job, runner, ready))  # type: ignore[misc]
        if best is None:
            return None
        return best[0], best[2]

    def _free_runner(self, job: Job, busy: dict[int, int]) -> Runner | None:
        project = self.state.projects.get(job.project_id)
        if project is None:
            return None
        candidates = [r for r in self.runners.values() if busy.get(r.id, 0) < r.concurrent and self.can_run(r, job, project)]
        if not candidates:
            return None
        return min(candidates, key=lambda r: (busy.get(r.id, 0), r.id))

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
        self.prune()

    def prune(self) -> None:
        """Drop the oldest finished pipelines (and their jobs) beyond :data:`MAX_JOBS` jobs."""
        if len(self.jobs) <= MAX_JOBS:
            return
        by_pipeline: dict[int, list[Job]] = {}
        for job in self.jobs.values():
            by_pipeline.setdefault(job.pipeline_id, []).append(job)
        for pipeline_id in sorted(by_pipeline):
            if len(self.jobs) <= MAX_JOBS * 9 // 10:
                break
            jobs = by_pipeline[pipeline_id]
            if any(job.id in self.active or job.id in self.pinned for job in jobs):
                continue
            for job in jobs:
                del self.jobs[job.id]
                self.artifacts.drop(job.id)
                self._forget_trace(job.id)
            self.pipelines.pop(pipeline_id, None)
            self._by_pipeline.pop(pipeline_id, None)

    # --- traces --------------------------------------------------------------------------------------

    def has_trace(self, job: Job) -> bool:
        """Whether the job has a log (started, or something was appended) and was not erased."""
        if job.trace_erased:
            return False
        return job.trace_log is not None or (job.started_at is not None and job.trace_kind != "none")

    def trace(self, job: Job, now: datetime) -> bytes:
        """The whole raw log of ``job`` as it stands at ``now``."""
        if job.trace_erased:
            return b""
        generated = self._generated(job, now)
        if job.trace_log is None:
            return generated
        return bytes(job.trace_log) + generated[job.trace_gen_pos:]

    def append_trace(self, job: Job, data: bytes, now: datetime) -> int:
        """Append raw bytes after what the job has written so far; returns the new length."""
        generated = self._generated(job, now)
        if job.trace_log is None:
            job.trace_log = bytearray()
        job.trace_log += generated[job.trace_gen_pos:]
        job.trace_gen_pos = len(generated)
        job.trace_log += data
        job.trace_erased = False
        return len(job.trace_log)

    def _generated(self, job: Job, now: datetime) -> bytes:
        if job.started_at is None or job.trace_kind == "none":
            return b""
        end = job.finished_at or now
        elapsed = (end - job.started_at).total_seconds()
        if job.trace_kind == "bulk":
            bulk = self._bulk.get(job.id)
            if bulk is None:
                bulk = BulkTrace(int(job.started_at.timestamp()), job.bulk_initial_bytes, job.bulk_rate,
                                 job.bulk_lines)
                self._bulk[job.id] = bulk
            return bulk.read(elapsed)
        script = self._script(job)
        if job.status in ("success", "failed"):
            return script.blob
        return script.prefix(elapsed)

    def _script(self, job: Job) -> Script:
        script = self._scripts.get(job.id)
        if script is not None:
            self._scripts.move_to_end(job.id)
            return script
        assert job.started_at is not None
        project = self.state.projects.get(job.project_id)
        pipeline = self.pipelines.get(job.pipeline_id)
        description, _, token = (job.runner_label or "shared-runner 0000000000000000").partition(" ")
        depends = []
        if pipeline is not None:
            depends = [(other.name, other.id) for other in self.pipeline_jobs(pipeline)
                       if other.stage_idx < job.stage_idx and other.artifacts and other.status == "success"][:3]
        spec = ScriptSpec(
            seed=self.seed, job_id=job.id, name=job.name, stage=job.stage, commands=job.script,
            duration=job.planned_duration or 60.0, failed=job.will_fail,
            failure_message=job.failure_reason or "exit code 1", started_unix=int(job.started_at.timestamp()),
            runner_description=description, runner_token=token or "0000000000000000",
            project_path=self.state.project_full_path(project) if project else "unknown/project",
            sha=pipeline.sha if pipeline else "0" * 40, ref=job.ref, artifacts=bool(job.artifacts),
            depends_on=depends,
        )
        script = build_script(spec)
        self._scripts[job.id] = script
        self._script_bytes += script.size
        while self._script_bytes > _SCRIPT_CACHE_BYTES and len(self._scripts) > 1:
            _, dropped = self._scripts.popitem(last=False)
            self._script_bytes -= dropped.size
        return script

    def _forget_trace(self, job_id: int) -> None:
        script = self._scripts.pop(job_id, None)
        if script is not None:
            self._script_bytes -= script.size
        self._bulk.pop(job_id, None)


def _stage_done(job: Job) -> bool:
    return job.status in COMPLETED_STATUSES or (job.status == "manual" and job.allow_failure)


def composite_status(jobs: list[Job]) -> str:
    """10.x ``HasStatus.status_sql`` over jobs, ignoring allowed failures and optional manual jobs."""
    relevant = [j.status for j in jobs if not (j.allow_failure and j.status in ("failed", "canceled", "manual"))]
    total = len(relevant)
    count = {status: relevant.count(status) for status in set(relevant)}

    def n(*names: str) -> int:
        return sum(count.get(name, 0) for name in names)

    if total == 0:
        if any(j.status == "manual" for j in jobs):
            return "manual"
        return "success" if any(j.status == "failed" for j in jobs) else "skipped"
    if total == n("skipped"):
        return "skipped"
    if total == n("success", "skipped"):
        return "success"
    if total == n("created"):
        return "created"
    if total == n("success", "skipped", "canceled"):
        return "canceled"
    if total == n("created", "skipped", "pending"):
        return "pending"
    if n("running", "pending") > 0:
        return "running"
    if n("manual") > 0:
        return "manual"
    if n("created") > 0:
        return "running"
    return "failed"


def _go_duration(seconds: int) -> str:
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}h{minutes}m{secs}s"
