"""A loopback TCP proxy that can cut connections, to test following a trace over a bad network.

``arm(n)`` makes the next ``n`` server→client transfers fail: alternately the connection is cut
half-way through a response (the client sees a truncated body) or right away (the client sees a
reset before any answer). ``drops`` counts the cuts actually made.
"""

from __future__ import annotations

import asyncio
import contextlib


class FlakyProxy:
    def __init__(self, target_host: str, target_port: int) -> None:
        self.target = (target_host, target_port)
        self.armed = 0
        self.drops = 0
        self._server: asyncio.Server | None = None
        self._tasks: set[asyncio.Task[None]] = set()
        self._writers: set[asyncio.StreamWriter] = set()

    @property
    def url(self) -> str:
        assert self._server is not None
        host, port = self._server.sockets[0].getsockname()[:2]
        return f"http://{host}:{port}"

    async def start(self) -> FlakyProxy:
        self._server = await asyncio.start_server(self._accept, "127.0.0.1", 0)
        return self

    async def stop(self) -> None:
        if self._server is not None:
            self._server.close()
        for writer in list(self._writers):
            writer.close()
        for task in list(self._tasks):
            task.cancel()
        for task in list(self._tasks):
            with contextlib.suppress(BaseException):
                await task
        if self._server is not None:
            await self._server.wait_closed()

    def arm(self, count: int = 1) -> None:
        """Cut the next ``count`` responses."""
        self.armed += count

    def _take(self) -> bool:
        if self.armed > 0:
            self.armed -= 1
            self.drops += 1
            return True
        return False

    async def _accept(self, client_reader: asyncio.StreamReader, client_writer: asyncio.StreamWriter) -> None:
        server_reader, server_writer = await asyncio.open_connection(*self.target)
        self._writers.update((client_writer, server_writer))
        upstream = asyncio.create_task(self._pipe(client_reader, server_writer, cut=False))
        downstream = asyncio.create_task(self._pipe(server_reader, client_writer, cut=True))
        self._tasks.update((upstream, downstream))
        try:
            await asyncio.wait([upstream, downstream], return_when=asyncio.FIRST_COMPLETED)
        finally:
            for task in (upstream, downstream):
                task.cancel()
                self._tasks.discard(task)
            for writer in (client_writer, server_writer):
                self._writers.discard(writer)
                if not writer.is_closing():
                    writer.transport.abort()

    async def _pipe(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, *, cut: bool) -> None:
        while True:
            data = await reader.read(65536)
            if not data:
                return
            if cut and self._take():
                # Every other cut sends half of the answer first: a truncated body.
                if self.drops % 2 == 0 and len(data) > 1:
                    writer.write(data[: len(data) // 2])
                    with contextlib.suppress(ConnectionError):
                        await writer.drain()
                writer.transport.abort()
                return
            writer.write(data)
            await writer.drain()
