"""SVG snapshots of the on-call board (80x24 drops the running/took/by columns), the pipeline view
(a list at 80x24, stage columns at 120x40), a 1,500-job pipeline (stages folded into counts), the
dry run of a bulk retry and the why-pending panel of the stuck macOS job: private simulator
(gitlab dialect, seed 42, manual clock), a fixed instance name, the server's clock taken from the
simulator."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from labdeck.api import ApiClient
from labdeck.base.secret import Secret
from labdeck.base.session import Session
from labdeck.base.statefile import StateStore
from labdeck.sim.dataset.build import DEMO_TOKENS
from labdeck.sim.server import SimServer
from labdeck.ui.app import LabdeckApp
from labdeck.ui.dialogs.bulk import BulkActionScreen
from labdeck.ui.screens.board.board import BoardScreen
from labdeck.ui.screens.jobs.detail import JobDetailScreen
from labdeck.ui.screens.pipeline.screen import PipelineScreen
from labdeck.ui.ui_state import UiState
from labdeck.watch.clock import ServerClock
from tests.support.pilot import settle, wait_until
from tests.support.snapshots import SHOWN_HOST
from tests.ui.board_support import ROOMY
from tests.ui.helpers import screen_lines
from tests.ui.jobs_support import PROJECT_ID, PROJECT_PATH
from tests.ui.pipeline_support import EVERY_STATE, big_stages

SIZES = [pytest.param((80, 24), id="80x24"), pytest.param((120, 40), id="120x40")]


class _ToServer(httpx.AsyncBaseTransport):
    """The client speaks to ``http://SHOWN_HOST`` (the dry run shows where requests go); this
    sends them to the simulator's random port, with that ``Host``."""

    def __init__(self, server: SimServer) -> None:
        self._inner = httpx.AsyncHTTPTransport()
        self._target = httpx.URL(server.base_url)

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        request.url = request.url.copy_with(scheme=self._target.scheme, host=self._target.host,
                                            port=self._target.port)
        request.headers["host"] = SHOWN_HOST
        return await self._inner.handle_async_request(request)

    async def aclose(self) -> None:
        await self._inner.aclose()


@pytest.fixture(scope="module")
def pipeline_snap_server() -> Iterator[tuple[SimServer, int]]:
    """One private simulator for the module with the :data:`EVERY_STATE` pipeline two minutes in."""
    from labdeck.sim.core.clock import SimClock
    from labdeck.sim.dataset.build import build_state

    server = SimServer(build_state(seed=42, clock=SimClock(mode="manual"), dialect="gitlab")).start()
    headers = {"PRIVATE-TOKEN": DEMO_TOKENS["admin"]}
    created = httpx.post(f"{server.base_url}/-/sim/projects/{PROJECT_ID}/pipelines", headers=headers,
                         json={"ref": "main", "stages": EVERY_STATE})
    created.raise_for_status()
    for _ in range(6):
        httpx.post(f"{server.base_url}/-/sim/clock/advance?seconds=20", headers=headers).raise_for_status()
    yield server, int(created.json()["id"])
    server.stop()


@pytest.fixture(scope="module")
def big_snap_server() -> Iterator[tuple[SimServer, int]]:
    """A private simulator for the module with the issue's 1,500-job pipeline (the first of 1,200
    test jobs failed, 300 deploy jobs skipped), four simulated hours in, nothing else running."""
    from labdeck.sim.ci.engine import store
    from labdeck.sim.core.clock import SimClock
    from labdeck.sim.dataset.build import build_state

    server = SimServer(build_state(seed=42, clock=SimClock(mode="manual"), dialect="gitlab")).start()
    store(server.state).next_pipeline_at = None
    headers = {"PRIVATE-TOKEN": DEMO_TOKENS["admin"]}
    created = httpx.post(f"{server.base_url}/-/sim/projects/{PROJECT_ID}/pipelines", headers=headers,
                         json={"ref": "main", "stages": big_stages()}, timeout=30)
    created.raise_for_status()
    httpx.post(f"{server.base_url}/-/sim/clock/advance?seconds=14400", headers=headers).raise_for_status()
    yield server, int(created.json()["id"])
    server.stop()


def _app_for(server: SimServer, tmp_path: Path) -> LabdeckApp:
    token = Secret(DEMO_TOKENS["admin"])
    # Roomy budget: the board's snapshot waits for triage's verdicts, which at 60 reads a minute
    # took 23 s of the test (the budget itself is tested with the board).
    session = Session(base_url=f"http://{SHOWN_HOST}", token=token, profile="prod", board=ROOMY)
    client = ApiClient(f"http://{SHOWN_HOST}", token, transport=_ToServer(server))
    return LabdeckApp(session, client=client, clock=server.state.clock.now,
                      ui_state=UiState(StateStore(tmp_path / "state.json")))


