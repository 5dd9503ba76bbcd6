"""Read a job trace as a stream of chunks instead of one body held in memory.

``JobsResource.trace`` (``labdeck.api.resources.jobs``) answers with the whole body: for a 50 MB log
on a server that ignores ``Range`` (GitLab) that is 50 MB of bytes, then as much again decoded,
before the first line can be shown. :func:`open_trace` sends the same request through the client's
public :meth:`~labdeck.api.core.HttpEngine.send` with ``stream=True`` and applies the same rules
(``Range`` from ``offset``, ``If-None-Match``, 200/206/304/416), but hands the body over chunk by
chunk: :meth:`StreamedTrace.chunks` yields only the bytes at or after ``offset``.

It lives here, next to its one user (:class:`labdeck.operations.follower.TraceFollower`); the natural
home is a ``JobsResource.trace_stream`` method beside ``trace``.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import httpx

from labdeck.api import answers, errors
from labdeck.api.core import describe_transport_error
from labdeck.api.resources.base import ref
from labdeck.api.resources.jobs import content_range


@dataclass
class StreamedTrace:
    """One read of a job trace whose body (200/206) is still on the wire.

    ``total_length`` is known up front from ``Content-Range`` (206, 416) or from an unencoded
    200's ``Content-Length``; otherwise it is None until :meth:`chunks` has run to the end, which
    sets :attr:`received` (the length of the whole body, counted from byte ``start``).
    """

    status: int
    etag: str | None
    range_honoured: bool
    total_length: int | None
    start: int = 0
    """Trace offset of the body's first byte (0 for a 200, from ``Content-Range`` for a 206)."""
    response: httpx.Response | None = None
    received: int | None = None
    """Offset just past the last byte of the body, once it has been read to the end."""

    async def chunks(self, offset: int) -> AsyncIterator[bytes]:
        """The body's bytes at or after trace offset ``offset``, as they arrive. A connection
        that breaks midway raises :class:`labdeck.api.errors.TransportError`."""
        if self.response is None:
            return
        position = self.start
        try:
            async for chunk in self.response.aiter_bytes():
                end = position + len(chunk)
                if end > offset:
                    yield chunk[max(0, offset - position):] if position < offset else chunk
                position = end
        except httpx.HTTPError as error:
            raise errors.TransportError(describe_transport_error(error), method="GET",
                                        url=str(self.response.request.url)) from None
        self.received = position

    async def aclose(self) -> None:
        """Release the connection (idempotent)."""
        if self.response is not None:
            await self.response.aclose()


async def open_trace(client: Any, project_id: int | str, job_id: int, *, offset: int = 0,
                     etag: str | None = None) -> StreamedTrace:
    """Start reading the trace from byte ``offset`` (``GET /projects/:id/jobs/:job_id/trace``).

    ``client`` is an :class:`labdeck.api.ApiClient` (its retries, auth and error mapping apply).
    Other statuses than 200/206/304/416 raise as ``JobsResource.trace`` does. The caller must
    :meth:`~StreamedTrace.aclose` the result.
    """
    headers: dict[str, str] = {}
    if offset > 0:
        headers["Range"] = f"bytes={offset}-"
    if etag:
        headers["If-None-Match"] = etag
    response: httpx.Response = await client.send("GET", f"projects/{ref(project_id)}/jobs/{int(job_id)}/trace",
                                                 headers=headers or None, stream=True)
    status = response.status_code
    new_etag = response.headers.get("etag")
    if status == 304:
        await response.aclose()
        return StreamedTrace(304, new_etag or etag, False, None)
    if status == 416:
        await response.aclose()
        return StreamedTrace(416, new_etag, False, content_range(response.headers.get("content-range"))[1])
    try:
        client.check(response)
        if answers.is_web_page(response.headers.get("content-type")):
            # A sign-in or proxy page is not the log: never shown as its text.
            raise errors.WrongAnswer(answers.WEB_PAGE, method="GET", url=str(response.request.url))
    except BaseException:
        await response.aclose()
        raise
    if status == 206:
        start, total = content_range(response.headers.get("content-range"))
        return StreamedTrace(206, new_etag, True, total, offset if start is None else start, response)
    return StreamedTrace(status, new_etag, False, _plain_length(response), 0, response)


def _plain_length(response: httpx.Response) -> int | None:
    """The body's length from ``Content-Length`` when that is also its decoded length."""
    if response.headers.get("content-encoding", "identity").strip().lower() not in ("", "identity"):
        return None
    try:
        length = int(response.headers.get("content-length", ""))
    except ValueError:
        return None
    return length if length >= 0 else None
