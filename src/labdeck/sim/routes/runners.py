"""Runner endpoints (lib/api/runners.rb, 10.x): lists, details, updates, removal, job lists, and
enabling/disabling specific runners in a project.

In the gitlab dialect they follow current ``lib/api/ci/runners.rb``: lists take ``scope`` (more
values), ``type``, ``status``, ``paused`` and ``tag_list``; PUT takes ``paused`` (the opposite of the
deprecated ``active``) and ``maintenance_note``; a runner's job list filters on any job status.
"""

from __future__ import annotations

from typing import Any

from starlette.routing import BaseRoute, Route

from labdeck.sim.ci.engine import CiStore, store
from labdeck.sim.ci.model import CURRENT_JOB_STATUSES, RUNNER_JOB_STATUSES, Runner, runner_detail
from labdeck.sim.ci.views import runner_job_entity
from labdeck.sim.core.context import Ctx, endpoint
from labdeck.sim.core.dialect import is_gitlab
from labdeck.sim.core.http import (
    ApiError,
    bad_request,
    conflict,
    forbidden,
    invalid,
    not_found,
    paginate,
    record_not_found,
)
from labdeck.sim.core.state import MAINTAINER, Project, User

_USER_SCOPES = ("active", "paused", "online")
_ALL_SCOPES = ("specific", "shared", "active", "paused", "online")
_ACCESS_LEVELS = ("not_protected", "ref_protected")
# Current GitLab (Ci::Runner::AVAILABLE_STATUSES, AVAILABLE_TYPES, AVAILABLE_SCOPES).
_CURRENT_STATUSES = ("active", "paused", "online", "offline", "never_contacted", "stale")
_CURRENT_TYPES = ("instance_type", "group_type", "project_type")
_CURRENT_ALL_SCOPES = ("specific", "shared", *_CURRENT_TYPES, *_CURRENT_STATUSES)
_UPDATE_PARAMS = ("description", "active", "tag_list", "run_untagged", "locked", "access_level", "maximum_timeout")
_CURRENT_UPDATE_PARAMS = ("description", "active", "paused", "tag_list", "run_untagged", "locked", "access_level",
                          "maximum_timeout", "maintenance_note")


def _owned_runner_ids(ctx: Ctx, user: User) -> set[int]:
    """``current_user.ci_authorized_runners``: specific runners of projects the user maintains."""
    state = ctx.state
    maintained = {p.id for p in state.projects.values()
                  if not p.deleted and state.access_level(user, p) >= MAINTAINER}
    return {r.id for r in state.runners.values() if not r.is_shared and maintained & set(r.project_ids)}


def _filter(ctx: Ctx, runners: list[Runner], allowed: tuple[str, ...]) -> list[Runner]:
    """The 10.x ``scope`` filter (400 ``Scope contains invalid value``)."""
    scope = ctx.params.str("scope")
    if scope is None:
        return runners
    if scope not in allowed:
        raise bad_request("Scope contains invalid value")
    now = ctx.state.now()
    checks = {
        "specific": lambda r: not r.is_shared,
        "shared": lambda r: r.is_shared,
        "active": lambda r: r.active,
        "paused": lambda r: not r.active,
        "online": lambda r: r.online(now),
    }
    return [r for r in runners if checks[scope](r)]


def _current_check(name: str, runner: Runner, now: Any) -> bool:
    """Current GitLab's runner scopes; ``online``/``offline`` look at contact only (a paused runner
    can be online) and ``offline`` includes stale runners."""
    if name in ("shared", "instance_type"):
        return runner.is_shared
    if name in ("specific", "project_type"):
        return not runner.is_shared
    if name == "group_type":
        return False
    if name == "active":
        return runner.active
    if name == "paused":
        return not runner.active
    if name == "online":
        return runner.online(now, gitlab=True)
    if name == "offline":
        return runner.contacted_at is not None and not runner.online(now, gitlab=True)
    if name == "never_contacted":
        return runner.contacted_at is None
    return runner.stale(now)


def _current_filter(ctx: Ctx, runners: list[Runner], scopes: tuple[str, ...]) -> list[Runner]:
    """``scope``, ``type``, ``status``, ``paused`` and ``tag_list`` (gitlab dialect)."""
    params = ctx.params
    now = ctx.state.now()
    wanted = [params.choice("scope", scopes), params.choice("type", _CURRENT_TYPES),
              params.choice("status", _CURRENT_STATUSES)]
    for name in wanted:
        if name is not None:
            runners = [r for r in runners if _current_check(name, r, now)]
    paused = params.bool("paused")
    if paused is not None:
        runners = [r for r in runners if r.active != paused]
    tags = _tag_list(params.list("tag_list"))
    if tags:
        runners = [r for r in runners if set(tags) <= set(r.tags)]
    return runners


def _select(ctx: Ctx, runners: list[Runner], spec_scopes: tuple[str, ...], current_scopes: tuple[str, ...]) -> list[Runner]:
    if is_gitlab(ctx.state):
        return _current_filter(ctx, runners, current_scopes)
    return _filter(ctx, runners, spec_scopes)


