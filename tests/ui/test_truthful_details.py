"""Details a user relies on: an outage on an 80-column terminal still says where, how fresh and
how healthy; ``:theme`` by short name; downloads land private (0600) in the download folder and
never replace a file that is already there."""

from __future__ import annotations

import asyncio
import re
import stat
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx
import pytest
from textual.widgets import Input

from labdeck.base import paths
from labdeck.sim.dataset.build import DEMO_TOKENS
from labdeck.sim.server import SimServer
from labdeck.ui.dialogs.download import PathDialog
from labdeck.ui.dialogs.form import FormScreen
from labdeck.ui.dialogs.message import MessageScreen
from labdeck.ui.screens.projects.list import ProjectsScreen
from labdeck.ui.screens.settings.export import ProjectExportScreen
from labdeck.ui.widgets.status_line import StatusLine
from tests.support.pilot import settle, wait_until
from tests.ui.conftest import SimConsole, shared_sim
from tests.ui.helpers import push, run_command, screen_lines, toasts
from tests.ui.jobs_support import advance, create_pipeline, open_jobs, record_notifications

ServerFactory = Callable[..., SimServer]


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def _size(path: Path) -> int:
    return path.stat().st_size


def _read(path: Path) -> bytes:
    return path.read_bytes()


def _write(path: Path, data: bytes) -> None:
    path.write_bytes(data)


def _faults(server: SimServer, **config: object) -> None:
    response = httpx.put(f"{server.base_url}/-/sim/faults", json=config, timeout=5,
                         headers={"PRIVATE-TOKEN": DEMO_TOKENS["admin"]})
    response.raise_for_status()


# --- 1. an outage at 80x24 --------------------------------------------------------------------------

@pytest.mark.parametrize("outage", ["server gone", "every answer 5xx"])
async def test_an_outage_at_80_columns_still_shows_host_data_age_and_health(
        console: SimConsole, outage: str) -> None:
    server = console.server
    host = urlsplit(server.base_url).netloc  # 127.0.0.1:<port>
    app = console.app(fast_retry=True)
    app.connection.delays = (60.0,)  # no reconnection attempt during the test
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await settle(app, pilot)
        screen = app.screen
        assert isinstance(screen, ProjectsScreen) and screen.table.row_count > 0
        if outage == "server gone":
            server.stop()
        else:
            _faults(server, error_rate=1.0)
        await pilot.press("ctrl+r")
        await settle(app, pilot)
        assert app.connection.in_outage
        server.state.clock.advance(300)  # five minutes without fresh data
        await pilot.pause(1.2)  # the status line follows the app's one-second tick

        # The toast says what happened, whole: wrapped on 80 columns, not cut off.
        shown = [text for text in toasts(app) if "Retrying in the background" in text]
        assert len(shown) == 1
        rows = screen_lines(app)
        toast_text = " ".join(row.split("▌", 1)[1].strip() for row in rows if "▌" in row)
        assert " ".join(f"Cannot reach the server {shown[0]}".split()) in " ".join(toast_text.split())
        assert "…" not in toast_text

        # Once the toast is gone, the status line keeps saying where, how fresh and how healthy.
        app.clear_notifications()
        # The host gives way before the reason and the age, never below the profile's room (``127.0.0.1:4…``
        # beside ``503 Service Unavailable — retry in 2 s``).
        where = host[:StatusLine.PROFILE_ROOM - 1]
        await wait_until(pilot, lambda: any(where in line and "data " in line for line in screen_lines(app)), limit=5.0,
                         what="the status line drawn again without the toast")
        status = app.screen.query_one(StatusLine)
        parts = {label.id: label for label in status.children}
        instance = str(parts["status-instance"].render())
        assert instance == host or (instance.endswith("…") and host.startswith(instance[:-1])), instance
        health = str(parts["status-health"].render())
        if outage == "server gone":
            # Offline, and either waiting (✕) or with the next probe already due (◌): both say it.
            # With the next try's countdown when there is room for it (``◌ offline — retrying in 8 s``).
            assert health.startswith(("✕ offline", "◌ offline")), health
        else:  # what the server answered, short (issue 24), never its page
            # With the client's next try when there is room for it (``◌ 502 Bad Gateway — retry in 1 s``).
            assert re.fullmatch(r"[✕◌] 50[023] [A-Za-z …]+( \(uvicorn\))?( — (?:retry(?:ing)? in \d+ s|retrying now))?",
                                health), health
        assert str(parts["status-age"].render()) == "data 5m"
        for name in ("status-instance", "status-health", "status-age"):
            region = parts[name].region
            assert region.width > 0 and region.right <= 80, (name, region)
        row = next(line for line in screen_lines(app) if where in line and "data " in line)
        assert len(row.rstrip("\n")) <= 80
        # What happened is on the row (a countdown may be cut when the host takes its room: noted).
        assert health.split(" — ", 1)[0] in row and row.rstrip().endswith("data 5m")
        assert screen.table.row_count > 0  # what was shown stays


