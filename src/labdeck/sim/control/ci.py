"""CI part of the control surface (mounted under ``/-/sim`` by ``labdeck.sim.control.surface``).

- ``POST /-/sim/projects/{id}/pipelines`` with a JSON body::

      {"ref": "master", "stages": [{"name": "build", "jobs": [{"name": "compile", "tags": ["docker"],
        "when": "manual" | "on_success", "script_lines": ["make"], "fail": false, "duration": 90}]}]}

  creates a pipeline and answers 201 ``{"id", "iid", "project_id", "ref", "sha", "status", "jobs": [Job…]}``.
  Extra job keys: ``allow_failure``; ``artifacts`` (true, or ``"big"`` with ``artifact_bytes``);
  ``generate_trace: false`` (the log holds only appended bytes); ``trace_bytes`` + ``trace_rate``
  (a bulk log of that size growing that many bytes/s) or ``trace_lines`` (a bulk log of that many
  lines); ``duration: null`` runs until canceled; ``failure_reason`` (with ``fail``: e.g.
  ``runner_system_failure``); ``flaky`` (fails, passes on retry); ``failure_log: "image_pull"``
  (with ``fail``: the log is a failed pull of the job's image from ``registry.example.com``, reported
  as ``script_failure`` as the docker and kubernetes executors do); ``resource_group``; ``prepare``
  (passes through ``preparing``, gitlab dialect); ``when: delayed`` with ``start_in`` seconds (gitlab
  dialect only).

  ``"count": N`` expands one job spec into N jobs named ``<name>-0001`` … ``<name>-NNNN`` (four
  digits, more from 10,000 on); its ``"fail"`` and ``"allow_failure"`` are then ``true`` (every one),
  ``false``, or a list of 1-based indexes of the expanded jobs (``"fail": [1]``: only the first).

  Body keys ``sha``, ``title`` and ``user`` (a username; the admin calling when absent) say whose
  commit the pipeline runs and who started it: each pipeline is a new commit unless ``sha`` names
  one the project already ran (its title and author are kept unless given); ``source`` (``push``
  when absent) is what the pipelines API reports; ``name`` is the pipeline's ``workflow:name`` (none
  when absent).

  A pipeline whose first test job fails, 1,500 jobs::

      {"ref": "master", "stages": [
        {"name": "test", "jobs": [{"name": "unit", "count": 1200, "fail": [1], "duration": 30}]},
        {"name": "deploy", "jobs": [{"name": "deploy", "count": 300, "duration": 30}]}]}

  On the default shared runners (4 + 3 slots) its test stage takes about 90 simulated minutes;
  widen a runner (below) to run the stage at once.

- ``POST /-/sim/projects/{id}/jobs/{job_id}/trace``: appends the raw request body to the job's log;
  answers 201 ``{"id", "size"}``.
- ``PUT /-/sim/runners/{runner_id}`` JSON ``{"connected": bool, "concurrent": N, "failing": bool}``: a
  runner stops or resumes polling; ``concurrent`` sets how many jobs it runs at once (an autoscaling
  fleet for pipelines of thousands of jobs; the shared runners run 4 and 3); a failing runner fails
  every job it picks up (``runner_system_failure``).

Every route refuses non-loopback clients (404) and callers without an admin ``api`` token (403).
"""

from __future__ import annotations

import ipaddress
import json
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route

from labdeck.sim.ci.engine import JobSpec, StageSpec, store
from labdeck.sim.ci.model import Pipeline
from labdeck.sim.ci.pipelines import SOURCES
from labdeck.sim.ci.views import job_entity
from labdeck.sim.core.context import token_from
from labdeck.sim.core.dialect import is_gitlab
from labdeck.sim.core.state import SimState, User

_WHEN = ("on_success", "manual", "always", "on_failure")
_MAX_COUNT = 50_000


class _Refused(Exception):
    def __init__(self, status: int, body: dict[str, Any]) -> None:
        super().__init__(status)
        self.response = JSONResponse(body, status_code=status)


def _admin(request: Request) -> tuple[SimState, User]:
    """Loopback client with an admin ``api`` token, as for the rest of the control surface."""
    client = request.client
    host = client.host if client else ""
    try:
        loopback = ipaddress.ip_address(host).is_loopback
    except ValueError:
        loopback = host == "localhost"
    if not loopback:
        raise _Refused(404, {"error": "404 Not Found"})
    state: SimState = request.app.state.sim
    user, token = state.user_by_token(token_from(request))
    if user is None or token is None or not user.is_admin or token.read_only:
        raise _Refused(403, {"message": "403 Forbidden"})
    return state, user


