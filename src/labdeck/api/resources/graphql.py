"""GitLab's GraphQL API (``POST /api/graphql``), one read: the latest pipeline of many projects at
once, with its failed and running job counts (what the board needs to know a project changed).

The query is a read: the engine treats a ``POST`` to ``/api/graphql`` as one (allowed in read-only
mode, retried like a ``GET``, not put in the audit log of changes). Nothing here sends a mutation.

GitLab answers HTTP 200 for query errors, with ``{"errors": [{"message": …}]}``: a query over the
complexity limit (``Query has complexity of N, which exceeds max complexity of M``) raises
:class:`TooComplex`; any other error, and 401/403/404 (a server or token without GraphQL), raises
:class:`NoGraphql`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from labdeck.api import errors
from labdeck.api.core import HttpEngine

PATH = "/api/graphql"
LATEST_PIPELINES = """
query($ids: [ID!], $first: Int, $after: String) {
  projects(ids: $ids, first: $first, after: $after) {
    pageInfo { hasNextPage endCursor }
    nodes { id fullPath
      pipelines(first: 1) { nodes { id iid status updatedAt ref sha
        failedJobs: jobs(statuses: [FAILED], retried: false) { count }
        runningJobs: jobs(statuses: [RUNNING, PENDING]) { count } } } } } }
""".strip()
MAX_FIRST = 100
"""GitLab's page size limit for a connection."""
_COMPLEXITY = re.compile(r"complexity of (\d+), which exceeds max complexity of (\d+)")


class NoGraphql(errors.ApiError):
    """The server (or this token) offers no usable GraphQL: use the REST reads."""


class TooComplex(errors.ApiError):
    """The query went over the server's complexity limit (nothing ran)."""

    def __init__(self, complexity: int, maximum: int, *, url: str = "") -> None:
        super().__init__(f"query complexity {complexity} exceeds {maximum}", method="POST", url=url)
        self.complexity = complexity
        self.maximum = maximum


@dataclass(frozen=True)
class LatestPipeline:
    """One project's newest pipeline as GraphQL states it (``pipeline_id`` None: no pipeline)."""

    project_id: int
    full_path: str
    pipeline_id: int | None = None
    iid: int | None = None
    status: str | None = None
    """Lower case, as the REST API words it (``failed``, ``running`` …)."""
    updated_at: datetime | None = None
    ref: str | None = None
    sha: str | None = None
    failed_jobs: int | None = None
    running_jobs: int | None = None

    @property
    def signature(self) -> tuple[object, ...]:
        """What changes when anything the board shows about the pipeline may have changed."""
        return (self.pipeline_id, self.status, self.updated_at, self.failed_jobs, self.running_jobs)


def global_id(kind: str, number: int) -> str:
    """``gid://gitlab/Project/12``."""
    return f"gid://gitlab/{kind}/{int(number)}"


def number_of(gid: object) -> int | None:
    """The number at the end of a global id (None when there is none)."""
    tail = str(gid or "").rsplit("/", 1)[-1]
    return int(tail) if tail.isdigit() else None


def graphql_url(engine: HttpEngine) -> str:
    """``https://host/api/graphql`` for an engine whose base is ``https://host/api/v4/``."""
    return str(engine.http.base_url.copy_with(path=PATH, query=None))


def _count(node: Any) -> int | None:
    value = node.get("count") if isinstance(node, dict) else None
    return value if isinstance(value, int) else None


def _pipeline(project: dict[str, Any]) -> LatestPipeline | None:
    pid = number_of(project.get("id"))
    if pid is None:
        return None
    path = str(project.get("fullPath") or pid)
    nodes = ((project.get("pipelines") or {}).get("nodes")) or []
    if not nodes or not isinstance(nodes[0], dict):
        return LatestPipeline(pid, path)
    node = nodes[0]
    stamp = node.get("updatedAt")
    try:
        updated = datetime.fromisoformat(str(stamp).replace("Z", "+00:00")) if stamp else None
    except ValueError:
        updated = None
    iid = node.get("iid")
    return LatestPipeline(pid, path, number_of(node.get("id")), int(str(iid)) if str(iid or "").isdigit() else None,
                          str(node.get("status") or "").lower() or None, updated, node.get("ref"), node.get("sha"),
                          _count(node.get("failedJobs")), _count(node.get("runningJobs")))


async def latest_pipelines(engine: HttpEngine, project_ids: Sequence[int]) -> list[LatestPipeline]:
    """The newest pipeline of each of ``project_ids`` the token can see (one request per page of
    at most :data:`MAX_FIRST`; ask for fewer ids per call to stay within the complexity limit)."""
    url = graphql_url(engine)
    ids = [global_id("Project", pid) for pid in project_ids]
    found: list[LatestPipeline] = []
    after: str | None = None
    for _ in range(len(ids) // MAX_FIRST + 2):
        variables = {"ids": ids, "first": min(len(ids), MAX_FIRST) or 1, "after": after}
        try:
            # A 401 here may be GraphQL's alone (a scope, a proxy rule): the caller asks REST.
            response = await engine.request("POST", url, json={"query": LATEST_PIPELINES, "variables": variables},
                                            marks_refusal=False)
        except (errors.Forbidden, errors.NotFound) as exc:
            # A 401 goes up as it came, for the caller to tell the token's refusal (REST refuses
            # it too) from GraphQL's alone; taken for "no GraphQL", a board whose token was
            # refused a moment checked through REST alone until a sign-in.
            raise NoGraphql(exc.user_message(), method="POST", url=url) from None
        try:
            body = response.json()
        except ValueError:
            raise NoGraphql("the GraphQL answer was not JSON", method="POST", url=url) from None
        problems = body.get("errors") if isinstance(body, dict) else None
        if problems:
            message = str(problems[0].get("message", "")) if isinstance(problems[0], dict) else str(problems[0])
            limit = _COMPLEXITY.search(message)
            if limit is not None:
                raise TooComplex(int(limit.group(1)), int(limit.group(2)), url=url)
            raise NoGraphql(f"GraphQL: {message[:120]}", method="POST", url=url)
        projects = ((body.get("data") or {}).get("projects")) or {} if isinstance(body, dict) else {}
        for node in projects.get("nodes") or []:
            if isinstance(node, dict) and (item := _pipeline(node)) is not None:
                found.append(item)
        info = projects.get("pageInfo") or {}
        if not info.get("hasNextPage") or not info.get("endCursor"):
            break
        after = str(info["endCursor"])
    return found
