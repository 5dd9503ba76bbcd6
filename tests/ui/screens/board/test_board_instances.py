"""A board over several instances (issue 30): two simulators (spec and gitlab dialects, different
tokens), each behind its own fault switch that records every request and every token it carried."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from contextlib import ExitStack
from pathlib import Path

import pytest

from labdeck.audit.read import read_audit
from labdeck.base.secret import Secret
from labdeck.base.session import Session
from labdeck.base.statefile import StateStore
from labdeck.sim.server import SimServer
from labdeck.ui.app import LabdeckApp
from labdeck.ui.dialogs.bulk import BulkActionScreen
from labdeck.ui.dialogs.login import LoginScreen
from labdeck.ui.screens.board.alerts import AlertLogScreen
from labdeck.ui.screens.board.board import BoardScreen
from labdeck.ui.screens.jobs.trace import TraceScreen
from labdeck.ui.screens.pipeline.screen import PipelineScreen
from labdeck.ui.ui_state import UiState
from tests.support.fault_switch import FaultSwitch
from tests.support.pilot import settle, wait_until
from tests.ui.board_support import FAST, open_merged_board, owner, prod_and_staging_app, rows
from tests.ui.helpers import run_command
from tests.ui.pipeline_support import confirm_and_finish

pytestmark = pytest.mark.usefixtures("no_confirm_guard")


@pytest.fixture
def two(sim_factory: Callable[..., SimServer]) -> Iterator[tuple[FaultSwitch, FaultSwitch]]:
    """prod (spec dialect) and staging (gitlab dialect), each behind a recording switch."""
    prod = sim_factory(seed=42)
    staging = sim_factory(seed=42, dialect="gitlab")
    with ExitStack() as stack:
        yield (stack.enter_context(FaultSwitch(prod.base_url)), stack.enter_context(FaultSwitch(staging.base_url)))


def make_app(two: tuple[FaultSwitch, FaultSwitch], tokens: dict[str, str], state_path: Path) -> LabdeckApp:
    return prod_and_staging_app(two[0].url, two[1].url, tokens, state_path)


async def test_one_board_marks_each_row_and_each_instance_gets_only_its_own_token(
        two: tuple[FaultSwitch, FaultSwitch], tokens: dict[str, str], state_path: Path) -> None:
    app = make_app(two, tokens, state_path)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_merged_board(app, pilot)
        shown = rows(screen)
        # Most urgent first whatever the instance: one order over both instances' rows, failures on top.
        keys = [row.attention_key for row in shown]
        assert keys == sorted(keys) and shown[0].status == "failed"
        assert {owner(screen, row) for row in shown[:4]} == {"prod", "staging"}
        # The instance column: the short name (profile "production" has short = "prod").
        cells = [str(row.cells[1]) for row in screen.table.visible_rows()]
        assert set(cells) == {"prod", "staging"}
        assert "prod " in screen.context_text and "staging " in screen.context_text
        # W on a staging row: staging's own poller watches it, and `!` says which instance.
        target = next(row for row in shown if owner(screen, row) == "staging")
        screen.table.move_cursor_to_key((1, target.project_id, target.pipeline_id))
        await pilot.press("W")
        assert len(app.instances[1].watching.alerts.targets) == 1
        assert not app.instances[0].watching.alerts.targets
        await pilot.press("exclamation_mark")
        await settle(app, pilot)
        alerts = app.screen
        assert isinstance(alerts, AlertLogScreen)
        assert any(str(row.cells[2]).startswith("staging: ") for row in alerts.table.visible_rows())
        await pilot.press("escape")
        await settle(app, pilot)
        # `/` works across instances, and on the instance's name too.
        await pilot.press("slash", *"staging", "enter")
        await settle(app, pilot)
        assert {owner(screen, row) for row in rows(screen)} == {"staging"}
    prod, staging = two
    assert prod.tokens_seen == {tokens["admin"]}
    assert staging.tokens_seen == {tokens["user"]}


async def test_actions_go_to_the_rows_instance_and_the_audit_log_says_which(
        two: tuple[FaultSwitch, FaultSwitch], tokens: dict[str, str], state_path: Path) -> None:
    prod, staging = two
    app = make_app(two, tokens, state_path)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_merged_board(app, pilot)
        target = next(row for row in rows(screen) if row.status == "failed" and owner(screen, row) == "staging")
        screen.table.move_cursor_to_key((1, target.project_id, target.pipeline_id))
        await pilot.pause()
        # enter: the pipeline is read from staging.
        await pilot.press("enter")
        await settle(app, pilot)
        pipeline = app.screen
        assert isinstance(pipeline, PipelineScreen) and pipeline.instance is app.instances[1]
        # enter on a job: its log is read from staging too (a plain screen, not a section).
        prod_traces = sum(1 for _, _, path, _ in prod.requests if path.endswith("/trace"))
        await pilot.press("enter")
        await settle(app, pilot)
        trace = app.screen
        assert isinstance(trace, TraceScreen) and trace.instance is app.instances[1]
        await wait_until(pilot, lambda: any(path.endswith(f"/jobs/{trace.job.id}/trace")
                                            for _, _, path, _ in staging.requests), limit=40)
        assert sum(1 for _, _, path, _ in prod.requests if path.endswith("/trace")) == prod_traces
        assert app.status_info(trace).profile == "staging" and app.status_info(pipeline).instance == staging.url
        await pilot.press("escape")
        await settle(app, pilot)
        await pilot.press("escape")
        await settle(app, pilot)
        before_prod = len(prod.requests)
        await pilot.press("R")
        await settle(app, pilot)
        dialog = app.screen
        assert isinstance(dialog, BulkActionScreen)
        assert dialog.instance is app.instances[1]
        assert "staging" in str(dialog.query_one("#target").render())
        assert staging.url in str(dialog.query_one("#intro").render())
        await pilot.pause(0.6)  # keys and clicks in the dialog's first half second do not count
        await confirm_and_finish(pilot, dialog)
        assert any(method == "POST" and path.endswith("/retry") for _, method, path, _ in staging.requests)
        await settle(app, pilot)
    assert not any(method == "POST" for _, method, _, _ in prod.requests[before_prod:])
    entries = [entry for entry in read_audit() if entry.action and entry.action.startswith("board.")]
    assert entries and all(entry.profile == "staging" for entry in entries)
    assert all(entry.instance == staging.url for entry in entries)
    assert prod.tokens_seen == {tokens["admin"]} and staging.tokens_seen == {tokens["user"]}


async def test_a_refused_token_darkens_only_its_instance_and_signing_in_resumes_it(
        two: tuple[FaultSwitch, FaultSwitch], tokens: dict[str, str], state_path: Path) -> None:
    prod, staging = two
    app = make_app(two, tokens, state_path)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_merged_board(app, pilot)
        staging.set("revoked", tokens={tokens["user"]})
        await wait_until(pilot, lambda: isinstance(app.screen, LoginScreen), limit=30)
        await wait_until(pilot, lambda: "staging: token refused (401)" in screen.context_text, limit=10)
        # Its rows are kept, marked stale; prod's stay live and prod keeps being read.
        stale = {owner(screen, row) for row in rows(screen) if screen._is_stale(row)}
        assert stale == {"staging"}
        assert app.instances[0].signed_out is False and app.signed_out is False
        reads = len(prod.requests)
        await wait_until(pilot, lambda: len(prod.requests) > reads + 2, limit=20)
        # Signing in again to staging alone (another token of that instance).
        staging.set("revoked", tokens={tokens["user"]})
        login = app.screen
        assert isinstance(login, LoginScreen)
        await pilot.click("#token")
        await pilot.press(*tokens["readonly"], "enter")
        await wait_until(pilot, lambda: not isinstance(app.screen, LoginScreen), limit=20)
        await wait_until(pilot, lambda: "token refused" not in screen.context_text
                         and not any(screen._is_stale(row) for row in rows(screen)), limit=30)
    assert tokens["readonly"] in staging.tokens_seen and tokens["readonly"] not in prod.tokens_seen


def write_boards_config(prod: str, staging: str) -> None:
    config = Path(os.environ["LABDECK_CONFIG"])
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(f'boards = ["prod", "staging"]\n\n[profiles.prod]\nurl = "{prod}"\n\n'
                      f'[profiles.staging]\nurl = "{staging}"\n')


async def test_board_all_adds_the_configured_profiles_beside_the_first(
        two: tuple[FaultSwitch, FaultSwitch], tokens: dict[str, str], state_path: Path) -> None:
    prod, staging = two
    write_boards_config(prod.url, staging.url)
    asked: list[tuple[str, bool]] = []

    def session_for_profile(name: str, own_token: bool = False) -> Session:
        asked.append((name, own_token))
        return Session(base_url=staging.url, token=Secret(tokens["user"]), profile=name, board=FAST)

    first = Session(base_url=prod.url, token=Secret(tokens["admin"]), profile="prod", board=FAST)
    app = LabdeckApp(first, ui_state=UiState(StateStore(state_path)), session_for_profile=session_for_profile)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        await pilot.press("0")
        await settle(app, pilot)
        assert isinstance(app.screen, BoardScreen) and app.screen.instance_of_row(rows(app.screen)[0]) is None
        await run_command(app, pilot, "board all")
        await settle(app, pilot)
        assert asked == [("staging", True)]  # the first profile is there already; staging's own token only
        screen = await open_merged_board(app, pilot)
        assert [instance.name for instance in app.instances] == ["prod", "staging"]
        assert {owner(screen, row) for row in rows(screen)} == {"prod", "staging"}
    assert prod.tokens_seen == {tokens["admin"]} and staging.tokens_seen == {tokens["user"]}
