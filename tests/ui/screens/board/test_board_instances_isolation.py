"""A board over two instances keeps each one's token and records to itself (issue 30, "Done when"):
a redirect from one instance to the other's origin is refused, never followed with the token, and
changes sent to each instance in one session are audited with that instance's profile and URL."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import pytest
from textual.widgets import Input

from labdeck.audit.read import read_audit
from labdeck.incident.bundle import BundleFile
from labdeck.sim.server import SimServer
from labdeck.ui.app import LabdeckApp
from labdeck.ui.dialogs.bulk import BulkActionScreen
from labdeck.ui.dialogs.bundle import BundleDoneDialog
from labdeck.ui.dialogs.download import PathDialog
from labdeck.ui.screens.board.board import BoardScreen
from tests.support.bundles import members
from tests.support.fault_switch import FaultSwitch
from tests.support.pilot import settle, wait_until
from tests.support.sim_control import push_pipeline
from tests.ui.board_support import open_merged_board, owner, prod_and_staging_app, rows
from tests.ui.pipeline_support import close_finished, confirm_and_finish

pytestmark = pytest.mark.usefixtures("no_confirm_guard")


@pytest.fixture
def two(sim_factory: Callable[..., SimServer]) -> Iterator[tuple[SimServer, FaultSwitch, FaultSwitch]]:
    """prod (spec dialect) and staging (gitlab dialect), each behind a switch that records every
    request and every token it carried; prod's simulator too, to push pipelines to it."""
    prod = sim_factory(seed=42)
    staging = sim_factory(seed=42, dialect="gitlab")
    with ExitStack() as stack:
        yield (prod, stack.enter_context(FaultSwitch(prod.base_url)),
               stack.enter_context(FaultSwitch(staging.base_url)))


async def test_a_redirect_to_the_other_instance_is_refused_and_never_carries_the_token(
        two: tuple[SimServer, FaultSwitch, FaultSwitch], tokens: dict[str, str], state_path: Path) -> None:
    """Staging (moved, or hostile) answers every API request with a redirect to prod's origin. The
    board does not follow it: staging's token never reaches prod, staging's rows say why and stay
    stale, and prod's rows go on updating with prod's own token."""
    prod_sim, prod, staging = two
    app = prod_and_staging_app(prod.url, staging.url, tokens, state_path)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_merged_board(app, pilot)
        prod_before = len(prod.requests)
        staging.set("redirect", location=prod.url, graphql=True)
        await wait_until(pilot, lambda: any(status == 302 for _, _, _, status in staging.requests),
                         limit=20, what="staging's redirects answered")
        await wait_until(pilot, lambda: "staging: " in screen.context_text and "redirect" in screen.context_text,
                         limit=20, what="staging's reason in the header")
        assert "prod:" not in screen.context_text
        # prod keeps updating beside it: a new pipeline there shows up.
        target = next(row for row in rows(screen) if owner(screen, row) == "prod")
        created = push_pipeline(prod_sim, target.project_id, [{"name": "lint", "duration": 600}])
        await wait_until(pilot, lambda: any(row.pipeline_id == created["id"] and owner(screen, row) == "prod"
                                            for row in rows(screen)), limit=20, what="prod's new pipeline")
        assert stale_owners(screen) <= {"staging"}
    assert len(prod.requests) > prod_before
    assert prod.tokens_seen == {tokens["admin"]}, "staging's token reached prod's origin"
    assert staging.tokens_seen == {tokens["user"]}


def changes_sent(switch: FaultSwitch) -> list[str]:
    """The paths of the changes an instance received (GraphQL queries are reads, sent as POSTs)."""
    return [path for _, method, path, _ in switch.requests if method == "POST" and path != "/api/graphql"]


def stale_owners(screen: BoardScreen) -> set[str]:
    return {owner(screen, row) for row in rows(screen) if screen._is_stale(row)}


