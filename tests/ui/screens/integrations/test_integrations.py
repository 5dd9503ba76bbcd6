"""Integrations of a project against the simulator: listed by title with their state, filtered by
title or slug, the deprecated cluster integration explained, secrets never shown nor pre-filled,
the generated form (an empty secret keeps the stored one), disable."""

from __future__ import annotations

from typing import Any

from rich.text import Text

from labdeck.api.resources.integrations import INTEGRATIONS
from labdeck.sim.server import SimServer
from labdeck.ui.dialogs.confirm import ConfirmScreen
from labdeck.ui.dialogs.form import MASK, FormScreen
from labdeck.ui.screens.integrations.actions import (
    WRITE_ONLY,
    integration_fields,
    integration_settings,
    is_secret,
)
from labdeck.ui.screens.integrations.detail import IntegrationDetailScreen
from labdeck.ui.screens.integrations.list import IntegrationsScreen
from tests.support.pilot import settle
from tests.ui.conftest import SimConsole, shared_sim
from tests.ui.helpers import push, toasts


def plain(cell: Any) -> str:
    return cell.plain if isinstance(cell, Text) else str(cell)


def active_integration(server: SimServer) -> tuple[int, str]:
    """An active integration whose settings hold a secret."""
    return next((pid, slug) for (pid, slug), record in server.state.integrations.items()
                if record.active and slug != "cluster-platform"
                and any(is_secret(name) and value for name, value in record.properties.items()))



def test_form_is_typed_from_the_spec() -> None:
    fields = {field.name: field for field in integration_fields("irc-gateway", {"server_port": 6697})}
    assert fields["recipients"].required
    assert fields["server_port"].kind == "int" and fields["server_port"].value == 6697
    assert fields["colorize_messages"].kind == "bool"
    assert is_secret("token") and is_secret("api_key") and not is_secret("project_key")
    chat = {field.name: field for field in integration_fields("chat-d", None)}
    assert chat["webhook"].kind == "secret" and chat["webhook"].required and chat["push_events"].kind == "bool"
    # a secret is never pre-filled, even when a server returned it; once active, empty = unchanged
    active = {field.name: field for field in integration_fields("chat-d", {"webhook": "https://x"}, active=True)}
    assert active["webhook"].value is None and not active["webhook"].required
    assert "empty = unchanged" in active["webhook"].help
    assert integration_settings("chat-d", {"webhook": "", "channel": "", "push_events": False}) == {"push_events": False}


@shared_sim
async def test_list_every_slug_state_and_detail_masks_secrets(console: SimConsole) -> None:
    pid, slug = active_integration(console.server)
    async with console.run(size=(120, 40)) as (app, pilot):
        screen = await push(app, pilot, IntegrationsScreen(pid, "some/project"))
        rows = {row.key: row for row in screen.table.rows()}
        assert set(rows) == set(INTEGRATIONS)
        assert plain(rows["chat-d"].cells[0]) == "Slack notifications"  # by title
        assert plain(rows[slug].cells[2]) == "active"
        titles = [plain(row.cells[0]).casefold() for row in screen.table.rows()]
        assert titles == sorted(titles)
        await pilot.press("slash", *"mattermost", "enter")  # filter by title …
        assert {row.key for row in screen.table.visible_rows()} == {
            "chat-e", "chat-e-slash-commands"}
        await pilot.press("escape", "slash", *"irc-gat", "enter")  # … or by slug
        assert [row.key for row in screen.table.visible_rows()] == ["irc-gateway"]
        await pilot.press("escape")
        screen.table.move_cursor_to_key(slug)
        await pilot.press("enter")
        await settle(app, pilot)
        detail = app.screen
        assert isinstance(detail, IntegrationDetailScreen)
        values = {str(row.cells[0]).rstrip(" *"): plain(row.cells[1]) for row in detail.table.rows()}
        record = console.server.state.integrations[(pid, slug)]
        secrets = [(name, value) for name, value in record.properties.items() if is_secret(name) and value]
        assert secrets
        for name, value in secrets:
            assert values[name] in (MASK, WRITE_ONLY)
            assert all(str(value) not in shown for shown in values.values())
        app.pop_screen()
        await settle(app, pilot)
        if (pid, "cluster-platform") not in console.server.state.integrations:
            assert plain(rows["cluster-platform"].cells[2]) == "deprecated"
            assert "400" in plain(rows["cluster-platform"].cells[3])
            screen.table.move_cursor_to_key("cluster-platform")
            await pilot.press("enter")
            await settle(app, pilot)
            assert app.screen is screen
            assert any("deprecated" in message for message in toasts(app))



