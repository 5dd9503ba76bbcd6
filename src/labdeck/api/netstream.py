"""Connections that answer httpcore's "is this idle connection still open?" without rebuilding
anyio's socket attributes.

Before every request, httpcore's pool asks each pooled connection whether it has expired, and an
idle HTTP/1.1 connection answers by asking its stream for the raw socket. anyio builds that answer
from a fresh table of the socket's attributes, which asks the kernel for the peer's address
(``getpeername``) every time: with 16 connections and 50 requests in flight, a warm triage round
spent about a third of its CPU time there. The raw socket never changes for a stream, so it is
looked up once per connection and kept.
"""

# httpcore's interface takes `timeout` arguments; these methods only pass them on.
# ruff: noqa: ASYNC109

from __future__ import annotations

import socket
import typing
from collections.abc import Iterable

import httpcore
import httpx
from httpcore._utils import is_socket_readable

_UNSET: typing.Any = object()


class _Stream(httpcore.AsyncNetworkStream):
    """A stream that remembers its raw socket; everything else is the wrapped stream's."""

    def __init__(self, inner: httpcore.AsyncNetworkStream) -> None:
        self._inner = inner
        self._socket: socket.socket | None = _UNSET

    async def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        return await self._inner.read(max_bytes, timeout)

    async def write(self, buffer: bytes, timeout: float | None = None) -> None:
        await self._inner.write(buffer, timeout)

    async def aclose(self) -> None:
        await self._inner.aclose()

    async def start_tls(self, ssl_context: typing.Any, server_hostname: str | None = None,
                        timeout: float | None = None) -> httpcore.AsyncNetworkStream:
        return _Stream(await self._inner.start_tls(ssl_context, server_hostname, timeout))

    def _raw(self) -> socket.socket | None:
        if self._socket is _UNSET:
            self._socket = self._inner.get_extra_info("socket")
        return self._socket

    def get_extra_info(self, info: str) -> typing.Any:
        """``socket`` and ``is_readable`` from the kept socket; the rest from the stream."""
        if info == "is_readable":
            raw = self._raw()
            # No raw socket (a test's stream): ask the stream, as httpcore would have.
            return self._inner.get_extra_info(info) if raw is None else is_socket_readable(raw)
        if info == "socket":
            return self._raw()
        return self._inner.get_extra_info(info)


class _Backend(httpcore.AsyncNetworkBackend):
    """The pool's own backend, with its streams wrapped in :class:`_Stream`."""

    def __init__(self, inner: httpcore.AsyncNetworkBackend) -> None:
        self._inner = inner

    async def connect_tcp(self, host: str, port: int, timeout: float | None = None,
                          local_address: str | None = None,
                          socket_options: Iterable[typing.Any] | None = None) -> httpcore.AsyncNetworkStream:
        return _Stream(await self._inner.connect_tcp(host, port, timeout, local_address, socket_options))

    async def connect_unix_socket(self, path: str, timeout: float | None = None,
                                  socket_options: Iterable[typing.Any] | None = None) -> httpcore.AsyncNetworkStream:
        return _Stream(await self._inner.connect_unix_socket(path, timeout, socket_options))

    async def sleep(self, seconds: float) -> None:
        await self._inner.sleep(seconds)


def keep_sockets(client: httpx.AsyncClient) -> None:
    """Wrap the network backend of each of ``client``'s httpx connection pools (the direct one and
    any proxy's); a transport that is not httpx's own (a test seam) is left as it is."""
    transports = [client._transport, *(t for t in client._mounts.values() if t is not None)]
    for transport in transports:
        pool = getattr(transport, "_pool", None) if isinstance(transport, httpx.AsyncHTTPTransport) else None
        backend = getattr(pool, "_network_backend", None)
        if isinstance(backend, httpcore.AsyncNetworkBackend) and not isinstance(backend, _Backend):
            pool._network_backend = _Backend(backend)  # type: ignore[union-attr]