def _job_specs(raw: Any, gitlab: bool) -> list[JobSpec]:
    """One job spec, or ``count`` of them."""
    if not isinstance(raw, dict) or "count" not in raw:
        return [_job_spec(raw, gitlab)]
    count = raw["count"]
    if not isinstance(count, int) or isinstance(count, bool) or not 1 <= count <= _MAX_COUNT:
        raise _Refused(400, {"error": f"count must be an integer from 1 to {_MAX_COUNT}"})
    picks = {name: _indexes(raw.get(name), name, count) for name in ("fail", "allow_failure")}
    width = max(4, len(str(count)))
    base = {key: value for key, value in raw.items() if key not in ("count", "fail", "allow_failure")}
    specs = []
    for index in range(1, count + 1):
        one = {**base, "name": f"{raw.get('name')}-{index:0{width}d}", "fail": index in picks["fail"]}
        if raw.get("allow_failure") is not None:
            one["allow_failure"] = index in picks["allow_failure"]
        specs.append(_job_spec(one, gitlab))
    return specs


def _indexes(value: Any, name: str, count: int) -> set[int]:
    """``true`` (all), ``false``/absent (none) or a list of 1-based indexes."""
    if value is None or value is False:
        return set()
    if value is True:
        return set(range(1, count + 1))
    if isinstance(value, list) and all(isinstance(i, int) and not isinstance(i, bool) and 1 <= i <= count
                                       for i in value):
        return set(value)
    raise _Refused(400, {"error": f"{name} must be true, false or a list of indexes from 1 to {count}"})


def _job_spec(raw: Any, gitlab: bool) -> JobSpec:
    if not isinstance(raw, dict) or not isinstance(raw.get("name"), str) or not raw["name"]:
        raise _Refused(400, {"error": "every job needs a name"})
    when = raw.get("when", "on_success")
    allowed = (*_WHEN, "delayed") if gitlab else _WHEN
    if when not in allowed:
        raise _Refused(400, {"error": "when does not have a valid value"})
    tags = raw.get("tags") or []
    lines = raw.get("script_lines") or raw.get("script") or []
    if not isinstance(tags, list) or not isinstance(lines, list):
        raise _Refused(400, {"error": "tags and script_lines must be arrays"})
    duration = raw.get("duration", 60)
    spec = JobSpec(name=raw["name"], tags=[str(t) for t in tags], when=when, script=[str(x) for x in lines],
                   fail=bool(raw.get("fail", False)), duration=None if duration is None else float(duration),
                   allow_failure=raw.get("allow_failure"))
    artifacts = raw.get("artifacts")
    if artifacts == "big" or raw.get("artifact_bytes"):
        spec.artifacts, spec.artifact_bytes = "big", int(raw.get("artifact_bytes") or 1024 * 1024)
    elif artifacts:
        spec.artifacts = "small"
    if raw.get("generate_trace") is False:
        spec.trace_kind = "none"
    if raw.get("trace_bytes") is not None or raw.get("trace_rate") is not None:
        spec.trace_kind = "bulk"
        spec.bulk_initial_bytes = int(raw.get("trace_bytes") or 0)
        spec.bulk_rate = float(raw.get("trace_rate") or 0)
    if raw.get("trace_lines"):
        spec.trace_kind, spec.bulk_lines = "bulk", int(raw["trace_lines"])
    spec.failure = str(raw["failure_reason"]) if raw.get("failure_reason") else None
    spec.flaky = bool(raw.get("flaky", False))
    if raw.get("failure_log") is not None:
        if raw["failure_log"] != "image_pull":
            raise _Refused(400, {"error": "failure_log must be \"image_pull\""})
        spec.failure_log = "image_pull"
    spec.resource_group = str(raw["resource_group"]) if raw.get("resource_group") else None
    spec.prepare = bool(raw.get("prepare", False))
    if when == "delayed":
        spec.start_in = float(raw.get("start_in") or 60)
    return spec


def _commit(state: SimState, earlier: list[Pipeline], body: dict[str, Any], admin: User) -> dict[str, Any]:
    """Who starts the pipeline and which commit it runs (``user``, ``sha``, ``title``, ``source``)."""
    user = admin
    if body.get("user") is not None:
        found = next((u for u in state.users.values() if u.username == str(body["user"])), None)
        if found is None:
            raise _Refused(400, {"error": f"no user {body['user']!r}"})
        user = found
    source = str(body.get("source") or "push")
    if source not in SOURCES:
        raise _Refused(400, {"error": "source does not have a valid value"})
    sha = str(body["sha"]) if body.get("sha") else None
    same = next((p for p in reversed(earlier) if sha is not None and p.sha == sha), None)
    title = str(body.get("title") or (same.commit_title if same else "Pipeline from the control surface"))
    author = user
    if same is not None and body.get("user") is None:
        author = next((u for u in state.users.values() if u.email == same.author_email), user)
    return {"user": user, "sha": sha, "title": title, "author": author, "source": source}