# --- 2. :theme by short name ------------------------------------------------------------------------

@shared_sim
async def test_theme_by_short_name_and_an_unknown_one(console: SimConsole) -> None:
    async with console.run(size=(80, 24), notifications=True) as (app, pilot):
        await settle(app, pilot)
        assert app.theme == "labdeck-dark"
        await run_command(app, pilot, "theme light")
        assert app.theme == "labdeck-light"
        assert not app.current_theme.dark
        await run_command(app, pilot, "theme nosuch")
        assert app.theme == "labdeck-light"  # unchanged
        errors = [n for n in app._notifications if "nosuch" in str(n.message)]  # type: ignore[attr-defined]
        assert len(errors) == 1
        assert errors[0].severity == "error" and errors[0].title == ":theme"
        message = str(errors[0].message)
        assert message.startswith("unknown theme 'nosuch'")
        known = message.split("known:", 1)[1]
        assert {"dark", "light", "high-contrast", "production"} <= {name.strip() for name in known.split(",")}
        assert app.is_running


# --- 3. downloads: the download folder, mode 0600, nothing replaced -----------------------------------

PROJECT, PATH = 1, "platform/api-gateway"


async def _download_export(app: Any, pilot: Any, screen: ProjectExportScreen) -> None:
    """``d``, then Download with the form's default destination."""
    await pilot.press("d")
    await settle(app, pilot)
    form = app.screen
    assert isinstance(form, FormScreen)
    assert form.query_one("#f-dest", Input).value == str(paths.download_dir())
    form.action_submit()
    await settle(app, pilot)


async def _start_export(app: Any, pilot: Any, server: SimServer) -> ProjectExportScreen:
    """Open the export screen of the test project (its waits move the simulator's clock) and
    press ``x``: the export form is up."""

    async def tick(seconds: float) -> None:
        server.state.clock.advance(seconds)
        await asyncio.sleep(0)

    screen = ProjectExportScreen(PROJECT, PATH)
    screen.sleep = tick
    await push(app, pilot, screen)
    await pilot.press("x")
    await settle(app, pilot)
    return screen


async def test_export_download_goes_to_the_download_folder_private_and_replaces_nothing(
        console: SimConsole) -> None:
    server = console.server
    folder = paths.download_dir()
    assert folder.is_relative_to(Path.home())  # the test's own home (tests/conftest.py), not the real one
    async with console.run(size=(120, 40), notifications=True) as (app, pilot):
        screen = await _start_export(app, pilot, server)
        assert isinstance(app.screen, FormScreen)
        app.screen.action_submit()
        await settle(app, pilot)
        assert screen.export_status == "finished"

        await _download_export(app, pilot, screen)
        saved = screen.downloaded
        assert saved is not None and saved.parent == folder and saved.name.endswith("export.tar.gz")
        assert _size(saved) > 0
        assert _mode(saved) == 0o600
        assert any(f"Saved {saved}" in text for text in toasts(app))

        # The same download again: the file already there (the user's by now) stays as it is.
        saved.write_bytes(b"the user's own file")
        before = sorted(folder.iterdir())
        await _download_export(app, pilot, screen)
        assert saved.read_bytes() == b"the user's own file"
        assert sorted(folder.iterdir()) == before  # no second copy, no .part left behind
        dialog = app.screen
        assert isinstance(dialog, MessageScreen)
        assert "already exists; nothing was replaced" in " ".join(
            str(widget.render()) for widget in dialog.query("Static"))


