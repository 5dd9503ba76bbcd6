"""Small helpers shared by the dialect and on-call tests: clients, the control surface, lookups."""

from __future__ import annotations

from typing import Any

import httpx

from labdeck.sim.ci.engine import store
from labdeck.sim.core.state import Project, SimState
from labdeck.sim.dataset.build import DEMO_TOKENS
from labdeck.sim.instances import demo_tokens
from labdeck.sim.server import SimServer


def client(server: SimServer, role: str = "admin") -> httpx.Client:
    """An httpx client on the server's /api/v4 with a demo role's token."""
    return httpx.Client(base_url=server.api_url, headers={"PRIVATE-TOKEN": demo_tokens(server.state)[role]},
                        timeout=10)


def control(server: SimServer) -> httpx.Client:
    """An admin client on the server's root, for the /-/sim control surface."""
    return httpx.Client(base_url=server.base_url, headers={"PRIVATE-TOKEN": demo_tokens(server.state)["admin"]},
                        timeout=10)


def advance(server: SimServer, seconds: float) -> None:
    """Move the simulated clock through the control surface."""
    with control(server) as admin:
        response = admin.post("/-/sim/clock/advance", params={"seconds": seconds})
    assert response.status_code == 200, response.text


def pipeline(server: SimServer, project_id: int, stages: list[dict[str, Any]], ref: str = "master",
             **body: Any) -> dict[str, Any]:
    """Create a pipeline through the control surface (``body``: ``sha``, ``title``, ``user`` …);
    returns its JSON (with ``jobs``)."""
    with control(server) as admin:
        response = admin.post(f"/-/sim/projects/{project_id}/pipelines",
                              json={"ref": ref, "stages": stages, **body}, timeout=60)
    assert response.status_code == 201, response.text
    body: dict[str, Any] = response.json()
    return body


def quiet(server: SimServer) -> SimServer:
    """Stop the server's pipeline generator, so that only the test's pipelines appear."""
    store(server.state).next_pipeline_at = None
    return server


def project(state: SimState, path: str) -> Project:
    """A project by full path."""
    found = state.project_by_ref(path)
    assert found is not None, path
    return found


def user_id(state: SimState, username: str) -> int:
    return next(user.id for user in state.users.values() if user.username == username)


def graphql(server: SimServer, query: str, variables: dict[str, Any] | None = None, *,
            role: str | None = "user", token: str | None = None) -> httpx.Response:
    """``POST /api/graphql`` with a demo role's token as ``Authorization: Bearer`` (``role=None``:
    anonymous; ``token`` overrides the role's)."""
    secret = token if token is not None else (DEMO_TOKENS[role] if role is not None else None)
    headers = {"Authorization": f"Bearer {secret}"} if secret is not None else {}
    return httpx.post(f"{server.base_url}/api/graphql", json={"query": query, "variables": variables or {}},
                      headers=headers, timeout=30)


def widen_runner(server: SimServer, slots: int = 5000) -> None:
    """Let the shared docker runner run ``slots`` jobs at once (a 1,500-job stage all running)."""
    shared = next(r for r in server.state.runners.values() if r.description == "shared-docker-01")
    with control(server) as admin:
        assert admin.put(f"/-/sim/runners/{shared.id}", json={"concurrent": slots}).status_code == 200