async def retry_failed_on(app: LabdeckApp, screen: BoardScreen, pilot: Any, short: str) -> None:
    """``R`` on a failed row of instance ``short``: its dialog names that instance; confirmed."""
    target = next(row for row in rows(screen) if row.status == "failed" and owner(screen, row) == short)
    index = next(instance.index for instance in app.instances if instance.short == short)
    screen.table.move_cursor_to_key((index, target.project_id, target.pipeline_id))
    await pilot.pause()
    await pilot.press("R")
    await settle(app, pilot)
    dialog = app.screen
    assert isinstance(dialog, BulkActionScreen)
    assert str(dialog.query_one("#target").render()).startswith(f"{short} ")
    await pilot.pause(0.6)  # keys and clicks in the dialog's first half second do not count
    await confirm_and_finish(pilot, dialog)
    await close_finished(app, pilot, dialog)


async def test_changes_on_each_instance_are_audited_with_its_own_profile_and_url(
        two: tuple[SimServer, FaultSwitch, FaultSwitch], tokens: dict[str, str], state_path: Path) -> None:
    """A retry on a prod row, then one on a staging row, in one session: every audit record names
    the profile and URL of the instance the change went to (and that instance's account), and each
    change reached that instance only."""
    _, prod, staging = two
    app = prod_and_staging_app(prod.url, staging.url, tokens, state_path)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_merged_board(app, pilot)
        await retry_failed_on(app, screen, pilot, "prod")
        prod_posts = changes_sent(prod)
        assert prod_posts and not changes_sent(staging)
        await wait_until(pilot, lambda: app.screen is screen, what="back on the board")
        await retry_failed_on(app, screen, pilot, "staging")
        assert changes_sent(staging) and changes_sent(prod) == prod_posts
    changes = [entry for entry in read_audit() if entry.method == "POST"]
    by_instance = {(entry.profile, entry.instance, entry.user) for entry in changes}
    assert by_instance == {("production", prod.url, "root"), ("staging", staging.url, "alice")}, by_instance
    assert all((entry.instance == prod.url) == (entry.profile == "production") for entry in changes)


async def bundle_of_row(app: LabdeckApp, screen: BoardScreen, pilot: Any, short: str, folder: Path) -> BundleFile:
    """``B`` on a failed row of instance ``short``, saved into ``folder`` under its default name."""
    target = next(row for row in rows(screen) if row.status == "failed" and owner(screen, row) == short)
    index = next(instance.index for instance in app.instances if instance.short == short)
    screen.table.move_cursor_to_key((index, target.project_id, target.pipeline_id))
    await pilot.pause()
    await pilot.press("B")
    await wait_until(pilot, lambda: isinstance(app.screen, PathDialog), what="the path dialog")
    app.screen.query_one("#dest", Input).value = str(folder)
    await pilot.press("enter")
    await wait_until(pilot, lambda: isinstance(app.screen, BundleDoneDialog), what="the bundle", limit=30)
    done = app.screen
    assert isinstance(done, BundleDoneDialog)
    await pilot.press("escape")
    await wait_until(pilot, lambda: app.screen is screen, what="back on the board")
    return done.bundle


async def test_b_bundles_name_the_instance_they_were_read_from(
        two: tuple[SimServer, FaultSwitch, FaultSwitch], tokens: dict[str, str], state_path: Path,
        tmp_path: Path) -> None:
    """Both instances have the same projects and pipeline numbers: a bundle of each, in one folder,
    says in its file name and its summary which instance it came from (the URL alone was not
    enough to tell ``prod`` from ``staging`` at a glance)."""
    _, prod, staging = two
    app = prod_and_staging_app(prod.url, staging.url, tokens, state_path)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_merged_board(app, pilot)
        bundles = {short: await bundle_of_row(app, screen, pilot, short, tmp_path) for short in ("staging", "prod")}
    for short, url in (("staging", staging.url), ("prod", prod.url)):
        assert bundles[short].path.name.startswith(f"incident-{short}-"), bundles[short].path
        summary = members(bundles[short].path)["summary.md"].decode()
        assert f"from {short} ({url})" in summary, summary[:300]
