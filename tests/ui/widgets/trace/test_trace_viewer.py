"""The trace viewer against a private simulator: live following, pause on scroll-up with a count
of new lines, colours from SGR only, \\r progress lines, raw view, foldable sections with
durations, search with n/N and a match count, jump to the first error, wrap, save."""

from __future__ import annotations

import re
from pathlib import Path

import httpx
from rich.segment import Segment
from textual.widgets import Input

from labdeck.sim.dataset.build import DEMO_TOKENS
from labdeck.sim.server import SimServer
from labdeck.ui.dialogs.download import PathDialog
from labdeck.ui.widgets.key_bar import KeyBar
from tests.support.pilot import wait_until
from tests.ui.conftest import SimConsole
from tests.ui.jobs_support import (
    advance,
    append_trace,
    create_pipeline,
    header_text,
    open_trace,
    running_job,
    shown_text,
)

ESC = "\x1b"


async def test_follows_a_running_job(console: SimConsole) -> None:
    server = console.server
    job_id = await running_job(server)
    async with console.run(size=(100, 20)) as (app, pilot):
        screen = await open_trace(app, pilot, job_id)
        view = screen.view
        await wait_until(pilot, lambda: screen.live, what="live mode")
        assert "● live" in header_text(screen)

        await append_trace(server, job_id, b"$ make\ncompiling 1/2\n")
        await wait_until(pilot, lambda: any("compiling 1/2" in row for row in shown_text(view)), what="first output")
        await append_trace(server, job_id, f"{ESC}[31mred alert{ESC}[0m\nprogress 10%\rprogress 99%\n".encode())
        await wait_until(pilot, lambda: any("red alert" in row for row in shown_text(view)), what="more output")
        rows = shown_text(view)
        assert any("progress 99%" in row for row in rows)
        assert not any("progress 10%" in row for row in rows)  # \r overwrote it, as in a terminal

        red_row = next(y for y, row in enumerate(rows) if "red alert" in row)
        styled = [segment for segment in view.render_line(red_row) if "red alert" in segment.text]
        assert styled and styled[0].style is not None and styled[0].style.color is not None
        assert styled[0].style.color.number == 1  # ANSI red
        assert view.following and view.scroll_y == view.max_scroll_y


async def test_the_key_bar_offers_what_applies_to_the_job_now(console: SimConsole) -> None:
    server = console.server
    job_id = await running_job(server)
    async with console.run(size=(160, 30)) as (app, pilot):
        screen = await open_trace(app, pilot, job_id)

        def offered() -> set[str]:
            return {entry.description for entry in screen.query_one(KeyBar).entries}

        await wait_until(pilot, lambda: screen.live and "Cancel" in offered(), what="Cancel offered")
        assert "Retry" not in offered() and "Search" in offered()
        async with httpx.AsyncClient(base_url=server.base_url,
                                     headers={"PRIVATE-TOKEN": DEMO_TOKENS["admin"]}) as http:
            (await http.post(f"/api/v4/projects/7/jobs/{job_id}/cancel")).raise_for_status()
        await wait_until(pilot, lambda: "Retry" in offered() and "Cancel" not in offered(),
                         what="Retry offered instead of Cancel once the job was canceled")
        assert "Search" in offered()


async def test_scrolling_up_pauses_and_counts_new_lines(console: SimConsole) -> None:
    server = console.server
    job_id = await running_job(server)
    await append_trace(server, job_id, "".join(f"line {n}\n" for n in range(60)).encode())
    async with console.run(size=(100, 20)) as (app, pilot):
        screen = await open_trace(app, pilot, job_id)
        view = screen.view
        await wait_until(pilot, lambda: view.line_count >= 60, what="the first 60 lines")
        await wait_until(pilot, lambda: view.scroll_y == view.max_scroll_y and view.max_scroll_y > 0,
                         what="the view at the end")
        await pilot.press("pageup")
        assert not view.following
        top = view.scroll_y
        await append_trace(server, job_id, b"new one\nnew two\nnew three\n")
        await wait_until(pilot, lambda: view.pending_lines == 3, what="3 pending lines")
        assert view.scroll_y == top  # the view did not move
        assert "+3 new (G)" in header_text(screen) and "❚❚ paused" in header_text(screen)
        await pilot.press("G")
        assert view.following and view.pending_lines == 0
        await pilot.pause()
        assert any("new three" in row for row in shown_text(view))
        assert "+3 new" not in header_text(screen) and "● live" in header_text(screen)


async def _failed_job(server: SimServer) -> int:
    pipeline = await create_pipeline(server, [{"name": "test", "jobs": [{"name": "pytest", "duration": 20,
                                                                          "fail": True}]}])
    await advance(server, 60)
    job_id: int = pipeline["jobs"][0]["id"]
    assert server.state.jobs[job_id].status == "failed"
    return job_id