def _get_runner(ctx: Ctx, name: str = "runner_id") -> Runner:
    runner_id = ctx.path_int(name)
    runner = ctx.state.runners.get(runner_id)
    if runner is None:
        raise record_not_found()
    return runner


def _check_access(ctx: Ctx, user: User, runner: Runner) -> None:
    if runner.id not in _owned_runner_ids(ctx, user):
        raise forbidden("No access granted")


def _managed_runner(ctx: Ctx, user: User) -> Runner:
    """The runner of the path, if the caller may change it: admins any, others the specific
    runners of projects they maintain (403 otherwise, as GitLab's ``authenticate_update_runner!``)."""
    runner = _get_runner(ctx)
    if not user.is_admin:
        if runner.is_shared:
            raise forbidden("Runner is shared")
        _check_access(ctx, user, runner)
    return runner


def _summaries(ctx: Ctx, runners: list[Runner]) -> Any:
    now = ctx.state.now()
    gitlab = is_gitlab(ctx.state)
    items, headers = paginate(ctx.request, ctx.params, sorted(runners, key=lambda r: r.id))
    return [r.summary(now, gitlab=gitlab) for r in items], 200, headers


def _detail(ctx: Ctx, runner: Runner, user: User) -> dict[str, Any]:
    return runner_detail(ctx.state, runner, user, ctx.state.now(), gitlab=is_gitlab(ctx.state))


@endpoint(auth=True)
async def list_runners(ctx: Ctx) -> Any:
    """GET /runners: specific runners of projects the caller maintains (scope active|paused|online)."""
    user = ctx.require_user()
    owned = _owned_runner_ids(ctx, user)
    runners = [ctx.state.runners[rid] for rid in owned]
    return _summaries(ctx, _select(ctx, runners, _USER_SCOPES, _CURRENT_STATUSES))


@endpoint(auth=True)
async def list_all_runners(ctx: Ctx) -> Any:
    """GET /runners/all (admin): every runner (scope specific|shared|active|paused|online)."""
    ctx.require_admin()
    return _summaries(ctx, _select(ctx, list(ctx.state.runners.values()), _ALL_SCOPES, _CURRENT_ALL_SCOPES))


@endpoint(auth=True)
async def get_runner(ctx: Ctx) -> Any:
    """GET /runners/:id: the detail view; shared runners are visible to everyone."""
    user = ctx.require_user()
    runner = _get_runner(ctx)
    if not (runner.is_shared or user.is_admin):
        _check_access(ctx, user, runner)
    return _detail(ctx, runner, user)


def _active_update(ctx: Ctx, updates: dict[str, Any]) -> None:
    """``active`` (10.x) and, in the gitlab dialect, ``paused`` (mutually exclusive)."""
    params = ctx.params
    if is_gitlab(ctx.state) and params.has("paused"):
        if params.has("active"):
            raise ApiError(400, {"error": "active, paused are mutually exclusive"})
        paused = params.bool("paused")
        if paused is not None:
            updates["active"] = not paused
    elif params.has("active"):
        updates["active"] = params.bool("active")


@endpoint(auth=True)
async def update_runner(ctx: Ctx) -> Any:
    """PUT /runners/:id: change settings; ``tag_list`` replaces the tags."""
    user = ctx.require_user()
    runner = _managed_runner(ctx, user)
    params = ctx.params
    gitlab = is_gitlab(ctx.state)
    access_level = params.str("access_level")
    if access_level is not None and access_level not in _ACCESS_LEVELS:
        raise invalid("access_level")
    updates: dict[str, Any] = {}
    if params.has("description"):
        updates["description"] = params.str("description") or ""
    _active_update(ctx, updates)
    if gitlab and params.has("maintenance_note"):
        updates["maintenance_note"] = params.str("maintenance_note")
    if params.has("tag_list"):
        updates["tags"] = _tag_list(params.list("tag_list"))
    if params.has("run_untagged"):
        updates["run_untagged"] = params.bool("run_untagged")
    if params.has("locked"):
        updates["locked"] = params.bool("locked")
    if access_level is not None:
        updates["access_level"] = access_level
    if params.has("maximum_timeout"):
        timeout = params.int("maximum_timeout")
        if timeout is not None and timeout < 600:
            raise bad_request({"maximum_timeout": ["needs to be at least 10 minutes"]})
        updates["maximum_timeout"] = timeout
    if not updates:
        names = ", ".join(_CURRENT_UPDATE_PARAMS if gitlab else _UPDATE_PARAMS)
        raise ApiError(400, {"error": f"{names} are missing, at least one parameter must be provided"})
    tags = updates.get("tags", runner.tags)
    untagged = updates.get("run_untagged", runner.run_untagged)
    if not tags and not untagged:
        raise bad_request({"tags_list": ["can not be empty when runner is not allowed to pick untagged jobs"]})
    for key, value in updates.items():
        setattr(runner, key, value)
    return _detail(ctx, runner, user)


