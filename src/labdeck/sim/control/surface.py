"""The simulator's control surface under ``/-/sim`` (not part of the GitLab API).

Answered only for a loopback client carrying an admin's token (``PRIVATE-TOKEN`` header): any
other client gets 404, a loopback client without an admin token 403.

- ``POST /-/sim/clock/advance?seconds=N``: move simulated time forward; answers ``{"now": …}``.
- ``GET /-/sim/clock``: ``{"now": …, "mode": …, "speed": …}``.
- ``GET /-/sim/faults`` / ``PUT /-/sim/faults`` (JSON body, see :class:`FaultConfig`).
- ``GET /-/sim/requests[?method=POST&path=/api/v4/projects]``: the request log, oldest first (see
  :mod:`labdeck.sim.core.requests`; ``path`` is a prefix); ``DELETE /-/sim/requests`` empties it.
- Whatever ``labdeck.sim.control.ci.routes()`` adds (pipelines and traces), when present.
"""

from __future__ import annotations

import ipaddress
import json
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Mount, Route, Router
from starlette.types import ASGIApp, Receive, Scope, Send

from labdeck.sim.control import ci
from labdeck.sim.core.clock import iso
from labdeck.sim.core.context import token_from
from labdeck.sim.core.faults import FaultConfig, get_config, set_config
from labdeck.sim.core.requests import request_log
from labdeck.sim.core.state import SimState


def is_loopback(host: str | None) -> bool:
    if not host:
        return False
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return host == "localhost"


class ControlGuard:
    """Refuses every control request that is not from loopback with an admin token."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            request = Request(scope)
            client = scope.get("client")
            if not is_loopback(client[0] if client else None):
                await JSONResponse({"error": "404 Not Found"}, status_code=404)(scope, receive, send)
                return
            state: SimState = request.app.state.sim
            user, token = state.user_by_token(token_from(request))
            if user is None or token is None or not user.is_admin or token.read_only:
                await JSONResponse({"message": "403 Forbidden"}, status_code=403)(scope, receive, send)
                return
        await self.app(scope, receive, send)


def _state(request: Request) -> SimState:
    state: SimState = request.app.state.sim
    return state


async def advance_clock(request: Request) -> Response:
    """POST /-/sim/clock/advance?seconds=N (also accepted as a JSON body)."""
    state = _state(request)
    raw: Any = request.query_params.get("seconds")
    if raw is None and request.headers.get("content-type", "").startswith("application/json"):
        try:
            raw = (json.loads(await request.body() or b"{}") or {}).get("seconds")
        except (ValueError, AttributeError):
            raw = None
    try:
        seconds = float(raw)
        if seconds < 0:
            raise ValueError
    except (TypeError, ValueError):
        return JSONResponse({"error": "seconds is missing or invalid"}, status_code=400)
    state.clock.advance(seconds)
    state.tick()
    return JSONResponse({"now": iso(state.now())})


async def get_clock(request: Request) -> Response:
    state = _state(request)
    return JSONResponse({"now": iso(state.now()), "mode": state.clock.mode, "speed": state.clock.speed})


async def get_faults(request: Request) -> Response:
    return JSONResponse(get_config(_state(request)).to_dict())


async def put_faults(request: Request) -> Response:
    """PUT /-/sim/faults: replace the fault configuration (an empty object clears it)."""
    try:
        data = json.loads(await request.body() or b"{}")
        if not isinstance(data, dict):
            raise ValueError("the body must be a JSON object")
        config = FaultConfig.from_dict(data)
    except ValueError as error:
        return JSONResponse({"error": str(error)}, status_code=400)
    set_config(_state(request), config)
    return JSONResponse(config.to_dict())


async def get_requests(request: Request) -> Response:
    """GET /-/sim/requests: the request log, narrowed by ``method`` and a ``path`` prefix."""
    method = request.query_params.get("method", "").upper()
    prefix = request.query_params.get("path", "")
    records = [record.as_json() for record in request_log(_state(request)).records()
               if (not method or record.method == method) and record.path.startswith(prefix)]
    return JSONResponse(records)


async def clear_requests(request: Request) -> Response:
    request_log(_state(request)).clear()
    return Response(status_code=204)


def _family_routes() -> list[BaseRoute]:
    routes: list[BaseRoute] = list(ci.routes())
    return routes


def routes() -> list[BaseRoute]:
    """Routes for ``Mount("/-/sim")``, all behind :class:`ControlGuard`."""
    inner = Router(routes=[
        Route("/clock/advance", advance_clock, methods=["POST"]),
        Route("/clock", get_clock, methods=["GET"]),
        Route("/faults", get_faults, methods=["GET"]),
        Route("/faults", put_faults, methods=["PUT"]),
        Route("/requests", get_requests, methods=["GET"]),
        Route("/requests", clear_requests, methods=["DELETE"]),
        *_family_routes(),
    ])
    return [Mount("", app=ControlGuard(inner))]
