"""Bulk job actions without any UI: the plan (the dry run) and the run.

A plan lists, for each job it acts on, the exact request it will send (``POST
/projects/:id/jobs/:job_id/retry|cancel|play``) and the jobs it leaves out with the reason. On a
server with the pipelines API, retrying or canceling a whole pipeline is one request (``POST
/projects/:id/pipelines/:pipeline_id/retry|cancel``, a :class:`PipelineRequest`) that names the
jobs it acts on (:func:`through_pipeline`)::

    plan = plan_retry(job_targets(7, "platform/audit-log", jobs), action="pipeline.retry-failed",
                      scope="pipeline #12", pipeline_id=12)
    results = await run_plan(client, plan, on_result=show)

:func:`run_plan` sends the requests one at a time inside one audit context (every request of the
run shares its ``operation``), never re-sends anything, and reports each job as ``done``,
``refused`` (the server said no), ``unchanged`` (accepted, but the job had already moved on),
``unknown`` (no usable answer: the server may have applied it; the job is re-read, the request is
not sent again) or ``not reached`` (the run stopped before it: after an unknown outcome, when the
server cannot be reached or asks to slow down, or when the user stopped it).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from typing import Literal

from labdeck.api import ApiClient, errors
from labdeck.api.models import Job
from labdeck.audit.context import AuditTarget, audit_context
from labdeck.watch.pipelines import PipelineRow

BulkKind = Literal["retry", "cancel", "play"]

DONE, REFUSED, UNCHANGED, UNKNOWN, NOT_REACHED = "done", "refused", "unchanged", "unknown", "not reached"
OUTCOMES = (DONE, REFUSED, UNCHANGED, UNKNOWN, NOT_REACHED)
"""Every per-job outcome of a run, in the order summaries list them."""

RETRYABLE = frozenset({"failed", "canceled", "success"})
"""What the server retries; without marks only ``failed`` jobs are planned."""
CANCELABLE = frozenset({"created", "pending", "running", "preparing", "waiting_for_resource", "scheduled"})
"""Jobs a cancel stops (``manual`` ones are left alone: nothing runs)."""
PLAYABLE = frozenset({"manual"})

_VERBS: dict[BulkKind, tuple[str, str]] = {"retry": ("Retry", "retried"), "cancel": ("Cancel", "canceled"),
                                           "play": ("Play", "started")}


@dataclass(frozen=True)
class JobTarget:
    """One job and the project it belongs to (job records do not say)."""

    project_id: int
    project_path: str
    job: Job


def job_targets(project_id: int, project_path: str, jobs: Iterable[Job]) -> list[JobTarget]:
    """Jobs of one project as targets (the jobs table, the pipeline view)."""
    return [JobTarget(project_id, project_path, job) for job in jobs]


def pipeline_targets(rows: Iterable[PipelineRow]) -> list[JobTarget]:
    """Every job (newest try of each name) of the board's pipeline rows, as targets."""
    return [JobTarget(row.project_id, row.project_path, job) for row in rows for job in row.jobs]


@dataclass(frozen=True)
class PlannedRequest:
    """One request of a plan."""

    target: JobTarget
    kind: BulkKind
    method: str = "POST"

    @property
    def path(self) -> str:
        """The path under the API root, exactly as sent (the project by id)."""
        return f"/projects/{self.target.project_id}/jobs/{self.target.job.id}/{self.kind}"

    def describe(self) -> str:
        """``POST /projects/7/jobs/12/retry``."""
        return f"{self.method} {self.path}"


@dataclass(frozen=True)
class PipelineRequest:
    """One request on a whole pipeline (the pipelines API), and the jobs the server will act on:
    for a retry, the newest tries that failed or were canceled; for a cancel, every job that has
    not finished and is not manual."""

    project_id: int
    project_path: str
    pipeline_id: int
    kind: BulkKind
    jobs: tuple[JobTarget, ...]
    method: str = "POST"

    @property
    def path(self) -> str:
        """``/projects/7/pipelines/12/retry``."""
        return f"/projects/{self.project_id}/pipelines/{self.pipeline_id}/{self.kind}"

    def describe(self) -> str:
        """``POST /projects/7/pipelines/12/retry``."""
        return f"{self.method} {self.path}"


