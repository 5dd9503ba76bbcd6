"""The incident bundle from the console, end to end against the simulator: ``B`` on a failed job,
the path dialog, the archive on disk (its contents checked against the server), never replacing a
file (the toast names the new one), and the summary on the clipboard, whole or cut to fit."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from textual.widgets import Input

from labdeck.ui.app import LabdeckApp
from labdeck.ui.dialogs import bundle as bundle_dialog
from labdeck.ui.dialogs.bundle import BundleDoneDialog, BundleProgressDialog, request_bundle
from labdeck.ui.dialogs.download import PathDialog
from labdeck.ui.screens.runners.detail import RunnerJobsScreen
from tests.support.bundles import members
from tests.support.pilot import settle
from tests.ui.conftest import SimConsole
from tests.ui.helpers import push, toasts


def failed_job(server: Any) -> Any:
    return next(j for j in server.state.jobs.values() if j.status == "failed" and j.runner_id is not None)


async def save_to(app: LabdeckApp, pilot: Any, dest: Path) -> None:
    """Answer the path dialog, then wait for the bundle."""
    dialog = app.screen
    assert isinstance(dialog, PathDialog)
    dialog.query_one("#dest", Input).value = str(dest)
    await pilot.press("enter")
    await settle(app, pilot)
    for _ in range(50):  # the archive is written in a thread
        if not isinstance(app.screen, BundleProgressDialog):
            break
        await pilot.pause(0.05)
    await settle(app, pilot)


async def test_bundle_from_a_runners_job_then_the_summary_on_the_clipboard(
        console: SimConsole, tmp_path: Path) -> None:
    server = console.server
    job = failed_job(server)
    async with console.run(size=(120, 40)) as (app, pilot):
        screen = await push(app, pilot, RunnerJobsScreen(job.runner_id, status="failed"))
        screen.table.move_cursor_to_key(job.id)
        await pilot.press("B")
        await settle(app, pilot)
        assert isinstance(app.screen, PathDialog)
        await save_to(app, pilot, tmp_path)  # a folder: the bundle's own name goes in it
        done = app.screen
        assert isinstance(done, BundleDoneDialog)
        bundle = done.bundle
        assert bundle.path.parent == tmp_path and bundle.path.name.endswith(".tar.gz") and not bundle.renamed
        assert bundle.path.stat().st_mode & 0o777 == 0o600
        assert any(f"Saved the incident bundle to {bundle.path}" in message for message in toasts(app))
        files = members(bundle.path)
        record = json.loads(files[f"jobs/{job.id}.json"])
        assert record["id"] == job.id and record["status"] == "failed"
        assert f"jobs/{job.id}.log.txt" in files and "summary.md" in files
        assert "\x1b" not in files[f"jobs/{job.id}.log.txt"].decode("utf-8")
        assert f"runners/{job.runner_id}.json" in files
        summary = files["summary.md"].decode("utf-8")
        assert f"## Job {job.id}" in summary
        await pilot.press("c")  # copy the summary
        await settle(app, pilot)
        assert app.clipboard == summary
        assert any("Summary copied as Markdown" in message for message in toasts(app))
        assert app.screen is screen

        # The same file name again: nothing is replaced, the toast names the new file.
        await pilot.press("B")
        await settle(app, pilot)
        await save_to(app, pilot, bundle.path)
        again = app.screen
        assert isinstance(again, BundleDoneDialog) and again.bundle.renamed
        assert again.bundle.path.name == bundle.path.name.replace(".tar.gz", " (1).tar.gz")
        assert any("already exists: saved the incident bundle as" in message and " (1).tar.gz" in message
                   for message in toasts(app))
        assert members(bundle.path)["summary.md"].decode("utf-8") == summary  # the first one is intact
        await pilot.press("escape")
        await settle(app, pilot)
        assert app.screen is screen


async def test_summary_cut_to_the_clipboard_size_and_a_failing_bundle(
        console: SimConsole, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(bundle_dialog, "CLIPBOARD_BYTES", 600)
    server = console.server
    job = failed_job(server)
    path = server.state.project_full_path(server.state.projects[job.project_id])
    async with console.run(size=(120, 40)) as (app, pilot):
        screen = await push(app, pilot, RunnerJobsScreen(job.runner_id))
        request_bundle(screen, path, job=job.id)
        await settle(app, pilot)
        await save_to(app, pilot, tmp_path / "handover.tar.gz")
        done = app.screen
        assert isinstance(done, BundleDoneDialog) and done.bundle.path == tmp_path / "handover.tar.gz"
        await pilot.click("#bundle-copy")
        await settle(app, pilot)
        copied = app.clipboard
        assert len(copied.encode("utf-8")) <= 600 and "[Cut here" in copied
        assert copied.startswith(done.bundle.summary.split("\n", 1)[0])
        assert any("Summary cut to fit the clipboard" in message for message in toasts(app))

        request_bundle(screen, path, job=999_999)  # no such job: said, nothing written
        await settle(app, pilot)
        await save_to(app, pilot, tmp_path / "nothing.tar.gz")
        assert app.screen is screen
        assert any(message.startswith("No bundle: Not found (404)") for message in toasts(app))
        assert not (tmp_path / "nothing.tar.gz").exists()
        assert sorted(os.listdir(tmp_path)) == ["handover.tar.gz"]  # no temporary file left