def _tag_list(values: list[Any]) -> list[str]:
    tags: list[str] = []
    for value in values:
        for part in str(value).split(","):
            part = part.strip()
            if part and part not in tags:
                tags.append(part)
    return tags


@endpoint(auth=True)
async def delete_runner(ctx: Ctx) -> Any:
    """DELETE /runners/:id → 204."""
    user = ctx.require_user()
    runner = _get_runner(ctx)
    if not user.is_admin:
        if runner.is_shared:
            raise forbidden("Runner is shared")
        if len(runner.project_ids) > 1:
            raise forbidden("Runner associated with more than one project")
        _check_access(ctx, user, runner)
    ci = store(ctx.state)
    del ctx.state.runners[runner.id]
    for job in ci.jobs.values():
        if job.runner_id == runner.id and job.status == "running":
            ci.cancel(job, ctx.state.now())
    return None, 204


@endpoint(auth=True)
async def runner_jobs(ctx: Ctx) -> Any:
    """GET /runners/:id/jobs (status running|success|failed|canceled, or any job status in the
    gitlab dialect), newest first."""
    user = ctx.require_user()
    runner = _managed_runner(ctx, user)
    statuses = CURRENT_JOB_STATUSES if is_gitlab(ctx.state) else RUNNER_JOB_STATUSES
    status = ctx.params.choice("status", statuses)
    ci = store(ctx.state)
    jobs = [j for j in ci.jobs.values() if j.runner_id == runner.id and (status is None or j.status == status)]
    jobs.sort(key=lambda j: j.id, reverse=True)
    items, headers = paginate(ctx.request, ctx.params, jobs)
    now = ctx.state.now()
    return [runner_job_entity(ci, job, ctx.base_url, now) for job in items], 200, headers


# --- project runners --------------------------------------------------------------------------------


def _maintained_project(ctx: Ctx) -> Project:
    project = ctx.project()
    if not ctx.state.can_maintain(ctx.user, project):
        raise forbidden()
    return project


def _project_runners(ci: CiStore, project: Project) -> list[Runner]:
    runners = [r for r in ci.runners.values() if not r.is_shared and project.id in r.project_ids]
    if project.settings.get("shared_runners_enabled", True):
        runners += [r for r in ci.runners.values() if r.is_shared]
    return runners


@endpoint(auth=True)
async def list_project_runners(ctx: Ctx) -> Any:
    """GET /projects/:id/runners: specific runners, plus shared ones when enabled."""
    project = _maintained_project(ctx)
    runners = _project_runners(store(ctx.state), project)
    return _summaries(ctx, _select(ctx, runners, _ALL_SCOPES, _CURRENT_ALL_SCOPES))


@endpoint(auth=True)
async def enable_project_runner(ctx: Ctx) -> Any:
    """POST /projects/:id/runners: enable a specific runner here (201 summary)."""
    project = _maintained_project(ctx)
    user = ctx.require_user()
    runner_id = ctx.params.int("runner_id", required=True)
    runner = ctx.state.runners.get(runner_id) if runner_id is not None else None
    if runner is None:
        raise record_not_found()
    if runner.is_shared:
        raise forbidden("Runner is shared")
    if project.id in runner.project_ids:
        raise conflict("Runner was already enabled for this project")
    if runner.locked:
        raise forbidden("Runner is locked")
    if not user.is_admin:
        _check_access(ctx, user, runner)
    runner.project_ids.append(project.id)
    return runner.summary(ctx.state.now(), gitlab=is_gitlab(ctx.state)), 201


@endpoint(auth=True)
async def disable_project_runner(ctx: Ctx) -> Any:
    """DELETE /projects/:id/runners/:runner_id → 204, unless it is the runner's only project."""
    project = _maintained_project(ctx)
    runner = ctx.state.runners.get(ctx.path_int("runner_id"))
    if runner is None or project.id not in runner.project_ids:
        raise not_found("Runner")
    if len(runner.project_ids) == 1:
        raise forbidden("Only one project associated with the runner. Please remove the runner instead")
    runner.project_ids.remove(project.id)
    return None, 204


def routes() -> list[BaseRoute]:
    """The runner routes (more specific paths first)."""
    return [
        Route("/runners", list_runners, methods=["GET"]),
        Route("/runners/all", list_all_runners, methods=["GET"]),
        Route("/runners/{runner_id}/jobs", runner_jobs, methods=["GET"]),
        Route("/runners/{runner_id}", get_runner, methods=["GET"]),
        Route("/runners/{runner_id}", update_runner, methods=["PUT"]),
        Route("/runners/{runner_id}", delete_runner, methods=["DELETE"]),
        Route("/projects/{id}/runners", list_project_runners, methods=["GET"]),
        Route("/projects/{id}/runners", enable_project_runner, methods=["POST"]),
        Route("/projects/{id}/runners/{runner_id}", disable_project_runner, methods=["DELETE"]),
    ]
