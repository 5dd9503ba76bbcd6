"""Helpers for the pipeline view, bulk action and job detail tests (no tests here): a pipeline with
something in every state, 1,500-job pipelines, opening the screens, driving the bulk dialog, a
proxy that loses the answer to chosen requests and one that holds a pipeline's later pages of jobs
until the test lets them through."""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Iterable
from types import SimpleNamespace
from typing import Any

import pytest

from labdeck.sim.ci.engine import store
from labdeck.sim.server import SimServer
from labdeck.ui.app import LabdeckApp
from labdeck.ui.dialogs import bulk
from labdeck.ui.dialogs.bulk import BulkActionScreen
from labdeck.ui.screens.pipeline.screen import PipelineScreen
from tests.support.fault_proxy import FaultProxy, _abort, _force_close, _read_request
from tests.support.pilot import settle, wait_until
from tests.ui.jobs_support import PROJECT_ID, PROJECT_PATH, advance, create_pipeline

EVERY_STATE = [
    {"name": "build", "jobs": [{"name": "compile", "duration": 10}, {"name": "docs", "when": "manual"}]},
    {"name": "test", "jobs": [
        {"name": "unit-tests", "duration": 20, "fail": True, "allow_failure": True},
        {"name": "lint", "duration": 15, "fail": True, "allow_failure": True},
        {"name": "e2e-browser", "duration": 900},
    ]},
    {"name": "deploy", "jobs": [{"name": "deploy-staging", "when": "manual"},
                                {"name": "deploy-production", "when": "manual"}]},
]
"""After two simulated minutes: compile success, docs manual, unit-tests and lint failed (allowed
to fail, so the pipeline goes on), e2e-browser running, the deploy jobs created (waiting for test)."""


async def pipeline_in_every_state(server: SimServer, project_id: int = PROJECT_ID) -> tuple[int, dict[str, int]]:
    """Create :data:`EVERY_STATE` and let it run two simulated minutes: (pipeline id, job ids by name)."""
    pipeline = await create_pipeline(server, EVERY_STATE, project_id=project_id)
    for _ in range(6):
        await advance(server, 20)
    ids = {job["name"]: int(job["id"]) for job in pipeline["jobs"]}
    states = {name: server.state.jobs[job_id].status for name, job_id in ids.items()}
    assert states == {"compile": "success", "docs": "manual", "unit-tests": "failed", "lint": "failed",
                      "e2e-browser": "running", "deploy-staging": "created", "deploy-production": "created"}
    return int(pipeline["id"]), ids


