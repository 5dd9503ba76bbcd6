"""The demo data set, ``labdeck serve`` and demo mode."""

from __future__ import annotations

import io
import os
import subprocess
import sys
import time

import httpx

from labdeck.sim.cli import build_parser, prepare_state, print_banner
from labdeck.sim.core.clock import SimClock
from labdeck.sim.core.state import GUEST, OWNER
from labdeck.sim.dataset.build import DEMO_TOKENS, build_state


def _fingerprint(seed: int) -> list[tuple[object, ...]]:
    state = build_state(seed=seed, clock=SimClock(mode="manual"), families=False)
    return [(p.id, p.path, p.visibility, p.archived, sorted(p.members.items()), sorted(p.starred_by))
            for p in state.projects.values()]


def test_same_seed_same_data_and_other_seed_differs() -> None:
    assert _fingerprint(42) == _fingerprint(42)
    assert _fingerprint(42) != _fingerprint(7)


def test_dataset_shape() -> None:
    state = build_state(seed=42, clock=SimClock(mode="manual"), families=False)
    projects = list(state.projects.values())
    assert len(projects) >= 40
    assert {p.visibility for p in projects} == {"public", "internal", "private"}
    assert any(p.archived for p in projects) and any(p.forked_from_id for p in projects)
    assert any(p.starred_by for p in projects) and any(p.custom_attributes for p in projects)
    levels = {level for p in projects for level in p.members.values()}
    assert GUEST in levels and OWNER in levels
    assert sum(not u.is_admin for u in state.users.values()) >= 5
    assert any(g.parent_id for g in state.groups.values()) and len(state.groups) >= 3
    assert any("*" in name for (_, name) in state.protected_branches)
    readonly = state.tokens[DEMO_TOKENS["readonly"]]
    assert readonly.scopes == ("read_api",)
    assert state.users[state.tokens[DEMO_TOKENS["admin"]].user_id].is_admin


def test_projects_option_pads_the_data_set() -> None:
    state = build_state(seed=1, clock=SimClock(mode="manual"), projects=600, families=False)
    assert len(state.projects) == 600
    assert len(state.extra["generated_project_ids"]) == 600 - 45


def test_serve_arguments_and_banner() -> None:
    args = build_parser().parse_args(["--clock", "manual", "--trace-range", "--faults", "latency=5", "--seed", "3"])
    state = prepare_state(args)
    assert state.extra["trace_range"] is True
    assert state.extra["faults"].latency_ms == 5 and state.clock.mode == "manual"
    out = io.StringIO()
    print_banner("http://127.0.0.1:8929", out)
    lines = out.getvalue().splitlines()
    assert "http://127.0.0.1:8929" in lines[0]
    for role, username in (("admin", "root"), ("user", "alice"), ("read-only", "viewer")):
        assert any(role in line and username in line and DEMO_TOKENS[role.replace("-", "")] in line
                   for line in lines[1:])


def test_labdeck_serve_runs_in_the_foreground(tmp_path) -> None:
    code = "import sys; from labdeck.sim.cli import serve_main; sys.exit(serve_main(sys.argv[1:]))"
    process = subprocess.Popen([sys.executable, "-c", code, "--port", "0", "--clock", "manual"],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               env={**os.environ, "PYTHONUNBUFFERED": "1"})
    try:
        assert process.stdout is not None
        first = process.stdout.readline()
        url = first.split("listening on ")[1].split()[0]
        response = httpx.get(url + "/api/v4/user", headers={"PRIVATE-TOKEN": DEMO_TOKENS["admin"]})
        assert response.json()["username"] == "root"
    finally:
        process.terminate()
        process.wait(timeout=10)


def test_start_demo_uses_the_real_clock() -> None:
    from labdeck.sim.demo import start_demo

    server = start_demo(speed=50.0)
    try:
        assert server.state.clock.mode == "real"
        before = server.state.now()
        time.sleep(0.05)
        assert server.state.now() > before
        assert httpx.get(server.api_url + "/user", headers={"PRIVATE-TOKEN": DEMO_TOKENS["user"]}).status_code == 200
    finally:
        server.stop()
