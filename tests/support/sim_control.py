"""The simulator's control surface (``/-/sim``, admin, loopback) for tests: move its clock, read
its time, create pipelines, set faults, find projects."""

from __future__ import annotations

import weakref
from datetime import datetime
from typing import Any

import httpx

from labdeck.sim.instances import demo_tokens
from labdeck.sim.server import SimServer


def control(server: SimServer) -> httpx.Client:
    """The simulator's control surface (admin, loopback)."""
    return httpx.Client(base_url=server.base_url, headers={"PRIVATE-TOKEN": demo_tokens(server.state)["admin"]},
                        timeout=10)


def call(server: SimServer, token: str, method: str, path: str, **kwargs: Any) -> Any:
    """One call to ``/-/sim{path}`` with ``token`` (``kwargs``: ``json=``, ``params=``, ``content=``);
    fails on an error status, returns the JSON answer."""
    response = httpx.request(method, f"{server.base_url}/-/sim{path}", headers={"PRIVATE-TOKEN": token}, **kwargs)
    response.raise_for_status()
    return response.json()


def sim_now(server: SimServer, token: str) -> datetime:
    """The simulated time (the simulator's ``Date`` header is the machine's clock, not this one)."""
    return datetime.fromisoformat(call(server, token, "GET", "/clock")["now"].replace("Z", "+00:00"))


_clock_hands: weakref.WeakKeyDictionary[SimServer, httpx.Client] = weakref.WeakKeyDictionary()
"""One kept-alive control client per simulator for :func:`advance`: the lockstep tests move the
clock a second at a time, a thousand times a test, and a new client and connection each time cost
half as much again as the request (4.5 ms of CPU against 3.0 ms)."""


def advance(server: SimServer, seconds: float) -> None:
    """Move the simulator's clock ``seconds`` on (its jobs, exports and imports follow)."""
    admin = _clock_hands.get(server)
    if admin is None or str(admin.base_url).rstrip("/") != server.base_url.rstrip("/"):  # restarted elsewhere
        admin = _clock_hands[server] = control(server)
        weakref.finalize(server, admin.close)
    assert admin.post("/-/sim/clock/advance", params={"seconds": seconds}).status_code == 200


def push_pipeline(server: SimServer, project_id: int, jobs: list[dict[str, Any]], ref: str = "master") -> dict[str, Any]:
    """Create a one-stage pipeline through the control surface (counts as a push)."""
    with control(server) as admin:
        response = admin.post(f"/-/sim/projects/{project_id}/pipelines",
                              json={"ref": ref, "stages": [{"name": "test", "jobs": jobs}]})
    assert response.status_code == 201, response.text
    body: dict[str, Any] = response.json()
    return body


def set_faults(server: SimServer, faults: dict[str, Any]) -> None:
    with control(server) as admin:
        assert admin.put("/-/sim/faults", json=faults).status_code == 200


def project_id(server: SimServer, path: str) -> int:
    found = server.state.project_by_ref(path)
    assert found is not None, path
    return int(found.id)


def big_stages(*, tests: int = 1200, deploys: int = 300, fail: tuple[int, ...] = (), allowed: tuple[int, ...] = (),
               long: tuple[int, ...] = (), flaky: tuple[int, ...] = (),
               durations: dict[int, float] | None = None) -> list[dict[str, Any]]:
    """A monorepo pipeline listed job by job: stage ``test`` (``unit-0001`` …) then ``deploy``
    (``deploy-0001`` …, skipped once a test fails). ``fail``/``allowed``/``long``/``flaky``: 1-based
    indexes of test jobs that fail, fail with ``allow_failure``, run for a day, fail once then pass;
    ``durations``: seconds of particular test jobs (others run for one)."""
    def unit(i: int) -> dict[str, Any]:
        spec: dict[str, Any] = {"name": f"unit-{i:04d}",
                                "duration": 86_400 if i in long else (durations or {}).get(i, 1)}
        if i in fail or i in allowed:
            spec["fail"] = True
        if i in allowed:
            spec["allow_failure"] = True
        if i in flaky:
            spec["flaky"] = True
        return spec

    return [{"name": "test", "jobs": [unit(i) for i in range(1, tests + 1)]},
            {"name": "deploy", "jobs": [{"name": f"deploy-{i:04d}", "duration": 1} for i in range(1, deploys + 1)]}]


def push_stages(server: SimServer, project_id: int, stages: list[dict[str, Any]], ref: str = "master") -> dict[str, Any]:
    """Create a pipeline of several stages through the control surface (counts as a push)."""
    with control(server) as admin:
        response = admin.post(f"/-/sim/projects/{project_id}/pipelines", json={"ref": ref, "stages": stages},
                              timeout=60)
    assert response.status_code == 201, response.text
    body: dict[str, Any] = response.json()
    return body
