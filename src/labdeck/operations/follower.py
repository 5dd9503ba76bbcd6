"""Follow a running job's trace over the REST API: no byte twice, no byte lost.

GitLab's ``GET /projects/:id/jobs/:job_id/trace`` has no offset parameter and (on real servers)
ignores ``Range`` (docs/wire-facts.md §3.1, reliability §2.5). :class:`TraceFollower` keeps a byte offset
client-side and asks ``client.jobs.trace(pid, job_id, offset=…, etag=…)``:

- **206** (the server honoured ``Range``): the body is the new bytes only;
- **200**: the whole log; the bytes already seen are skipped;
- **304** (``If-None-Match`` matched the last ETag): nothing new, nothing downloaded;
- **416** (range past the end): nothing new when the log is exactly ``offset`` bytes long.

A log that became *shorter* than the offset was erased or truncated: a ``"reset"`` event says so
and the follower starts again from byte 0, rather than showing a mix of old and new text.
Bytes are decoded as UTF-8 incrementally (a character split across reads survives; invalid bytes
become U+FFFD). Polling is adaptive: ``min_interval`` while output flows, doubling up to
``max_interval`` while the log is quiet. When the server ignores ``Range`` every change costs a
download of the whole log, so the interval is at least ``total_length / full_read_rate`` seconds
(1 MB/s by default, capped at ``max_interval``): a 20 MB log is then re-read every 10 s, not every
second. Transport failures, 5xx and 429 (waiting ``Retry-After``)
produce an ``"error"`` event and a pause, then following resumes from the same offset; the first
read that succeeds after errors (a 304 included) sends ``"recovered"``, so a "disconnected" note
goes at once. A refused token (401) stops the reads until :meth:`TraceFollower.use_client` gives a
new one, and :meth:`TraceFollower.pause` stops them while nobody looks (the screen is not shown). After the
job is seen in a finished status (success, failed, canceled, skipped) one last read is made and
``"end"`` is emitted.

With a real :class:`~labdeck.api.ApiClient` the body is read as a stream
(:mod:`labdeck.operations.trace_stream`) and handed on in ``data`` events of at most
:data:`DATA_PIECE` bytes as it arrives: a 50 MB log shows its first lines after the first
kilobytes, and neither the whole body nor its decoded text is ever held at once. A client that
only offers ``jobs.trace`` (test doubles) is read whole, then handed on in the same pieces.
"""

from __future__ import annotations

import asyncio
import codecs
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, Literal

from labdeck.api import errors
from labdeck.operations.trace_stream import StreamedTrace, open_trace

FINISHED_STATUSES = frozenset({"success", "failed", "canceled", "skipped"})
"""Job statuses after which the trace no longer grows (note GitLab's spelling ``canceled``)."""

EventKind = Literal["data", "reset", "status", "error", "end", "recovered"]

DATA_PIECE = 1024 * 1024
"""Bytes of trace per ``data`` event at most (the first event of a read comes sooner)."""
FIRST_PIECE = 64 * 1024
"""The first ``data`` event of a read is sent once this much arrived: the first screen waits for
no more than that."""
FLUSH_SECONDS = 0.1
"""A ``data`` event is sent at least this often while bytes trickle in."""


@dataclass(frozen=True)
class TraceEvent:
    """One thing that happened while following: new text, a reset, a status change, an error, the end."""

    kind: EventKind
    data: str = ""
    status: str = ""
    message: str = ""


@dataclass
class FollowStats:
    """What following cost: requests made and payload bytes received."""

    trace_requests: int = 0
    job_requests: int = 0
    payload_bytes: int = 0
    not_modified: int = 0
    resets: int = 0
    errors: int = 0
    waits: list[float] = field(default_factory=list)


_RETRYABLE = (errors.TransportError, errors.ServerError, errors.RateLimited, errors.Unauthorized,
              errors.WrongAnswer)
"""Failures following waits out: the network's, the server's (a sign-in page in place of the API
included), and a refused token (the console asks for a new one, and the log goes on with it:
:meth:`TraceFollower.use_client`; nothing is read until then)."""


