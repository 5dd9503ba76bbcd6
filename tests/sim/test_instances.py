"""Several simulated instances at once: ``start_instances`` and ``labdeck serve --instances N``."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator

import httpx
import pytest

from labdeck.sim.core.accounts import DEMO_TOKENS, instance_tokens
from labdeck.sim.core.dialect import dialect_of
from labdeck.sim.core.requests import request_log, token_fingerprint
from labdeck.sim.instances import demo_tokens, instance_dialects, start_instances
from labdeck.sim.server import SimServer, free_port


@pytest.fixture
def pair() -> Iterator[list[SimServer]]:
    servers = start_instances(2, seed=42, dialects="spec,gitlab", families=False)
    yield servers
    for server in servers:
        server.stop()


def _user(server: SimServer, token: str) -> httpx.Response:
    return httpx.get(f"{server.api_url}/user", headers={"PRIVATE-TOKEN": token}, timeout=10)


def test_each_instance_has_its_own_seed_dialect_port_and_tokens(pair: list[SimServer]) -> None:
    first, second = pair
    assert first.port != second.port
    assert [s.state.extra["seed"] for s in pair] == [42, 43]
    assert [dialect_of(s.state) for s in pair] == ["spec", "gitlab"]
    assert demo_tokens(first.state) == DEMO_TOKENS  # the first instance is what `labdeck serve` is
    assert set(demo_tokens(second.state).values()).isdisjoint(DEMO_TOKENS.values())
    assert _user(first, DEMO_TOKENS["admin"]).json()["username"] == "root"
    assert _user(second, instance_tokens(1)["admin"]).json()["username"] == "root"
    # A token of one instance is refused by the other, both ways.
    assert _user(second, DEMO_TOKENS["admin"]).status_code == 401
    assert _user(first, instance_tokens(1)["user"]).status_code == 401


def test_each_instance_logs_its_own_requests_without_keeping_tokens(pair: list[SimServer]) -> None:
    first, second = pair
    _user(first, DEMO_TOKENS["user"])
    _user(first, instance_tokens(1)["admin"])
    first_log = [(r.method, r.path, r.status, r.account, r.token) for r in request_log(first.state).records()]
    assert first_log == [("GET", "/api/v4/user", 200, "demo-user", token_fingerprint(DEMO_TOKENS["user"])),
                         ("GET", "/api/v4/user", 401, "unknown", token_fingerprint(instance_tokens(1)["admin"]))]
    assert request_log(second.state).records() == []
    # Served too (admin, loopback), narrowed by method and path; never a token's value.
    answer = httpx.get(f"{first.base_url}/-/sim/requests", params={"method": "GET", "path": "/api/v4"},
                       headers={"PRIVATE-TOKEN": DEMO_TOKENS["admin"]}, timeout=10)
    assert [entry["status"] for entry in answer.json()] == [200, 401]
    assert DEMO_TOKENS["user"] not in answer.text and instance_tokens(1)["admin"] not in answer.text


def test_consecutive_ports_from_the_first() -> None:
    base = free_port()
    servers = start_instances(2, seed=5, port=base, families=False)
    try:
        assert [s.port for s in servers] == [base, base + 1]
        assert [dialect_of(s.state) for s in servers] == ["spec", "spec"]  # one dialect applies to all
    finally:
        for server in servers:
            server.stop()


def test_dialects_name_one_per_instance_or_one_for_all() -> None:
    assert instance_dialects("gitlab", 3) == ["gitlab"] * 3
    assert instance_dialects(["spec", "gitlab"], 2) == ["spec", "gitlab"]
    with pytest.raises(ValueError, match="3 dialects for 2 instances"):
        instance_dialects("spec,gitlab,spec", 2)
    with pytest.raises(ValueError, match="unknown dialect gitlab16"):
        instance_dialects("spec,gitlab16", 2)


def _serve(*args: str) -> subprocess.Popen[str]:
    code = "import sys; from labdeck.sim.cli import serve_main; sys.exit(serve_main(sys.argv[1:]))"
    return subprocess.Popen([sys.executable, "-c", code, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, env={**os.environ, "PYTHONUNBUFFERED": "1"})


def test_serve_instances_prints_each_instance_and_stops_on_sigterm() -> None:
    process = _serve("--instances", "2", "--port", "0", "--clock", "manual", "--dialect", "spec,gitlab")
    try:
        assert process.stdout is not None
        lines = [process.stdout.readline() for _ in range(10)]
        starts = [line for line in lines if " listening on " in line]
        assert len(starts) == 2 and "dialect: spec" in starts[0] and "dialect: gitlab" in starts[1]
        urls = [line.split("listening on ")[1].split()[0] for line in starts]
        second_admin = instance_tokens(1)["admin"]
        assert any(second_admin in line for line in lines)
        first = httpx.get(urls[0] + "/api/v4/user", headers={"PRIVATE-TOKEN": second_admin}, timeout=10)
        second = httpx.get(urls[1] + "/api/v4/user", headers={"PRIVATE-TOKEN": second_admin}, timeout=10)
        assert (first.status_code, second.status_code) == (401, 200)
        assert lines[-1].startswith("Press Ctrl-C")
    finally:
        process.terminate()
        assert process.wait(timeout=10) == 0


def test_several_dialects_without_instances_is_a_usage_error() -> None:
    process = _serve("--port", "0", "--dialect", "spec,gitlab")
    _, err = process.communicate(timeout=30)
    assert process.returncode == 2 and "--instances" in err