Request = PlannedRequest | PipelineRequest
"""Any request of a plan."""


def request_jobs(request: Request) -> tuple[JobTarget, ...]:
    """The jobs one request acts on."""
    return request.jobs if isinstance(request, PipelineRequest) else (request.target,)


def request_project(request: Request) -> str:
    """The path of the project a request goes to."""
    return request.project_path if isinstance(request, PipelineRequest) else request.target.project_path


@dataclass(frozen=True)
class LeftOut:
    """A job the plan does not act on, and why."""

    target: JobTarget
    reason: str


@dataclass(frozen=True)
class BulkPlan:
    """What a bulk action will send (see the module docstring)."""

    kind: BulkKind
    action: str
    """The audit log's ``action`` for every request (``pipeline.retry-failed`` …)."""
    requests: tuple[Request, ...]
    left_out: tuple[LeftOut, ...] = ()
    scope: str = ""
    """What the jobs were taken from, for the title: ``pipeline #12``, ``3 marked jobs``."""
    pipeline_id: int | None = None
    """The one pipeline every job belongs to, when there is one (audit target)."""
    note: str = ""
    """Said under the dry run: how the plan was made, when that is not obvious."""

    @property
    def jobs(self) -> tuple[JobTarget, ...]:
        """Every job the plan acts on, in request order."""
        return tuple(target for request in self.requests for target in request_jobs(request))

    @property
    def verb(self) -> str:
        """``Retry``, ``Cancel`` or ``Play``."""
        return _VERBS[self.kind][0]

    @property
    def title(self) -> str:
        """``Retry 3 jobs of pipeline #12``."""
        count = len(self.jobs)
        text = f"{self.verb} {count} job{'' if count == 1 else 's'}"
        return f"{text} of {self.scope}" if self.scope else text

    @property
    def project_paths(self) -> tuple[str, ...]:
        """The projects the requests go to, sorted."""
        return tuple(sorted({request_project(request) for request in self.requests}))


def _reason(kind: BulkKind, job: Job, marked: bool) -> str | None:
    """Why ``kind`` leaves ``job`` out, or None when it acts on it."""
    status = job.status or "unknown"
    if kind == "retry":
        if status == "failed" or (marked and status in RETRYABLE):
            return None
        if status in ("running", "canceling", "preparing"):
            return f"already {status}"
        if status == "manual":
            return "manual: has not run yet (play it instead)"
        if status in ("success", "canceled", "skipped"):
            return f"{status}, not failed" + (" (mark it to retry it anyway)" if status != "skipped" else "")
        return f"{status}: has not finished"
    if kind == "cancel":
        if status in CANCELABLE:
            return None
        if status == "canceling":
            return "already canceling"
        if status == "manual":
            return "manual: not started, nothing to cancel"
        return f"already {status}"
    if status in PLAYABLE:
        return None
    if status == "scheduled":
        return "scheduled: starts by itself"
    return f"not manual ({status})"


def _plan(kind: BulkKind, targets: Iterable[JobTarget], *, marked: bool, action: str | None, scope: str,
          pipeline_id: int | None) -> BulkPlan:
    unique: dict[tuple[int, int], JobTarget] = {}
    for target in targets:
        unique.setdefault((target.project_id, target.job.id), target)
    # An older try of a job that was retried since must not be acted on a second time.
    newest: dict[tuple[int, int | None, str], int] = {}
    for target in unique.values():
        job = target.job
        key = (target.project_id, job.pipeline.id if job.pipeline else None, job.name or f"#{job.id}")
        newest[key] = max(newest.get(key, job.id), job.id)
    requests: list[PlannedRequest] = []
    left_out: list[LeftOut] = []
    for target in unique.values():
        job = target.job
        key = (target.project_id, job.pipeline.id if job.pipeline else None, job.name or f"#{job.id}")
        reason = (f"older try: #{newest[key]} is newer" if newest[key] != job.id
                  else _reason(kind, job, marked))
        if reason is None:
            requests.append(PlannedRequest(target, kind))
        else:
            left_out.append(LeftOut(target, reason))
    if kind == "cancel":
        # Later jobs first: canceling a running job first would let the next stage's jobs start
        # (or be skipped) before their own cancel arrives.
        requests.reverse()
    return BulkPlan(kind, action or f"jobs.bulk-{kind}", tuple(requests), tuple(left_out), scope, pipeline_id)


