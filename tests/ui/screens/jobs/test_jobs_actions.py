"""Job actions through the shared confirmation dialog, against a private simulator: cancel, retry
(the new job is selected), play, erase (the job id must be typed), keep artifacts, download the
archive or one file of it, copy the URL; read-only mode hides them; after an ambiguous failure
the job is re-read."""

from __future__ import annotations

import io
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest
from textual.widgets import Button, Input

from labdeck.api import ApiClient
from labdeck.base.secret import Secret
from labdeck.base.session import Session
from labdeck.sim.server import SimServer
from labdeck.ui.app import LabdeckApp
from labdeck.ui.dialogs.confirm import ConfirmScreen
from labdeck.ui.dialogs.download import PathDialog
from labdeck.ui.screens.jobs.table import JobTable
from tests.support.fault_switch import NGINX_502
from tests.support.pilot import confirm, wait_until
from tests.ui.conftest import SimConsole
from tests.ui.jobs_support import (
    advance,
    create_pipeline,
    open_jobs,
    record_notifications,
    row_status,
    server_job,
)

pytestmark = pytest.mark.usefixtures("no_confirm_guard")



async def _one_job(server: SimServer, stage: str, job: dict[str, Any], *, after: float = 30) -> tuple[int, int]:
    """A pipeline whose only job is ``job`` (in ``stage``), ``after`` simulated seconds in:
    (pipeline id, job id)."""
    pipeline = await create_pipeline(server, [{"name": stage, "jobs": [job]}])
    await advance(server, after)
    return int(pipeline["id"]), int(pipeline["jobs"][0]["id"])


async def _long_running_job(server: SimServer) -> tuple[int, int]:
    """A pipeline whose only job runs for ten minutes, five seconds in: (pipeline id, job id)."""
    return await _one_job(server, "build", {"name": "long-build", "duration": 600}, after=5)


async def _select(screen: Any, pilot: Any, job_id: int) -> None:
    await wait_until(pilot, lambda: screen.query_one(JobTable).select_job(job_id), what=f"row of job {job_id}")
    assert screen.selected_job().id == job_id


async def test_cancel_asks_first_and_cancel_button_has_focus(
        console: SimConsole) -> None:
    server = console.server
    pipeline_id, job_id = await _long_running_job(server)
    async with console.run(size=(120, 40)) as (app, pilot):
        screen = await open_jobs(app, pilot, pipeline_id=pipeline_id)
        await _select(screen, pilot, job_id)
        assert row_status(screen, job_id) == "running"

        await pilot.press("c")
        dialog = await confirm(app, pilot, answer=False)
        assert app.focused is dialog.query_one("#cancel", Button)
        await pilot.press("enter")  # Enter on the focused Cancel button: nothing happens
        await wait_until(pilot, lambda: app.screen is screen, what="the dialog to close")
        await pilot.pause(0.3)
        assert server_job(server, job_id).status == "running"

        await pilot.press("c")
        await confirm(app, pilot, answer=False)
        await pilot.click("#confirm")
        await wait_until(pilot, lambda: server_job(server, job_id).status == "canceled", what="the cancel")
        await wait_until(pilot, lambda: row_status(screen, job_id) == "canceled", what="the row update")


async def test_retry_shows_the_new_job(console: SimConsole) -> None:
    server = console.server
    pipeline_id, job_id = await _one_job(server, "test", {"name": "flaky", "duration": 10, "fail": True})
    app = console.app()
    notes = record_notifications(app)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_jobs(app, pilot, pipeline_id=pipeline_id)
        assert row_status(screen, job_id) == "failed"
        await _select(screen, pilot, job_id)
        await pilot.press("r")
        await confirm(app, pilot, answer=False)
        await pilot.click("#confirm")
        await wait_until(pilot, lambda: screen.selected_job() is not None and screen.selected_job().id != job_id,
                         what="the new job to be selected")
        new_job = screen.selected_job()
        assert new_job.name == "flaky" and new_job.id > job_id
        assert server_job(server, new_job.id).status in ("pending", "running")
        assert any(f"retried as job #{new_job.id}" in note for note in notes)


