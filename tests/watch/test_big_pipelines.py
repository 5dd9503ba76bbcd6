"""Monorepo pipelines (1,500 jobs: 1,200 tests, 300 deploys) on the board, the CI column and
project alerts, both dialects, against the simulator over real HTTP: the page of 40 newest jobs
holds only deploy jobs, so every row here is partial and completed by scoped reads."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from labdeck.sim.server import SimServer
from labdeck.watch import (
    AlertEngine,
    BoardSnapshot,
    ProjectsSnapshot,
    WatchTarget,
)
from labdeck.watch.pipelines import PipelineRow
from tests.support.sim_control import advance, big_stages, control, push_stages
from tests.watch.helpers import one_project_board, run_for, run_until

QUIET = "platform/infra/observability"

SCENARIOS: dict[str, tuple[dict[str, Any], str, str, int]] = {
    # name: (big_stages options, status, failed label, running)
    "failed-first": ({"fail": (1,)}, "failed", "unit-0001", 0),
    "failed-last": ({"fail": (1200,)}, "failed", "unit-1200", 0),
    "forty-failed": ({"fail": tuple(range(1, 41))}, "failed", "unit-0001 +39 more", 0),
    "running": ({"long": (1200,)}, "running", "", 1),
    "allow-failure": ({"allowed": (1,)}, "success", "", 0),
}


def newest(board: list[BoardSnapshot], pipeline_id: int) -> PipelineRow | None:
    return next((row for row in board[-1].rows if row.pipeline_id == pipeline_id), None) if board else None


@pytest.mark.parametrize("dialect", ["spec", "gitlab"])
@pytest.mark.parametrize("scenario", list(SCENARIOS))
async def test_a_monorepo_pipeline_is_right_on_the_board_the_ci_column_and_alerts(
        sim_factory: Callable[..., SimServer], dialect: str, scenario: str) -> None:
    options, status, label, running = SCENARIOS[scenario]
    server = sim_factory(dialect=dialect)
    column: list[ProjectsSnapshot] = []
    alerts = AlertEngine()
    async with one_project_board(server, QUIET) as (client, poller, fake, board, pid):
        poller.subscribe_projects(column.append, {pid: QUIET})
        alerts.watch(WatchTarget.for_project(pid, QUIET))
        poller.add_alerts(alerts)
        await run_until(poller, fake, lambda: bool(board) and board[-1].loading == 0)
        pushed = push_stages(server, pid, big_stages(**options))
        advance(server, 900)  # every test job has run (the long one still runs)
        await run_until(poller, fake, lambda: (row := newest(board, pushed["id"])) is not None
                        and row.status == status and row.failed_known and row.running_known, limit=300)
        row = newest(board, pushed["id"])
        assert row is not None and row.partial  # 40 deploy jobs on the page: never derived from them
        assert (row.status, row.failed_label, row.running) == (status, label, running)
        ci = column[-1].projects[pid].newest
        assert ci is not None and (ci.pipeline_id, ci.status, ci.failed_label) == (pushed["id"], status, label)
        fired = [alert for alert in alerts.log.entries if alert.pipeline_id == pushed["id"]]
        if status == "failed":
            assert [alert.event for alert in fired] == ["new_failure"]
            assert label.split(" ")[0] in fired[0].body
        else:
            assert fired == []
        poller.close()


@pytest.mark.parametrize("dialect", ["spec", "gitlab"])
async def test_a_retried_failure_counts_once_and_its_latest_try_decides(
        sim_factory: Callable[..., SimServer], dialect: str) -> None:
    server = sim_factory(dialect=dialect)
    async with one_project_board(server, QUIET) as (client, poller, fake, board, pid):
        pushed = push_stages(server, pid, big_stages(flaky=(1,)))
        advance(server, 900)
        await run_until(poller, fake, lambda: (row := newest(board, pushed["id"])) is not None
                        and row.failed_label == "unit-0001", limit=300)
        with control(server) as admin:
            failed = admin.get(f"/api/v4/projects/{pid}/pipelines/{pushed['id']}/jobs",
                               params={"scope[]": "failed"}).json()
            assert [job["name"] for job in failed] == ["unit-0001"]
            assert admin.post(f"/api/v4/projects/{pid}/jobs/{failed[0]['id']}/retry").status_code == 201
        advance(server, 900)  # the retry passes, the deploy stage runs
        await run_until(poller, fake, lambda: (row := newest(board, pushed["id"])) is not None
                        and row.status == "success", limit=600)
        row = newest(board, pushed["id"])
        assert row is not None and row.failed_jobs == () and row.failed_label == ""
        poller.close()


@pytest.mark.parametrize("dialect", ["spec", "gitlab"])
async def test_a_failure_on_the_last_page_of_a_running_pipeline_shows_within_a_round_for_one_probe_a_round(
        sim_factory: Callable[..., SimServer], dialect: str) -> None:
    """unit-0001 (the pipeline's oldest job: the last page of its jobs) fails after an hour while
    unit-1200 still runs: the board says failed at the next read, not when the pipeline ends; in
    between, the project costs about one request a round."""
    server = sim_factory(dialect=dialect)
    async with one_project_board(server, QUIET) as (client, poller, fake, board, pid):
        pushed = push_stages(server, pid, big_stages(fail=(1,), durations={1: 3600}, long=(1200,)))
        advance(server, 1800)  # all but unit-0001 and unit-1200 have passed
        await run_until(poller, fake, lambda: (row := newest(board, pushed["id"])) is not None
                        and row.status == "running" and row.running_known and row.running == 2, limit=300)
        await run_for(poller, fake, 30)
        before, checks = poller.stats.requests, poller.stats.by_kind["activity"]
        await run_for(poller, fake, 60)
        spent = poller.stats.requests - before - (poller.stats.by_kind["activity"] - checks)
        rounds = 60 / poller.settings.interval
        assert spent <= rounds * 1.5  # the probe (+ page every 4th); the change checks (GraphQL on GitLab) apart
        assert poller.stats.by_kind["activity"] - checks <= 2 * rounds
        advance(server, 2400)  # unit-0001 fails (it started a moment after the push, ran an hour)
        took = await run_until(poller, fake, lambda: (row := newest(board, pushed["id"])) is not None
                               and row.status == "failed", limit=60)
        assert took <= 2 * poller.settings.interval
        row = newest(board, pushed["id"])
        assert row is not None and row.failed_label == "unit-0001" and row.running == 1
        assert row.duration is not None  # the first job's start is known: a running pipeline's time
        poller.close()


async def test_gitlab_a_deep_failure_shows_while_the_pipeline_keeps_running_and_its_updated_at_stays(
        sim_factory: Callable[..., SimServer]) -> None:
    """Against GitLab's pipelines API, as real GitLab: unit-0001 (on the last page of the jobs of a
    running 1,500-job pipeline) fails while unit-1200 keeps the pipeline ``running``, so neither its
    status nor its ``updated_at`` move and the ``updated_after`` listing shows nothing; the board
    still says failed, naming unit-0001, within two rounds (the failed-count probe)."""
    server = sim_factory(dialect="gitlab")
    async with one_project_board(server, QUIET) as (client, poller, fake, board, pid):
        pushed = push_stages(server, pid, big_stages(fail=(1,), durations={1: 3600}, long=(1200,)))
        advance(server, 1800)
        await run_until(poller, fake, lambda: (row := newest(board, pushed["id"])) is not None
                        and row.status == "running" and row.running_known and row.running == 2, limit=300)
        await run_for(poller, fake, 30)
        before = await client.pipelines.get(pid, pushed["id"])
        advance(server, 2400)  # unit-0001 fails; unit-1200 runs on
        after = await client.pipelines.get(pid, pushed["id"])
        assert before.status == after.status == "running"
        assert after.updated_at == before.updated_at is not None
        took = await run_until(poller, fake, lambda: (row := newest(board, pushed["id"])) is not None
                               and row.status == "failed", limit=60)
        assert took <= 2 * poller.settings.interval
        row = newest(board, pushed["id"])
        assert row is not None and row.failed_label == "unit-0001" and row.server_status == "running"
        poller.close()
