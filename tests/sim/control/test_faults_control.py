"""Fault injection and the /-/sim control surface."""

from __future__ import annotations

import email.utils

import httpx
import pytest

from labdeck.sim.core.faults import FaultConfig
from labdeck.sim.dataset.build import DEMO_TOKENS


def test_fault_spec_parsing() -> None:
    config = FaultConfig.parse("latency=100,error_rate=0.1,rate_limit=0.05,retry_after=2,retry_after_format=date")
    assert (config.latency_ms, config.error_rate, config.rate_limit) == (100, 0.1, 0.05)
    assert config.retry_after == 2 and config.retry_after_format == "date"
    scoped = FaultConfig.parse("rate_limit=1,path=/projects,methods=GET|HEAD")
    assert scoped.matches("GET", "/projects/1") and not scoped.matches("POST", "/projects")
    assert not scoped.matches("GET", "/user")
    for bad in ("error_rate=2", "bogus=1", "latency", "retry_after_format=weeks"):
        with pytest.raises(ValueError):
            FaultConfig.parse(bad)


def _control(server, path: str, method: str = "GET", **kwargs) -> httpx.Response:
    headers = {"PRIVATE-TOKEN": DEMO_TOKENS["admin"]}
    return httpx.request(method, f"{server.base_url}/-/sim{path}", headers=headers, **kwargs)


def test_rate_limit_fault_has_gitlab_headers(sim_factory) -> None:
    server = sim_factory()
    assert _control(server, "/faults", "PUT", json={"rate_limit": 1, "retry_after": 7,
                                                    "path_prefix": "/projects"}).status_code == 200
    throttled = httpx.get(server.api_url + "/projects")
    assert throttled.status_code == 429
    assert throttled.text == "Retry later" and throttled.headers["content-type"].startswith("text/plain")
    assert throttled.headers["Retry-After"] == "7"
    for name in ("RateLimit-Limit", "RateLimit-Remaining", "RateLimit-Reset", "RateLimit-Name", "RateLimit-Observed"):
        assert name in throttled.headers
    assert throttled.headers["RateLimit-Remaining"] == "0"
    assert httpx.get(server.api_url + "/user", headers={"PRIVATE-TOKEN": DEMO_TOKENS["user"]}).status_code == 200
    _control(server, "/faults", "PUT", json={"rate_limit": 1, "retry_after_format": "date"})
    dated = httpx.get(server.api_url + "/projects")
    assert email.utils.parsedate_to_datetime(dated.headers["Retry-After"]) is not None
    assert _control(server, "/faults", "PUT", json={}).json()["rate_limit"] == 0
    assert httpx.get(server.api_url + "/projects").status_code == 200


def test_error_rate_is_deterministic(sim_factory) -> None:
    def statuses() -> list[int]:
        server = sim_factory(seed=7)
        _control(server, "/faults", "PUT", json={"error_rate": 0.5})
        return [httpx.get(server.api_url + "/projects").status_code for _ in range(12)]

    first = statuses()
    assert first == statuses()
    assert 200 in first and any(code >= 500 for code in first)


def test_control_requires_admin_token(sim) -> None:
    assert httpx.get(f"{sim.base_url}/-/sim/faults").status_code == 403
    user = httpx.get(f"{sim.base_url}/-/sim/faults", headers={"PRIVATE-TOKEN": DEMO_TOKENS["user"]})
    assert user.status_code == 403
    assert _control(sim, "/faults").json()["error_rate"] == 0


def test_clock_advance_moves_simulated_time(sim_factory) -> None:
    server = sim_factory()
    before = server.state.now()
    response = _control(server, "/clock/advance", "POST", params={"seconds": 90})
    assert response.status_code == 200
    assert (server.state.now() - before).total_seconds() == pytest.approx(90)
    assert _control(server, "/clock/advance", "POST", params={"seconds": "x"}).status_code == 400
    assert _control(server, "/clock").json()["mode"] == "manual"


def test_family_control_routes_are_mounted_behind_the_guard(sim) -> None:
    path = "/projects/1/pipelines"
    refused = httpx.post(f"{sim.base_url}/-/sim{path}", json={},
                         headers={"PRIVATE-TOKEN": DEMO_TOKENS["user"]})
    assert refused.status_code == 403
    reached = _control(sim, path, "POST", json={})
    assert reached.status_code != 404 and reached.status_code < 500