def freeze_guard_clock(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    """Replace the dialog's guard clock with a settable one: ``clock[0] = …``."""
    clock = [1000.0]
    monkeypatch.setattr(bulk, "bulk_guard_clock", lambda: clock[0])
    return clock


async def open_pipeline(app: LabdeckApp, pilot: Any, pipeline_id: int, *, project_id: int = PROJECT_ID,
                        project_path: str = PROJECT_PATH) -> PipelineScreen:
    """Push the pipeline view and wait for its first load."""
    await settle(app, pilot)
    screen = PipelineScreen(project_id, project_path, pipeline_id)
    await app.push_screen(screen)
    await wait_until(pilot, lambda: screen.load_count > 0, what="the pipeline's jobs")
    await settle(app, pilot)
    return screen


async def bulk_dialog(app: LabdeckApp, pilot: Any) -> BulkActionScreen:
    """The bulk dialog once it is on top and ready (its focus set, its plan made)."""
    await wait_until(pilot, lambda: isinstance(app.screen, BulkActionScreen) and app.screen.keys_released
                     and app.screen.plan is not None, what="the bulk dialog")
    dialog = app.screen
    assert isinstance(dialog, BulkActionScreen)
    return dialog


async def confirm_and_finish(pilot: Any, dialog: BulkActionScreen) -> None:
    """Press the confirm button and wait until every request has its result."""
    await pilot.click("#confirm")
    # 40 retries one after the other took over 20 s on a two-core machine running six workers
    await wait_until(pilot, lambda: dialog.state == "finished", limit=60.0, what="the bulk run to finish")


async def close_finished(app: LabdeckApp, pilot: Any, dialog: BulkActionScreen) -> None:
    """Close a finished dialog with its (only) button."""
    await pilot.pause(0.3)  # a button ignores presses while its press animation runs
    await pilot.click("#confirm")
    await wait_until(pilot, lambda: app.screen is not dialog, what="the dialog to close")


def dialog_text(dialog: BulkActionScreen) -> str:
    """The dry run and results as shown (plain text)."""
    return dialog._body().plain


def tries(server: SimServer, pipeline_id: int, name: str) -> list[Any]:
    """Every try of the job ``name`` of a pipeline, as the simulator holds them."""
    return sorted((job for job in server.state.jobs.values() if job.pipeline_id == pipeline_id and job.name == name),
                  key=lambda job: job.id)


class LosingProxy(FaultProxy):
    """A proxy in front of the simulator that forwards every request and, for the requests in
    ``lose`` (``(method, path)``), resets the connection instead of relaying the answer: the server
    acted, the client never learns it. ``forwarded`` counts what reached the server."""

    def __init__(self, upstream_host: str, upstream_port: int, lose: Iterable[tuple[str, str]] = ()) -> None:
        super().__init__(upstream_host, upstream_port)
        self.lose = set(lose)

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        self._tasks.add(task)
        try:
            head, body, method, target = await _read_request(reader)
            path = "/" + target.lstrip("/").split("?", 1)[0]
            self.received.append((method, path))
            response = await self._forward(_force_close(head), body)
            self.forwarded.append((method, path))
            if (method, path) in self.lose:
                _abort(writer)
                return
            writer.write(response)
            await writer.drain()
            writer.close()
        except (asyncio.IncompleteReadError, ConnectionError, asyncio.LimitOverrunError):
            writer.close()
        finally:
            self._tasks.discard(task)


@contextlib.asynccontextmanager
async def losing_proxy(server: SimServer, lose: Iterable[tuple[str, str]] = ()) -> Any:
    """A :class:`LosingProxy` in front of ``server`` and a stand-in for ``server`` whose
    ``base_url`` is the proxy (for ``make_app``)."""
    host, port = server.base_url.split("://", 1)[1].split(":")
    proxy = LosingProxy(host, int(port.rstrip("/")), lose)
    async with proxy:
        yield proxy, SimpleNamespace(base_url=proxy.url, state=server.state)


def job_ids(ids: dict[str, int], *names: str) -> list[int]:
    """``ids[name]`` for each name."""
    return [ids[name] for name in names]



BIG_FAILED = list(range(1, 1201, 30))
"""40 of the 1,200 test jobs (1-based indexes): unit-0001, unit-0031 … unit-1171."""


def big_stages(fail: list[int] | None = None, *, allowed: list[int] | None = None) -> list[dict[str, Any]]:
    """The issue's monorepo pipeline: 1,200 jobs in ``test`` (``fail``: which of them fail, the
    first by default; ``allowed``: which may fail), 300 in ``deploy``, skipped once ``test`` fails."""
    unit: dict[str, Any] = {"name": "unit", "count": 1200, "fail": [1] if fail is None else fail,
                            "duration": 5}
    if allowed:
        unit["allow_failure"] = allowed
    return [{"name": "test", "jobs": [unit]},
            {"name": "deploy", "jobs": [{"name": "deploy", "count": 300, "duration": 5}]}]


async def big_pipeline(server: SimServer, stages: list[dict[str, Any]] | None = None, *,
                       seconds: float = 4 * 3600, project_id: int = PROJECT_ID) -> tuple[int, dict[str, int]]:
    """Create a 1,500-job pipeline (:func:`big_stages` by default), let it run ``seconds`` of
    simulated time with the server's own pipeline generator stopped: (pipeline id, job ids by name)."""
    store(server.state).next_pipeline_at = None  # only the test's pipelines run
    started = time.perf_counter()
    pipeline = await create_pipeline(server, stages or big_stages(), project_id=project_id)
    if seconds:
        await advance(server, seconds)
    assert time.perf_counter() - started < 5, "building a 1,500-job pipeline must stay fast"
    return int(pipeline["id"]), {job["name"]: int(job["id"]) for job in pipeline["jobs"]}


def statuses(server: SimServer, pipeline_id: int) -> dict[str, int]:
    """How many of a pipeline's newest tries the simulator holds in each status."""
    newest: dict[str, Any] = {}
    for job in server.state.jobs.values():
        if job.pipeline_id == pipeline_id and (job.name not in newest or job.id > newest[job.name].id):
            newest[job.name] = job
    counts: dict[str, int] = {}
    for job in newest.values():
        counts[job.status] = counts.get(job.status, 0) + 1
    return counts


class GatedProxy(LosingProxy):
    """A proxy that holds the requests for page 2 onwards of one pipeline's full list of jobs (no
    ``scope``) until :meth:`open` is called (or answers them 500 while ``refuse`` is set), and
    forwards everything else at once."""

    def __init__(self, upstream_host: str, upstream_port: int, pipeline_id: int) -> None:
        super().__init__(upstream_host, upstream_port)
        self.pipeline_id = pipeline_id
        self.gate = asyncio.Event()
        self.held = 0
        """Requests waiting at the gate now."""
        self.refuse = False
        """True: those pages are answered 500 at once instead of held."""

    def open(self) -> None:
        """Let the held pages (and every later one) through."""
        self.gate.set()

    def _holds(self, target: str) -> bool:
        path, _, query = target.partition("?")
        if not path.endswith(f"/pipelines/{self.pipeline_id}/jobs") or "scope" in query:
            return False
        params = dict(part.partition("=")[::2] for part in query.split("&") if part)
        return int(params.get("page") or 1) >= 2

    async def _forward(self, head: bytes, body: bytes) -> bytes:
        target = head.split(b" ", 2)[1].decode("latin-1")
        if self._holds(target) and self.refuse:
            return b"HTTP/1.1 500 Internal Server Error\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
        if self._holds(target) and not self.gate.is_set():
            self.held += 1
            try:
                await self.gate.wait()
            finally:
                self.held -= 1
        return await super()._forward(head, body)


@contextlib.asynccontextmanager
async def gated_proxy(server: SimServer, pipeline_id: int) -> Any:
    """A :class:`GatedProxy` in front of ``server`` and a stand-in for ``server`` for ``make_app``."""
    host, port = server.base_url.split("://", 1)[1].split(":")
    proxy = GatedProxy(host, int(port.rstrip("/")), pipeline_id)
    async with proxy:
        yield proxy, SimpleNamespace(base_url=proxy.url, state=server.state)
