"""Pipelines (GitLab's ``/projects/:id/pipelines``; not in the spec, so a spec server answers 404).

Whether the server has them is learned once per client (:meth:`PipelinesResource.available`,
``ApiClient.has_pipelines_api``) and kept in the dialect, as integrations' listing is.
"""

from __future__ import annotations

import builtins
from datetime import datetime
from typing import Any

from labdeck.api import errors
from labdeck.api.models import Pipeline
from labdeck.api.pagination import Paginator
from labdeck.api.resources.base import ProjectRef, Resource, encode, ref

LIST_FILTERS = frozenset({"scope", "status", "ref", "sha", "source", "username", "updated_after",
                          "updated_before", "order_by", "sort", "yaml_errors", "name"})
"""Filters of ``GET /projects/:id/pipelines`` (GitLab 18)."""


def iso(moment: datetime) -> str:
    """GitLab's timestamp form for filters (UTC, milliseconds, ``Z``)."""
    from datetime import UTC

    utc = moment.astimezone(UTC)
    return utc.strftime("%Y-%m-%dT%H:%M:%S.") + f"{utc.microsecond // 1000:03d}Z"


def list_params(filters: dict[str, Any]) -> dict[str, str | builtins.list[str]]:
    """The query of a pipelines listing (datetimes in GitLab's form); unknown filters refused."""
    unknown = set(filters) - LIST_FILTERS
    if unknown:
        raise TypeError(f"unknown pipeline filter(s): {', '.join(sorted(unknown))}")
    return encode({key: iso(value) if isinstance(value, datetime) else value for key, value in filters.items()})


def route_missing(exc: errors.HttpError) -> bool:
    """A 404 of an unrouted path (``404 Not Found``), not of a missing project or pipeline
    (``404 Project Not Found``, ``404 Not found``)."""
    if exc.status != 404:
        return exc.status == 405
    body = exc.body if isinstance(exc.body, dict) else {}
    text = body.get("error") if isinstance(body.get("error"), str) else body.get("message")
    return text == "404 Not Found"


class PipelinesResource(Resource):
    """``/projects/:id/pipelines`` (GitLab; 404 on spec servers)."""

    def list(self, pid: ProjectRef, *, per_page: int = 20, conditional: bool = False,
             **filters: Any) -> Paginator[Pipeline]:
        """A project's pipelines, newest first unless ``order_by``/``sort`` say otherwise.
        Filters: ``scope`` (running, pending, finished, branches, tags), ``status``, ``ref``,
        ``sha``, ``source``, ``username``, ``updated_after``/``updated_before`` (datetimes or
        ISO text), ``order_by`` (id, status, ref, updated_at, user_id), ``sort`` (asc, desc).
        ``GET /projects/:id/pipelines``."""
        return Paginator(self._engine, f"projects/{ref(pid)}/pipelines", Pipeline, list_params(filters),
                         per_page=per_page, conditional=conditional)

    async def get(self, pid: ProjectRef, pipeline_id: int) -> Pipeline:
        """One pipeline with its detail (times, duration, user). ``GET /projects/:id/pipelines/:pipeline_id``."""
        pipeline: Pipeline = await self._engine.get(f"projects/{ref(pid)}/pipelines/{int(pipeline_id)}", Pipeline)
        return pipeline

    async def retry(self, pid: ProjectRef, pipeline_id: int) -> Pipeline:
        """Retry every failed or canceled job of the newest tries (each gets a new job id).
        ``POST /projects/:id/pipelines/:pipeline_id/retry`` (201 and the pipeline)."""
        pipeline: Pipeline = await self._engine.call(
            "POST", f"projects/{ref(pid)}/pipelines/{int(pipeline_id)}/retry", Pipeline)
        return pipeline

    async def cancel(self, pid: ProjectRef, pipeline_id: int) -> Pipeline:
        """Cancel every unfinished job. ``POST /projects/:id/pipelines/:pipeline_id/cancel``."""
        pipeline: Pipeline = await self._engine.call(
            "POST", f"projects/{ref(pid)}/pipelines/{int(pipeline_id)}/cancel", Pipeline)
        return pipeline

    async def available(self, pid: ProjectRef | None = None) -> bool:
        """Whether the server lists pipelines: learned once per client (one
        ``GET /projects/:id/pipelines?per_page=1``; an unrouted 404 or a 405 means no) and kept.
        ``pid``: a project the caller can read (else a project id that cannot exist is asked:
        a server with the route says "404 Project Not Found"). Transport trouble raises and
        teaches nothing."""
        known = self._dialects.current.lists_pipelines if self._dialects is not None else None
        if known is not None:
            return known
        target = ref(pid) if pid is not None else "0"
        try:
            await self._engine.request("GET", f"projects/{target}/pipelines", params={"per_page": 1})
        except errors.HttpError as exc:
            if route_missing(exc):
                return self._learn(False)
            if exc.status in (403, 404):
                return self._learn(True)  # the route answered for the project: it exists
            raise
        return self._learn(True)

    def _learn(self, value: bool) -> bool:
        if self._dialects is not None:
            self._dialects.learn(lists_pipelines=value)
        return value
