"""Gather the evidence about failed (or stuck) jobs: the :class:`Incident` behind a bundle.

:func:`collect_incident` reads, for a job, a set of jobs or a whole pipeline: each job's JSON
exactly as the server sent it, its full log streamed to a private temporary folder (raw bytes) with
a plain-text copy and the first error lines (:mod:`labdeck.logtext.error_lines`), the why-pending
explanation of pending jobs (:mod:`labdeck.triage`), the runners involved (their ``token`` field
removed), the pipelines' job lists and the local audit entries about those targets. Everything is
read-only (GET). Close the incident (or use it as a context manager) to delete the temporary files.
"""

from __future__ import annotations

import asyncio
import json
import shutil
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from labdeck.api import errors
from labdeck.api.models import Job, Project
from labdeck.api.pagination import Paginator
from labdeck.api.resources.base import ProjectRef, ref
from labdeck.audit.read import AuditEntry, read_audit
from labdeck.base import logsafe
from labdeck.incident.plain_log import plain_log
from labdeck.logtext.error_lines import ErrorIndex
from labdeck.triage.gather import gather_pending_facts, server_time
from labdeck.triage.pending import PendingExplanation

if TYPE_CHECKING:
    from labdeck.api.client import ApiClient

_CONCURRENCY = 4
REDACTED = "[removed by labdeck: secret]"
_SECRET_KEYS = frozenset({"token", "runners_token"})


@dataclass
class JobEvidence:
    """One job: its record, its log files and what they say."""

    id: int
    job: Job
    raw_json: bytes
    """The job's JSON exactly as the server sent it."""
    record: dict[str, Any]
    raw_log: Path | None = None
    """The full log as received (a file in the incident's temporary folder), None without a log."""
    text_log: Path | None = None
    log_bytes: int = 0
    log_lines: int = 0
    log_note: str | None = None
    """Why there is no log (``the server has no log for this job (404)``…)."""
    errors: ErrorIndex = field(default_factory=lambda: ErrorIndex([], []))
    pending: PendingExplanation | None = None

    @property
    def failure_reason(self) -> str | None:
        """The server's ``failure_reason`` (11.x+), when it sends one."""
        value = self.record.get("failure_reason")
        return str(value) if value else None

    @property
    def runner_id(self) -> int | None:
        return self.job.runner.id if self.job.runner is not None else None