def plan_retry(targets: Iterable[JobTarget], *, marked: bool = False, action: str | None = None,
               scope: str = "", pipeline_id: int | None = None) -> BulkPlan:
    """Retry every failed job of ``targets`` (``marked``: jobs the user picked, so canceled and
    successful ones are retried too)."""
    return _plan("retry", targets, marked=marked, action=action, scope=scope, pipeline_id=pipeline_id)


def plan_cancel(targets: Iterable[JobTarget], *, marked: bool = False, action: str | None = None,
                scope: str = "", pipeline_id: int | None = None) -> BulkPlan:
    """Cancel every job of ``targets`` that is created, pending, running or waiting (later jobs first)."""
    return _plan("cancel", targets, marked=marked, action=action, scope=scope, pipeline_id=pipeline_id)


def plan_play(targets: Iterable[JobTarget], *, marked: bool = False, action: str | None = None,
              scope: str = "", pipeline_id: int | None = None) -> BulkPlan:
    """Start every manual job of ``targets``."""
    return _plan("play", targets, marked=marked, action=action, scope=scope, pipeline_id=pipeline_id)


PLANNERS: dict[BulkKind, Callable[..., BulkPlan]] = {"retry": plan_retry, "cancel": plan_cancel, "play": plan_play}

PIPELINE_RETRIES = frozenset({"failed", "canceled"})
"""What a pipeline's retry retries (newest tries); a cancel stops :data:`CANCELABLE` jobs."""


def pipeline_endpoint_differs(plan: BulkPlan, latest: Iterable[Job]) -> str:
    """Why the pipeline endpoint would not do exactly what ``plan`` (a whole, unmarked pipeline)
    does, given the newest tries ``latest`` of its jobs; "" when it would."""
    planned = {request.target.job.id for request in plan.requests if isinstance(request, PlannedRequest)}
    acts = PIPELINE_RETRIES if plan.kind == "retry" else CANCELABLE
    extra = [job for job in latest if (job.status or "") in acts and job.id not in planned]
    if plan.kind == "play" or not extra:
        return "" if plan.kind != "play" else "the pipelines API has no play"
    statuses = sorted({job.status or "?" for job in extra})
    return (f"the pipeline's own {plan.kind} would also act on {len(extra)} "
            f"{'/'.join(statuses)} job{'' if len(extra) == 1 else 's'}")


def through_pipeline(plan: BulkPlan, project_id: int, project_path: str, pipeline_id: int) -> BulkPlan:
    """``plan`` (every job to retry or cancel in one pipeline) as one request to the pipeline's
    endpoint, naming the same jobs."""
    targets = tuple(target for request in plan.requests for target in request_jobs(request))
    request = PipelineRequest(project_id, project_path, pipeline_id, plan.kind, targets)
    note = "One request for the whole pipeline (the server has the pipelines API); it acts on these jobs:"
    return replace(plan, requests=(request,), note=f"{plan.note} {note}" if plan.note else note)


# --- the run ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class JobResult:
    """What became of one planned request."""

    request: Request
    outcome: str
    """One of :data:`OUTCOMES`."""
    detail: str
    status: int | None = None
    """The HTTP status of a refusal."""
    job: Job | None = None
    """The job as the server answered (for a retry: the NEW job), or as re-read after an unknown
    outcome."""


