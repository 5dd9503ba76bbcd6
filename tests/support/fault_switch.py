"""A fault-switching HTTP proxy in front of ``labdeck serve``, for tests, benchmarks and trials.

The one proxy for "what a user meets when the server is in trouble" (issue 24). It runs on a
loopback port in its own thread (so Pilot tests, pty tests and benchmarks can all use it) and
keeps the client's connection alive like nginx does (``idle_timeout``, 75 s by default), while
every request goes upstream on a fresh connection. Switch the fault at any moment:

- ``switch.set("pass")``: forward everything.
- ``switch.set("revoked", tokens={"…"})``: 401 to every API request (to those carrying one of
  ``tokens`` when given: a token revoked, another one given again works).
- ``switch.set("bad_gateway")``: nginx's 502 page (``text/html``, ``Server: nginx``).
- ``switch.set("rate_limited", retry_after=5)``: 429 ``Retry later`` with ``Retry-After``.
- ``switch.set("latency", seconds=3)``: every API request waits that long, then is forwarded.
- ``switch.set("server_error")``: 500 ``Internal Server Error`` (JSON body).
- ``switch.set("redirect", location="http://other:port")``: ``302 Found`` to the same path and query
  on that origin (a moved instance, or a hostile one fishing for the token of another).
- ``switch.set("unavailable", retry_after=20)``: 503 ``Service Unavailable`` with ``Retry-After``
  (a server in maintenance, or a load balancer with no healthy backend).
- ``only="/trace"`` (with any kind): fault only the API requests whose path contains it (a log
  read fails, the jobs pages still answer).
- ``graphql=True`` (with any kind): fault ``/api/graphql`` too, as a whole server in trouble does
  (a gitlab-dialect board's GraphQL batch answered in a 502 storm ends the storm for its client).
- ``switch.set("sign_in")``: an SSO gateway's ``200 text/html`` sign-in page (``Sign in · GitLab``).
- ``switch.set("wrong_shape")``: the server's own answer (status, ETag and all) with its JSON
  wrapped as ``{"data": …}``: a broken proxy. ``truncated``: the body cut in half (its
  ``Content-Length`` too), as a proxy that lost the rest would send it. ``wrong_items``: a list
  answer's items each wrapped as ``{"data": …}`` (the right shape at the top, wrong inside).
- ``switch.set("refused")``: the port stops listening (connection refused) until another fault is
  set. No request can be counted then: ``refused_since`` says when it began. ``reset``: each
  request is read, counted (status 0) and answered by closing the connection.

A request forwarded to an upstream that is gone (the simulator stopped) is counted with status 0.

Only ``/api/v4`` is faulted (and ``/api/graphql`` with ``graphql``): the simulator's ``/-/sim`` control stays reachable. ``PUT
/-/proxy/fault`` with ``{"kind": …, …}`` switches from outside (tmux trials), ``GET /-/proxy/stats``
says what went through. ``requests`` lists ``(monotonic time, method, path, status)``;
``connections`` counts connections accepted (TLS handshakes, with ``tls``).

Run it by hand: ``python -m tests.support.fault_switch --upstream http://127.0.0.1:18xxx --port N``.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import ssl
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

NGINX_502 = (b"<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n"
             b"<center><h1>502 Bad Gateway</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n")
SIGN_IN_PAGE = (b"<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
                b"<title>Sign in \xc2\xb7 GitLab</title>\n</head>\n<body>\n<h1>Sign in</h1>\n"
                b"<form action=\"/users/auth/openid_connect\" method=\"post\"><button>Sign in with SSO</button></form>\n"
                b"</body>\n</html>\n")
KINDS = ("pass", "revoked", "bad_gateway", "rate_limited", "latency", "sign_in", "wrong_shape", "truncated",
         "wrong_items",
         "refused", "reset", "server_error", "redirect",
         "unavailable")


@dataclass
class Fault:
    """What the proxy does to API requests now."""

    kind: str = "pass"
    seconds: float = 0.0
    """``latency``: the delay of every request."""
    retry_after: int = 5
    """``rate_limited``, ``unavailable``: the ``Retry-After`` sent."""
    tokens: frozenset[str] = field(default_factory=frozenset)
    """``revoked``: the tokens refused (empty: every request)."""
    only: str = ""
    """Fault only API paths containing this ('' : every API request)."""
    location: str = ""
    """``redirect``: the origin the answer points to."""
    graphql: bool = False
    """Fault ``/api/graphql`` too (else only ``/api/v4``)."""


def _head(data: bytes) -> tuple[str, list[tuple[str, str]]]:
    lines = data.decode("latin-1").split("\r\n")
    headers = []
    for line in lines[1:]:
        if line:
            name, _, value = line.partition(":")
            headers.append((name.strip(), value.strip()))
    return lines[0], headers


def _header(headers: list[tuple[str, str]], name: str) -> str | None:
    return next((value for key, value in headers if key.lower() == name), None)


def _response(status: int, reason: str, body: bytes, headers: dict[str, str]) -> bytes:
    lines = [f"HTTP/1.1 {status} {reason}", f"Content-Length: {len(body)}", "Connection: keep-alive",
             *[f"{k}: {v}" for k, v in headers.items()], "", ""]
    return "\r\n".join(lines).encode("latin-1") + body


class FaultSwitch:
    """See the module docstring. ``upstream`` is the simulator's base URL."""

    def __init__(self, upstream: str, *, tls: ssl.SSLContext | None = None, idle_timeout: float = 75.0,
                 port: int = 0) -> None:
        parts = urlsplit(upstream)
        self.upstream = (parts.hostname or "127.0.0.1", parts.port or 80)
        self.tls = tls
        self.idle_timeout = idle_timeout
        self.fault = Fault()
        self.requests: list[tuple[float, str, str, int]] = []
        self.tokens_seen: set[str] = set()
        """Every token an API request carried (``PRIVATE-TOKEN`` or ``Authorization: Bearer``):
        a board over several instances sends each instance its own token only."""
        self.connections = 0
        self._port = port
        self._loop: asyncio.AbstractEventLoop | None = None
        self._server: asyncio.base_events.Server | None = None
        self._thread: threading.Thread | None = None
        self._ready = threading.Event()
        self._lock = threading.Lock()
        self._bound = port
        self._clients: set[asyncio.StreamWriter] = set()
        self.refused_since: float | None = None
        """When ``refused`` began (monotonic), None while the port listens."""

    # --- control ---------------------------------------------------------------------------------

    def set(self, kind: str, *, seconds: float = 0.0, retry_after: int = 5, tokens: Any = (), only: str = "",
            location: str = "", graphql: bool = False) -> None:
        """Switch to fault ``kind`` (one of :data:`KINDS`) from now on (on paths containing ``only``)."""
        if kind not in KINDS:
            raise ValueError(f"unknown fault {kind!r} (one of {', '.join(KINDS)})")
        was = self.fault.kind
        self.fault = Fault(kind, float(seconds), int(retry_after), frozenset(str(t) for t in tokens), str(only),
                           str(location), graphql)
        if (kind == "refused") != (was == "refused"):
            self._listen(kind != "refused")
        if kind == "refused" and seconds > 0 and self._loop is not None:
            # By hand (tmux): the control port is the refused one, so the fault ends by itself.
            self._loop.call_soon_threadsafe(self._loop.call_later, seconds, self._refused_over)

    def _refused_over(self) -> None:
        if self.fault.kind == "refused":
            self.set("pass")

    def _listen(self, on: bool) -> None:
        """Stop or start listening on the same port (``refused``); from another thread, waits
        until done; from the switch's own (the control request), a moment later."""
        loop = self._loop
        if loop is None or not loop.is_running():
            return
        self.refused_since = None if on else time.monotonic()
        if threading.current_thread() is self._thread:
            if on:
                loop.create_task(self._open())
            else:  # after the control request's answer has left
                loop.call_later(0.2, lambda: loop.create_task(self._close_listener()))
            return
        asyncio.run_coroutine_threadsafe(self._open() if on else self._close_listener(), loop).result(10)

    async def _close_listener(self) -> None:
        if self._server is not None:
            self._server.close()
            await self._server.wait_closed()
        for writer in list(self._clients):  # kept connections go too: the process is "gone"
            with contextlib.suppress(Exception):
                writer.transport.abort()

    async def _open(self) -> None:
        self._server = await asyncio.start_server(self._serve, "127.0.0.1", self._bound, ssl=self.tls)

    @property
    def port(self) -> int:
        return self._bound

    @property
    def url(self) -> str:
        return f"{'https' if self.tls else 'http'}://127.0.0.1:{self.port}"

    def api_requests(self, since: float = 0.0) -> list[tuple[float, str, str, int]]:
        """API requests answered (faulted or forwarded) at or after monotonic ``since``."""
        with self._lock:
            return [item for item in self.requests if item[0] >= since and item[2].startswith("/api/v4")]

    def stats(self) -> dict[str, Any]:
        now = time.monotonic()
        paths: dict[str, int] = {}
        for _, _, path, _ in self.api_requests(now - 60):
            paths[path] = paths.get(path, 0) + 1
        return {"fault": self.fault.kind, "connections": self.connections,
                "requests": len(self.api_requests()), "last_minute": len(self.api_requests(now - 60)),
                "last_minute_paths": paths}

    # --- lifecycle -------------------------------------------------------------------------------

    def start(self) -> FaultSwitch:
        self._thread = threading.Thread(target=self._run, name="fault-switch", daemon=True)
        self._thread.start()
        if not self._ready.wait(10):
            raise RuntimeError("the fault switch did not start")
        return self

    def stop(self) -> None:
        loop = self._loop
        if loop is not None and loop.is_running():
            loop.call_soon_threadsafe(loop.stop)
        if self._thread is not None:
            self._thread.join(5)

    def __enter__(self) -> FaultSwitch:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def _run(self) -> None:
        loop = self._loop = asyncio.new_event_loop()
        self._server = loop.run_until_complete(
            asyncio.start_server(self._serve, "127.0.0.1", self._port, ssl=self.tls))
        self._bound = int(self._server.sockets[0].getsockname()[1])
        self._ready.set()
        try:
            loop.run_forever()
        finally:
            self._server.close()
            for task in asyncio.all_tasks(loop):
                task.cancel()
            with contextlib.suppress(Exception):
                loop.run_until_complete(asyncio.sleep(0))
            loop.close()

    # --- serving ---------------------------------------------------------------------------------

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.connections += 1
        self._clients.add(writer)
        try:
            while True:
                try:
                    head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), self.idle_timeout)
                except (TimeoutError, asyncio.IncompleteReadError, asyncio.LimitOverrunError):
                    return  # idle too long (nginx's keepalive_timeout), or the client went away
                start, headers = _head(head)
                method, target, _ = start.split(" ", 2)
                length = int(_header(headers, "content-length") or 0)
                body = await reader.readexactly(length) if length else b""
                carried = _header(headers, "private-token") or \
                    (_header(headers, "authorization") or "").removeprefix("Bearer ").strip()
                if carried:
                    with self._lock:
                        self.tokens_seen.add(carried)
                try:
                    answer, status = await self._answer(method, target, head, headers, body)
                except OSError:
                    answer, status = b"", 0  # the upstream is gone: the connection just closes
                with self._lock:
                    self.requests.append((time.monotonic(), method, target.split("?", 1)[0], status))
                if not answer:
                    writer.transport.abort()
                    return
                writer.write(answer)
                await writer.drain()
                if (_header(headers, "connection") or "").lower() == "close":
                    return
        except (ConnectionError, ssl.SSLError, OSError, asyncio.CancelledError):
            return  # the client went away, or the switch is stopping
        finally:
            self._clients.discard(writer)
            with contextlib.suppress(Exception):
                writer.close()

    async def _answer(self, method: str, target: str, head: bytes, headers: list[tuple[str, str]],
                      body: bytes) -> tuple[bytes, int]:
        path = target.split("?", 1)[0]
        if path.startswith("/-/proxy/"):
            return self._control(method, path, body), 200
        fault = self.fault
        if (path.startswith("/api/v4") or (fault.graphql and path.startswith("/api/graphql"))) and fault.only in path:
            if fault.kind == "server_error":
                return _response(500, "Internal Server Error", b'{"message":"500 Internal Server Error"}',
                                 {"Content-Type": "application/json"}), 500
            if fault.kind == "unavailable":
                return _response(503, "Service Unavailable", b'{"message":"503 Service Unavailable"}',
                                 {"Content-Type": "application/json", "Retry-After": str(fault.retry_after)}), 503
            if fault.kind == "revoked" and (not fault.tokens or _header(headers, "private-token") in fault.tokens):
                return _response(401, "Unauthorized", b'{"message":"401 Unauthorized"}',
                                 {"Content-Type": "application/json"}), 401
            if fault.kind == "redirect":
                where = fault.location.rstrip("/") + target
                return _response(302, "Found", b"", {"Location": where}), 302
            if fault.kind == "bad_gateway":
                return _response(502, "Bad Gateway", NGINX_502, {"Content-Type": "text/html", "Server": "nginx"}), 502
            if fault.kind == "rate_limited":
                reset = int(time.time()) + fault.retry_after
                return _response(429, "Too Many Requests", b"Retry later", {
                    "Content-Type": "text/plain", "Retry-After": str(fault.retry_after),
                    "RateLimit-Limit": "600", "RateLimit-Observed": "601", "RateLimit-Remaining": "0",
                    "RateLimit-Reset": str(reset)}), 429
            if fault.kind == "latency" and fault.seconds > 0:
                await asyncio.sleep(fault.seconds)
            if fault.kind == "sign_in":
                return _response(200, "OK", SIGN_IN_PAGE, {"Content-Type": "text/html; charset=utf-8",
                                                            "Server": "nginx"}), 200
            if fault.kind == "reset":
                return b"", 0
            if fault.kind in ("wrong_shape", "truncated", "wrong_items") and method == "GET":
                answer, status = await self._forward(head, body)
                return _reshaped(answer, fault.kind) if status == 200 else answer, status
        return await self._forward(head, body)

    def _control(self, method: str, path: str, body: bytes) -> bytes:
        if method == "PUT" and path == "/-/proxy/fault":
            try:
                options = json.loads(body or b"{}")
                self.set(str(options.pop("kind", "pass")), **options)
            except (ValueError, TypeError) as error:
                return _response(400, "Bad Request", str(error).encode(), {"Content-Type": "text/plain"})
        payload = json.dumps(self.stats()).encode()
        return _response(200, "OK", payload, {"Content-Type": "application/json"})

    async def _forward(self, head: bytes, body: bytes) -> tuple[bytes, int]:
        lines = head.decode("latin-1").split("\r\n")
        kept = [line for line in lines[:-2] if not line.lower().startswith(("connection:", "keep-alive:"))]
        request = ("\r\n".join([*kept, "Connection: close", "", ""])).encode("latin-1") + body
        up_reader, up_writer = await asyncio.open_connection(*self.upstream)
        try:
            up_writer.write(request)
            await up_writer.drain()
            raw = await up_reader.read(-1)
        finally:
            up_writer.close()
        split = raw.find(b"\r\n\r\n")
        if split < 0:
            return _response(502, "Bad Gateway", b"upstream sent no answer", {}), 502
        start, headers = _head(raw[: split + 4])
        rest = raw[split + 4:]
        status = int(start.split(" ", 2)[1])
        headers = [(k, v) for k, v in headers if k.lower() not in ("connection", "keep-alive")]
        if _header(headers, "content-length") is None and \
                (_header(headers, "transfer-encoding") or "").lower() != "chunked":
            headers.append(("Content-Length", str(len(rest))))
        lines = [start, *[f"{k}: {v}" for k, v in headers], "Connection: keep-alive", "", ""]
        return "\r\n".join(lines).encode("latin-1") + rest, status