class TraceFollower:
    """Async iterator of :class:`TraceEvent` for one job's trace.

    ``async for event in TraceFollower(client, project_id, job_id): ...`` — ``data`` events carry
    decoded text (not yet sanitized: feed it to :class:`labdeck.logtext.lines.LineIndex`), ``reset``
    means "clear what you have, the log starts over" (its ``message`` says why), ``status`` carries
    the job's new status, ``error`` a one-line message while following pauses and retries,
    ``recovered`` the first good read after errors (a 304 too), and ``end`` comes once, last. Errors other than transport/5xx/429/401 (404, 403…) are reported as
    ``error`` followed by ``end``.
    """

    def __init__(self, client: Any, project_id: int | str, job_id: int, *, min_interval: float = 1.0,
                 max_interval: float = 10.0, sleep: Callable[[float], Awaitable[Any]] = asyncio.sleep,
                 clock: Callable[[], float] = time.monotonic, full_read_rate: float = 1_000_000) -> None:
        self._jobs = client.jobs
        send, check = getattr(client, "send", None), getattr(client, "check", None)
        self._client = client if callable(send) and callable(check) else None
        """The client to stream from (None: read through ``jobs.trace``)."""
        self.project_id = project_id
        self.job_id = job_id
        self.min_interval = min_interval
        self.max_interval = max(max_interval, min_interval)
        self._sleep = sleep
        self._clock = clock
        self.full_read_rate = full_read_rate
        self._floor = 0.0
        self.offset = 0
        """Bytes of the trace consumed so far."""
        self.etag: str | None = None
        self.status = ""
        self.stats = FollowStats()
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self._started = False
        self._got_data = False
        self._failing = False
        """The last read failed: the next good one sends ``recovered``."""
        self._paused = False
        self._refused = False
        """The server refused the token (401): nothing is read until :meth:`use_client`."""
        self._allowed = asyncio.Event()
        self._allowed.set()
        self._woken = asyncio.Event()
        """Set by :meth:`wake`: the wait between two reads ends early."""
        self._good_read_at: float | None = None
        """When (on ``clock``) the last read of the job and its log answered, a 304 included."""

    def since_good_read(self) -> float | None:
        """Seconds since the last read that answered (a 304 included; None before the first): the
        log viewer's data age. No event says "nothing new", so the age is read from here."""
        return None if self._good_read_at is None else max(0.0, self._clock() - self._good_read_at)

    def use_client(self, client: Any) -> None:
        """Read through ``client`` from the next read on (a new sign-in replaced the client): the
        log goes on from where it is, nothing is read twice. Ends a stop after a 401."""
        self._jobs = client.jobs
        send, check = getattr(client, "send", None), getattr(client, "check", None)
        self._client = client if callable(send) and callable(check) else None
        self._refused = False
        self._update_allowed()

    def pause(self) -> None:
        """Read nothing until :meth:`resume` (the log's screen is not shown); a read under way ends."""
        self._paused = True
        self._update_allowed()

    def resume(self) -> None:
        """Read again (at once, when the wait between reads is over)."""
        self._paused = False
        self._update_allowed()

    @property
    def reading(self) -> bool:
        """False while paused, or stopped by a refused token until a new client is given."""
        return self._allowed.is_set()

    def _update_allowed(self) -> None:
        if self._paused or self._refused:
            self._allowed.clear()
        else:
            self._allowed.set()

    def __aiter__(self) -> AsyncIterator[TraceEvent]:
        if self._started:
            raise RuntimeError("a TraceFollower can be iterated only once")
        self._started = True
        return self._follow()

    async def _follow(self) -> AsyncIterator[TraceEvent]:
        interval = self.min_interval
        while True:
            await self._allowed.wait()
            began = self._clock()
            self._got_data = False
            try:
                events: list[TraceEvent] = []
                finished = await self._poll_status(events)
                for event in events:
                    yield event
                async for event in self._read_events():
                    yield event
            except _RETRYABLE as exc:
                self.stats.errors += 1
                self._failing = True
                if isinstance(exc, errors.Unauthorized):
                    # Every read would get the same 401: none until a new token (use_client).
                    self._refused = True
                    self._update_allowed()
                yield TraceEvent("error", status=self.status, message=exc.user_message())
                if self._refused:
                    continue
                interval = min(self.max_interval, max(interval * 2, self.min_interval))
                wait = interval
                if isinstance(exc, errors.RateLimited) and exc.retry_after is not None:
                    wait = max(wait, exc.retry_after)
                await self._wait(wait)
                continue
            except errors.ApiError as exc:
                yield TraceEvent("error", status=self.status, message=exc.user_message())
                yield TraceEvent("end", status=self.status, message="Stopped following the log.")
                return
            self._good_read_at = self._clock()
            if self._failing:
                self._failing = False
                yield TraceEvent("recovered", status=self.status)
            if finished:
                tail = self._decoder.decode(b"", final=True)
                if tail:
                    yield TraceEvent("data", data=tail, status=self.status)
                yield TraceEvent("end", status=self.status, message=f"Job {self.status}.")
                return
            interval = self.min_interval if self._got_data else min(self.max_interval, interval * 2)
            await self._wait(max(interval, self._floor) - (self._clock() - began))

    async def _read_events(self) -> AsyncIterator[TraceEvent]:
        """The events of one read of the trace (sets ``_got_data`` when bytes arrived)."""
        if self._client is not None:
            async for event in self._read_streamed():
                yield event
            return
        events: list[TraceEvent] = []
        self._got_data = await self._read_trace(events)
        for event in events:
            yield event

    def wake(self) -> None:
        """Read again now instead of at the end of the current wait: whoever calls this saw the
        job change (it started or ended), while a quiet log had let the wait grow to ``max_interval``."""
        self._woken.set()

    async def _wait(self, seconds: float) -> None:
        seconds = max(0.0, seconds)
        self.stats.waits.append(seconds)
        if not self._woken.is_set():
            sleeping = asyncio.ensure_future(self._sleep(seconds))
            woken = asyncio.ensure_future(self._woken.wait())
            try:
                await asyncio.wait((sleeping, woken), return_when=asyncio.FIRST_COMPLETED)
            finally:
                sleeping.cancel()
                woken.cancel()
        self._woken.clear()

    async def _poll_status(self, events: list[TraceEvent]) -> bool:
        """Fetch the job; queue a status event on change; True when the job is finished."""
        self.stats.job_requests += 1
        job = await self._jobs.get(self.project_id, self.job_id)
        status = str(getattr(job, "status", "") or "")
        if status != self.status:
            self.status = status
            events.append(TraceEvent("status", status=status))
        return status in FINISHED_STATUSES

    async def _read_trace(self, events: list[TraceEvent]) -> bool:
        """Read what is new since ``offset``; queue data/reset events; True if data arrived."""
        read = await self._request(self.offset, self.etag)
        if read.status == 304:
            self.stats.not_modified += 1
            return False
        total = _total_length(read)
        self._note_cost(read, total)
        if read.status == 416:
            if total is None:
                # The server did not say how long the log is: learn it from a full read.
                whole = await self._request(0, None)
                total = _total_length(whole)
                if total is None:
                    total = len(whole.data)
            if total >= self.offset:
                return False
            return await self._restart(events, total)
        if total is not None and total < self.offset:
            return await self._restart(events, total)
        new = read.data
        self.etag = read.etag
        return self._consume(new, events)

    def _note_cost(self, read: Any, total: int | None) -> None:
        """A server that ignores Range sends the whole log on every change: poll a big log less often."""
        if read.range_honoured or read.status == 416:
            self._floor = 0.0
        elif read.status == 200 and total is not None and self.full_read_rate > 0:
            self._floor = min(self.max_interval, total / self.full_read_rate)

    async def _restart(self, events: list[TraceEvent], total: int | None) -> bool:
        events.append(self._reset_event(total))
        read = await self._request(0, None)
        if read.status in (304, 416):
            return False
        self.etag = read.etag
        return self._consume(read.data, events)

    async def _request(self, offset: int, etag: str | None) -> Any:
        self.stats.trace_requests += 1
        return await self._jobs.trace(self.project_id, self.job_id, offset=offset, etag=etag)

    def _consume(self, new: bytes, events: list[TraceEvent]) -> bool:
        if not new:
            return False
        self.offset += len(new)
        self.stats.payload_bytes += len(new)
        view = memoryview(new)
        for start in range(0, len(new), DATA_PIECE):
            text = self._decoder.decode(view[start:start + DATA_PIECE])
            if text:
                events.append(TraceEvent("data", data=text, status=self.status))
        return True

    # -- streamed reads (a real ApiClient) ----------------------------------------------------

    async def _open(self, offset: int, etag: str | None) -> StreamedTrace:
        self.stats.trace_requests += 1
        return await open_trace(self._client, self.project_id, self.job_id, offset=offset, etag=etag)

    async def _read_streamed(self) -> AsyncIterator[TraceEvent]:
        """Like :meth:`_read_trace`, with the body handed on while it arrives."""
        read = await self._open(self.offset, self.etag)
        try:
            if read.status == 304:
                self.stats.not_modified += 1
                return
            total = read.total_length
            self._note_cost(read, total)
            if read.status == 416:
                if total is None:
                    # The server did not say how long the log is: learn it from a full read.
                    total = await self._length_of_whole_log()
                if total < self.offset:
                    async for event in self._restart_streamed(total):
                        yield event
                return
            if total is not None and total < self.offset:
                async for event in self._restart_streamed(total):
                    yield event
                return
            async for event in self._stream_body(read):
                yield event
            if read.received is not None and read.received < self.offset:
                # A 200 of unknown length turned out shorter than what was shown: truncated.
                async for event in self._restart_streamed(read.received):
                    yield event
                return
            self.etag = read.etag
            if total is None and read.received is not None:
                self._note_cost(read, read.received)
        finally:
            await read.aclose()

    async def _stream_body(self, read: StreamedTrace) -> AsyncIterator[TraceEvent]:
        """``data`` events for the body's new bytes; ``offset`` moves with every byte handed on
        (a connection that breaks midway loses nothing: what arrived is sent before the error)."""
        pending: list[str] = []
        size = 0
        limit = FIRST_PIECE
        flushed_at = self._clock()
        try:
            async for chunk in read.chunks(self.offset):
                self.offset += len(chunk)
                self.stats.payload_bytes += len(chunk)
                self._got_data = True
                text = self._decoder.decode(chunk)
                if text:
                    pending.append(text)
                    size += len(chunk)
                if pending and (size >= limit or self._clock() - flushed_at >= FLUSH_SECONDS):
                    yield TraceEvent("data", data="".join(pending), status=self.status)
                    pending, size, limit, flushed_at = [], 0, DATA_PIECE, self._clock()
        except errors.ApiError:
            if pending:
                yield TraceEvent("data", data="".join(pending), status=self.status)
            raise
        if pending:
            yield TraceEvent("data", data="".join(pending), status=self.status)

    async def _length_of_whole_log(self) -> int:
        whole = await self._open(0, None)
        try:
            if whole.total_length is not None:
                return whole.total_length
            async for _chunk in whole.chunks(0):
                pass
            return whole.received or 0
        finally:
            await whole.aclose()

    async def _restart_streamed(self, total: int | None) -> AsyncIterator[TraceEvent]:
        yield self._reset_event(total)
        read = await self._open(0, None)
        try:
            if read.status in (304, 416):
                return
            async for event in self._stream_body(read):
                yield event
            self.etag = read.etag
        finally:
            await read.aclose()

    def _reset_event(self, total: int | None) -> TraceEvent:
        """Start again from byte 0 (the log was erased or truncated)."""
        was = self.offset
        self.stats.resets += 1
        self.offset = 0
        self.etag = None
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        now = f"{total} bytes" if total is not None else "shorter"
        return TraceEvent(
            "reset", status=self.status,
            message=f"The log was erased or truncated on the server (was {was} bytes, now {now}); "
                    "showing it again from the start.")


def _total_length(read: Any) -> int | None:
    total = getattr(read, "total_length", None)
    return total if isinstance(total, int) else None
