"""Keys mean the same everywhere, and the log viewer's keys do what a reader expects: e/E walk the
real errors, esc clears a search first, a section folds from any of its lines, ? names the screen,
:help scrolls, and the 80-column footer still shows where the keys are."""

from __future__ import annotations

from textual.containers import VerticalScroll

from labdeck.ui.dialogs.keys import KeysScreen
from labdeck.ui.dialogs.message import MessageScreen
from labdeck.ui.screens.jobs.table import JobTable
from labdeck.ui.widgets.resource_table import ResourceTable
from tests.support.pilot import settle, wait_until
from tests.ui.conftest import SimConsole, shared_sim
from tests.ui.helpers import run_command, screen_lines
from tests.ui.jobs_support import (
    append_trace,
    create_pipeline,
    header_text,
    open_jobs,
    open_trace,
    running_job,
)

COMPILER_LOG = (
    "Running with gitlab-runner 17.0\n"
    "$ make\n"
    "cc -c main.c\n"
    "main.c:12:5: error: expected ';' before 'return'\n"
    "main.c:40:1: error: unknown type name 'strng'\n"
    "make: *** [Makefile:3: main.o] Error 1\n"
    "ERROR: Job failed: exit code 2\n"
)


async def test_j_k_g_and_shift_g_move_the_same_in_every_table(console: SimConsole) -> None:
    async with console.run(size=(120, 40)) as (app, pilot):
        await settle(app, pilot, rounds=3)
        projects = app.screen.query_one(ResourceTable)
        await pilot.press("j", "j")
        assert projects.cursor_row == 2
        await pilot.press("k")
        assert projects.cursor_row == 1
        await pilot.press("G")
        assert projects.cursor_row == projects.visible_count - 1
        await pilot.press("g")
        assert projects.cursor_row == 0
        screen = await open_jobs(app, pilot)
        jobs = screen.query_one(JobTable)
        jobs.focus()
        await pilot.press("j", "j")
        assert jobs.cursor_row == 2
        await pilot.press("k")
        assert jobs.cursor_row == 1
        await pilot.press("G")
        assert jobs.cursor_row == jobs.row_count - 1
        await pilot.press("g")
        assert jobs.cursor_row == 0
        await pilot.press("end")
        assert jobs.cursor_row == jobs.row_count - 1
        await pilot.press("home")
        assert jobs.cursor_row == 0
        assert screen.group_mode == "none"  # g moved; v is the view (grouping)
        await pilot.press("v")
        assert screen.group_mode == "pipeline"


async def test_e_walks_the_real_errors_before_the_runners_last_line(console: SimConsole) -> None:
    server = console.server
    job_id = await running_job(server)
    await append_trace(server, job_id, COMPILER_LOG.encode())
    async with console.run(size=(120, 30)) as (app, pilot):
        screen = await open_trace(app, pilot, job_id)
        view = screen.view
        await wait_until(pilot, lambda: view.line_count >= 7, what="the log")
        await pilot.press("e")
        await wait_until(pilot, lambda: view.error_line is not None, what="the first error")
        assert "expected ';'" in view.document.plain_line(view.error_line or 0)
        assert "error 1/" in header_text(screen)
        await pilot.press("e")
        await wait_until(pilot, lambda: "unknown type name" in view.document.plain_line(view.error_line or 0),
                         what="the second error")
        await pilot.press("E")
        await wait_until(pilot, lambda: "expected ';'" in view.document.plain_line(view.error_line or 0),
                         what="back to the first")


async def test_esc_clears_the_search_before_leaving_the_log(console: SimConsole) -> None:
    server = console.server
    job_id = await running_job(server)
    await append_trace(server, job_id, COMPILER_LOG.encode())
    async with console.run(size=(120, 30)) as (app, pilot):
        screen = await open_trace(app, pilot, job_id)
        await wait_until(pilot, lambda: screen.view.line_count >= 7, what="the log")
        await pilot.press("slash", *"error", "enter")
        await wait_until(pilot, lambda: screen.view.search_term == "error", what="the search")
        await pilot.press("escape")
        assert app.screen is screen and screen.view.search_term == ""
        await pilot.press("escape")
        assert app.screen is not screen


async def test_a_section_folds_from_any_of_its_lines(console: SimConsole) -> None:
    server = console.server
    pipeline = await create_pipeline(server, [{"name": "test", "jobs": [{"name": "unit", "duration": 20}]}])
    from tests.ui.jobs_support import advance

    await advance(server, 60)
    job_id = int(pipeline["jobs"][0]["id"])
    async with console.run(size=(120, 30)) as (app, pilot):
        screen = await open_trace(app, pilot, job_id)
        view = screen.view
        await wait_until(pilot, lambda: screen.finished_reading, what="the whole log")
        section = next(s for s in view.document.sections if s.end_line and s.end_line - s.start_line > 2)
        view.move_cursor_to(section.start_line + 2)
        view.focus()
        await pilot.press("enter")
        assert section in view.collapsed_sections()


@shared_sim
async def test_keys_name_the_screen_help_scrolls_and_the_footer_points_to_keys(
        console: SimConsole) -> None:
    async with console.run(size=(80, 24)) as (app, pilot):
        await settle(app, pilot, rounds=3)
        footer = screen_lines(app)[-1]
        assert footer.lstrip().startswith("? Keys"), footer  # at 80 columns, where the other keys are
        await pilot.press("question_mark")
        await settle(app, pilot, rounds=3)
        assert isinstance(app.screen, KeysScreen)
        assert "Projects" in app.screen.query_one("#title").render().plain  # type: ignore[attr-defined]
        await pilot.press("escape")
        await run_command(app, pilot, "help")
        help_screen = app.screen
        assert isinstance(help_screen, MessageScreen)
        body = help_screen.query_one("#body", VerticalScroll)
        text = str(help_screen.query_one("#body Static").render())
        assert ":board" in text or "board" in text
        assert all(f":{command.name}" in text or f":{command.usage}" in text for command in app.commands.all())
        await pilot.press("pagedown")
        await pilot.pause()
        assert body.scroll_y > 0