async def test_configure_then_disable(console: SimConsole, no_confirm_guard: None) -> None:
    server = console.server
    pid = next(p.id for p in server.state.projects.values()
               if (p.id, "irc-gateway") not in server.state.integrations)
    async with console.run(size=(120, 40)) as (app, pilot):
        screen = await push(app, pilot, IntegrationsScreen(pid, "some/project"))
        screen.table.move_cursor_to_key("irc-gateway")
        await pilot.press("e")
        await settle(app, pilot)
        form = app.screen
        assert isinstance(form, FormScreen)
        form.action_submit()  # recipients is required
        await settle(app, pilot)
        assert app.screen is form and form.last_error
        form.set_value("recipients", "#ops #alerts")
        form.set_value("server_port", "6697")
        form.set_value("colorize_messages", True)
        form.action_submit()
        await settle(app, pilot)
        assert app.screen is screen
        record = server.state.integrations[(pid, "irc-gateway")]
        assert record.active and record.properties["server_port"] == 6697
        assert record.properties["colorize_messages"] is True
        row = next(row for row in screen.table.rows() if row.key == "irc-gateway")
        assert plain(row.cells[2]) == "active"
        assert screen.entries["irc-gateway"].active
        await pilot.press("X")
        await settle(app, pilot)
        await pilot.click("#confirm")  # the secrets would be lost: nothing happens until the slug is typed
        await settle(app, pilot)
        assert isinstance(app.screen, ConfirmScreen) and server.state.integrations[(pid, "irc-gateway")].active
        await pilot.click("#typed")
        await pilot.press(*"irc-gateway")
        await pilot.click("#confirm")
        await settle(app, pilot)
        record = server.state.integrations.get((pid, "irc-gateway"))
        assert record is None or not record.active
        assert not screen.entries["irc-gateway"].active
        assert plain(next(row for row in screen.table.rows() if row.key == "irc-gateway").cells[2]) == "inactive"


async def test_cluster_platform_save_is_explained(console: SimConsole) -> None:
    server = console.server
    pid = next(p.id for p in server.state.projects.values()
               if (p.id, "cluster-platform") not in server.state.integrations)
    async with console.run(size=(120, 40)) as (app, pilot):
        screen = await push(app, pilot, IntegrationsScreen(pid, "some/project"))
        screen.table.move_cursor_to_key("cluster-platform")
        await pilot.press("e")
        await settle(app, pilot)
        form = app.screen
        assert isinstance(form, FormScreen)
        for name in ("namespace", "api_url", "token"):
            form.set_value(name, "x")
        form.action_submit()
        await settle(app, pilot)
        assert app.screen is form
        assert "deprecated" in form.last_error


def test_an_integration_labdeck_does_not_know_is_listed_by_the_servers_title() -> None:
    from labdeck.api.models import Integration
    from labdeck.api.resources.integrations import INTEGRATIONS as TABLE
    from labdeck.api.resources.integrations import IntegrationInfo
    from labdeck.ui.screens.integrations.list import merge_entries

    catalog = [IntegrationInfo(slug, spec.real_slug, spec.title, spec.kind, spec) for slug, spec in TABLE.items()]
    listed = [Integration(slug="jenkins", title="Jenkins", active=True),
              Integration(slug="slack", title="Slack notifications", active=True)]
    entries = {entry.server_slug: entry for entry in merge_entries(catalog, listed)}
    assert len(entries) == len(TABLE) + 1
    assert entries["jenkins"].title == "Jenkins" and not entries["jenkins"].known and entries["jenkins"].active
    assert entries["slack"].slug == "chat-d" and entries["slack"].active and entries["slack"].known
    assert not entries["mattermost"].active


@shared_sim
async def test_a_server_without_the_list_endpoint_is_read_one_integration_at_a_time(
        console: SimConsole) -> None:
    pid, slug = active_integration(console.server)
    app = console.app()
    app.client.dialects.learn(lists_integrations=False)  # as a 10.x server (no GET …/services)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await push(app, pilot, IntegrationsScreen(pid, "some/project"))
        active = {key for key, entry in screen.entries.items() if entry.active}
        assert slug in active
        integrations = console.server.state.integrations
        assert active == {s for (p, s), record in integrations.items() if p == pid and record.active}