@dataclass(frozen=True)
class BulkOutcome:
    """What a bulk dialog returns to its caller."""

    plan: BulkPlan
    results: tuple[JobResult, ...]

    def count(self, outcome: str) -> int:
        """How many jobs ended with ``outcome``."""
        return sum(1 for result in self.results if result.outcome == outcome)

    def summary(self) -> str:
        """``2 done, 1 refused``."""
        return summarise(self.results)


def summarise(results: Sequence[JobResult]) -> str:
    """``2 done, 1 refused, 1 unknown`` (outcomes that occurred, in :data:`OUTCOMES` order)."""
    counts = {outcome: sum(1 for result in results if result.outcome == outcome) for outcome in OUTCOMES}
    return ", ".join(f"{count} {outcome}" for outcome, count in counts.items() if count) or "nothing sent"


def _done(request: PlannedRequest, answer: Job) -> JobResult:
    kind = request.kind
    if kind == "retry":
        return JobResult(request, DONE, f"retried as #{answer.id} ({answer.status})", job=answer)
    status = answer.status or "?"
    if kind == "cancel" and status not in ("canceled", "canceling"):
        return JobResult(request, UNCHANGED, f"not canceled: it was already {status} when the request arrived",
                         job=answer)
    if kind == "play" and status == "manual":
        return JobResult(request, UNCHANGED, "not started: the server left it manual", job=answer)
    return JobResult(request, DONE, f"{_VERBS[kind][1]} (now {status})", job=answer)


async def _newer_try(client: ApiClient, request: PlannedRequest) -> Job | None:
    """After a retry with no answer: a newer try of the same job in its pipeline, if one exists."""
    job = request.target.job
    if job.pipeline is None or job.pipeline.id is None:
        return None
    jobs = await client.jobs.list(request.target.project_id, pipeline_id=job.pipeline.id).all()
    newer = [other for other in jobs if other.name == job.name and other.id > job.id]
    return max(newer, key=lambda other: other.id) if newer else None


async def _reread(client: ApiClient, request: PlannedRequest) -> tuple[Job | None, str]:
    """The job's real state after an unknown outcome (GETs only: reads are safe to repeat)."""
    target = request.target
    try:
        current = await client.jobs.get(target.project_id, target.job.id)
        note = f"Re-read: it is now {current.status}."
        if request.kind == "retry":
            newer = await _newer_try(client, request)
            note += (f" Newer try #{newer.id} ({newer.status}) exists: the retry went through." if newer
                     else " No newer try exists: the retry was probably not applied.")
    except errors.ApiError as exc:
        return None, f"Could not re-read it: {exc.user_message()}"
    return current, note


async def _reread_pipeline(client: ApiClient, request: PipelineRequest) -> str:
    """The pipeline's state after an unknown outcome (a GET: safe to repeat)."""
    try:
        current = await client.pipelines.get(request.project_id, request.pipeline_id)
    except errors.ApiError as exc:
        return f"Could not re-read it: {exc.user_message()}"
    return f"Re-read: the pipeline is now {current.status}."


def _lost(exc: errors.OutcomeUnknown, note: str) -> str:
    """What a result says of a request whose answer was lost (it is never sent again)."""
    status = f"{exc.status} " if isinstance(exc, errors.HttpError) else ""
    reason = " ".join(f"{status}{exc.message}".split())[:80]
    return f"no usable answer ({reason}): the server may have applied it. It will not be sent again. {note}"


def _not_applied(request: Request, exc: errors.ApiError) -> tuple[JobResult, str | None]:
    """A request the server refused or that never left, and why the run must stop after it (None:
    go on). The engine raises TransportError for a change only when it certainly never left."""
    if isinstance(exc, errors.RateLimited | errors.Unauthorized):
        return (JobResult(request, REFUSED, f"{exc.status}: {exc.user_message()}", status=exc.status),
                "stopped: the server refuses further requests for now")
    if isinstance(exc, errors.HttpError):
        return JobResult(request, REFUSED, f"{exc.status}: {exc.message}", status=exc.status), None
    if isinstance(exc, errors.ReadOnlyError):
        return JobResult(request, NOT_REACHED, "read-only mode: not sent"), "stopped: read-only mode"
    if isinstance(exc, errors.AuditUnavailable):  # refused before it left: not "accepted"
        return JobResult(request, NOT_REACHED, exc.user_message()), "stopped: changes cannot be recorded"
    return (JobResult(request, NOT_REACHED, f"not sent: {exc.user_message()}"),
            "stopped: the server cannot be reached")


