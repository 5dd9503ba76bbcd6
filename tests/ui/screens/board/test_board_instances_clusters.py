"""Clusters on a board over several instances (issue 30): the same failure on two instances is one
incident. Two simulators (spec and gitlab dialects) both carry the demo's registry outage (three
projects each); the board shows it as one cluster over both, each job named by its instance, and
each action on a job goes to that job's own instance."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from labdeck.operations.bulk_plan import request_jobs
from labdeck.sim.server import SimServer
from labdeck.ui.app import LabdeckApp
from labdeck.ui.dialogs.bulk import BulkActionScreen
from labdeck.ui.screens.board.board import BoardScreen
from labdeck.ui.screens.board.clusters import ClusterScreen, ClusterStrip
from labdeck.ui.screens.jobs.detail import JobDetailScreen
from labdeck.ui.triaging import Triaging
from tests.sim.helpers import quiet
from tests.support.fault_switch import FaultSwitch
from tests.support.pilot import settle, wait_until
from tests.support.sim_control import advance, push_pipeline
from tests.ui.board_support import open_merged_board, owner, prod_and_staging_app, rows

pytestmark = pytest.mark.usefixtures("no_confirm_guard")

OUTAGE = "image pull from registry.example.com failed · 6 projects on 2 instances · infra"
PROJECTS = {"web/design-system", "web/admin-console", "tools/ci-templates"}


@pytest.fixture
def two(sim_factory: Callable[..., SimServer]) -> Iterator[tuple[FaultSwitch, FaultSwitch]]:
    """prod (spec dialect) and staging (gitlab dialect), no pipelines but the demo's stories."""
    prod = quiet(sim_factory(seed=42))
    staging = quiet(sim_factory(seed=42, dialect="gitlab"))
    with ExitStack() as stack:
        yield (stack.enter_context(FaultSwitch(prod.base_url)), stack.enter_context(FaultSwitch(staging.base_url)))


def make_app(two: tuple[FaultSwitch, FaultSwitch], tokens: dict[str, str], state_path: Path) -> LabdeckApp:
    return prod_and_staging_app(two[0].url, two[1].url, tokens, state_path, prod_role="user")


async def test_one_failure_on_two_instances_is_one_cluster_each_job_named_and_acted_on_at_its_instance(
        two: tuple[FaultSwitch, FaultSwitch], tokens: dict[str, str], state_path: Path) -> None:
    app = make_app(two, tokens, state_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        await pilot.press("0")
        screen = app.screen
        assert isinstance(screen, BoardScreen)
        strip = screen.query_one("#board-clusters", ClusterStrip)

        def titles() -> list[str]:
            return [str(row.cells[0]) for row in strip.rows()]

        await wait_until(pilot, lambda: OUTAGE in titles(), limit=60)
        # One incident: not a cluster per instance beside it.
        assert [title for title in titles() if title.startswith("image pull from registry.example.com")] == [OUTAGE]
        await pilot.press("c")
        strip.move_cursor_to_key(next(row.key for row in strip.rows() if str(row.cells[0]) == OUTAGE))
        await pilot.press("enter")
        cluster = app.screen
        assert isinstance(cluster, ClusterScreen)
        await wait_until(pilot, lambda: cluster.table.row_count == 6)
        named = {str(row.cells[1]) for row in cluster.table.rows()}
        assert named == {f"{instance}:{path}" for instance in ("prod", "staging") for path in PROJECTS}
        # i on a staging job: its details are read from staging.
        staging_rows = [row for row in cluster.table.rows() if row.data.instance == "staging"]
        prod_row = next(row for row in cluster.table.rows() if row.data.instance == "prod")
        cluster.table.move_cursor_to_key(staging_rows[0].key)
        await pilot.press("i")
        await wait_until(pilot, lambda: isinstance(app.screen, JobDetailScreen))
        assert app.screen.instance is app.instances[1]
        await pilot.press("escape")
        await wait_until(pilot, lambda: app.screen is cluster)
        # A retry of jobs on both instances is refused (one dialog changes one instance)...
        cluster.table.move_cursor_to_key(prod_row.key)
        await pilot.press("space")
        cluster.table.move_cursor_to_key(staging_rows[0].key)
        await pilot.press("space", "R")
        await settle(app, pilot)
        assert app.screen is cluster
        # ... those of staging alone go to staging, whatever row the cursor is on.
        cluster.table.move_cursor_to_key(prod_row.key)
        await pilot.press("space")
        for row in staging_rows[1:]:
            cluster.table.move_cursor_to_key(row.key)
            await pilot.press("space")
        cluster.table.move_cursor_to_key(prod_row.key)
        await pilot.press("R")
        await wait_until(pilot, lambda: isinstance(app.screen, BulkActionScreen))
        dry_run = app.screen
        assert isinstance(dry_run, BulkActionScreen) and dry_run.plan is not None
        assert dry_run.instance is app.instances[1]
        planned = {target.job.id for request in dry_run.plan.requests for target in request_jobs(request)}
        assert planned == {row.data.job.id for row in staging_rows}
        await pilot.press("escape")


@dataclass
class Rounds:
    """Each triage round of one instance: begun, ended, cancelled half-way."""

    begun: int = 0
    ended: int = 0
    cancelled: int = 0


def count_rounds(state: Triaging) -> Rounds:
    """Spy on ``state.round`` (the rounds still run as they would)."""
    seen = Rounds()
    original = state.round

    async def spied(*args: Any, **kwargs: Any) -> Any:
        seen.begun += 1
        try:
            result = await original(*args, **kwargs)
        except asyncio.CancelledError:
            seen.cancelled += 1
            raise
        seen.ended += 1
        return result

    state.round = spied  # type: ignore[method-assign]
    return seen


async def test_triage_rounds_are_not_cancelled_by_each_update_of_the_board(
        sim_factory: Callable[..., SimServer], tokens: dict[str, str], state_path: Path) -> None:
    """Staging's failures change while its triage round reads slow jobs pages: the round goes on
    to its end and the next one follows; the new failures get their verdicts. (Each update used
    to cancel the round under way and start another, which paid its reads again, and under a
    steady stream of updates never ended: the ``Why`` cells stayed ``…``.)"""
    prod = quiet(sim_factory(seed=42))
    staging = quiet(sim_factory(seed=42, dialect="gitlab"))
    with FaultSwitch(staging.base_url) as switch:
        app = prod_and_staging_app(prod.base_url, switch.url, tokens, state_path, prod_role="user")
        async with app.run_test(size=(120, 40)) as pilot:
            screen = await open_merged_board(app, pilot)
            rounds = count_rounds(app.instances[1].triaging)
            target = min(row.project_id for row in rows(screen) if owner(screen, row) == "staging")
            # Triage's read of that project's jobs (not the board's reads): each round takes seconds.
            switch.set("latency", seconds=1.5, only=f"/projects/{target}/jobs")
            pushed = []
            for index in range(6):  # a new failure on staging about every second
                pushed.append(push_pipeline(staging, target, [{"name": f"unit-{index}", "fail": True,
                                                               "duration": 1}])["id"])
                advance(staging, 5)
                await pilot.pause(1.0)

            def judged() -> bool:  # the project's row shows its newest pipeline
                shown = [row for row in rows(screen) if row.pipeline_id == pushed[-1] and owner(screen, row) == "staging"]
                return bool(shown) and screen.why(shown[0]) not in ("…", "")

            await wait_until(pilot, judged, limit=40, what="a verdict for the newest failure on staging")
            assert rounds.ended >= 1 and rounds.cancelled == 0, rounds
