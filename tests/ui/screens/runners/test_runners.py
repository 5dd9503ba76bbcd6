"""Runners section against the simulator: list and scopes, detail (token masked), edit form,
pause/resume, delete, runner jobs → trace viewer, project runners and the only-project error."""

from __future__ import annotations

from typing import Any

from rich.text import Text

from labdeck.ui.dialogs.confirm import ConfirmScreen
from labdeck.ui.dialogs.form import MASK, FormScreen
from labdeck.ui.dialogs.message import MessageScreen
from labdeck.ui.screens.runners.detail import RunnerDetailScreen, RunnerJobsScreen
from labdeck.ui.screens.runners.list import ProjectRunnersScreen, RunnersScreen
from tests.support.pilot import settle
from tests.ui.conftest import SimConsole, shared_sim
from tests.ui.helpers import push, toasts


def cells(screen: Any) -> dict[str, str]:
    return {str(row.cells[0]): (row.cells[1].plain if isinstance(row.cells[1], Text) else row.cells[1])
            for row in screen.table.rows()}



@shared_sim
async def test_admin_sees_every_runner_with_coloured_status_and_scopes(console: SimConsole) -> None:
    async with console.run(size=(120, 40)) as (app, pilot):
        screen = await push(app, pilot, RunnersScreen())
        assert screen.all_runners  # administrators start on every runner
        rows = screen.table.rows()
        assert len(rows) == len(console.server.state.runners)
        status = rows[0].cells[1]
        assert isinstance(status, Text) and status.style and status.style.color is not None  # type: ignore[union-attr]
        await pilot.press("s")  # scope: specific
        await settle(app, pilot)
        assert screen.scope == "specific"
        assert {row.cells[3] for row in screen.table.rows()} == {"specific"}
        assert "scope specific" in screen.context_text
        await pilot.press("a")  # mine: the admin maintains no project
        await settle(app, pilot)
        assert not screen.all_runners and screen.scope == ""



@shared_sim
async def test_detail_masks_token_and_opens_project_runners(console: SimConsole) -> None:
    app = console.app()
    runner = next(r for r in console.server.state.runners.values() if r.project_ids)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await push(app, pilot, RunnerDetailScreen(runner.id))
        fields = cells(screen)
        assert fields["token"] == MASK
        assert all(runner.token not in value for value in fields.values())  # type: ignore[attr-defined]
        assert fields["version"] != "—" and "tags" in fields and "contacted_at" in fields
        screen.table.move_cursor_to_key("token")
        await pilot.press("y")
        assert not any(runner.token in message for message in toasts(app))  # type: ignore[attr-defined]
        screen.table.move_cursor_to_key(("project", runner.project_ids[0]))
        await pilot.press("enter")
        await settle(app, pilot)
        assert isinstance(app.screen, ProjectRunnersScreen)
        assert runner.id in {row.key for row in app.screen.table.rows()}


async def test_edit_form_saves_and_keeps_input_on_server_error(console: SimConsole) -> None:
    server = console.server
    app = console.app()
    runner = next(r for r in server.state.runners.values() if not r.is_shared)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await push(app, pilot, RunnerDetailScreen(runner.id))
        await pilot.press("e")
        await settle(app, pilot)
        form = app.screen
        assert isinstance(form, FormScreen)
        form.set_value("description", "renamed by test")
        form.set_value("maximum_timeout", "60")  # the server wants at least 10 minutes
        form.action_submit()
        await settle(app, pilot)
        assert app.screen is form
        assert "maximum_timeout" in form.last_error
        assert form.raw_value(next(f for f in form.fields if f.name == "description")) == "renamed by test"
        form.set_value("maximum_timeout", "3600")
        form.set_value("tag_list", "docker, linux, extra")
        form.action_submit()
        await settle(app, pilot)
        assert app.screen is screen
        assert runner.description == "renamed by test"
        assert runner.maximum_timeout == 3600
        assert "extra" in runner.tags
        assert cells(screen)["description"] == "renamed by test"


