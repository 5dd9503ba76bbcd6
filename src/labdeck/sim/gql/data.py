"""Resolvers of the GraphQL schema, over the same records the REST API serves.

A pipeline here is the REST API's pipeline (same id, iid, status, ``updated_at``); the job counts of
``Pipeline.jobs(statuses:, retried:) { count }`` come from the CI store's per-pipeline tallies, so a
job failing deep in a 1,500-job pipeline is counted the moment the store records it, at the cost of
a few dictionary reads. Projects are those the caller may read (``ProjectsFinder``: public, internal
for a signed-in user, member projects; every one for an admin), newest id first unless ``sort``
says otherwise, in pages of at most 100 (``default_max_page_size``) with keyset-style cursors
(base64 of ``{"id":"123"}``).
"""

from __future__ import annotations

import base64
import json
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from graphql import GraphQLError, GraphQLResolveInfo

from labdeck.sim.ci.engine import CiStore
from labdeck.sim.ci.model import Job, Pipeline
from labdeck.sim.ci.pipelines import duration, queued_duration
from labdeck.sim.ci.status import with_warnings
from labdeck.sim.core.state import GUEST, Project, SimState, User

MAX_PAGE_SIZE = 100  # GitlabSchema.default_max_page_size
MAX_FULL_PATHS = 50  # Resolvers::ProjectsResolver#validate_args!
_ACTIVE = frozenset({"preparing", "pending", "running", "waiting_for_resource", "waiting_for_callback", "created",
                     "scheduled", "canceling"})
_FINISHED = frozenset({"success", "failed", "canceled"})
_GID = re.compile(r"gid://gitlab/([A-Za-z:]+)/(\d+)")


@dataclass
class Viewer:
    """What every resolver reads: the data, the caller, and the request's complexity."""

    state: SimState
    ci: CiStore
    user: User | None
    base_url: str
    limit: int = 0
    score: int = 0
    paths: dict[int, str] = field(default_factory=dict)

    def full_path(self, project: Project) -> str:
        """The project's full path (cached for the request: a page asks for it several times)."""
        path = self.paths.get(project.id)
        if path is None:
            path = self.paths[project.id] = self.state.project_full_path(project)
        return path


def _viewer(info: GraphQLResolveInfo) -> Viewer:
    viewer: Viewer = info.context
    return viewer


def time_text(moment: datetime | None) -> str | None:
    """GitLab's ``Time``: ``Time#iso8601`` in UTC (``2026-11-02T09:00:00Z``)."""
    if moment is None:
        return None
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def parse_time(value: Any, name: str) -> datetime | None:
    """A ``Time`` argument (ISO 8601; UTC when it names no zone)."""
    if value is None:
        return None
    try:
        moment = datetime.fromisoformat(str(value).replace("Z", "+00:00"))
    except ValueError:
        raise GraphQLError(f"{name}: {value!r} is not a valid ISO 8601 time") from None
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


def gid(model: str, number: int) -> str:
    """A GitLab global id: ``gid://gitlab/Project/1``."""
    return f"gid://gitlab/{model}/{number}"


def parse_gid(value: str, model: str) -> int:
    """The number of a global id of ``model``, or GitLab's ``ArgumentError`` text."""
    match = _GID.fullmatch(str(value))
    if match is None:
        raise GraphQLError(f"{value} is not a valid GitLab ID.")
    if match.group(1) != model:
        raise GraphQLError(f"{value} is not a valid ID for {model}.")
    return int(match.group(2))


# --- pages -----------------------------------------------------------------------------------------


def _cursor(number: int) -> str:
    return base64.b64encode(json.dumps({"id": str(number)}, separators=(",", ":")).encode()).decode()


def _cursor_id(cursor: str | None) -> int | None:
    if cursor is None:
        return None
    try:
        return int(json.loads(base64.b64decode(cursor.encode(), validate=True))["id"])
    except (ValueError, KeyError, TypeError):
        raise GraphQLError("Please provide a valid cursor") from None


