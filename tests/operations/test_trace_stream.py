"""Streamed trace reads: the same answers as ``JobsResource.trace``, body handed over in chunks;
the follower's pieces, and a connection that breaks in the middle of a body."""

from __future__ import annotations

import hashlib
from collections.abc import AsyncIterator, Callable

import httpx
import pytest

from labdeck.api import ApiClient, RetryPolicy, errors
from labdeck.operations.follower import DATA_PIECE, FIRST_PIECE, TraceFollower
from labdeck.operations.trace_stream import content_range, open_trace
from tests.support.mock_api import mock_client


class Chunks(httpx.AsyncByteStream):
    """A body sent in ``size``-byte chunks; ``break_after`` bytes in, the connection drops."""

    def __init__(self, body: bytes, size: int = 1000, break_after: int | None = None) -> None:
        self.body, self.size, self.break_after = body, size, break_after

    async def __aiter__(self) -> AsyncIterator[bytes]:
        for start in range(0, len(self.body), self.size):
            if self.break_after is not None and start >= self.break_after:
                raise httpx.ReadError("connection reset by peer")
            yield self.body[start:start + self.size]


def stream_client(handler: Callable[[httpx.Request], httpx.Response]) -> ApiClient:
    return mock_client(handler, retry=RetryPolicy(max_attempts=1))


def test_content_range_is_read_like_the_client_reads_it() -> None:
    assert content_range("bytes 10-19/20") == (10, 20)
    assert content_range("bytes */42") == (None, 42)
    assert content_range("bytes 0-9/*") == (0, None)
    assert content_range(None) == (None, None)


async def test_a_whole_body_is_handed_over_from_the_offset_on() -> None:
    body = bytes(range(256)) * 20

    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, headers={"etag": 'W/"x"'}, stream=Chunks(body, size=300))

    async with stream_client(handler) as client:
        read = await open_trace(client, 1, 7, offset=1000)
        try:
            got = b"".join([chunk async for chunk in read.chunks(1000)])
        finally:
            await read.aclose()
    assert got == body[1000:]
    assert read.status == 200 and read.etag == 'W/"x"' and not read.range_honoured
    assert read.received == len(body)


async def test_a_range_answer_starting_early_is_cut_at_the_offset() -> None:
    body = b"0123456789" * 10

    def handler(request: httpx.Request) -> httpx.Response:
        assert request.headers["range"] == "bytes=50-"
        return httpx.Response(206, headers={"content-range": f"bytes 40-99/{len(body)}"},
                              stream=Chunks(body[40:], size=7))

    async with stream_client(handler) as client:
        read = await open_trace(client, "group/project", 7, offset=50)
        got = b"".join([chunk async for chunk in read.chunks(50)])
        await read.aclose()
    assert got == body[50:]
    assert read.range_honoured and read.total_length == len(body) and read.start == 40


async def test_not_modified_and_range_not_satisfiable_carry_no_body() -> None:
    answers = iter([httpx.Response(304), httpx.Response(416, headers={"content-range": "bytes */12"})])

    async with stream_client(lambda request: next(answers)) as client:
        unchanged = await open_trace(client, 1, 7, offset=12, etag='W/"x"')
        past_end = await open_trace(client, 1, 7, offset=12)
    assert (unchanged.status, unchanged.etag, unchanged.response) == (304, 'W/"x"', None)
    assert (past_end.status, past_end.total_length) == (416, 12)


async def test_an_unknown_job_raises_like_the_client() -> None:
    async with stream_client(lambda request: httpx.Response(404, json={"message": "404 Not found"})) as client:
        with pytest.raises(errors.NotFound):
            await open_trace(client, 1, 7)


async def test_a_body_that_breaks_midway_raises_after_what_arrived() -> None:
    body = b"x" * 5000

    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, stream=Chunks(body, size=1000, break_after=3000))

    got = bytearray()
    async with stream_client(handler) as client:
        read = await open_trace(client, 1, 7)
        with pytest.raises(errors.TransportError):
            async for chunk in read.chunks(0):
                got += chunk
        await read.aclose()
    assert bytes(got) == body[:3000]


class Server:
    """A job whose whole log is answered by a server that ignores Range (like GitLab); the first
    trace read breaks after ``break_after`` bytes."""

    def __init__(self, log: bytes, break_after: int | None = None) -> None:
        self.log = log
        self.break_after = break_after
        self.trace_reads = 0

    def __call__(self, request: httpx.Request) -> httpx.Response:
        if request.url.path.endswith("/trace"):
            self.trace_reads += 1
            tag = 'W/"' + hashlib.md5(self.log).hexdigest() + '"'
            if request.headers.get("if-none-match") == tag:
                return httpx.Response(304)
            broken = self.break_after if self.trace_reads == 1 else None
            return httpx.Response(200, headers={"etag": tag}, stream=Chunks(self.log, 4096, broken))
        return httpx.Response(200, json={"id": 7, "status": "success"})


async def follow(server: Server) -> list:
    async def no_sleep(seconds: float) -> None:
        return None

    async with stream_client(server) as client:
        follower = TraceFollower(client, 1, 7, sleep=no_sleep)
        return [event async for event in follower]


async def test_a_big_log_arrives_in_pieces_first_one_small() -> None:
    log = b"".join(f"line {n} \xe2\x82\xac\n".encode() for n in range(300_000))  # "€" split across chunks
    events = await follow(Server(log))
    data = [event.data for event in events if event.kind == "data"]
    assert "".join(data) == log.decode()
    assert len(data) > 3
    assert len(data[0].encode()) <= FIRST_PIECE + 4096
    assert max(len(piece.encode()) for piece in data) <= DATA_PIECE + 4096
    assert [event.kind for event in events][-1] == "end"


async def test_a_connection_lost_midway_loses_and_repeats_nothing() -> None:
    log = b"".join(f"line {n}\n".encode() for n in range(50_000))
    server = Server(log, break_after=100_000)
    events = await follow(server)
    assert any(event.kind == "error" for event in events)
    assert not any(event.kind == "reset" for event in events)
    assert "".join(event.data for event in events if event.kind == "data") == log.decode()