async def test_pause_resume_and_delete_are_confirmed(console: SimConsole,
                                                    no_confirm_guard: None) -> None:
    server = console.server
    app = console.app()
    runner = next(r for r in server.state.runners.values() if r.active and not r.is_shared)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await push(app, pilot, RunnersScreen(all_runners=True))
        screen.table.move_cursor_to_key(runner.id)
        await pilot.press("p")
        await settle(app, pilot)
        assert isinstance(app.screen, ConfirmScreen)
        await pilot.click("#confirm")
        await settle(app, pilot)
        assert runner.active is False
        assert screen.table.get_data(runner.id).active is False
        await pilot.press("D")
        await settle(app, pilot)
        dialog = app.screen
        assert isinstance(dialog, ConfirmScreen)
        await pilot.click("#confirm")  # disabled until the id is typed
        await settle(app, pilot)
        assert runner.id in server.state.runners
        await pilot.click("#typed")
        await pilot.press(*str(runner.id))
        await pilot.click("#confirm")
        await settle(app, pilot)
        assert runner.id not in server.state.runners
        assert runner.id not in {row.key for row in screen.table.rows()}



@shared_sim
async def test_runner_jobs_filter_and_open_trace(console: SimConsole) -> None:
    app = console.app()
    jobs = console.server.state.jobs.values()
    runner_id = next(job.runner_id for job in jobs if getattr(job, "runner_id", None))
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await push(app, pilot, RunnerJobsScreen(runner_id))
        assert screen.table.row_count > 0
        await pilot.press("s", "s", "s")  # running → success → failed
        await settle(app, pilot)
        assert screen.status == "failed"
        assert {row.data.status for row in screen.table.rows()} <= {"failed"}
        await pilot.press("s", "s")  # canceled → any
        await settle(app, pilot)
        assert screen.status == ""
        job = screen.table.cursor_data
        await pilot.press("enter")
        await pilot.pause()
        from labdeck.ui.screens.jobs.trace import TraceScreen

        assert isinstance(app.screen, TraceScreen)
        assert app.screen.job.id == job.id




async def test_project_runners_enable_disable_and_only_project_error(console: SimConsole,
                                                                    no_confirm_guard: None) -> None:
    server = console.server
    app = console.app()
    runner = next(r for r in server.state.runners.values() if len(r.project_ids) >= 2 and not r.locked)
    target = next(p.id for p in server.state.projects.values() if p.id not in runner.project_ids)
    lonely = next(r for r in server.state.runners.values() if len(r.project_ids) == 1)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await push(app, pilot, ProjectRunnersScreen(target, "target/project"))
        await pilot.press("E")
        await settle(app, pilot)
        form = app.screen
        assert isinstance(form, FormScreen)
        form.set_value("runner_id", runner.id)
        form.action_submit()
        await settle(app, pilot)
        assert target in runner.project_ids
        assert runner.id in {row.key for row in screen.table.rows()}
        screen.table.move_cursor_to_key(runner.id)
        await pilot.press("X")
        await settle(app, pilot)
        await pilot.click("#confirm")
        await settle(app, pilot)
        assert target not in runner.project_ids
        app.pop_screen()
        only = await push(app, pilot, ProjectRunnersScreen(lonely.project_ids[0], "some/project"))
        only.table.move_cursor_to_key(lonely.id)
        await pilot.press("X")
        await settle(app, pilot)
        await pilot.click("#confirm")
        await settle(app, pilot)
        assert isinstance(app.screen, MessageScreen)  # "only project: delete the runner instead"
        assert lonely.project_ids != []


async def test_tags_column_comes_from_each_runners_details(console: SimConsole) -> None:
    server = console.server
    async with console.run(size=(160, 40)) as (app, pilot):
        screen = await push(app, pilot, RunnersScreen(all_runners=True))
        shown = {row.key: str(row.cells[5]) for row in screen.table.rows()}
        assert shown == {r.id: ", ".join(r.tags) or "—" for r in server.state.runners.values()}
        await pilot.press("slash", *"cuda", "enter")  # "/" finds runners by tag
        assert [row.key for row in screen.table.visible_rows()] == [
            r.id for r in server.state.runners.values() if "cuda" in r.tags]
        await pilot.press("escape")
        gone = next(r for r in server.state.runners.values() if r.tags)
        listed = screen.table.get_data(gone.id)
        del server.state.runners[gone.id]  # deleted by someone else after the list was read
        screen.tags.clear()
        screen.show_runners([listed])
        await settle(app, pilot)
        assert str(next(row for row in screen.table.rows() if row.key == gone.id).cells[5]) == "?"
