"""Choosing the dialect: ``labdeck serve --dialect``, ``build_state(dialect=…)``, ``GET /version``, and
the same data for the same seed and dialect."""

from __future__ import annotations

import pytest

from labdeck.sim.ci.engine import store
from labdeck.sim.cli import build_parser, prepare_state
from labdeck.sim.core.clock import SimClock
from labdeck.sim.core.dialect import dialect_of, is_gitlab
from labdeck.sim.dataset.build import build_state
from labdeck.sim.server import SimServer
from tests.sim.helpers import client


def test_serve_takes_a_dialect_and_defaults_to_the_spec() -> None:
    assert dialect_of(prepare_state(build_parser().parse_args(["--clock", "manual"]))) == "spec"
    gitlab = prepare_state(build_parser().parse_args(["--clock", "manual", "--dialect", "gitlab"]))
    assert is_gitlab(gitlab)
    with pytest.raises(SystemExit):
        build_parser().parse_args(["--dialect", "github"])
    with pytest.raises(ValueError):
        build_state(seed=1, clock=SimClock(mode="manual"), dialect="github", families=False)


def test_version_names_the_era_of_the_dialect(sim: SimServer, sim_gitlab: SimServer) -> None:
    with client(sim, "readonly") as spec, client(sim_gitlab, "readonly") as gitlab:
        old = spec.get("/version").json()
        current = gitlab.get("/version").json()
    assert old["version"].split(".")[0] in ("10", "11") and old["revision"]
    assert current["version"].startswith("18.") and current["revision"]


def _fingerprint(dialect: str) -> tuple[object, ...]:
    state = build_state(seed=42, clock=SimClock(mode="manual"), dialect=dialect)
    ci = store(state)
    jobs = tuple((j.id, j.project_id, j.name, j.status, j.failure_reason, j.runner_id) for j in
                 sorted(ci.jobs.values(), key=lambda j: j.id))
    runners = tuple((r.id, r.description, tuple(r.project_ids), r.contacted_at) for r in state.runners.values())
    projects = tuple((p.id, p.last_activity_at, p.settings.get("shared_runners_enabled")) for p in state.projects.values())
    return jobs, runners, projects


@pytest.mark.parametrize("dialect", ["spec", "gitlab"])
def test_same_seed_same_data(dialect: str) -> None:
    assert _fingerprint(dialect) == _fingerprint(dialect)
