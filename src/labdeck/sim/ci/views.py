"""JSON views of jobs that need the CI store (runner summary, archive size)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from labdeck.sim.ci.engine import CiStore
from labdeck.sim.ci.model import ARTIFACTS_FILENAME, Job, job_basic, project_identity
from labdeck.sim.core.clock import iso
from labdeck.sim.core.dialect import is_gitlab


def job_entity(ci: CiStore, job: Job, base_url: str, now: datetime, *, action: bool = False) -> dict[str, Any]:
    """The Job entity. Action responses (cancel, retry, play, erase, keep) carry no ``pipeline``
    (spec: "absent from cancel, retry, erase, keep and play responses") and erase/keep add
    ``download_url: null``. The gitlab dialect adds ``failure_reason`` (failed jobs) and
    ``archived``, and its runner summary."""
    gitlab = is_gitlab(ci.state)
    body = _basic(ci, job, base_url, now, with_pipeline=not action)
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
    body["runner"] = runner.summary(now, gitlab=gitlab) if runner is not None else None
    body["erased_at"] = iso(job.erased_at)
    if gitlab:
        body["archived"] = False
    return body


def runner_job_entity(ci: CiStore, job: Job, base_url: str, now: datetime) -> dict[str, Any]:
    """JobBasicWithProject: an item of ``GET /runners/:id/jobs``."""
    body = _basic(ci, job, base_url, now)
    project = ci.state.projects.get(job.project_id)
    body["project"] = project_identity(ci.state, project) if project is not None else None
    return body


def _basic(ci: CiStore, job: Job, base_url: str, now: datetime, *, with_pipeline: bool = True) -> dict[str, Any]:
    """JobBasic, with current GitLab's ``failure_reason`` of a failed job in the gitlab dialect."""
    body = job_basic(ci.state, job, base_url, now, with_pipeline=with_pipeline)
    if is_gitlab(ci.state) and job.status == "failed":
        body["failure_reason"] = job.failure_reason or "unknown_failure"
    return body