async def _send_pipeline(client: ApiClient, request: PipelineRequest) -> tuple[JobResult, str | None]:
    """Send one pipeline request (see :func:`_send`)."""
    method = client.pipelines.retry if request.kind == "retry" else client.pipelines.cancel
    try:
        answer = await method(request.project_id, request.pipeline_id)
    except errors.OutcomeUnknown as exc:
        note = await _reread_pipeline(client, request)
        return JobResult(request, UNKNOWN, _lost(exc, note)), "stopped after an answer that was lost"
    except (errors.HttpError, errors.ReadOnlyError, errors.AuditUnavailable, errors.TransportError) as exc:
        return _not_applied(request, exc)
    except errors.ApiError as exc:  # a 2xx whose body did not parse: it was applied
        note = await _reread_pipeline(client, request)
        return JobResult(request, DONE, f"accepted, answer unreadable ({exc.user_message()}). {note}"), None
    count = len(request.jobs)
    return JobResult(request, DONE, f"pipeline {_VERBS[request.kind][1]} ({count} job{'' if count == 1 else 's'}); "
                                    f"it is now {answer.status}"), None


async def _send(client: ApiClient, request: Request) -> tuple[JobResult, str | None]:
    """Send one request; the result, and why the run must stop after it (None: go on)."""
    if isinstance(request, PipelineRequest):
        return await _send_pipeline(client, request)
    target = request.target
    method = {"retry": client.jobs.retry, "cancel": client.jobs.cancel, "play": client.jobs.play}[request.kind]
    try:
        answer = await method(target.project_id, target.job.id)
    except errors.OutcomeUnknown as exc:  # before HttpError: an ambiguous 5xx is both
        current, note = await _reread(client, request)
        return JobResult(request, UNKNOWN, _lost(exc, note), job=current), "stopped after an answer that was lost"
    except (errors.HttpError, errors.ReadOnlyError, errors.AuditUnavailable, errors.TransportError) as exc:
        return _not_applied(request, exc)
    except errors.ApiError as exc:  # a 2xx whose body did not parse: it was applied
        current, note = await _reread(client, request)
        return JobResult(request, DONE, f"accepted, answer unreadable ({exc.user_message()}). {note}",
                         job=current), None
    return _done(request, answer), None


async def run_plan(client: ApiClient, plan: BulkPlan, *, confirmation: str = "dialog",
                   on_sending: Callable[[Request], None] | None = None,
                   on_result: Callable[[JobResult], None] | None = None,
                   stop: Callable[[], bool] | None = None) -> list[JobResult]:
    """Send the plan's requests one by one (see the module docstring); ``stop()`` is asked before
    each request (True: the rest are ``not reached``). Every request is sent at most once."""
    results: list[JobResult] = []
    halted: str | None = None
    single = plan.project_paths[0] if len(plan.project_paths) == 1 else None
    outer = AuditTarget(project=single, pipeline=plan.pipeline_id)
    with audit_context(action=plan.action, target=outer, confirmation=confirmation):
        for request in plan.requests:
            if halted is None and stop is not None and stop():
                halted = "stopped by you before it was sent"
            if halted is not None:
                result = JobResult(request, NOT_REACHED, halted)
            else:
                if on_sending is not None:
                    on_sending(request)
                # Each job names its own project: a board plan spans several.
                inner = (AuditTarget(project=request.project_path, pipeline=request.pipeline_id)
                         if isinstance(request, PipelineRequest)
                         else AuditTarget(project=request.target.project_path, job=request.target.job.id))
                with audit_context(target=inner):
                    result, halted = await _send(client, request)
            results.append(result)
            if on_result is not None:
                on_result(result)
    return results
