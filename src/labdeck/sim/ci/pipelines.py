"""Current GitLab's pipelines API, for the gitlab dialect: the entities (``PipelineBasicWithMetadata``
in lists, ``PipelineWithMetadata`` for one pipeline, ``Pipeline`` after retry and cancel) and the
list's filters and order (``Ci::PipelinesFinder``).

What the simulator leaves out: child pipelines and ``yaml_errors`` (no pipeline has any: the
``yaml_errors=true`` filter lists none, ``false`` lists all). A pipeline's ``name`` is null unless
the control surface gave it one; the ``name`` filter matches it exactly. ``duration`` is the time
some job of the pipeline was running (overlaps counted once), set once the pipeline finished, as
``Gitlab::Ci::Pipeline::Duration``; ``queued_duration`` is ``Ci::Pipeline#queued_duration``: whole
seconds from creation to ``started_at``, null until the pipeline starts (and when that is 0 s).
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any

from labdeck.sim.ci.engine import CiStore
from labdeck.sim.ci.model import CURRENT_JOB_STATUSES, Pipeline
from labdeck.sim.ci.status import with_warnings
from labdeck.sim.core.clock import iso
from labdeck.sim.core.http import Params, invalid
from labdeck.sim.core.state import SimState
from labdeck.sim.projects.filters import moment_param

SCOPES = ("running", "pending", "finished", "branches", "tags")
ORDER_BY = ("id", "status", "ref", "updated_at", "user_id")
# Ci::Pipeline.sources.keys
SOURCES = ("unknown", "push", "web", "trigger", "schedule", "api", "external", "pipeline", "chat", "webide",
           "merge_request_event", "external_pull_request_event", "parent_pipeline", "ondemand_dast_scan",
           "ondemand_dast_validation", "security_orchestration_policy", "container_registry_push",
           "duo_workflow", "pipeline_execution_policy_schedule")
_FINISHED = frozenset({"success", "failed", "canceled"})  # Ci::HasStatus::COMPLETED_STATUSES minus skipped
# detailed_status per status: (icon, text, label, group)
_DETAILED: dict[str, tuple[str, str, str, str]] = {
    "created": ("status_created", "created", "created", "created"),
    "waiting_for_resource": ("status_pending", "waiting", "waiting for resource", "waiting-for-resource"),
    "preparing": ("status_preparing", "preparing", "preparing", "preparing"),
    "pending": ("status_pending", "pending", "pending", "pending"),
    "running": ("status_running", "running", "running", "running"),
    "success": ("status_success", "passed", "passed", "success"),
    "failed": ("status_failed", "failed", "failed", "failed"),
    "canceling": ("status_canceled", "canceling", "canceling", "canceling"),
    "canceled": ("status_canceled", "canceled", "canceled", "canceled"),
    "skipped": ("status_skipped", "skipped", "skipped", "skipped"),
    "manual": ("status_manual", "blocked", "waiting for manual action", "manual"),
    "scheduled": ("status_scheduled", "delayed", "waiting for delayed job", "scheduled"),
}
_WARNING = ("status_warning", "warning", "passed with warnings", "success-with-warnings")


def web_url(state: SimState, pipeline: Pipeline, base_url: str) -> str:
    project = state.projects.get(pipeline.project_id)
    path = state.project_full_path(project) if project is not None else str(pipeline.project_id)
    return f"{base_url}/{path}/-/pipelines/{pipeline.id}"


def basic(ci: CiStore, pipeline: Pipeline, base_url: str) -> dict[str, Any]:
    """``PipelineBasicWithMetadata``: an item of the list."""
    return {
        "id": pipeline.id,
        "iid": pipeline.iid,
        "project_id": pipeline.project_id,
        "sha": pipeline.sha,
        "ref": pipeline.ref,
        "status": pipeline.status,
        "source": pipeline.source,
        "created_at": iso(pipeline.created_at),
        "updated_at": iso(pipeline.updated_at or pipeline.created_at),
        "web_url": web_url(ci.state, pipeline, base_url),
        "name": pipeline.name,
    }


def detail(ci: CiStore, pipeline: Pipeline, base_url: str, now: datetime, *, with_name: bool = True) -> dict[str, Any]:
    """``PipelineWithMetadata`` (one pipeline), or ``Pipeline`` without ``name`` (retry, cancel)."""
    body = basic(ci, pipeline, base_url)
    if not with_name:
        body.pop("name")
    user = ci.state.users.get(pipeline.user_id)
    started = pipeline.started_at
    body.update({
        "before_sha": pipeline.parent_sha,
        "tag": pipeline.tag,
        "yaml_errors": None,
        "user": user.brief(base_url) if user is not None else None,
        "started_at": iso(started),
        "finished_at": iso(pipeline.finished_at),
        "committed_at": None,
        "duration": duration(ci, pipeline),
        "queued_duration": queued_duration(pipeline),
        "coverage": _coverage(ci, pipeline),
        "detailed_status": _detailed_status(ci, pipeline, base_url),
    })
    return body


def queued_duration(pipeline: Pipeline) -> int | None:
    """``Ci::Pipeline#queued_duration``: ``(started_at - created_at).to_i``, nil before the pipeline
    started and when it is 0."""
    if pipeline.started_at is None:
        return None
    seconds = int((pipeline.started_at - pipeline.created_at).total_seconds())
    return seconds or None


def duration(ci: CiStore, pipeline: Pipeline) -> int | None:
    """Seconds some job of a finished pipeline was running (None while it is not finished)."""
    if pipeline.finished_at is None:
        return None
    periods = sorted((job.started_at, job.finished_at) for job in ci.pipeline_jobs(pipeline)
                     if job.started_at is not None and job.finished_at is not None)
    if not periods:
        return None
    total = 0.0
    start, end = periods[0]
    for begin, finish in periods[1:]:
        if begin > end:
            total += (end - start).total_seconds()
            start, end = begin, finish
        else:
            end = max(end, finish)
    total += (end - start).total_seconds()
    return int(total)


def _coverage(ci: CiStore, pipeline: Pipeline) -> str | None:
    values = [job.coverage for job in ci.pipeline_jobs(pipeline) if job.coverage is not None]
    return f"{sum(values) / len(values):.2f}" if values else None


def _detailed_status(ci: CiStore, pipeline: Pipeline, base_url: str) -> dict[str, Any]:
    warning = pipeline.status == "success" and with_warnings(ci.counts(pipeline))
    icon, text, label, group = _WARNING if warning else _DETAILED.get(pipeline.status, _DETAILED["created"])
    path = web_url(ci.state, pipeline, base_url)[len(base_url):]
    return {"icon": icon, "text": text, "label": label, "group": group, "tooltip": label, "has_details": True,
            "details_path": path, "illustration": None,
            "favicon": f"/assets/ci_favicons/favicon_{icon}.png"}


# --- the list ------------------------------------------------------------------------------------------


def filtered(ci: CiStore, project_id: int, params: Params) -> list[Pipeline]:
    """The project's pipelines that match the list's filters, in the requested order (validation
    errors as Grape words them)."""
    scope = params.choice("scope", SCOPES)
    status = params.choice("status", CURRENT_JOB_STATUSES)
    source = params.choice("source", SOURCES)
    order_by = params.choice("order_by", ORDER_BY, default="id") or "id"
    sort = params.choice("sort", ("asc", "desc"), default="desc") or "desc"
    bounds = {name: moment_param(params, name) for name in ("updated_after", "updated_before", "created_after",
                                                     "created_before")}
    yaml_errors = params.bool("yaml_errors")
    if yaml_errors:
        return []  # no pipeline of the simulator has YAML errors
    pipelines = ci.project_pipelines(project_id)
    if scope in ("branches", "tags"):
        # The newest pipeline of each branch (or tag).
        newest: dict[str, Pipeline] = {}
        for pipeline in pipelines:
            if pipeline.tag == (scope == "tags"):
                newest[pipeline.ref] = pipeline
        pipelines = sorted(newest.values(), key=lambda p: p.id)
    elif scope == "finished":
        pipelines = [p for p in pipelines if p.status in _FINISHED]
    elif scope is not None:
        pipelines = [p for p in pipelines if p.status == scope]
    checks: list[Callable[[Pipeline], bool]] = []
    if status is not None:
        checks.append(lambda p: p.status == status)
    for name in ("ref", "sha"):
        wanted = params.str(name)
        if wanted:
            checks.append(lambda p, name=name, wanted=wanted: getattr(p, name) == wanted)  # type: ignore[misc]
    if source is not None:
        checks.append(lambda p: p.source == source)
    pipeline_name = params.str("name")
    if pipeline_name:
        checks.append(lambda p: p.name == pipeline_name)
    username = params.str("username")
    if username:
        user = next((u for u in ci.state.users.values() if u.username == username), None)
        user_id = user.id if user is not None else -1
        checks.append(lambda p: p.user_id == user_id)
    _time_checks(checks, bounds)
    if checks:
        pipelines = [p for p in pipelines if all(check(p) for check in checks)]
    return _ordered(pipelines, order_by, sort)


def _time_checks(checks: list[Callable[[Pipeline], bool]], bounds: dict[str, datetime | None]) -> None:
    """``updated_after`` & co are strict (``updated_at > ?``), as the finder's scopes."""
    after, before = bounds["updated_after"], bounds["updated_before"]
    if after is not None:
        checks.append(lambda p: (p.updated_at or p.created_at) > after)
    if before is not None:
        checks.append(lambda p: (p.updated_at or p.created_at) < before)
    created_after, created_before = bounds["created_after"], bounds["created_before"]
    if created_after is not None:
        checks.append(lambda p: p.created_at > created_after)
    if created_before is not None:
        checks.append(lambda p: p.created_at < created_before)


def _ordered(pipelines: list[Pipeline], order_by: str, sort: str) -> list[Pipeline]:
    keys: dict[str, Callable[[Pipeline], Any]] = {
        "id": lambda p: p.id,
        "status": lambda p: (p.status, p.id),
        "ref": lambda p: (p.ref, p.id),
        "updated_at": lambda p: (p.updated_at or p.created_at, p.id),
        "user_id": lambda p: (p.user_id, p.id),
    }
    if order_by not in keys:
        raise invalid("order_by")
    return sorted(pipelines, key=keys[order_by], reverse=sort == "desc")
