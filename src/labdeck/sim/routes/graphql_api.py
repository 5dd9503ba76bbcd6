"""``/api/graphql``: GitLab's GraphQL endpoint, in the gitlab dialect (:mod:`labdeck.sim.gql`).

- ``POST`` with a JSON body ``{"query", "variables", "operationName"}``, or a JSON array of them
  (a multiplex: an array of answers, one complexity limit for them all); ``GET`` with ``query``
  (and ``variables`` as JSON, ``operationName``) in the query string.
- The token comes as on the REST API (``Authorization: Bearer``, ``PRIVATE-TOKEN``,
  ``private_token``). None: the query runs as an anonymous user (public projects only, complexity
  200). One GitLab does not know: 401 ``{"errors": [{"message": "Invalid token"}]}`` (GitLab's
  GraphQL docs, "Authentication", since 16.x: an invalid token is no longer treated as anonymous).
- Everything else, errors included, is HTTP 200 with GitLab's GraphQL body.
- The spec dialect (10.x) has no GraphQL: 404, as Rails answers a path it does not route.

Latency and injected faults apply as on ``/api/v4`` (:class:`labdeck.sim.core.faults.FaultMiddleware`).
"""

from __future__ import annotations

import json
from typing import Any

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from labdeck.sim.core.context import token_from
from labdeck.sim.core.dialect import is_gitlab
from labdeck.sim.core.state import SimState
from labdeck.sim.gql.runner import Request as Query
from labdeck.sim.gql.runner import run_many

PATH = "/api/graphql"
_JSON = "application/json; charset=utf-8"


def _answer(body: Any, status: int = 200) -> Response:
    return Response(json.dumps(body, separators=(",", ":")), status_code=status, media_type=_JSON)


def _query(source: dict[str, Any]) -> Query | Response:
    """``(query, variables, operationName)`` of one request object."""
    variables = source.get("variables")
    if isinstance(variables, str):
        try:
            variables = json.loads(variables) if variables.strip() else {}
        except ValueError:
            return _answer({"errors": [{"message": "Variables are invalid JSON"}]}, 422)
    if variables is not None and not isinstance(variables, dict):
        return _answer({"errors": [{"message": "Variables are invalid JSON"}]}, 422)
    query = source.get("query")
    operation = source.get("operationName")
    return (str(query) if query is not None else None, variables, str(operation) if operation else None)


async def _queries(request: Request) -> tuple[list[Query], bool] | Response:
    """The queries of the request, and whether it was multiplexed (a JSON array)."""
    if request.method == "GET":
        one = _query(dict(request.query_params))
        return one if isinstance(one, Response) else ([one], False)
    raw = await request.body()
    try:
        loaded = json.loads(raw) if raw.strip() else {}
    except ValueError:
        return _answer({"errors": [{"message": "Invalid JSON body"}]}, 400)
    items = loaded if isinstance(loaded, list) else [loaded]
    queries = []
    for item in items:
        parsed = _query(item if isinstance(item, dict) else {})
        if isinstance(parsed, Response):
            return parsed
        queries.append(parsed)
    return queries, isinstance(loaded, list)


async def graphql_endpoint(request: Request) -> Response:
    """Answer one GraphQL request (see the module docstring)."""
    state: SimState = request.app.state.sim
    if not is_gitlab(state):
        return Response("<html><body><h1>404 Not Found</h1></body></html>", status_code=404,
                        media_type="text/html; charset=utf-8")
    raw_token = token_from(request)
    user, _ = state.user_by_token(raw_token)
    if raw_token and user is None:
        return _answer({"errors": [{"message": "Invalid token"}]}, 401)
    parsed = await _queries(request)
    if isinstance(parsed, Response):
        return parsed
    queries, multiplexed = parsed
    state.tick()
    base_url = f"{request.url.scheme}://{request.url.netloc}"
    with state.lock:
        answers = run_many(state, user, queries, base_url)
    return _answer(answers if multiplexed else answers[0])


def graphql_routes() -> list[BaseRoute]:
    """The GraphQL route, mounted at the root (it lives beside ``/api/v4``, not under it)."""
    return [Route(PATH, graphql_endpoint, methods=["GET", "POST"])]
