"""Trace reads (Range/ETag semantics of TraceRead) and streamed downloads."""

from __future__ import annotations

import os
from pathlib import Path

import httpx
import pytest

from labdeck.api import errors
from tests.support.mock_api import mock_client

LOG = b"Running with gitlab-runner 11.0\n$ make\nok\nJob succeeded\n"


def trace_server(body: bytes, *, honour_range: bool, etag: str = 'W/"t1"'):  # type: ignore[no-untyped-def]
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        if request.headers.get("if-none-match") == etag:
            return httpx.Response(304, headers={"ETag": etag})
        header = request.headers.get("range")
        if honour_range and header:
            start = int(header.split("=")[1].rstrip("-"))
            if start >= len(body):
                return httpx.Response(416, headers={"Content-Range": f"bytes */{len(body)}"})
            return httpx.Response(206, content=body[start:], headers={
                "Content-Range": f"bytes {start}-{len(body) - 1}/{len(body)}", "ETag": etag})
        return httpx.Response(200, content=body, headers={"Content-Type": "text/plain", "ETag": etag})

    return handler, seen


async def test_trace_200_is_sliced_at_offset() -> None:
    handler, seen = trace_server(LOG, honour_range=False)
    async with mock_client(handler) as client:
        read = await client.jobs.trace(1, 9, offset=10)
    assert seen[0].headers["range"] == "bytes=10-"
    assert read.status == 200 and read.data == LOG[10:] and read.total_length == len(LOG)
    assert read.range_honoured is False and read.etag == 'W/"t1"'


async def test_trace_from_zero_sends_no_range() -> None:
    handler, seen = trace_server(LOG, honour_range=True)
    async with mock_client(handler) as client:
        read = await client.jobs.trace(1, 9)
    assert "range" not in seen[0].headers and read.data == LOG and read.status == 200


async def test_trace_206_returns_new_bytes_and_total_from_content_range() -> None:
    handler, _ = trace_server(LOG, honour_range=True)
    async with mock_client(handler) as client:
        read = await client.jobs.trace(1, 9, offset=20)
    assert read.status == 206 and read.range_honoured and read.data == LOG[20:] and read.total_length == len(LOG)


async def test_trace_304_and_416_are_empty_reads() -> None:
    handler, seen = trace_server(LOG, honour_range=True)
    async with mock_client(handler) as client:
        unchanged = await client.jobs.trace(1, 9, offset=5, etag='W/"t1"')
        past_end = await client.jobs.trace(1, 9, offset=len(LOG) + 50)
    assert seen[0].headers["if-none-match"] == 'W/"t1"'
    assert unchanged.status == 304 and unchanged.data == b"" and unchanged.etag == 'W/"t1"'
    assert past_end.status == 416 and past_end.data == b"" and past_end.total_length == len(LOG)
    assert past_end.truncated_below(len(LOG) + 50)


async def test_trace_truncation_is_detectable() -> None:
    handler, _ = trace_server(b"short\n", honour_range=False)
    async with mock_client(handler) as client:
        read = await client.jobs.trace(1, 9, offset=100)
    assert read.data == b"" and read.total_length == 6 and read.truncated_below(100)


async def test_trace_of_unknown_job_raises_not_found() -> None:
    async with mock_client(lambda r: httpx.Response(404, json={"message": "404 Not found"})) as client:
        with pytest.raises(errors.NotFound):
            await client.jobs.trace(1, 404)


async def test_download_streams_to_file_with_progress(tmp_path: Path) -> None:
    payload = bytes(range(256)) * 4096  # 1 MiB

    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, content=payload, headers={
            "Content-Type": "application/zip", "Content-Length": str(len(payload)),
            "Content-Disposition": 'attachment; filename="../../artifacts.zip"'})

    progress: list[tuple[int, int | None]] = []
    async with mock_client(handler) as client:
        target = await client.jobs.download_artifacts(1, 2, tmp_path, progress=lambda d, t: progress.append((d, t)))
        named = await client.exports.download(1, tmp_path / "export.tar.gz")
    assert target == tmp_path / "artifacts.zip"  # server-chosen name cannot escape the directory
    assert target.read_bytes() == payload and named.read_bytes() == payload
    assert progress[0] == (0, len(payload)) and progress[-1] == (len(payload), len(payload))
    assert not [name for name in os.listdir(tmp_path) if name.endswith(".part")]


async def test_download_404_leaves_no_file(tmp_path: Path) -> None:
    async with mock_client(lambda r: httpx.Response(404, json={"message": "404 Not Found"})) as client:
        with pytest.raises(errors.NotFound):
            await client.jobs.artifact_file(1, 2, "dir/a b.txt", tmp_path / "x.txt")
    assert os.listdir(tmp_path) == []


async def test_artifact_paths_and_refs_are_encoded(tmp_path: Path) -> None:
    seen: list[str] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(str(request.url))
        return httpx.Response(200, content=b"x")

    async with mock_client(handler) as client:
        await client.jobs.artifact_file(1, 2, "dir/a b.txt", tmp_path / "a")
        await client.jobs.artifacts_by_ref("g/p", "feature/x", "build", tmp_path / "b")
    assert seen[0].endswith("/projects/1/jobs/2/artifacts/dir/a%20b.txt")
    assert seen[1].endswith("/projects/g%2Fp/jobs/artifacts/feature%2Fx/download?job=build")