@pytest.fixture
def build(pipeline_snap_server: tuple[SimServer, int], tmp_path: Path) -> Callable[[], LabdeckApp]:
    server, _ = pipeline_snap_server
    return lambda: _app_for(server, tmp_path)


async def _ready_for_snapshot(pilot: Any) -> None:
    await settle(pilot.app, pilot, rounds=3)
    # The status line shortens the instance once it knows its width; the app's clock tick redraws
    # it about once a second, which a snapshot may or may not wait for: redraw it now.
    pilot.app.refresh_status()
    await pilot.pause()


def _open_pipeline(server: SimServer, pipeline_id: int, *keys: str) -> Callable[[Any], Any]:
    async def run_before(pilot: Any) -> None:
        await _ready_for_snapshot(pilot)
        screen = PipelineScreen(PROJECT_ID, PROJECT_PATH, pipeline_id,
                                server_clock=ServerClock(source=server.state.clock.now))
        await pilot.app.push_screen(screen)
        await _ready_for_snapshot(pilot)
        assert screen.load_count == 1
        if keys:
            await pilot.press(*keys)
            await _ready_for_snapshot(pilot)

    return run_before


@pytest.mark.parametrize("size", SIZES)
def test_pipeline_by_stage(snap_compare: Any, build: Callable[[], LabdeckApp],
                           pipeline_snap_server: tuple[SimServer, int], size: tuple[int, int]) -> None:
    server, pipeline_id = pipeline_snap_server
    assert snap_compare(build(), run_before=_open_pipeline(server, pipeline_id, "l", "space"), terminal_size=size)


@pytest.mark.parametrize("size", SIZES)
def test_big_pipeline_folded_into_counts(snap_compare: Any, big_snap_server: tuple[SimServer, int],
                                         tmp_path: Path, size: tuple[int, int]) -> None:
    server, pipeline_id = big_snap_server
    assert snap_compare(_app_for(server, tmp_path), run_before=_open_pipeline(server, pipeline_id),
                        terminal_size=size)


@pytest.mark.parametrize("size", SIZES[:1])
def test_retry_dry_run(snap_compare: Any, build: Callable[[], LabdeckApp],
                       pipeline_snap_server: tuple[SimServer, int], size: tuple[int, int]) -> None:
    server, pipeline_id = pipeline_snap_server

    async def run_before(pilot: Any) -> None:
        await _open_pipeline(server, pipeline_id, "R")(pilot)
        assert isinstance(pilot.app.screen, BulkActionScreen)

    assert snap_compare(build(), run_before=run_before, terminal_size=size)


@pytest.mark.parametrize("size", SIZES[:1])
def test_why_pending_panel(snap_compare: Any, build: Callable[[], LabdeckApp],
                           pipeline_snap_server: tuple[SimServer, int], size: tuple[int, int]) -> None:
    async def run_before(pilot: Any) -> None:
        await _ready_for_snapshot(pilot)
        jobs = await pilot.app.client.jobs.list(6).all()
        stuck = next(job for job in jobs if job.name == "ios-build" and job.status == "pending")
        screen = JobDetailScreen(6, "platform/feature-flags", stuck)
        await pilot.app.push_screen(screen)
        await _ready_for_snapshot(pilot)
        assert screen.explanation is not None

    assert snap_compare(build(), run_before=run_before, terminal_size=size)


@pytest.mark.parametrize("size", SIZES)
def test_board(snap_compare: Any, build: Callable[[], LabdeckApp], size: tuple[int, int]) -> None:
    async def run_before(pilot: Any) -> None:
        await _ready_for_snapshot(pilot)
        await pilot.press("0")
        screen = pilot.app.screen
        assert isinstance(screen, BoardScreen)
        for _ in range(600):  # every row read and the round complete (the header no longer says loading…)
            if screen.table.row_count and not screen.snapshot.loading and "loading" not in screen.context_text:
                break
            await pilot.pause(0.05)
        # Rows show as their first pages arrive: the round is over when no read is under way.
        poller = pilot.app.watching.poller
        await wait_until(pilot, lambda: not any(track.in_flight for track in poller.tracks.values()))
        for _ in range(200):  # the status line catches up at the clock's next tick
            pilot.app.refresh_status()
            await pilot.pause()
            if "<10s" in screen_lines(pilot.app)[-2]:  # `oldest <10s`: every row on screen read just now
                break
            await pilot.pause(0.05)
        await _ready_for_snapshot(pilot)
        assert screen.table.row_count

    assert snap_compare(build(), run_before=run_before, terminal_size=size)