def _reshaped(answer: bytes, kind: str) -> bytes:
    """The server's answer with its JSON wrapped as ``{"data": …}`` (``wrong_shape``), each item of
    a list wrapped so (``wrong_items``) or cut in half (``truncated``); every header kept (its ETag
    above all), ``Content-Length`` fixed."""
    split = answer.find(b"\r\n\r\n")
    start, headers = _head(answer[: split + 4])
    rest = answer[split + 4:]
    if (_header(headers, "transfer-encoding") or "").lower() == "chunked":
        return answer  # the simulator sends lengths; a chunked body is passed on as it is
    if kind == "wrong_items":
        try:
            value = json.loads(rest)
        except ValueError:
            return answer
        if not isinstance(value, list):
            return answer
        body = json.dumps([{"data": item} for item in value]).encode()
    else:
        body = b'{"data": ' + rest + b"}" if kind == "wrong_shape" else rest[: len(rest) // 2]
    kept = [(k, v) for k, v in headers if k.lower() != "content-length"]
    lines = [start, *[f"{k}: {v}" for k, v in kept], f"Content-Length: {len(body)}", "", ""]
    return "\r\n".join(lines).encode("latin-1") + body


def server_context(cert: Path, key: Path) -> ssl.SSLContext:
    """The TLS context the proxy serves with."""
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert, key)
    return context


def main() -> None:
    """Run the proxy by hand (tmux trials): Ctrl+C stops it."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--upstream", required=True)
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--tls-dir", help="serve HTTPS with a self-signed certificate written here")
    args = parser.parse_args()
    tls = None
    if args.tls_dir:
        folder = Path(args.tls_dir)
        folder.mkdir(parents=True, exist_ok=True)
        from tests.support.pki import self_signed  # cryptography is optional: only --tls-dir needs it

        tls = server_context(*self_signed(folder))
    switch = FaultSwitch(args.upstream, tls=tls, port=args.port).start()
    print(f"fault switch on {switch.url} → {args.upstream}; PUT {switch.url}/-/proxy/fault", flush=True)
    with contextlib.suppress(KeyboardInterrupt):
        while True:
            time.sleep(3600)
    switch.stop()


if __name__ == "__main__":
    main()
