"""Job logs of the CI store: generated lazily from each job's plan, cached, appended to through the
control surface, erased. Mixed into :class:`labdeck.sim.ci.engine.CiStore`."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable
from datetime import datetime

from labdeck.sim.ci.model import Job
from labdeck.sim.ci.traces import CURRENT_RUNNER, BulkTrace, Script, ScriptSpec, build_script
from labdeck.sim.core.dialect import is_gitlab
from labdeck.sim.core.state import SimState

_SCRIPT_CACHE_BYTES = 48 * 1024 * 1024


class TraceStore:
    """The trace half of the CI store (``state``, ``seed``, ``pipelines`` and ``pipeline_jobs`` come
    from the store it is mixed into)."""

    state: SimState
    seed: int
    pipeline_jobs: Callable[..., list[Job]]
    """``pipeline_jobs(pipeline, latest=True)``: the jobs of a pipeline (the CI store defines it)."""

    def _init_traces(self) -> None:
        self._scripts: OrderedDict[int, Script] = OrderedDict()
        self._script_bytes = 0
        self._bulk: dict[int, BulkTrace] = {}

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
        pipeline = self.state.pipelines.get(job.pipeline_id)
        description, _, token = (job.runner_label or "shared-runner 0000000000000000").partition(" ")
        depends = []
        if pipeline is not None:
            depends = [(other.name, other.id) for other in self.pipeline_jobs(pipeline)
                       if other.stage_idx < job.stage_idx and other.artifacts and other.status == "success"][:3]
        spec = ScriptSpec(
            seed=self.seed, job_id=job.id, name=job.name, stage=job.stage, commands=job.script,
            duration=job.planned_duration or 60.0, failed=job.will_fail,
            failure_message=job.failure_message or "exit code 1", started_unix=int(job.started_at.timestamp()),
            runner_description=description, runner_token=token or "0000000000000000",
            project_path=self.state.project_full_path(project) if project else "unknown/project",
            sha=pipeline.sha if pipeline else "0" * 40, ref=job.ref, artifacts=bool(job.artifacts),
            depends_on=depends, system_failure=job.planned_failure == "runner_system_failure",
            image_pull_failure=job.failure_log == "image_pull", line_rate=job.line_rate,
        )
        if is_gitlab(self.state):
            spec.runner_version, spec.runner_revision, spec.script_section = CURRENT_RUNNER
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