@dataclass
class Page:
    """One page of a connection: its items, whether more follow or precede, and the total (read
    only when ``count`` is asked for)."""

    items: list[Any]
    has_next: bool
    has_previous: bool
    key: Callable[[Any], int]
    total: Callable[[], int]
    extra: dict[str, Any] = field(default_factory=dict)

    def page_info(self) -> dict[str, Any]:
        return {"hasNextPage": self.has_next, "hasPreviousPage": self.has_previous,
                "startCursor": _cursor(self.key(self.items[0])) if self.items else None,
                "endCursor": _cursor(self.key(self.items[-1])) if self.items else None}

    def edges(self) -> list[dict[str, Any]]:
        return [{"cursor": _cursor(self.key(item)), "node": item} for item in self.items]


def paged(ordered: Iterable[Any], key: Callable[[Any], int], args: dict[str, Any],
          total: Callable[[], int]) -> Page:
    """Slice ``ordered`` for ``first``/``after``/``last``/``before`` (at most 100 items); reads only
    as far into ``ordered`` as the page needs when going forward."""
    first, last = args.get("first"), args.get("last")
    if (first is not None and first < 0) or (last is not None and last < 0):
        raise GraphQLError("Argument 'first' on Field must be a non-negative integer" if first is not None and first < 0
                           else "Argument 'last' on Field must be a non-negative integer")
    after, before = _cursor_id(args.get("after")), _cursor_id(args.get("before"))
    iterator: Iterator[Any] = iter(ordered)
    has_previous = False
    if after is not None:
        for item in iterator:
            if key(item) == after:
                has_previous = True
                break
    if before is not None or last is not None:
        rest = []
        for item in iterator:
            if before is not None and key(item) == before:
                break
            rest.append(item)
        size = min(last if last is not None else MAX_PAGE_SIZE, MAX_PAGE_SIZE)
        if first is not None:
            rest = rest[:min(first, MAX_PAGE_SIZE)]
        items = rest[-size:] if size else []
        return Page(items, before is not None, has_previous or len(rest) > len(items), key, total)
    size = min(first if first is not None else MAX_PAGE_SIZE, MAX_PAGE_SIZE)
    items = []
    has_next = False
    for item in iterator:
        if len(items) == size:
            has_next = True
            break
        items.append(item)
    return Page(items, has_next, has_previous, key, total)


# --- query -----------------------------------------------------------------------------------------


def _current_user(_: Any, info: GraphQLResolveInfo) -> dict[str, Any] | None:
    user = _viewer(info).user
    if user is None:
        return None
    return {"id": gid("User", user.id), "username": user.username, "name": user.name}


def _query_complexity(_: Any, info: GraphQLResolveInfo) -> dict[str, int]:
    viewer = _viewer(info)
    return {"limit": viewer.limit, "score": viewer.score}


def _project(_: Any, info: GraphQLResolveInfo, fullPath: str) -> Project | None:
    viewer = _viewer(info)
    if "/" not in fullPath:
        return None
    project = viewer.state.project_by_ref(fullPath)
    if project is None or not viewer.state.can_read(viewer.user, project):
        return None
    return project


_PROJECT_SORTS: dict[str, tuple[Callable[[Project], Any], bool]] = {
    "id_desc": (lambda p: p.id, True),
    "id_asc": (lambda p: p.id, False),
    "name_asc": (lambda p: (p.name.lower(), p.id), False),
    "name_desc": (lambda p: (p.name.lower(), p.id), True),
    "created_asc": (lambda p: (p.created_at, p.id), False),
    "created_desc": (lambda p: (p.created_at, p.id), True),
    "latest_activity_asc": (lambda p: (p.last_activity_at, p.id), False),
    "latest_activity_desc": (lambda p: (p.last_activity_at, p.id), True),
}


