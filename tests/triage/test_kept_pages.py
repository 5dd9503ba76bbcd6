"""A warm round reads again only the jobs pages that may have changed (GitLab's GraphQL change
check), and answers exactly as a full round does when something changed between two rounds."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from labdeck.api import ApiClient
from labdeck.base.secret import Secret
from labdeck.sim.core.requests import request_log
from labdeck.sim.dataset.build import DEMO_TOKENS
from labdeck.sim.server import SimServer
from labdeck.triage.collect import Triager
from labdeck.triage.logcache import LogCache
from labdeck.triage.report import TriageReport
from tests.sim.helpers import advance, pipeline, quiet
from tests.triage.test_triage_sim import _shared_only

ADMIN = DEMO_TOKENS["admin"]


def _stage(**job: Any) -> list[dict[str, Any]]:
    return [{"name": "test", "jobs": [{"tags": ["docker"], "duration": 30, **job}]}]


async def _round(server: SimServer, projects: list[tuple[int, str]], cache: LogCache | None) -> TriageReport:
    async with ApiClient(server.base_url, Secret(ADMIN), read_only=True) as client:
        return await Triager(client, cache).round(projects)


def _answer(report: TriageReport) -> dict[str, Any]:
    """What a person is shown (the stats say how it was read, not what)."""
    data = report.as_json()
    del data["stats"]
    return data


def _graphql_asked(server: SimServer) -> int:
    return sum(record.path == "/api/graphql" for record in request_log(server.state).records())


async def _same_as_a_full_round(server: SimServer, projects: list[tuple[int, str]], cache: LogCache) -> TriageReport:
    warm = await _round(server, projects, cache)
    assert _answer(warm) == _answer(await _round(server, projects, None))
    return warm


async def test_a_warm_round_reads_no_page_and_sees_every_change(sim_factory: Callable[..., SimServer],
                                                                 tmp_path: Path) -> None:
    server = quiet(sim_factory(dialect="gitlab"))
    projects = _shared_only(server)
    (a, path_a), (b, path_b), (c, path_c) = projects
    flaky = pipeline(server, a, _stage(name="integration", flaky=True))
    pipeline(server, b, _stage(name="unit", fail=True, script_lines=["pytest -q"]))
    advance(server, 600)
    cache = LogCache(tmp_path)

    cold = await _same_as_a_full_round(server, projects, cache)
    assert cold.pages_read == 3 and cold.pages_unchanged == 0
    warm = await _same_as_a_full_round(server, projects, cache)
    assert warm.pages_read == 0 and warm.pages_unchanged == 3 and warm.logs_read == 0
    assert _answer(warm) == _answer(cold)

    # A retry in a finished pipeline (it passes): the flaky verdict shows on the next round.
    async with ApiClient(server.base_url, Secret(ADMIN)) as client:
        await client.jobs.retry(a, flaky["jobs"][0]["id"])
    advance(server, 600)
    retried = await _same_as_a_full_round(server, projects, cache)
    assert next(f for f in retried.failures if f.project == path_a).verdict.kind == "flaky"
    assert retried.pages_read == 1 and retried.pages_unchanged == 2

    # A new failing pipeline: on the next round, with its verdict.
    pipeline(server, c, _stage(name="lint", fail=True, script_lines=["ruff check"]))
    advance(server, 600)
    pushed = await _same_as_a_full_round(server, projects, cache)
    assert [f.job.name for f in pushed.failures if f.project == path_c] == ["lint"]
    assert pushed.pages_read == 1

    # A job still running when the page was read: read again until it is done.
    pipeline(server, b, _stage(name="slow", duration=3000))
    advance(server, 60)
    running = await _same_as_a_full_round(server, projects, cache)
    again = await _same_as_a_full_round(server, projects, cache)
    assert running.pages_read >= 1 and again.pages_read >= 1
    advance(server, 3600)
    # Done: read once more when it is (and the other pages, kept over an hour ago), then once
    # after a check made before the read; from then on, no page.
    reads = [(await _same_as_a_full_round(server, projects, cache)).pages_read for _ in range(3)]
    assert reads == [3, 1, 0]


async def test_without_the_check_every_page_is_read_and_the_server_is_asked_once(
        sim_factory: Callable[..., SimServer], tmp_path: Path) -> None:
    server = quiet(sim_factory(dialect="spec"))  # the spec's server has no GraphQL
    projects = _shared_only(server)
    pipeline(server, projects[0][0], _stage(name="unit", fail=True))
    advance(server, 600)
    cache = LogCache(tmp_path)
    first = await _same_as_a_full_round(server, projects, cache)
    second = await _same_as_a_full_round(server, projects, cache)
    assert (first.pages_read, second.pages_read, second.pages_unchanged) == (3, 3, 0)
    assert _graphql_asked(server) == 1  # the refusal is remembered
