"""``labdeck triage`` run again over the watched set (issue 28, warm): the second run reads no jobs
page that did not change, yet covers the watched set as it is now and sees what changed."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest

from labdeck.base.statefile import StateStore
from labdeck.commands import cli
from labdeck.sim.ci.engine import store as ci_store
from labdeck.sim.dataset.build import DEMO_TOKENS
from labdeck.sim.server import SimServer
from labdeck.watch.watched import WatchStore
from tests.sim.helpers import advance, control, pipeline, quiet


def _unstarred(server: SimServer) -> list[tuple[int, str]]:
    """Three projects the admin has not starred, that only shared runners serve."""
    with control(server) as admin:
        starred = {p["id"] for p in admin.get("/api/v4/projects", params={"starred": "true", "per_page": 100}).json()}
    state = server.state
    specific = {pid for r in ci_store(state).runners.values() if not r.is_shared for pid in r.project_ids}
    return [(p.id, state.project_full_path(p)) for p in sorted(state.projects.values(), key=lambda p: p.id)
            if p.id not in specific | starred and not p.archived and not p.deleted
            and p.settings.get("shared_runners_enabled", True)][:3]


def _fail(server: SimServer, project_id: int, name: str) -> None:
    pipeline(server, project_id, [{"name": "test", "jobs": [
        {"name": name, "tags": ["docker"], "fail": True, "duration": 20, "script_lines": ["pytest -q"]}]}])
    advance(server, 600)


def _triage(server: SimServer, capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    code = cli.main(["triage", "--url", server.base_url, "--json", "--since", "30d"])
    out, err = capsys.readouterr()
    assert code == 0, err
    data: dict[str, Any] = json.loads(out)
    return data


def test_a_second_run_reads_only_what_changed_and_covers_the_watched_set_as_it_is(
        sim_factory: Callable[..., SimServer], monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    server = quiet(sim_factory(dialect="gitlab"))
    monkeypatch.setenv("LABDECK_TOKEN", DEMO_TOKENS["admin"])
    (a, path_a), (b, path_b), (c, path_c) = _unstarred(server)
    for project_id, name in ((a, "unit"), (b, "lint")):
        _fail(server, project_id, name)
    store = WatchStore(StateStore(), server.base_url)
    store.add(a, path_a)
    store.add(b, path_b)
    first = _triage(server, capsys)
    assert {f["project"] for f in first["failures"]} >= {path_a, path_b}

    # The admin's starred projects are watched too: only those with jobs at work are read again.
    second = _triage(server, capsys)
    stats = second["stats"]
    assert stats["pages_unchanged"] >= 2 and stats["pages_read"] + stats["pages_unchanged"] == stats["projects"]
    assert second["failures"] == first["failures"]

    # Between two runs: b leaves the w list, c joins it with a new failure, a fails anew.
    WatchStore(StateStore(), server.base_url).remove(b)
    WatchStore(StateStore(), server.base_url).add(c, path_c)
    _fail(server, c, "e2e")
    _fail(server, a, "integration")
    third = _triage(server, capsys)
    names = {(f["project"], f["job_name"]) for f in third["failures"]}
    assert {(path_a, "unit"), (path_a, "integration"), (path_c, "e2e")} <= names
    assert not any(project == path_b for project, _ in names)
    assert third["stats"]["pages_read"] >= 2  # a and c at least