def _projects(_: Any, info: GraphQLResolveInfo, **args: Any) -> Page:
    """``Query.projects``: ``ids`` (global ids), ``fullPaths`` (at most 50), ``membership``,
    ``search``, ``sort``."""
    viewer = _viewer(info)
    state, user = viewer.state, viewer.user
    full_paths = args.get("fullPaths")
    if full_paths is not None and len(full_paths) > MAX_FULL_PATHS:
        raise GraphQLError(f"You cannot provide more than {MAX_FULL_PATHS} full_paths")
    candidates: Iterable[Project]
    if args.get("ids") is not None:
        wanted = {parse_gid(value, "Project") for value in args["ids"]}
        candidates = [state.projects[n] for n in wanted if n in state.projects]
    else:
        candidates = state.projects.values()
    if full_paths is not None:
        paths = {str(path).lower() for path in full_paths}
        candidates = [p for p in candidates if viewer.full_path(p).lower() in paths]
    membership = bool(args.get("membership"))
    search = (args.get("search") or "").lower()
    chosen = [p for p in candidates
              if not p.deleted and state.can_read(user, p)
              and (not membership or state.access_level(user, p) >= GUEST)
              and (not search or search in p.name.lower() or search in p.path.lower())]
    sort_key, reverse = _PROJECT_SORTS.get(str(args.get("sort") or "id_desc"), _PROJECT_SORTS["id_desc"])
    chosen.sort(key=sort_key, reverse=reverse)
    return paged(chosen, lambda p: p.id, args, lambda: len(chosen))


# --- projects --------------------------------------------------------------------------------------


def _latest_first(viewer: Viewer, project: Project) -> Iterator[Pipeline]:
    pipelines = viewer.ci.pipelines
    for pipeline_id in reversed(viewer.ci.index.pipelines.get(project.id, ())):
        pipeline = pipelines.get(pipeline_id)
        if pipeline is not None:
            yield pipeline


def _pipeline_checks(viewer: Viewer, args: dict[str, Any]) -> list[Callable[[Pipeline], bool]]:
    """``Ci::PipelinesFinder``'s filters, as the REST list applies them."""
    checks: list[Callable[[Pipeline], bool]] = []
    status = args["status"].lower() if args.get("status") else None
    scope = args["scope"].lower() if args.get("scope") else None
    if status is not None:
        checks.append(lambda p: p.status == status)
    if scope in ("running", "pending"):
        checks.append(lambda p: p.status == scope)
    elif scope == "finished":
        checks.append(lambda p: p.status in _FINISHED)
    elif scope in ("branches", "tags"):
        checks.append(lambda p: p.tag == (scope == "tags"))
    for name in ("ref", "sha", "source"):
        wanted = args.get(name)
        if wanted is not None:
            checks.append(lambda p, name=name, wanted=wanted: getattr(p, name) == wanted)  # type: ignore[misc]
    after, before = parse_time(args.get("updatedAfter"), "updatedAfter"), \
        parse_time(args.get("updatedBefore"), "updatedBefore")
    if after is not None:
        checks.append(lambda p: (p.updated_at or p.created_at) > after)
    if before is not None:
        checks.append(lambda p: (p.updated_at or p.created_at) < before)
    username = args.get("username")
    if username is not None:
        user = next((u for u in viewer.state.users.values() if u.username == username), None)
        user_id = user.id if user is not None else -1
        checks.append(lambda p: p.user_id == user_id)
    return checks


def _pipelines(project: Project, info: GraphQLResolveInfo, **args: Any) -> Page:
    """``Project.pipelines``: newest first, filtered as the REST list filters."""
    viewer = _viewer(info)
    checks = _pipeline_checks(viewer, args)
    ordered: Iterable[Pipeline] = _latest_first(viewer, project)
    scope = str(args.get("scope") or "").lower()
    if scope in ("branches", "tags"):
        seen: set[str] = set()
        newest = []
        for pipeline in ordered:
            if pipeline.ref not in seen and pipeline.tag == (scope == "tags"):
                seen.add(pipeline.ref)
                newest.append(pipeline)
        ordered = newest
    if checks:
        ordered = (p for p in ordered if all(check(p) for check in checks))
        materialised = list(ordered)
        return paged(materialised, lambda p: p.id, args, lambda: len(materialised))
    return paged(ordered, lambda p: p.id, args, lambda: sum(1 for _ in _latest_first(viewer, project)))


def _project_pipeline(project: Project, info: GraphQLResolveInfo, **args: Any) -> Pipeline | None:
    """``Project.pipeline(iid:, id:, sha:)``: the latest when none is given."""
    viewer = _viewer(info)
    wanted_id = parse_gid(args["id"], "Ci::Pipeline") if args.get("id") is not None else None
    for pipeline in _latest_first(viewer, project):
        if args.get("iid") is not None and str(pipeline.iid) != str(args["iid"]):
            continue
        if wanted_id is not None and pipeline.id != wanted_id:
            continue
        if args.get("sha") is not None and pipeline.sha != args["sha"]:
            continue
        return pipeline
    return None


