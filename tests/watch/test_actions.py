"""What the console did, the board sees at once: after a retry (or cancel, play, bulk action) sent
through the console's client, from any screen, the project is read again within one round and the
row follows the pipeline, both dialects, over real HTTP."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from labdeck.sim.server import SimServer
from labdeck.watch import BoardSnapshot
from labdeck.watch.hints import acted_on
from labdeck.watch.pipelines import PipelineRow
from tests.support.sim_control import advance, big_stages, control, push_stages
from tests.watch.helpers import one_project_board, run_for, run_until

QUIET = "platform/infra/observability"


def row_of(board: list[BoardSnapshot], pipeline_id: int) -> PipelineRow | None:
    return next((row for row in board[-1].rows if row.pipeline_id == pipeline_id), None) if board else None


def test_which_project_a_change_was_about() -> None:
    assert acted_on("POST", "/api/v4/projects/12/jobs/5/retry", 201) == 12
    assert acted_on("POST", "/api/v4/projects/web%2Fshop/pipelines/9/cancel", 200) == "web/shop"
    assert acted_on("POST", "/api/v4/projects/3/pipeline", 201) == 3
    assert acted_on("GET", "/api/v4/projects/12/jobs", 200) is None
    assert acted_on("POST", "/api/v4/projects/12/jobs/5/retry", 403) is None
    assert acted_on("POST", "/api/graphql", 200) is None
    assert acted_on("POST", "/api/v4/projects/12/issues", 201) is None


@pytest.mark.parametrize("dialect", ["spec", "gitlab"])
async def test_a_retry_from_the_console_leaves_failed_within_one_round(
        sim_factory: Callable[..., SimServer], dialect: str) -> None:
    server = sim_factory(dialect=dialect)
    async with one_project_board(server, QUIET) as (client, poller, fake, board, pid):
        pushed = push_stages(server, pid, big_stages(fail=(7,)))
        advance(server, 900)
        await run_until(poller, fake, lambda: (row := row_of(board, pushed["id"])) is not None
                        and row.status == "failed" and row.failed_label == "unit-0007", limit=300)
        await run_for(poller, fake, 120)  # settled: the project is quiet (read by the sweep only)
        with control(server) as admin:
            failed = admin.get(f"/api/v4/projects/{pid}/pipelines/{pushed['id']}/jobs",
                               params={"scope[]": "failed"}).json()
        await client.jobs.retry(pid, failed[0]["id"])  # what `R` in the pipeline view sends
        took = await run_until(poller, fake, lambda: (row := row_of(board, pushed["id"])) is not None
                               and row.status != "failed", limit=60)
        assert took <= poller.settings.interval
        assert row_of(board, pushed["id"]).failed_jobs == ()  # type: ignore[union-attr]
        poller.close()
