"""Per-request context handed to every simulator route handler, and the ``endpoint`` decorator."""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any
from urllib.parse import unquote

from starlette.requests import Request
from starlette.responses import Response

from labdeck.sim.core.http import (
    ApiError,
    Params,
    forbidden,
    insufficient_scope,
    json_response,
    not_found,
    parse_params,
    unauthorized,
)
from labdeck.sim.core.state import Group, Project, SimState, Token, User


@dataclass
class Ctx:
    """What a handler needs: the request, its parameters, the state and the caller."""

    request: Request
    params: Params
    state: SimState
    user: User | None
    token: Token | None

    @property
    def base_url(self) -> str:
        """``http://host:port`` of this server, as the client reached it."""
        return f"{self.request.url.scheme}://{self.request.url.netloc}"

    @property
    def api_url(self) -> str:
        return f"{self.base_url}/api/v4"

    def path(self, name: str) -> str:
        """A path parameter, percent-decoded (``group%2Fproject`` → ``group/project``)."""
        return unquote(str(self.request.path_params[name]))

    def path_int(self, name: str) -> int:
        raw = self.path(name)
        try:
            return int(raw)
        except ValueError:
            raise ApiError(400, {"error": f"{name} is invalid"}) from None

    def require_user(self) -> User:
        """401 unless a valid token came with the request."""
        if self.user is None:
            raise unauthorized()
        return self.user

    def require_admin(self) -> User:
        user = self.require_user()
        if not user.is_admin:
            raise forbidden()
        return user

    def project(self, name: str = "id") -> Project:
        """The project named by a path parameter; 404 ``Project Not Found`` when invisible."""
        project = self.state.project_by_ref(self.path(name))
        if project is None or not self.state.can_read(self.user, project):
            raise not_found("Project")
        return project

    def group(self, name: str = "id") -> Group:
        group = self.state.group_by_ref(self.path(name))
        if group is None:
            raise not_found("Group")
        if group.visibility == "private" and not self._can_see_group(group):
            raise not_found("Group")
        return group

    def _can_see_group(self, group: Group) -> bool:
        user = self.user
        if user is None:
            return False
        if user.is_admin:
            return True
        current: Group | None = group
        while current is not None:
            if user.id in current.members:
                return True
            current = self.state.groups.get(current.parent_id) if current.parent_id else None
        return any(
            self.state.access_level(user, project) > 0
            for project in self.state.projects.values()
            if project.namespace_kind == "group" and project.namespace_id == group.id
        )


Handler = Callable[[Ctx], Awaitable[Any]]


def token_from(request: Request) -> str | None:
    """``PRIVATE-TOKEN`` header, ``private_token`` query, or ``Authorization: Bearer``."""
    token = request.headers.get("private-token") or request.query_params.get("private_token")
    if not token:
        auth = request.headers.get("authorization", "")
        if auth.lower().startswith("bearer "):
            token = auth[7:].strip()
    return token or None


def sudo(state: SimState, request: Request, user: User | None, token: Token | None) -> User | None:
    """Apply ``sudo`` (query) or ``Sudo`` (header): an admin with a ``sudo``-scoped token acts as
    another user, given by id or username (docs/wire-facts.md §7)."""
    target = request.headers.get("sudo") or request.query_params.get("sudo")
    if not target or user is None or token is None:
        return user
    if not user.is_admin:
        raise forbidden("Must be admin to use sudo")
    if "sudo" not in token.scopes:
        raise ApiError(403, {"error": "insufficient_scope",
                             "error_description": "The request requires higher privileges than provided by the "
                                                  "access token.",
                             "scope": "sudo"})
    other = state.user_by_ref(target)
    if other is None:
        raise not_found(f"User with ID or username '{target}'")
    return other


def endpoint(
    *, auth: bool = False, status: int | None = None
) -> Callable[[Handler], Callable[[Request], Awaitable[Response]]]:
    """Wrap a handler: parse params, resolve the caller, enforce auth and token scope, render.

    ``auth`` makes an anonymous request a 401 (GitLab's ``authenticate!``). Non-GET requests
    always need a token, and a ``read_api`` token gets 403 ``insufficient_scope`` on them.
    A handler returns a Response, ``(body, status)``, ``(body, status, headers)`` or a body; the
    default status is 201 for POST, 200 otherwise (or ``status``).
    """

    def decorate(handler: Handler) -> Callable[[Request], Awaitable[Response]]:
        @functools.wraps(handler)
        async def run(request: Request) -> Response:
            state: SimState = request.app.state.sim
            try:
                raw_token = token_from(request)
                user, token = state.user_by_token(raw_token)
                if raw_token and user is None:
                    raise unauthorized()
                if (auth or request.method not in ("GET", "HEAD")) and user is None:
                    raise unauthorized()
                if token is not None and token.read_only and request.method not in ("GET", "HEAD"):
                    raise insufficient_scope()
                user = sudo(state, request, user, token)
                params = await parse_params(request)
                state.tick()
                ctx = Ctx(request, params, state, user, token)
                with state.lock:
                    result = await handler(ctx)
            except ApiError as error:
                return error.to_response()
            return render(request, result, status)

        return run

    return decorate


def render(request: Request, result: Any, status: int | None) -> Response:
    if isinstance(result, Response):
        return result
    headers: dict[str, str] = {}
    if isinstance(result, tuple):
        if len(result) == 3:
            body, code, headers = result
        else:
            body, code = result
    else:
        body = result
        code = status or (201 if request.method == "POST" else 200)
    if code in (204, 304):
        return Response(status_code=code, headers=headers)
    return json_response(body, code, headers)


def weak_etag(body: bytes) -> str:
    """Rack::ETag's weak validator over the body."""
    return 'W/"' + hashlib.md5(body, usedforsecurity=False).hexdigest() + '"'