# --- pipelines and jobs ----------------------------------------------------------------------------


@dataclass
class JobsPage:
    """``Pipeline.jobs(statuses:, retried:)``: the count is read from the tallies, the nodes only
    when asked for."""

    pipeline: Pipeline
    statuses: frozenset[str] | None
    retried: bool | None
    args: dict[str, Any]
    _page: Page | None = None

    def page(self, viewer: Viewer) -> Page:
        if self._page is None:
            jobs = viewer.ci.pipeline_jobs(self.pipeline, latest=self.retried is False)
            chosen = [job for job in jobs if (self.statuses is None or job.status in self.statuses)
                      and (self.retried is not True or job.retried)]
            self._page = paged(chosen, lambda job: job.id, self.args, lambda: len(chosen))
        return self._page


def _jobs(pipeline: Pipeline, _: GraphQLResolveInfo, **args: Any) -> JobsPage:
    statuses = frozenset(status.lower() for status in args["statuses"]) if args.get("statuses") else None
    return JobsPage(pipeline, statuses, args.get("retried"), args)


def _jobs_count(jobs: JobsPage, info: GraphQLResolveInfo, limit: int = 1000) -> int:
    """``LimitedCountableConnectionType#count``: ``limit + 1`` past the limit (1 … 1000)."""
    if not 0 < limit <= 1000:
        raise GraphQLError("limit must be greater than 0 and less than or equal to 1000")
    count = _viewer(info).ci.status_count(jobs.pipeline, jobs.statuses, jobs.retried)
    return min(count, limit + 1)


def _pipeline_path(viewer: Viewer, pipeline: Pipeline) -> str | None:
    project = viewer.state.projects.get(pipeline.project_id)
    return f"/{viewer.full_path(project)}/-/pipelines/{pipeline.id}" if project is not None else None


def _coverage(viewer: Viewer, pipeline: Pipeline) -> float | None:
    values = [job.coverage for job in viewer.ci.pipeline_jobs(pipeline) if job.coverage is not None]
    return round(sum(values) / len(values), 2) if values else None


def _job_path(viewer: Viewer, job: Job) -> str | None:
    project = viewer.state.projects.get(job.project_id)
    return f"/{viewer.full_path(project)}/-/jobs/{job.id}" if project is not None else None


def _job_duration(job: Job) -> int | None:
    if job.started_at is None or job.finished_at is None:
        return None
    return int((job.finished_at - job.started_at).total_seconds())


def _field(name: str) -> Callable[..., Any]:
    def resolve(source: Any, _: GraphQLResolveInfo, **__: Any) -> Any:
        return getattr(source, name)

    return resolve


def _time_field(name: str) -> Callable[..., Any]:
    def resolve(source: Any, _: GraphQLResolveInfo, **__: Any) -> Any:
        return time_text(getattr(source, name))

    return resolve


def _with_viewer(read: Callable[[Viewer, Any], Any]) -> Callable[..., Any]:
    def resolve(source: Any, info: GraphQLResolveInfo, **__: Any) -> Any:
        return read(_viewer(info), source)

    return resolve


def _simple(read: Callable[[Any], Any]) -> Callable[..., Any]:
    def resolve(source: Any, _: GraphQLResolveInfo, **__: Any) -> Any:
        return read(source)

    return resolve


def _connection(kind: str) -> dict[tuple[str, str], Callable[..., Any]]:
    return {
        (kind, "nodes"): _simple(lambda page: page.items),
        (kind, "edges"): _simple(lambda page: page.edges()),
        (kind, "pageInfo"): _simple(lambda page: page.page_info()),
        (kind, "count"): _simple(lambda page: page.total()),
    }