@dataclass
class Incident:
    """Everything a bundle holds (see the module docstring)."""

    instance: str
    project: Project
    generated_at: datetime
    """The server's time when the evidence was read (its ``Date`` header)."""
    jobs: list[JobEvidence]
    pipelines: dict[int, list[dict[str, Any]]]
    runners: dict[int, dict[str, Any]]
    audit: list[AuditEntry]
    workdir: Path
    notes: list[str] = field(default_factory=list)
    """Evidence that could not be read, said plainly."""
    scope: str = ""
    """``job 123``, ``pipeline 77`` or ``3 jobs``."""
    profile: str | None = None
    """The console's name for the instance (``staging``) when it shows several: bundles of the
    same project from two instances say which is which, in their file name and summary."""

    def close(self) -> None:
        """Delete the temporary log files."""
        shutil.rmtree(self.workdir, ignore_errors=True)

    def __enter__(self) -> Incident:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _redact(value: Any) -> Any:
    if isinstance(value, dict):
        return {key: REDACTED if key in _SECRET_KEYS and value[key] else _redact(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_redact(item) for item in value]
    return value


async def _bounded(coroutines: Sequence[Any]) -> list[Any]:
    gate = asyncio.Semaphore(_CONCURRENCY)

    async def one(coroutine: Any) -> Any:
        async with gate:
            return await coroutine

    return list(await asyncio.gather(*(one(c) for c in coroutines)))


async def _job(client: ApiClient, project: ProjectRef, job_id: int, workdir: Path,
               now: datetime | None) -> tuple[JobEvidence, str | None]:
    response = await client.request("GET", f"projects/{ref(project)}/jobs/{int(job_id)}")
    evidence = JobEvidence(job_id, client.parse(response, Job), response.content, json.loads(response.content))
    raw = workdir / f"{job_id}.log.raw"
    try:
        await client.download(f"projects/{ref(project)}/jobs/{int(job_id)}/trace", raw)
    except errors.NotFound:
        evidence.log_note = "the server has no log for this job (404)"
    except errors.Forbidden:
        evidence.log_note = "reading this job's log is not allowed for this account (403)"
    else:
        evidence.raw_log, evidence.text_log = raw, workdir / f"{job_id}.log.txt"
        evidence.log_bytes = raw.stat().st_size
        evidence.errors, evidence.log_lines = await asyncio.to_thread(plain_log, raw, evidence.text_log)
    if evidence.job.status == "pending":
        try:
            facts = await gather_pending_facts(client, project, evidence.job, now=now)
            evidence.pending = facts.explain()
        except errors.ApiError as error:
            evidence.log_note = (evidence.log_note or "") + f" why-pending not known: {error.user_message()}"
    return evidence, response.headers.get("date")


async def _runner(client: ApiClient, runner_id: int, fallback: dict[str, Any] | None) -> dict[str, Any] | None:
    try:
        response = await client.request("GET", f"runners/{int(runner_id)}")
    except (errors.Forbidden, errors.NotFound):
        return dict(fallback, note="runner details not readable with this account") if fallback else None
    body = json.loads(response.content)
    return _redact(body) if isinstance(body, dict) else None


EVIDENCE_ALL_UP_TO = 50
"""A pipeline of at most this many jobs (newest tries) gets every job's evidence (JSON and log);
a bigger one (a monorepo's 1,500) that of its failed, running and waiting jobs only (at most
:data:`EVIDENCE_MAX`): the job list of the whole pipeline is in ``pipeline-<id>.json`` anyway."""
EVIDENCE_MAX = 200


def latest_items(items: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """The newest try of each job name (by id) among a pipeline's job records, oldest first."""
    newest: dict[str, dict[str, Any]] = {}
    for item in items:
        if not isinstance(item.get("id"), int):
            continue
        key = str(item.get("name") or f"#{item['id']}")
        held = newest.get(key)
        if held is None or item["id"] > held["id"]:
            newest[key] = item
    return sorted(newest.values(), key=lambda item: item["id"])


def evidence_jobs(items: Sequence[dict[str, Any]]) -> tuple[list[int], str | None]:
    """Which jobs of a pipeline get their evidence read, and a note on those left out (None: all)."""
    ids = [int(item["id"]) for item in items if isinstance(item.get("id"), int)]
    latest = latest_items(items)
    if len(latest) <= EVIDENCE_ALL_UP_TO:
        return ids, None
    order = {"failed": 0, "running": 1, "pending": 2}
    chosen = sorted((item for item in latest if item.get("status") in order),
                    key=lambda item: (order[str(item.get("status"))], item["id"]))
    kept = [int(item["id"]) for item in chosen[:EVIDENCE_MAX]]
    return kept, (f"{len(latest) - len(kept):,} of {len(latest):,} jobs of the pipeline without their log "
                  "(it is big: the failed, running and pending ones were read; the others are in the "
                  "pipeline's job list)")


async def collect_incident(client: ApiClient, project: ProjectRef, *, job: int | None = None,
                           jobs: Sequence[int] = (), pipeline: int | None = None, now: datetime | None = None,
                           audit_path: Path | None = None, profile: str | None = None) -> Incident:
    """Read the evidence for one ``job``, several ``jobs`` or every job of a ``pipeline``.

    ``now`` replaces the server's ``Date`` header as the reference time (see
    :func:`labdeck.triage.gather.gather_pending_facts`). Raises :mod:`labdeck.api.errors` when the
    project, a job or the pipeline cannot be read; missing logs and runners become notes.
    """
    wanted = [int(j) for j in ([job] if job is not None else []) + list(jobs)]
    pipeline_items: dict[int, list[dict[str, Any]]] = {}
    left_out: str | None = None
    if pipeline is not None:
        items = await Paginator(client, f"projects/{ref(project)}/pipelines/{int(pipeline)}/jobs", dict).all()
        pipeline_items[int(pipeline)] = items
        chosen, left_out = evidence_jobs(items)
        wanted += chosen
    wanted = list(dict.fromkeys(wanted))
    if not wanted:
        raise ValueError("collect_incident needs a job, jobs or a pipeline")
    scope = (f"pipeline {pipeline}" if pipeline is not None else f"job {wanted[0]}" if len(wanted) == 1
             else f"{len(wanted)} jobs")
    info_response = await client.request("GET", f"projects/{ref(project)}")
    info = client.parse(info_response, Project)
    workdir = Path(tempfile.mkdtemp(prefix="labdeck-incident-"))
    try:
        results = await _bounded([_job(client, project, job_id, workdir, now) for job_id in wanted])
        evidence = [item for item, _ in results]
        generated = now or server_time(info_response.headers.get("date"))
        for each in evidence:
            pid = each.job.pipeline.id if each.job.pipeline else None
            if pid is not None and pid not in pipeline_items:
                pipeline_items[pid] = await Paginator(client, f"projects/{ref(project)}/pipelines/{pid}/jobs",
                                                      dict).all()
        runner_ids: dict[int, dict[str, Any] | None] = {}
        for each in evidence:
            if each.runner_id is not None:
                runner_ids[each.runner_id] = each.record.get("runner")
            for candidate in each.pending.candidates if each.pending else ():
                runner_ids.setdefault(candidate, None)
        fetched = await _bounded([_runner(client, rid, fallback) for rid, fallback in runner_ids.items()])
        runners = {rid: body for rid, body in zip(runner_ids, fetched, strict=True) if body is not None}
        notes = [f"job {e.id}: {e.log_note.strip()}" for e in evidence if e.log_note]
        notes += [f"runner {rid}: details not readable" for rid in runner_ids if rid not in runners]
        if left_out:
            notes.append(left_out)
        instance = logsafe.redact_url(client.base_url)  # as the audit log records it
        audit = [entry for entry in read_audit(instance=instance, path=audit_path)
                 if entry.concerns(jobs=wanted, pipelines=pipeline_items, runners=runners)]
        return Incident(instance, info, generated, evidence, pipeline_items, runners, audit, workdir,
                        notes, scope, profile)
    except BaseException:
        shutil.rmtree(workdir, ignore_errors=True)
        raise