async def test_play_a_manual_job_and_keep_artifacts(console: SimConsole) -> None:
    server = console.server
    pipeline = await create_pipeline(server, [
        {"name": "build", "jobs": [{"name": "pack", "duration": 10, "artifacts": True}]},
        {"name": "deploy", "jobs": [{"name": "ship", "when": "manual"}]},
    ])
    pack_id, ship_id = (job["id"] for job in pipeline["jobs"])
    await advance(server, 30)
    assert server_job(server, pack_id).artifacts_expire_at is not None
    async with console.run(size=(120, 40)) as (app, pilot):
        screen = await open_jobs(app, pilot, pipeline_id=pipeline["id"])
        assert row_status(screen, ship_id) == "manual"
        await _select(screen, pilot, ship_id)
        await pilot.press("p")
        await confirm(app, pilot, answer=False)
        await pilot.click("#confirm")
        await wait_until(pilot, lambda: server_job(server, ship_id).status in ("pending", "running"),
                         what="the job to start")
        await wait_until(pilot, lambda: row_status(screen, ship_id) in ("pending", "running"), what="the row")

        await _select(screen, pilot, pack_id)
        await pilot.press("K")
        await confirm(app, pilot, answer=False)
        await pilot.click("#confirm")
        await wait_until(pilot, lambda: server_job(server, pack_id).artifacts_expire_at is None,
                         what="the artifacts to be kept")


async def test_erase_needs_the_job_id_typed(console: SimConsole) -> None:
    server = console.server
    pipeline_id, job_id = await _one_job(server, "build", {"name": "pack", "duration": 10, "artifacts": True})
    async with console.run(size=(120, 40)) as (app, pilot):
        screen = await open_jobs(app, pilot, pipeline_id=pipeline_id)
        await _select(screen, pilot, job_id)
        await pilot.press("E")
        dialog = await confirm(app, pilot, answer=False)
        button = dialog.query_one("#confirm", Button)
        assert button.disabled
        dialog.query_one("#typed", Input).focus()
        await pilot.press(*str(job_id)[:-1])  # a partial id cannot confirm
        await pilot.pause()
        assert button.disabled
        await pilot.press("enter")
        await pilot.pause(0.2)
        assert app.screen is dialog and server_job(server, job_id).erased_at is None
        await pilot.press(str(job_id)[-1])
        await pilot.pause()
        assert not button.disabled
        await pilot.click("#confirm")
        await wait_until(pilot, lambda: server_job(server, job_id).erased_at is not None, what="the erase")
        await wait_until(pilot, lambda: screen.jobs_by_id()[job_id].artifacts_file is None,
                         what="the artifacts to disappear from the row")


async def test_download_archive_and_one_file(console: SimConsole,
                                             tmp_path: Path, tokens: dict[str, str]) -> None:
    server = console.server
    pipeline_id, job_id = await _one_job(server, "build", {"name": "pack", "duration": 10, "artifacts": True})
    async with httpx.AsyncClient(base_url=server.api_url, headers={"PRIVATE-TOKEN": tokens["admin"]}) as http:
        expected = (await http.get(f"/projects/7/jobs/{job_id}/artifacts")).content
    inner = zipfile.ZipFile(io.BytesIO(expected)).namelist()[0]

    app = console.app()
    notes = record_notifications(app)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_jobs(app, pilot, pipeline_id=pipeline_id)
        await _select(screen, pilot, job_id)

        await pilot.press("d")
        await wait_until(pilot, lambda: isinstance(app.screen, PathDialog), what="the path dialog")
        dest = app.screen.query_one("#dest", Input)
        assert dest.value.endswith(f"job-{job_id}-artifacts.zip") or f"job-{job_id}-" in dest.value
        dest.value = str(tmp_path / "archive.zip")
        await pilot.click("#save")
        await wait_until(pilot, lambda: (tmp_path / "archive.zip").exists() and any("Saved" in n for n in notes),
                         what="the archive")
        assert (tmp_path / "archive.zip").read_bytes() == expected

        await pilot.press("d")
        await wait_until(pilot, lambda: isinstance(app.screen, PathDialog), what="the path dialog")
        app.screen.query_one("#inner", Input).value = inner
        app.screen.query_one("#dest", Input).value = str(tmp_path / "one-file")
        await pilot.click("#save")
        await wait_until(pilot, lambda: (tmp_path / "one-file").exists(), what="the single file")
        with zipfile.ZipFile(io.BytesIO(expected)) as archive:
            assert (tmp_path / "one-file").read_bytes() == archive.read(inner)


