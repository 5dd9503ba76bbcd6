"""Per-pipeline and per-project indexes of the CI store, kept up to date as jobs move.

A :class:`PipelineTally` holds a pipeline's job ids by stage (every try, in creation order) and the
counts of its latest tries' ``(status, allow_failure)`` per stage and in all, so that processing a
pipeline of 1,500 jobs after one of them finished, and its status, cost a few dictionary updates
rather than a pass over every job. :class:`ProjectIndex` lists each project's pipelines and jobs,
so that a project's job list or pipeline list never scans the whole instance. :class:`IndexedStore`
(mixed into :class:`labdeck.sim.ci.engine.CiStore`) reads them and prunes old pipelines.
"""

from __future__ import annotations

from collections.abc import Callable

from labdeck.sim.ci.artifacts import ArtifactStore
from labdeck.sim.ci.model import Job, Pipeline, Runner
from labdeck.sim.ci.status import COMPLETED
from labdeck.sim.core.state import SimState


class PipelineTally:
    """The jobs of one pipeline and the status counts of their latest tries."""

    __slots__ = ("jobs", "stage_jobs", "stage_counts", "counts", "retried_counts")

    def __init__(self) -> None:
        self.jobs: list[int] = []
        self.stage_jobs: dict[int, list[int]] = {}
        self.stage_counts: dict[int, dict[tuple[str, bool], int]] = {}
        self.counts: dict[tuple[str, bool], int] = {}
        # Statuses of the earlier tries (retried jobs): GraphQL's ``jobs(statuses:)`` counts them too.
        self.retried_counts: dict[str, int] = {}

    def add(self, job: Job) -> None:
        """A new job (a new pipeline's, or a retry's clone)."""
        self.jobs.append(job.id)
        self.stage_jobs.setdefault(job.stage_idx, []).append(job.id)
        self.stage_counts.setdefault(job.stage_idx, {})
        if not job.retried:
            self._count(job.stage_idx, (job.status, job.allow_failure), 1)
        else:
            self._retried(job.status, 1)

    def moved(self, job: Job, name: str, old: object) -> None:
        """``job``'s ``status`` or ``retried`` changed from ``old``."""
        if name == "status":
            if not job.retried:
                self._count(job.stage_idx, (str(old), job.allow_failure), -1)
                self._count(job.stage_idx, (job.status, job.allow_failure), 1)
            else:
                self._retried(str(old), -1)
                self._retried(job.status, 1)
        elif name == "retried" and bool(old) != job.retried:
            self._count(job.stage_idx, (job.status, job.allow_failure), -1 if job.retried else 1)
            self._retried(job.status, 1 if job.retried else -1)

    def _retried(self, status: str, delta: int) -> None:
        value = self.retried_counts.get(status, 0) + delta
        if value:
            self.retried_counts[status] = value
        else:
            self.retried_counts.pop(status, None)

    def has_created(self, stage_idx: int) -> bool:
        """Whether a latest job of the stage is still ``created``."""
        counts = self.stage_counts.get(stage_idx, {})
        return counts.get(("created", False), 0) > 0 or counts.get(("created", True), 0) > 0

    def _count(self, stage_idx: int, key: tuple[str, bool], delta: int) -> None:
        for counts in (self.stage_counts.setdefault(stage_idx, {}), self.counts):
            value = counts.get(key, 0) + delta
            if value:
                counts[key] = value
            else:
                counts.pop(key, None)


class ProjectIndex:
    """Pipeline and job ids of each project, in creation (id) order."""

    def __init__(self) -> None:
        self.pipelines: dict[int, list[int]] = {}
        self.jobs: dict[int, list[int]] = {}
        self.iids: dict[int, int] = {}

    def add_pipeline(self, project_id: int, pipeline_id: int) -> int:
        """Record a new pipeline; returns its ``iid`` (per project, from 1)."""
        self.pipelines.setdefault(project_id, []).append(pipeline_id)
        self.iids[project_id] = self.iids.get(project_id, 0) + 1
        return self.iids[project_id]

    def add_job(self, project_id: int, job_id: int) -> None:
        self.jobs.setdefault(project_id, []).append(job_id)

    def forget(self, project_id: int, pipeline_ids: set[int], job_ids: set[int]) -> None:
        """Drop pruned pipelines and jobs of a project."""
        self.pipelines[project_id] = [i for i in self.pipelines.get(project_id, []) if i not in pipeline_ids]
        self.jobs[project_id] = [i for i in self.jobs.get(project_id, []) if i not in job_ids]


