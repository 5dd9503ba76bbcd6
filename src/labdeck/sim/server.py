"""The simulator's ASGI app and a runner that serves it on a loopback port in a thread."""

from __future__ import annotations

import asyncio
import socket
import threading
import time
from collections.abc import Awaitable, Callable, MutableMapping
from email.utils import format_datetime
from typing import Any

import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Match, Mount, Route
from starlette.types import ASGIApp, Receive, Scope, Send

from labdeck.sim.control.surface import routes as control_routes
from labdeck.sim.core.context import weak_etag
from labdeck.sim.core.faults import FaultMiddleware
from labdeck.sim.core.requests import RequestLogMiddleware
from labdeck.sim.core.state import SimState
from labdeck.sim.routes import all_routes
from labdeck.sim.routes.graphql_api import graphql_routes


class RawPathMiddleware:
    """Keep ``%2F`` encoded in the routed path so that ``:id`` may be ``group%2Fproject``.

    uvicorn decodes the path before routing, which would split an encoded project path into
    several segments; real GitLab routes on the raw path.
    """

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope.get("raw_path"):
            raw = scope["raw_path"].decode("latin-1").split("?", 1)[0]
            from urllib.parse import unquote

            protected = raw.replace("%2F", "\x00").replace("%2f", "\x00")
            scope = dict(scope)
            scope["path"] = unquote(protected).replace("\x00", "%2F")
        await self.app(scope, receive, send)


class DateMiddleware:
    """``Date`` on every response, from the simulated clock: a real server's ``Date`` is on the
    clock of its data, and clients measure ages and running times against it (uvicorn's own
    ``Date`` header, from the machine's clock, is turned off)."""

    def __init__(self, app: ASGIApp, state: SimState) -> None:
        self.app = app
        self.state = state

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def dated(message: MutableMapping[str, Any]) -> None:
            if message["type"] == "http.response.start":
                date = format_datetime(self.state.now(), usegmt=True).encode("latin-1")
                headers = [(name, value) for name, value in message.get("headers", []) if name.lower() != b"date"]
                message["headers"] = [*headers, (b"date", date)]
            await send(message)

        await self.app(scope, receive, dated)


class ETagMiddleware:
    """Weak ETag on every 200 GET, and an empty 304 when ``If-None-Match`` matches (Rack::ETag)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] not in ("GET", "HEAD"):
            await self.app(scope, receive, send)
            return
        start: dict[str, Any] = {}
        chunks: list[bytes] = []
        streaming = False

        async def capture(message: MutableMapping[str, Any]) -> None:
            nonlocal streaming
            if message["type"] == "http.response.start":
                start.update(message)
                sent = {k.lower(): v for k, v in message.get("headers", [])}
                # Binary downloads (artifacts, exports) stream through untouched.
                if message["status"] != 200 or b"content-disposition" in sent and \
                        not sent.get(b"content-type", b"").startswith(b"text/plain"):
                    streaming = True
                    await send(message)
                return
            if streaming:
                await send(message)
                return
            chunks.append(message.get("body", b""))
            if message.get("more_body"):
                return
            body = b"".join(chunks)
            headers = [(k, v) for k, v in start.get("headers", []) if k.lower() != b"content-length"]
            etag = weak_etag(body)
            request_headers = dict((k.lower(), v) for k, v in scope.get("headers", []))
            if_none_match = request_headers.get(b"if-none-match", b"").decode("latin-1")
            headers.append((b"etag", etag.encode()))
            headers.append((b"cache-control", b"max-age=0, private, must-revalidate"))
            if if_none_match and etag in [tag.strip() for tag in if_none_match.split(",")]:
                headers = [(k, v) for k, v in headers if k.lower() != b"content-type"]
                await send({"type": "http.response.start", "status": 304, "headers": headers})
                await send({"type": "http.response.body", "body": b""})
                return
            headers.append((b"content-length", str(len(body)).encode()))
            await send({"type": "http.response.start", "status": start["status"], "headers": headers})
            await send({"type": "http.response.body", "body": body})

        await self.app(scope, receive, capture)


def _fallback(routes: list[BaseRoute]) -> Callable[[Request], Awaitable[Response]]:
    """Grape's answers for an unrouted request: 405 when the path exists with another verb, else 404."""

    async def unknown_route(request: Request) -> Response:
        for route in routes:
            match, _ = route.matches(request.scope)
            if match == Match.PARTIAL:
                return JSONResponse({"error": "405 Not Allowed"}, status_code=405)
        return JSONResponse({"error": "404 Not Found"}, status_code=404)

    return unknown_route


def create_app(state: SimState) -> ASGIApp:
    """The ASGI app serving ``/api/v4`` (and the ``/-/sim`` control surface) from ``state``."""
    family_routes = all_routes()
    api_routes = [*family_routes, Route("/{path:path}", _fallback(family_routes),
                                        methods=["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE"])]
    routes: list[Any] = [Mount("/-/sim", routes=control_routes()), *graphql_routes(),
                         Mount("/api/v4", routes=api_routes)]
    app = Starlette(routes=routes)
    app.state.sim = state
    wrapped: ASGIApp = ETagMiddleware(app)
    wrapped = FaultMiddleware(wrapped, state)
    wrapped = DateMiddleware(wrapped, state)
    # Outside the faults: a request answered by an injected fault is logged with that answer.
    wrapped = RequestLogMiddleware(wrapped, state)
    return RawPathMiddleware(wrapped)


def free_port(host: str = "127.0.0.1") -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((host, 0))
        return int(sock.getsockname()[1])


class SimServer:
    """A running simulator in a background thread (tests, demo mode, benchmarks)."""

    def __init__(self, state: SimState, host: str = "127.0.0.1", port: int = 0) -> None:
        self.state = state
        self.host = host
        self.port = port or free_port(host)
        self.state.base_url = self.base_url
        config = uvicorn.Config(create_app(state), host=host, port=self.port, log_level="warning",
                                access_log=False, lifespan="off", date_header=False)
        self._server = uvicorn.Server(config)
        self._thread: threading.Thread | None = None

    @property
    def base_url(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}"

    @property
    def api_url(self) -> str:
        return f"{self.base_url}/api/v4"

    def start(self, timeout: float = 10.0) -> SimServer:
        """Serve in a daemon thread; return once the socket accepts connections."""
        self._thread = threading.Thread(target=self._run, name="labdeck-sim", daemon=True)
        self._thread.start()
        deadline = time.monotonic() + timeout
        while not self._server.started:
            if time.monotonic() > deadline or not self._thread.is_alive():
                raise RuntimeError("the simulator did not start")
            time.sleep(0.01)
        return self

    def _run(self) -> None:
        asyncio.run(self._server.serve())

    def stop(self) -> None:
        self._server.should_exit = True
        if self._thread is not None:
            self._thread.join(timeout=5)

    def __enter__(self) -> SimServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