async def test_read_only_hides_and_refuses_actions(console: SimConsole) -> None:
    server = console.server
    pipeline_id, job_id = await _long_running_job(server)
    async with console.run(read_only=True, size=(120, 40)) as (app, pilot):
        screen = await open_jobs(app, pilot, pipeline_id=pipeline_id)
        await _select(screen, pilot, job_id)
        shown = {binding.action for (_, binding, enabled, _) in screen.active_bindings.values()}
        assert "download_artifacts" in shown
        for action in ("cancel_job", "retry_job", "play_job", "erase_job", "keep_artifacts"):
            assert action not in shown
            assert screen.check_action(action, ()) is False
        await pilot.press("c", "r", "E")
        await pilot.pause(0.3)
        assert not isinstance(app.screen, ConfirmScreen)
        assert server_job(server, job_id).status == "running"

        # Reading actions still work: copy the job's URL.
        await pilot.press("y")
        await pilot.pause()
        assert app.clipboard == screen.selected_job().web_url
        assert app.clipboard.endswith(f"/platform/audit-log/-/jobs/{job_id}")


class _LoseAnswers(httpx.AsyncBaseTransport):
    """Delivers every request, but for the chosen POSTs the answer is lost on the way back."""

    def __init__(self, suffix: str) -> None:
        self._inner = httpx.AsyncHTTPTransport()
        self._suffix = suffix

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        response = await self._inner.handle_async_request(request)
        if request.method == "POST" and request.url.path.endswith(self._suffix):
            await response.aread()
            raise httpx.ReadError("connection reset by peer", request=request)
        return response

    async def aclose(self) -> None:
        await self._inner.aclose()


async def test_ambiguous_failure_rereads_the_job(sim_factory: Callable[..., SimServer],
                                                 tokens: dict[str, str]) -> None:
    server = sim_factory()
    pipeline_id, job_id = await _long_running_job(server)
    session = Session(server.base_url, Secret(tokens["admin"]), profile="test")
    async with ApiClient(server.base_url, Secret(tokens["admin"]), transport=_LoseAnswers("/cancel")) as client:
        app = LabdeckApp(session, client=client, clock=server.state.clock.now)
        notes = record_notifications(app)
        async with app.run_test(size=(120, 40)) as pilot:
            screen = await open_jobs(app, pilot, pipeline_id=pipeline_id)
            await _select(screen, pilot, job_id)
            await pilot.press("c")
            await confirm(app, pilot, answer=False)
            await pilot.click("#confirm")
            await wait_until(pilot, lambda: any("is now canceled" in note for note in notes),
                             what="the re-read state")
            assert server_job(server, job_id).status == "canceled"
            assert any("No answer from the server" in note for note in notes)
            await wait_until(pilot, lambda: row_status(screen, job_id) == "canceled", what="the row")


class _GatewayAfterCommit(_LoseAnswers):
    """Delivers every request; for the chosen POSTs a gateway answers 502 once the server acted."""

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        response = await self._inner.handle_async_request(request)
        if request.method == "POST" and request.url.path.endswith(self._suffix):
            await response.aread()
            return httpx.Response(502, content=NGINX_502, headers={"Content-Type": "text/html", "Server": "nginx"},
                                  request=request)
        return response