class IndexedStore:
    """The index half of the CI store (``jobs``, ``pipelines``, ``active``, ``pinned``, ``artifacts``
    and ``_forget_trace`` come from the store it is mixed into)."""

    state: SimState
    active: set[int]
    pinned: set[int]
    artifacts: ArtifactStore
    _forget_trace: Callable[[int], None]

    def _init_indexes(self) -> None:
        self._tallies: dict[int, PipelineTally] = {}
        self.index = ProjectIndex()

    @property
    def runners(self) -> dict[int, Runner]:
        return self.state.runners

    @property
    def jobs(self) -> dict[int, Job]:
        return self.state.jobs

    @property
    def pipelines(self) -> dict[int, Pipeline]:
        return self.state.pipelines

    def pipeline_jobs(self, pipeline: Pipeline, *, latest: bool = True) -> list[Job]:
        """Jobs of a pipeline in creation order; only the latest try of each unless ``latest`` is False."""
        tally = self._tallies.get(pipeline.id)
        jobs = [self.jobs[job_id] for job_id in (tally.jobs if tally else ()) if job_id in self.jobs]
        return [job for job in jobs if not job.retried] if latest else jobs

    def project_jobs(self, project_id: int) -> list[Job]:
        """Every job of a project (every try), oldest first."""
        return [self.jobs[job_id] for job_id in self.index.jobs.get(project_id, ()) if job_id in self.jobs]

    def project_pipelines(self, project_id: int) -> list[Pipeline]:
        """Every pipeline of a project, oldest first."""
        return [self.pipelines[pid] for pid in self.index.pipelines.get(project_id, ()) if pid in self.pipelines]

    def counts(self, pipeline: Pipeline) -> dict[tuple[str, bool], int]:
        """``(status, allow_failure)`` counts of the pipeline's latest jobs."""
        tally = self._tallies.get(pipeline.id)
        return dict(tally.counts) if tally else {}

    def status_count(self, pipeline: Pipeline, statuses: frozenset[str] | None, retried: bool | None) -> int:
        """How many jobs of the pipeline have one of ``statuses`` (any when None): the latest tries
        (``retried=False``), the earlier ones (``True``) or both (None), as ``Ci::JobsResolver``
        filters them. Read from the tallies: the same cost for 1,500 jobs as for 5."""
        tally = self._tallies.get(pipeline.id)
        if tally is None:
            return 0
        total = 0
        if retried is not True:
            total += sum(count for (status, _), count in tally.counts.items() if statuses is None or status in statuses)
        if retried is not False:
            total += sum(count for status, count in tally.retried_counts.items()
                         if statuses is None or status in statuses)
        return total

    def prune(self, max_jobs: int) -> None:
        """Drop the oldest finished pipelines (and their jobs) beyond ``max_jobs`` jobs. A pipeline
        in flight (not finished, or with a job still active or pinned) and the newest pipeline of
        each project are never dropped."""
        if len(self.jobs) <= max_jobs:
            return
        newest = {ids[-1] for ids in self.index.pipelines.values() if ids}
        dropped: dict[int, tuple[set[int], set[int]]] = {}
        for pipeline_id in sorted(self._tallies):
            if len(self.jobs) <= max_jobs * 9 // 10:
                break
            pipeline = self.pipelines.get(pipeline_id)
            tally = self._tallies[pipeline_id]
            if pipeline is None or pipeline_id in newest or pipeline.status not in COMPLETED \
                    or any(job_id in self.active or job_id in self.pinned for job_id in tally.jobs):
                continue
            for job_id in tally.jobs:
                self.jobs.pop(job_id, None)
                self.artifacts.drop(job_id)
                self._forget_trace(job_id)
            self.pipelines.pop(pipeline_id, None)
            del self._tallies[pipeline_id]
            pipelines, jobs = dropped.setdefault(pipeline.project_id, (set(), set()))
            pipelines.add(pipeline_id)
            jobs.update(tally.jobs)
        for project_id, (pipelines, jobs) in dropped.items():
            self.index.forget(project_id, pipelines, jobs)