async def test_sections_fold_and_failed_section_stands_out(console: SimConsole) -> None:
    server = console.server
    job_id = await _failed_job(server)
    async with console.run(size=(120, 40)) as (app, pilot):
        screen = await open_trace(app, pilot, job_id)
        view = screen.view
        await wait_until(pilot, lambda: screen.finished_reading, what="the whole log")
        sections = view.document.sections
        names = [section.name for section in sections]
        assert "prepare_executor" in names and "get_sources" in names
        assert all(section.end_line is not None for section in sections)
        await wait_until(pilot, lambda: view.document.first_error is not None, what="the failed section")
        failed = [section for section in sections if view.document.section_failed(section)]
        assert failed and failed[-1].name in ("step_script", "build_script")
        step = failed[-1]
        # the mark is drawn on the next refresh after the verdict: wait for it, as a reader would
        await wait_until(pilot, lambda: any("✗ failed" in row for row in shown_text(view)),
                         what="the failed section's header")
        header_row = next(row for row in shown_text(view) if "✗ failed" in row)
        assert re.search(r" \d+(s|m\d\ds|h\d\dm) ", header_row)  # the section's duration (16s, 1m05s)

        await pilot.press("z")
        assert view.display_count < view.line_count
        rows = {int(row.split()[0]): row for row in shown_text(view) if row.strip()}
        top_level = [section for section in sections if section.depth == 0]
        assert all("▸" in rows[section.start_line + 1] for section in top_level)
        assert "✗ failed" in rows[step.start_line + 1]
        assert not view.is_hidden(step.start_line) and view.is_hidden(step.start_line + 1)

        await pilot.press("Z")
        assert view.display_count == view.line_count

        view.move_cursor_to(step.start_line)
        await pilot.press("t")
        assert view.is_hidden(step.start_line + 1)
        await pilot.press("t")
        assert not view.is_hidden(step.start_line + 1)


async def test_jump_to_first_error(console: SimConsole) -> None:
    server = console.server
    job_id = await _failed_job(server)
    async with console.run(size=(120, 30)) as (app, pilot):
        screen = await open_trace(app, pilot, job_id)
        view = screen.view
        await wait_until(pilot, lambda: screen.finished_reading, what="the whole log")
        await pilot.press("Z", "home")
        assert view.cursor_line == 0
        await pilot.press("e")
        await wait_until(pilot, lambda: view.error_line is not None, what="the error jump")
        line = view.document.plain_line(view.cursor_line)
        assert view.cursor_line == view.error_line
        assert any(word in line for word in ("ERROR", "error:", "FAILED", "Traceback", "exit code"))
        row = view.line_to_display(view.cursor_line) - int(view.scroll_y)
        assert 0 <= row < view.scrollable_content_region.height  # on screen


async def test_search_highlights_counts_and_moves(console: SimConsole) -> None:
    server = console.server
    job_id = await running_job(server)
    body = "".join(f"{'needle here' if n % 10 == 3 else 'hay'} {n}\n" for n in range(100))
    await append_trace(server, job_id, body.encode())
    async with console.run(size=(100, 20)) as (app, pilot):
        screen = await open_trace(app, pilot, job_id)
        view = screen.view
        await wait_until(pilot, lambda: view.line_count >= 100, what="the log")
        await pilot.press("home")
        await pilot.press("slash")
        await pilot.press(*"NEEDLE", "enter")
        await wait_until(pilot, lambda: view.match_total == 10,
                         what=f"the match count {view.match_total} {view.search_term!r} {view.match_line}")
        assert view.cursor_line == 3 and view.match_line == 3
        assert "/NEEDLE 1/10" in header_text(screen)
        await pilot.press("n")
        await wait_until(pilot, lambda: view.match_line == 13, what="the next match")
        assert "2/10" in header_text(screen)
        await pilot.press("N", "N")
        await wait_until(pilot, lambda: view.match_line == 93, what="wrap around backwards")
        # Matches are highlighted where they are shown.
        row = view.line_to_display(93) - int(view.scroll_y)
        segments = [segment for segment in view.render_line(row) if isinstance(segment, Segment)]
        highlighted = [segment for segment in segments if segment.text.lower() == "needle"]
        assert highlighted and highlighted[0].style is not None and highlighted[0].style.bgcolor is not None


async def test_raw_view_wrap_and_save(console: SimConsole,
                                      tmp_path: Path) -> None:
    server = console.server
    job_id = await running_job(server)
    long_line = "x" * 250
    await append_trace(server, job_id, f"{ESC}]52;c;cm0gLXJm{ESC}\\copy {ESC}[2Jme\n{long_line}\n".encode())
    async with console.run(size=(100, 20)) as (app, pilot):
        screen = await open_trace(app, pilot, job_id)
        view = screen.view
        await wait_until(pilot, lambda: any("copy me" in row for row in shown_text(view)), what="the text")
        await pilot.press("v")
        assert view.raw
        assert any("␛]52;c;cm0gLXJm␛\\copy ␛[2Jme" in row for row in shown_text(view))
        await pilot.press("v")
        rows_before = sum(1 for row in shown_text(view) if "x" * 20 in row)
        await pilot.press("w")
        await pilot.pause()
        rows_after = sum(1 for row in shown_text(view) if "x" * 20 in row)
        assert rows_before == 1 and rows_after >= 3

        await pilot.press("S")
        await wait_until(pilot, lambda: isinstance(app.screen, PathDialog), what="the save dialog")
        app.screen.query_one("#dest", Input).value = str(tmp_path / "job.log")
        await pilot.click("#save")
        await wait_until(pilot, lambda: (tmp_path / "job.log").exists(), what="the saved log")
        saved = (tmp_path / "job.log").read_text()
        assert saved.splitlines()[:2] == ["copy me", long_line]
        assert "\x1b" not in saved