async def test_an_old_part_file_neither_leaks_into_nor_is_clobbered_by_a_download(
        console: SimConsole) -> None:
    """A ``<name>.part`` already in the download folder (a browser's download in progress, or one
    of ours cut short by a crash) is someone else's: the download neither truncates it nor
    inherits its mode."""
    server = console.server
    async with console.run(size=(120, 40), notifications=True) as (app, pilot):
        screen = await _start_export(app, pilot, server)
        app.screen.action_submit()  # type: ignore[attr-defined]
        await settle(app, pilot)
        await _download_export(app, pilot, screen)
        saved = screen.downloaded
        assert saved is not None
        saved.unlink()
        part = saved.with_name(saved.name + ".part")
        part.write_bytes(b"half of something else")
        part.chmod(0o644)

        await _download_export(app, pilot, screen)
        assert saved.exists() and _size(saved) > 0
        assert _mode(saved) == 0o600
        assert part.read_bytes() == b"half of something else"


async def test_artifacts_download_lands_private_in_the_download_folder(
        console: SimConsole) -> None:
    server = console.server
    pipeline = await create_pipeline(server, [{"name": "build", "jobs": [{"name": "pack", "duration": 10,
                                                                           "artifacts": True}]}])
    job_id = pipeline["jobs"][0]["id"]
    await advance(server, 30)
    app = console.app()
    notes = record_notifications(app)
    async with app.run_test(size=(120, 40)) as pilot:
        from labdeck.ui.screens.jobs.table import JobTable

        screen = await open_jobs(app, pilot, pipeline_id=pipeline["id"])
        await wait_until(pilot, lambda: screen.query_one(JobTable).select_job(job_id), what="the job's row")
        await pilot.press("d")
        await wait_until(pilot, lambda: isinstance(app.screen, PathDialog), what="the path dialog")
        dest = Path(app.screen.query_one("#dest", Input).value)
        assert dest.parent == paths.download_dir() and dest.name.startswith(f"job-{job_id}-")
        await pilot.click("#save")
        await wait_until(pilot, lambda: any("Saved" in note for note in notes), what="the download")
        assert _size(dest) > 0
        assert _mode(dest) == 0o600

        # Again, with the same default path: refused, the file stays as it is.
        _write(dest, b"keep me")
        await pilot.press("d")
        await wait_until(pilot, lambda: isinstance(app.screen, PathDialog), what="the path dialog")
        await pilot.click("#save")
        await wait_until(pilot, lambda: any("already exists" in note for note in notes), what="the refusal")
        assert _read(dest) == b"keep me"


# --- 4. the projects list refreshes itself and its ages move on, through the clock tick alone --------

async def test_the_projects_list_refreshes_itself_and_its_ages_move_on(console: SimConsole) -> None:
    server = console.server
    async with console.run(size=(120, 40)) as (app, pilot):
        await settle(app, pilot)
        screen = app.screen
        assert isinstance(screen, ProjectsScreen)
        ages = {row.key: str(row.cells[-1]) for row in screen.table.rows()}
        async with httpx.AsyncClient(base_url=server.base_url, headers={"PRIVATE-TOKEN": DEMO_TOKENS["admin"]}) as http:
            created = await http.post("/api/v4/projects", json={"name": "appeared-while-watching"})
        assert created.status_code == 201, created.text
        server.state.clock.advance(3 * 3600)  # nothing pressed: only the console's own clock runs

        def listed() -> bool:
            return any((row.data.path_with_namespace or "").endswith("appeared-while-watching")
                       for row in screen.table.rows() if row.data is not None)

        assert not listed()
        await wait_until(pilot, listed, what="the automatic refresh", limit=5.0)
        after = {row.key: str(row.cells[-1]) for row in screen.table.rows()}
        assert any(after.get(key) != text for key, text in ages.items() if text != "—")