async def test_a_cancel_answered_502_says_what_the_server_answered(sim_factory: Callable[..., SimServer],
                                                                   tokens: dict[str, str]) -> None:
    """Issue 32.5: an answer came (502), so not "No answer from the server"; the outcome is still
    unknown and the job is read again."""
    server = sim_factory()
    pipeline_id, job_id = await _long_running_job(server)
    session = Session(server.base_url, Secret(tokens["admin"]), profile="test")
    transport = _GatewayAfterCommit("/cancel")
    async with ApiClient(server.base_url, Secret(tokens["admin"]), transport=transport) as client:
        app = LabdeckApp(session, client=client, clock=server.state.clock.now)
        notes = record_notifications(app)
        async with app.run_test(size=(120, 40)) as pilot:
            screen = await open_jobs(app, pilot, pipeline_id=pipeline_id)
            await _select(screen, pilot, job_id)
            await pilot.press("c")
            await confirm(app, pilot, answer=False)
            await pilot.click("#confirm")
            await wait_until(pilot, lambda: any("is now canceled" in note for note in notes),
                             what="the re-read state")
            assert any(note.startswith(f"The server answered 502 Bad Gateway for cancel job #{job_id}")
                       for note in notes), notes
            assert not any("No answer" in note for note in notes)


async def test_keys_that_cannot_apply_are_not_offered(console: SimConsole) -> None:
    server = console.server
    pipeline_id, job_id = await _long_running_job(server)
    async with console.run(size=(120, 40)) as (app, pilot):
        screen = await open_jobs(app, pilot, pipeline_id=pipeline_id)
        await _select(screen, pilot, job_id)
        await pilot.pause()
        offered = {binding.binding.action for binding in screen.active_bindings.values() if binding.enabled}
        assert server_job(server, job_id).status == "running"
        assert "cancel_job" in offered and "retry_job" not in offered and "play_job" not in offered
        await pilot.press("r")  # nothing happens: no dialog for a job that cannot be retried
        await pilot.pause()
        assert not isinstance(app.screen, ConfirmScreen)


async def test_a_retry_from_a_filtered_list_shows_the_new_job(console: SimConsole) -> None:
    server = console.server
    pipeline_id, job_id = await _one_job(server, "test", {"name": "flaky", "duration": 10, "fail": True})
    async with console.run(size=(120, 40)) as (app, pilot):
        screen = await open_jobs(app, pilot, pipeline_id=pipeline_id)
        screen.set_status_filter(frozenset({"failed"}))  # the new job (pending) does not match it
        await wait_until(pilot, lambda: screen.query_one(JobTable).select_job(job_id), what="the failed job")
        await _select(screen, pilot, job_id)
        await pilot.press("r")
        await confirm(app, pilot, answer=False)
        await pilot.click("#confirm")
        await wait_until(pilot, lambda: screen.selected_job() is not None and screen.selected_job().id != job_id,
                         what="the new job, shown although the filter says failed")
        assert screen.selected_job().status in ("pending", "running")


async def test_marked_jobs_get_one_dry_run_and_i_explains_a_job(console: SimConsole) -> None:
    from labdeck.ui.dialogs.bulk import BulkActionScreen
    from labdeck.ui.screens.jobs.detail import JobDetailScreen

    server = console.server
    pipeline = await create_pipeline(server, [{"name": "test", "jobs": [
        {"name": "one", "duration": 10, "fail": True}, {"name": "two", "duration": 10, "fail": True},
        {"name": "three", "duration": 10, "fail": True}]}])
    ids = [job["id"] for job in pipeline["jobs"]]
    await advance(server, 30)
    async with console.run(size=(120, 40)) as (app, pilot):
        screen = await open_jobs(app, pilot, pipeline_id=pipeline["id"])
        await _select(screen, pilot, ids[0])
        await pilot.press("space")
        await _select(screen, pilot, ids[2])
        await pilot.press("space")
        await pilot.press("R")
        await wait_until(pilot, lambda: isinstance(app.screen, BulkActionScreen), what="the dry run")
        dialog = app.screen
        assert isinstance(dialog, BulkActionScreen)
        assert sorted(request.target.job.id for request in dialog.plan.requests) == [ids[0], ids[2]]
        await pilot.press("escape")
        await pilot.pause()
        await _select(screen, pilot, ids[1])
        await pilot.press("i")
        await wait_until(pilot, lambda: isinstance(app.screen, JobDetailScreen), what="the job detail")
