"""Jobs, artifacts and traces (spec 000 §Jobs)."""

from __future__ import annotations

import builtins
import re
from pathlib import Path

from labdeck.api.core import Progress
from labdeck.api.models import Job
from labdeck.api.models.params import JobScope
from labdeck.api.pagination import Paginator
from labdeck.api.resources.base import ProjectRef, Resource, encode, ref
from labdeck.api.results import ActionResult, TraceRead

_CONTENT_RANGE = re.compile(r"bytes\s+(?:(\d+)-(\d+)|\*)/(\d+|\*)")


def content_range(value: str | None) -> tuple[int | None, int | None]:
    """``(first byte, complete length)`` of a ``Content-Range`` header (None where unknown)."""
    match = _CONTENT_RANGE.match(value or "")
    if not match:
        return None, None
    start = int(match.group(1)) if match.group(1) else None
    total = int(match.group(3)) if match.group(3) != "*" else None
    return start, total


class JobsResource(Resource):
    """``/projects/:id/jobs``."""

    def list(self, pid: ProjectRef, *, scope: list[JobScope] | list[str] | JobScope | None = None,
             pipeline_id: int | None = None, per_page: int = 100, conditional: bool = False,
             since: str | None = None) -> Paginator[Job]:
        """Jobs of a project, or of one pipeline (``pipeline_id``); ``scope`` filters by status
        (sent as ``scope[]``). ``GET /projects/:id/jobs``, ``GET /projects/:id/pipelines/:pid/jobs``.

        ``since``: the :attr:`Paginator.version` of the listing the caller already shows (implies
        ``conditional``); see :class:`Paginator`."""
        path = (f"projects/{ref(pid)}/pipelines/{int(pipeline_id)}/jobs" if pipeline_id is not None
                else f"projects/{ref(pid)}/jobs")
        scopes = [scope] if isinstance(scope, str) else scope
        return Paginator(self._engine, path, Job, encode({"scope": scopes or None}), per_page=per_page,
                         conditional=conditional, since=since)

    def pipeline_jobs(self, pid: ProjectRef, pipeline_id: int, *, scope: builtins.list[JobScope] | None = None,
                      per_page: int = 100) -> Paginator[Job]:
        """Jobs of one pipeline. ``GET /projects/:id/pipelines/:pipeline_id/jobs``."""
        return self.list(pid, scope=scope, pipeline_id=pipeline_id, per_page=per_page)

    async def get(self, pid: ProjectRef, job_id: int) -> Job:
        """``GET /projects/:id/jobs/:job_id``."""
        job: Job = await self._engine.get(f"projects/{ref(pid)}/jobs/{int(job_id)}", Job)
        return job

    async def poll(self, pid: ProjectRef, job_id: int, *, since: str | None = None) -> ActionResult[Job]:
        """Conditional read of a job. ``since``: the ``etag`` of the result the caller holds; only
        then can the answer be ``changed`` False (``value`` None). See :meth:`HttpEngine.poll`."""
        return await self._engine.poll(f"projects/{ref(pid)}/jobs/{int(job_id)}", Job, since=since)

    async def _act(self, pid: ProjectRef, job_id: int, action: str) -> Job:
        job: Job = await self._engine.call("POST", f"projects/{ref(pid)}/jobs/{int(job_id)}/{action}", Job)
        return job

    async def cancel(self, pid: ProjectRef, job_id: int) -> Job:
        """``POST /projects/:id/jobs/:job_id/cancel`` (a finished job comes back unchanged)."""
        return await self._act(pid, job_id, "cancel")

    async def retry(self, pid: ProjectRef, job_id: int) -> Job:
        """Retry; the answer is the NEW job (new id). ``POST /projects/:id/jobs/:job_id/retry``."""
        return await self._act(pid, job_id, "retry")

    async def play(self, pid: ProjectRef, job_id: int) -> Job:
        """Start a manual job. ``POST /projects/:id/jobs/:job_id/play``."""
        return await self._act(pid, job_id, "play")

    async def erase(self, pid: ProjectRef, job_id: int) -> Job:
        """Remove the job's trace and artifacts (irreversible). ``POST /projects/:id/jobs/:job_id/erase``."""
        return await self._act(pid, job_id, "erase")

    async def keep_artifacts(self, pid: ProjectRef, job_id: int) -> Job:
        """Stop artifacts from expiring. ``POST /projects/:id/jobs/:job_id/artifacts/keep``."""
        return await self._act(pid, job_id, "artifacts/keep")

    async def download_artifacts(self, pid: ProjectRef, job_id: int, dest: Path,
                                 progress: Progress | None = None) -> Path:
        """Stream the job's artifacts archive to ``dest``. ``GET /projects/:id/jobs/:job_id/artifacts``."""
        return await self._engine.download(f"projects/{ref(pid)}/jobs/{int(job_id)}/artifacts", dest,
                                           progress=progress)

    async def artifacts_by_ref(self, pid: ProjectRef, ref_name: str, job_name: str, dest: Path,
                               progress: Progress | None = None) -> Path:
        """Artifacts of the latest successful job ``job_name`` on a branch or tag.
        ``GET /projects/:id/jobs/artifacts/:ref_name/download?job=<name>``."""
        return await self._engine.download(f"projects/{ref(pid)}/jobs/artifacts/{ref(ref_name)}/download", dest,
                                           params=encode({"job": job_name}), progress=progress)

    async def artifact_file(self, pid: ProjectRef, job_id: int, path: str, dest: Path,
                            progress: Progress | None = None) -> Path:
        """One file from inside the artifacts archive (400 for an invalid path).
        ``GET /projects/:id/jobs/:job_id/artifacts/*artifact_path``."""
        inner = "/".join(ref(part) for part in path.strip("/").split("/"))
        return await self._engine.download(f"projects/{ref(pid)}/jobs/{int(job_id)}/artifacts/{inner}", dest,
                                           progress=progress)

    async def trace(self, pid: ProjectRef, job_id: int, *, offset: int = 0, etag: str | None = None) -> TraceRead:
        """Read the job log from byte ``offset``. ``GET /projects/:id/jobs/:job_id/trace``.

        Sends ``Range: bytes=<offset>-`` when ``offset > 0`` and ``If-None-Match`` when ``etag``
        is given. Whatever the server does, :attr:`TraceRead.data` holds only the bytes from
        ``offset`` on:

        - 206: the server honoured the range; ``data`` is the new bytes, ``total_length`` comes
          from ``Content-Range`` (``range_honoured`` True).
        - 200: the full log came back (GitLab ignores ``Range`` on traces); it is sliced at
          ``offset`` here and ``total_length`` is its length. ``total_length < offset`` means the
          log was truncated or erased: the caller should reset and read from 0.
        - 304: unchanged since ``etag``; ``data`` is empty and ``etag`` is the one sent.
        - 416: nothing at or after ``offset``; ``data`` is empty and ``total_length`` is set
          when the server sent ``Content-Range: bytes */<length>``.

        Other statuses raise (404 :class:`~labdeck.api.errors.NotFound` for an unknown job).
        """
        headers: dict[str, str] = {}
        if offset > 0:
            headers["Range"] = f"bytes={offset}-"
        if etag:
            headers["If-None-Match"] = etag
        response = await self._engine.send("GET", f"projects/{ref(pid)}/jobs/{int(job_id)}/trace",
                                           headers=headers or None)
        status = response.status_code
        new_etag = response.headers.get("etag")
        if status == 304:
            return TraceRead(304, b"", new_etag or etag, False, None)
        if status == 416:
            _, total = content_range(response.headers.get("content-range"))
            return TraceRead(416, b"", new_etag, False, total)
        self._engine.check(response)
        body = response.content
        if status == 206:
            start, total = content_range(response.headers.get("content-range"))
            if start is not None and start < offset:
                body = body[offset - start:]
            return TraceRead(206, body, new_etag, True, total)
        return TraceRead(status, body[offset:], new_etag, False, len(body))
