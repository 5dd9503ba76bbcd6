"""A small asyncio fault-injecting HTTP proxy on loopback, and a stub upstream server.

The proxy serves one request per connection (it forces ``Connection: close`` upstream and
downstream), so each request can be given its own fault:

- ``pass``: forward and relay the answer.
- ``reset_before``: reset the connection before reading the request (the server never sees it).
- ``reset_after``: forward the request (the server acts on it), then reset instead of answering.
- ``latency``: wait ``latency`` seconds, then behave like ``pass``.
- ``drip``: relay the answer a few bytes at a time with ``drip_delay`` between writes.
- ``blackhole``: read the request and never answer.

``received`` lists the requests the proxy read from the client and ``forwarded`` those it sent
upstream, as ``(method, path)``, so tests can prove a POST reached the server at most once.
It also works as a forward proxy (absolute-form request targets are forwarded as they come).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import socket
import struct
from collections import deque
from typing import Any


async def _read_request(reader: asyncio.StreamReader) -> tuple[bytes, bytes, str, str]:
    head = await reader.readuntil(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    method, target, _ = lines[0].split(" ", 2)
    length = 0
    for line in lines[1:]:
        name, _, value = line.partition(":")
        if name.strip().lower() == "content-length":
            length = int(value.strip())
    body = await reader.readexactly(length) if length else b""
    return head, body, method, target


def _force_close(head: bytes) -> bytes:
    lines = head.decode("latin-1").split("\r\n")
    kept = [line for line in lines[:-2] if not line.lower().startswith(("connection:", "keep-alive:",
                                                                       "proxy-connection:"))]
    return ("\r\n".join([*kept, "Connection: close", "", ""])).encode("latin-1")


def _abort(writer: asyncio.StreamWriter) -> None:
    """Close with RST (SO_LINGER 0) rather than FIN."""
    sock = writer.get_extra_info("socket")
    if sock is not None:
        with contextlib.suppress(OSError):
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    writer.transport.abort()


class FaultProxy:
    """See the module docstring. ``modes`` is consumed one per connection, then ``default``."""

    def __init__(self, upstream_host: str, upstream_port: int) -> None:
        self.upstream = (upstream_host, upstream_port)
        self.modes: deque[str] = deque()
        self.default = "pass"
        self.latency = 0.2
        self.drip_delay = 0.005
        self.drip_size = 16
        self.received: list[tuple[str, str]] = []
        self.forwarded: list[tuple[str, str]] = []
        self._server: asyncio.base_events.Server | None = None
        self._tasks: set[asyncio.Task[Any]] = set()

    @property
    def port(self) -> int:
        assert self._server is not None
        return int(self._server.sockets[0].getsockname()[1])

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    async def start(self) -> FaultProxy:
        self._server = await asyncio.start_server(self._handle, "127.0.0.1", 0)
        return self

    async def stop(self) -> None:
        if self._server is not None:
            self._server.close()
        for task in list(self._tasks):
            task.cancel()
        for task in list(self._tasks):
            with contextlib.suppress(BaseException):
                await task

    async def __aenter__(self) -> FaultProxy:
        return await self.start()

    async def __aexit__(self, *exc: object) -> None:
        await self.stop()

    def count(self, method: str, where: str = "forwarded") -> int:
        return sum(1 for m, _ in getattr(self, where) if m == method)

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        self._tasks.add(task)
        mode = self.modes.popleft() if self.modes else self.default
        try:
            if mode == "reset_before":
                _abort(writer)
                return
            head, body, method, target = await _read_request(reader)
            path = target.split("://", 1)[-1].split("/", 1)[-1] if "://" in target else target.lstrip("/")
            self.received.append((method, "/" + path))
            if mode == "blackhole":
                await asyncio.sleep(3600)
                return
            if mode == "latency":
                await asyncio.sleep(self.latency)
            response = await self._forward(_force_close(head), body)
            self.forwarded.append((method, "/" + path))
            if mode == "reset_after":
                _abort(writer)
                return
            if mode == "drip":
                for start in range(0, len(response), self.drip_size):
                    writer.write(response[start : start + self.drip_size])
                    await writer.drain()
                    await asyncio.sleep(self.drip_delay)
            else:
                writer.write(response)
                await writer.drain()
            writer.close()
        except (asyncio.IncompleteReadError, ConnectionError, asyncio.LimitOverrunError):
            writer.close()
        finally:
            self._tasks.discard(task)

    async def _forward(self, head: bytes, body: bytes) -> bytes:
        up_reader, up_writer = await asyncio.open_connection(*self.upstream)
        try:
            up_writer.write(head + body)
            await up_writer.drain()
            return await up_reader.read(-1)
        finally:
            up_writer.close()


class StubUpstream:
    """A minimal HTTP/1.1 server: answers every request with ``responses[path]`` (status, body,
    headers) or a JSON echo, and counts requests per ``(method, path)``."""

    def __init__(self) -> None:
        self.responses: dict[str, tuple[int, Any, dict[str, str]]] = {}
        self.seen: list[tuple[str, str]] = []
        self._server: asyncio.base_events.Server | None = None

    @property
    def port(self) -> int:
        assert self._server is not None
        return int(self._server.sockets[0].getsockname()[1])

    async def start(self) -> StubUpstream:
        self._server = await asyncio.start_server(self._handle, "127.0.0.1", 0)
        return self

    async def stop(self) -> None:
        if self._server is not None:
            self._server.close()

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            _, _, method, target = await _read_request(reader)
        except (asyncio.IncompleteReadError, ConnectionError):
            writer.close()
            return
        path = "/" + target.split("://", 1)[1].split("/", 1)[1] if "://" in target else target
        path = path.split("?", 1)[0]
        self.seen.append((method, path))
        status, body, headers = self.responses.get(path, (200, {"id": 1, "method": method, "path": path}, {}))
        payload = body if isinstance(body, bytes) else json.dumps(body).encode()
        lines = [f"HTTP/1.1 {status} X", f"Content-Length: {len(payload)}", "Content-Type: application/json",
                 "Connection: close", *[f"{k}: {v}" for k, v in headers.items()], "", ""]
        writer.write("\r\n".join(lines).encode("latin-1") + payload)
        with contextlib.suppress(ConnectionError):
            await writer.drain()
        writer.close()