async def create_pipeline(request: Request) -> Response:
    """POST /-/sim/projects/{id}/pipelines (see the module docstring)."""
    try:
        state, user = _admin(request)
        try:
            body = json.loads(await request.body() or b"{}")
        except ValueError:
            raise _Refused(400, {"error": "body is not valid JSON"}) from None
        if not isinstance(body, dict) or not isinstance(body.get("stages"), list) or not body["stages"]:
            raise _Refused(400, {"error": "stages is missing"})
        stages = []
        for raw_stage in body["stages"]:
            if not isinstance(raw_stage, dict) or not raw_stage.get("name"):
                raise _Refused(400, {"error": "every stage needs a name"})
            jobs = [spec for raw in raw_stage.get("jobs") or [] for spec in _job_specs(raw, is_gitlab(state))]
            stages.append(StageSpec(str(raw_stage["name"]), jobs))
        state.tick()
        with state.lock:
            project = state.project_by_ref(str(request.path_params["id"]))
            if project is None:
                raise _Refused(404, {"message": "404 Project Not Found"})
            ci = store(state)
            now = state.now()
            pipeline = ci.create_pipeline(project, str(body.get("ref") or project.default_branch), stages,
                                          **_commit(state, ci.project_pipelines(project.id), body, user), at=now)
            pipeline.name = str(body["name"]) if body.get("name") else None
            base = f"{request.url.scheme}://{request.url.netloc}"
            created = sorted(ci.pipeline_jobs(pipeline), key=lambda j: j.id)
            answer = {**pipeline.brief(), "iid": pipeline.iid, "project_id": project.id,
                      "jobs": [job_entity(ci, job, base, now) for job in created]}
        return JSONResponse(answer, status_code=201)
    except _Refused as refused:
        return refused.response


async def append_trace(request: Request) -> Response:
    """POST /-/sim/projects/{id}/jobs/{job_id}/trace: append the raw body to the log."""
    try:
        state, _ = _admin(request)
        data = await request.body()
        state.tick()
        with state.lock:
            project = state.project_by_ref(str(request.path_params["id"]))
            if project is None:
                raise _Refused(404, {"message": "404 Project Not Found"})
            ci = store(state)
            try:
                job = ci.jobs.get(int(request.path_params["job_id"]))
            except ValueError:
                job = None
            if job is None or job.project_id != project.id:
                raise _Refused(404, {"message": "404 Not found"})
            size = ci.append_trace(job, data, state.now())
        return JSONResponse({"id": job.id, "size": size}, status_code=201)
    except _Refused as refused:
        return refused.response


async def set_runner(request: Request) -> Response:
    """PUT /-/sim/runners/{runner_id}: ``{"connected": bool, "concurrent": N}``."""
    try:
        state, _ = _admin(request)
        try:
            body = json.loads(await request.body() or b"{}")
        except ValueError:
            raise _Refused(400, {"error": "body is not valid JSON"}) from None
        state.tick()
        with state.lock:
            try:
                runner = state.runners.get(int(request.path_params["runner_id"]))
            except ValueError:
                runner = None
            if runner is None:
                raise _Refused(404, {"message": "404 Not found"})
            if isinstance(body, dict) and "concurrent" in body:
                concurrent = body["concurrent"]
                if not isinstance(concurrent, int) or isinstance(concurrent, bool) or not 1 <= concurrent <= 100_000:
                    raise _Refused(400, {"error": "concurrent must be an integer from 1 to 100000"})
                runner.concurrent = concurrent
            if isinstance(body, dict) and "failing" in body:
                runner.failing = bool(body["failing"])
            if isinstance(body, dict) and "connected" in body:
                runner.connected = bool(body["connected"])
                if runner.connected:
                    runner.contacted_at = state.now()
                elif runner.contacted_at is not None:
                    runner.contacted_at = min(runner.contacted_at, state.now())
            return JSONResponse({"id": runner.id, "connected": runner.connected, "concurrent": runner.concurrent,
                                 "failing": runner.failing,
                                 "status": runner.status(state.now(), gitlab=is_gitlab(state))})
    except _Refused as refused:
        return refused.response


def routes() -> list[BaseRoute]:
    """Routes added to the control surface."""
    return [
        Route("/projects/{id}/pipelines", create_pipeline, methods=["POST"]),
        Route("/projects/{id}/jobs/{job_id}/trace", append_trace, methods=["POST"]),
        Route("/runners/{runner_id}", set_runner, methods=["PUT"]),
    ]