def _jobs_connection() -> dict[tuple[str, str], Callable[..., Any]]:
    return {
        ("CiJobConnection", "nodes"): _with_viewer(lambda v, jobs: jobs.page(v).items),
        ("CiJobConnection", "edges"): _with_viewer(lambda v, jobs: jobs.page(v).edges()),
        ("CiJobConnection", "pageInfo"): _with_viewer(lambda v, jobs: jobs.page(v).page_info()),
        ("CiJobConnection", "count"): _jobs_count,
    }


RESOLVERS: dict[tuple[str, str], Callable[..., Any]] = {
    ("Query", "currentUser"): _current_user,
    ("Query", "queryComplexity"): _query_complexity,
    ("Query", "project"): _project,
    ("Query", "projects"): _projects,
    **_connection("ProjectConnection"),
    **_connection("PipelineConnection"),
    **_jobs_connection(),
    ("Project", "id"): _simple(lambda p: gid("Project", p.id)),
    ("Project", "fullPath"): _with_viewer(lambda v, p: v.full_path(p)),
    ("Project", "path"): _field("path"),
    ("Project", "name"): _field("name"),
    ("Project", "nameWithNamespace"): _with_viewer(lambda v, p: f"{v.state.namespace_name(p)} / {p.name}"),
    ("Project", "webUrl"): _with_viewer(lambda v, p: f"{v.base_url}/{v.full_path(p)}"),
    ("Project", "archived"): _field("archived"),
    ("Project", "createdAt"): _time_field("created_at"),
    ("Project", "lastActivityAt"): _time_field("last_activity_at"),
    ("Project", "pipeline"): _project_pipeline,
    ("Project", "pipelines"): _pipelines,
    ("Pipeline", "id"): _simple(lambda p: gid("Ci::Pipeline", p.id)),
    ("Pipeline", "iid"): _simple(lambda p: str(p.iid)),
    ("Pipeline", "name"): _field("name"),
    ("Pipeline", "status"): _simple(lambda p: p.status.upper()),
    ("Pipeline", "ref"): _field("ref"),
    ("Pipeline", "sha"): _field("sha"),
    ("Pipeline", "beforeSha"): _field("parent_sha"),
    ("Pipeline", "source"): _field("source"),
    ("Pipeline", "tag"): _field("tag"),
    ("Pipeline", "active"): _simple(lambda p: p.status in _ACTIVE),
    ("Pipeline", "warnings"): _with_viewer(lambda v, p: with_warnings(v.ci.counts(p))),
    ("Pipeline", "createdAt"): _time_field("created_at"),
    ("Pipeline", "updatedAt"): _simple(lambda p: time_text(p.updated_at or p.created_at)),
    ("Pipeline", "startedAt"): _time_field("started_at"),
    ("Pipeline", "finishedAt"): _time_field("finished_at"),
    ("Pipeline", "committedAt"): _simple(lambda _: None),
    ("Pipeline", "duration"): _with_viewer(lambda v, p: duration(v.ci, p)),
    ("Pipeline", "queuedDuration"): _simple(queued_duration),
    ("Pipeline", "coverage"): _with_viewer(_coverage),
    ("Pipeline", "path"): _with_viewer(_pipeline_path),
    ("Pipeline", "project"): _with_viewer(lambda v, p: v.state.projects.get(p.project_id)),
    ("Pipeline", "jobs"): _jobs,
    ("CiJob", "id"): _simple(lambda job: gid("Ci::Build", job.id)),
    ("CiJob", "name"): _field("name"),
    ("CiJob", "status"): _simple(lambda job: job.status.upper()),
    ("CiJob", "stage"): _simple(lambda job: {"name": job.stage}),
    ("CiJob", "allowFailure"): _field("allow_failure"),
    ("CiJob", "retried"): _field("retried"),
    ("CiJob", "active"): _simple(lambda job: job.status in _ACTIVE),
    ("CiJob", "createdAt"): _time_field("created_at"),
    ("CiJob", "queuedAt"): _time_field("queued_at"),
    ("CiJob", "startedAt"): _time_field("started_at"),
    ("CiJob", "finishedAt"): _time_field("finished_at"),
    ("CiJob", "duration"): _simple(_job_duration),
    ("CiJob", "failureMessage"): _simple(lambda job: job.failure_reason if job.status == "failed" else None),
    ("CiJob", "webPath"): _with_viewer(_job_path),
}
