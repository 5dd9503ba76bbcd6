"""Notification settings over loopback HTTP: global, group and project, per user."""

from __future__ import annotations

from collections.abc import Callable

import httpx
import pytest

from labdeck.sim.issues.notification_settings import EMAIL_EVENTS
from labdeck.sim.server import SimServer


@pytest.fixture
def server(sim_factory: Callable[..., SimServer]) -> SimServer:
    return sim_factory()


def _client(server: SimServer, token: str) -> httpx.Client:
    return httpx.Client(base_url=server.api_url, headers={"PRIVATE-TOKEN": token}, timeout=10)


def test_global_settings_round_trip(server: SimServer, tokens: dict[str, str]) -> None:
    with _client(server, tokens["user"]) as alice:
        current = alice.get("/notification_settings")
        assert current.status_code == 200
        assert set(current.json()) >= {"level", "notification_email"}
        assert current.json()["notification_email"] == "alice@labdeck.example"
        watch = alice.put("/notification_settings", data={"level": "watch"})
        assert watch.status_code == 200
        assert watch.json() == {"level": "watch", "notification_email": "alice@labdeck.example"}
        assert alice.get("/notification_settings").json()["level"] == "watch"
        custom = alice.put("/notification_settings", data={"level": "custom", "new_note": "true",
                                                            "failed_pipeline": "true", "success_pipeline": "false"})
        events = custom.json()["events"]
        assert set(events) == set(EMAIL_EVENTS) and len(events) == 13
        assert events["new_note"] is True and events["failed_pipeline"] is True
        assert events["success_pipeline"] is False
    with _client(server, tokens["admin"]) as root:
        assert root.get("/notification_settings").json()["notification_email"] == "root@labdeck.example"


def test_global_settings_errors(server: SimServer, tokens: dict[str, str]) -> None:
    with _client(server, tokens["user"]) as alice:
        before = alice.get("/notification_settings").json()
        level = alice.put("/notification_settings", data={"level": "loud"})
        assert level.status_code == 400 and level.json() == {"error": "level does not have a valid value"}
        flag = alice.put("/notification_settings", data={"new_note": "perhaps"})
        assert flag.status_code == 400 and flag.json() == {"error": "new_note is invalid"}
        email = alice.put("/notification_settings", data={"notification_email": "someone@else.example"})
        assert email.status_code == 400
        assert email.json() == {"message": {"notification_email": ["is not an email you own"]}}
        assert alice.get("/notification_settings").json() == before
    assert httpx.get(f"{server.api_url}/notification_settings").status_code == 401


def test_group_and_project_settings(server: SimServer, tokens: dict[str, str]) -> None:
    group = next(g for g in server.state.groups.values() if g.path == "web")
    project = next(p for p in server.state.projects.values() if p.path == "storefront")
    with _client(server, tokens["user"]) as alice:
        for path in (f"/groups/{group.id}/notification_settings", f"/projects/{project.id}/notification_settings",
                     "/groups/web/notification_settings", "/projects/web%2Fstorefront/notification_settings"):
            got = alice.get(path)
            assert got.status_code == 200 and got.json()["level"] in (
                "disabled", "participating", "watch", "global", "mention", "custom")
        for path in (f"/groups/{group.id}/notification_settings", f"/projects/{project.id}/notification_settings"):
            mention = alice.put(path, data={"level": "mention"})
            assert mention.status_code == 200 and mention.json() == {"level": "mention"}
            assert alice.get(path).json() == {"level": "mention"}
            custom = alice.put(path, json={"level": "custom", "close_issue": True}).json()
            assert custom["level"] == "custom" and custom["events"]["close_issue"] is True
            assert set(custom["events"]) == set(EMAIL_EVENTS)
            bad = alice.put(path, data={"level": "everything"})
            assert bad.status_code == 400 and bad.json() == {"error": "level does not have a valid value"}
    with _client(server, tokens["admin"]) as root:
        # Settings are per user: root never chose one for this group, so still sees the default.
        root_id = next(u.id for u in server.state.users.values() if u.username == "root")
        assert ("group", group.id, root_id) not in server.state.notification_settings
        assert root.get(f"/groups/{group.id}/notification_settings").json() == {"level": "global"}
        assert root.get("/groups/999999/notification_settings").json() == {"message": "404 Group Not Found"}
        assert root.get("/projects/999999/notification_settings").json() == {"message": "404 Project Not Found"}
