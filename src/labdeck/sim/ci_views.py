"""JSON views of jobs that need the CI store (runner summary, archive size)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from labdeck.sim.ci_engine import CiStore
from labdeck.sim.ci_model import ARTIFACTS_FILENAME, Job, job_basic, project_identity
from labdeck.sim.clock import iso


def job_entity(ci: CiStore, job: Job, base_url: str, now: datetime, *, action: bool = False) -> dict[str, Any]:
    """The Job entity. Action responses (cancel, retry, play, erase, keep) carry no ``pipeline``
    (spec: "absent from cancel, retry, erase, keep and play responses") and erase/keep add
    ``download_url: null``."""
    body = job_basic(ci.state, job, base_url, now, with_pipeline=not action)
    if job.has_artifacts():
        size = ci.artifacts.size(job)
        body["artifacts_file"] = {"filename": ARTIFACTS_FILENAME, "size": size}
        body["artifacts"] = [{"file_type": "archive", "size": size, "filename": ARTIFACTS_FILENAME,
                              "file_format": "zip"}]
    else:
        body["artifacts_file"] = None
        body["artifacts"] = []
    body["artifacts_expire_at"] = iso(job.artifacts_expire_at)
    runner = ci.runners.get(job.runner_id) if job.runner_id is not None else None
    body["runner"] = runner.summary(now) if runner is not None else None
    body["erased_at"] = iso(job.erased_at)
    return body


def runner_job_entity(ci: CiStore, job: Job, base_url: str, now: datetime) -> dict[str, Any]:
    """JobBasicWithProject: an item of ``GET /runners/:id/jobs``."""
    body = job_basic(ci.state, job, base_url, now)
    project = ci.state.projects.get(job.project_id)
    body["project"] = project_identity(ci.state, project) if project is not None else None
    return body
