"""Creating, editing and deleting issues over loopback HTTP (private simulators: these mutate)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import httpx
import pytest

from labdeck.sim.core.state import DEVELOPER, OWNER, REPORTER, Project
from labdeck.sim.server import SimServer


@pytest.fixture
def server(sim_factory: Callable[..., SimServer]) -> SimServer:
    return sim_factory()


def _client(server: SimServer, token: str) -> httpx.Client:
    return httpx.Client(base_url=server.api_url, headers={"PRIVATE-TOKEN": token}, timeout=10)


def _user_id(server: SimServer, username: str) -> int:
    return next(user.id for user in server.state.users.values() if user.username == username)


def _project_where(server: SimServer, username: str, predicate: Callable[[int], bool]) -> Project:
    """The first project (by id) where the user's access level satisfies ``predicate``."""
    user = server.state.users[_user_id(server, username)]
    return next(
        project for project in sorted(server.state.projects.values(), key=lambda p: p.id)
        if server.state.can_read(user, project) and predicate(server.state.access_level(user, project))
        and project.settings.get("issues_enabled", True)
    )


def _milestone(server: SimServer, project_id: int) -> Any:
    return next(m for m in server.state.milestones.values() if m.project_id == project_id)


def test_create_minimal_and_full_issue(server: SimServer, tokens: dict[str, str]) -> None:
    project = _project_where(server, "alice", lambda level: level >= OWNER)
    bob = _user_id(server, "bob")
    server.state.projects[project.id].members.setdefault(bob, DEVELOPER)
    milestone = _milestone(server, project.id)
    with _client(server, tokens["user"]) as alice:
        minimal = alice.post(f"/projects/{project.id}/issues", data={"title": "Printer on fire"})
        assert minimal.status_code == 201
        body = minimal.json()
        assert body["title"] == "Printer on fire" and body["state"] == "opened"
        assert body["author"]["username"] == "alice" and body["confidential"] is False
        assert body["subscribed"] is True and body["_links"]["self"].endswith(f"/issues/{body['iid']}")
        full = alice.post(
            f"/projects/{project.id}/issues",
            data={
                "title": "Release checklist",
                "description": "All the steps",
                "confidential": "true",
                "assignee_ids[]": [str(bob)],
                "milestone_id": str(milestone.id),
                "labels": "release,checklist",
                "due_date": "2026-12-24",
                "created_at": "2026-01-02T03:04:05Z",
            },
        )
        assert full.status_code == 201, full.text
        issue = full.json()
        assert issue["iid"] == body["iid"] + 1
        assert issue["description"] == "All the steps" and issue["confidential"] is True
        assert [a["id"] for a in issue["assignees"]] == [bob] and issue["assignee"]["id"] == bob
        assert issue["milestone"]["title"] == milestone.title
        assert issue["labels"] == ["checklist", "release"]
        assert issue["due_date"] == "2026-12-24"
        assert issue["created_at"] == "2026-01-02T03:04:05.000Z"  # alice owns the project
        fetched = alice.get(f"/projects/{project.id}/issues/{issue['iid']}").json()
        assert fetched["title"] == "Release checklist"


def test_create_validation_errors(server: SimServer, tokens: dict[str, str]) -> None:
    project = _project_where(server, "alice", lambda level: level >= DEVELOPER)
    with _client(server, tokens["user"]) as alice:
        response = alice.post(f"/projects/{project.id}/issues", data={"description": "no title"})
        assert response.status_code == 400 and response.json() == {"error": "title is missing"}
        blank = alice.post(f"/projects/{project.id}/issues", data={"title": "  "})
        assert blank.status_code == 400 and blank.json() == {"message": {"title": ["can't be blank"]}}
        bad_date = alice.post(f"/projects/{project.id}/issues", data={"title": "x", "due_date": "24/12/2026"})
        assert bad_date.status_code == 400 and bad_date.json() == {"error": "due_date is invalid"}
    with _client(server, tokens["readonly"]) as viewer:
        assert viewer.post(f"/projects/{project.id}/issues", data={"title": "x"}).status_code == 403
    assert httpx.post(f"{server.api_url}/projects/{project.id}/issues", data={"title": "x"}).status_code == 401


def test_created_at_override_needs_owner_or_admin(server: SimServer, tokens: dict[str, str]) -> None:
    project = _project_where(server, "alice", lambda level: DEVELOPER <= level < OWNER)
    with _client(server, tokens["user"]) as alice:
        issue = alice.post(
            f"/projects/{project.id}/issues", data={"title": "x", "created_at": "2020-01-01T00:00:00Z"}
        ).json()
        assert not issue["created_at"].startswith("2020")
    with _client(server, tokens["admin"]) as root:
        issue = root.post(
            f"/projects/{project.id}/issues", json={"title": "x", "created_at": "2020-01-01T00:00:00Z"}
        ).json()
        assert issue["created_at"] == "2020-01-01T00:00:00.000Z"


def test_follow_up_issue_from_a_merge_request(server: SimServer, tokens: dict[str, str]) -> None:
    mr = next(iter(sorted(server.state.merge_requests.values(), key=lambda m: m.id)))
    with _client(server, tokens["admin"]) as root:
        path = f"/projects/{mr.project_id}/issues"
        filled = root.post(path, data={"merge_request_to_resolve_discussions_of": str(mr.iid)})
        assert filled.status_code == 201
        assert filled.json()["title"] == f'Follow-up from "{mr.title}"'
        assert f"!{mr.iid}" in filled.json()["description"]
        explicit = root.post(
            path, data={"merge_request_to_resolve_discussions_of": str(mr.iid), "title": "Mine", "description": "D"}
        ).json()
        assert (explicit["title"], explicit["description"]) == ("Mine", "D")
        unknown = root.post(path, data={"merge_request_to_resolve_discussions_of": "99999"})
        assert unknown.status_code == 404


def test_edit_fields_and_unassign(server: SimServer, tokens: dict[str, str]) -> None:
    project = _project_where(server, "alice", lambda level: level >= OWNER)
    milestone = _milestone(server, project.id)
    me = _user_id(server, "alice")
    with _client(server, tokens["user"]) as alice:
        path = f"/projects/{project.id}/issues"
        iid = alice.post(path, data={"title": "Edit me", "labels": "a,b", "assignee_ids": str(me),
                                     "milestone_id": str(milestone.id)}).json()["iid"]
        edited = alice.put(f"{path}/{iid}", data={"title": "Edited", "description": "new", "confidential": "true",
                                                   "due_date": "2027-01-31", "discussion_locked": "true"})
        assert edited.status_code == 200
        body = edited.json()
        assert (body["title"], body["description"], body["confidential"]) == ("Edited", "new", True)
        assert body["due_date"] == "2027-01-31" and body["discussion_locked"] is True
        assert body["labels"] == ["a", "b"] and body["assignees"] and body["milestone"]
        cleared = alice.put(f"{path}/{iid}", data={"assignee_ids": "0", "milestone_id": "0", "labels": ""}).json()
        assert cleared["assignees"] == [] and cleared["assignee"] is None
        assert cleared["milestone"] is None and cleared["labels"] == []
        alice.put(f"{path}/{iid}", json={"assignee_ids": [me]})
        emptied = alice.put(f"{path}/{iid}", json={"assignee_ids": []}).json()
        assert emptied["assignees"] == []


def test_close_and_reopen(server: SimServer, tokens: dict[str, str]) -> None:
    project = _project_where(server, "alice", lambda level: level >= DEVELOPER)
    server.state.clock.advance(60)
    with _client(server, tokens["user"]) as alice:
        path = f"/projects/{project.id}/issues"
        iid = alice.post(path, data={"title": "Close me"}).json()["iid"]
        server.state.clock.advance(120)
        closed = alice.put(f"{path}/{iid}", data={"state_event": "close"}).json()
        assert closed["state"] == "closed"
        assert closed["closed_by"]["username"] == "alice"
        assert closed["closed_at"] == closed["updated_at"]
        reopened = alice.put(f"{path}/{iid}", data={"state_event": "reopen"}).json()
        assert reopened["state"] == "opened" and reopened["closed_at"] is None and reopened["closed_by"] is None
        bad = alice.put(f"{path}/{iid}", data={"state_event": "merge"})
        assert bad.status_code == 400 and bad.json() == {"error": "state_event does not have a valid value"}
        nothing = alice.put(f"{path}/{iid}", data={})
        assert nothing.status_code == 400
        assert "at least one parameter must be provided" in nothing.json()["error"]


def test_updated_at_override_needs_owner(server: SimServer, tokens: dict[str, str]) -> None:
    owned = _project_where(server, "alice", lambda level: level >= OWNER)
    developer = _project_where(server, "alice", lambda level: DEVELOPER <= level < OWNER)
    with _client(server, tokens["user"]) as alice:
        for project, honoured in ((owned, True), (developer, False)):
            iid = alice.post(f"/projects/{project.id}/issues", data={"title": "t"}).json()["iid"]
            body = alice.put(f"/projects/{project.id}/issues/{iid}",
                             data={"title": "u", "updated_at": "2021-05-06T07:08:09Z"}).json()
            assert (body["updated_at"] == "2021-05-06T07:08:09.000Z") is honoured


def test_edit_by_outsider_is_forbidden(server: SimServer, tokens: dict[str, str]) -> None:
    me = server.state.users[_user_id(server, "alice")]
    issue = next(
        issue for issue in sorted(server.state.issues.values(), key=lambda i: i.id)
        if not issue.confidential and issue.author_id != me.id and me.id not in issue.assignee_ids
        and server.state.can_read(me, server.state.projects[issue.project_id])
        and server.state.access_level(me, server.state.projects[issue.project_id]) < REPORTER
    )
    with _client(server, tokens["user"]) as alice:
        response = alice.put(f"/projects/{issue.project_id}/issues/{issue.iid}", data={"title": "mine now"})
        assert response.status_code == 403 and response.json() == {"message": "403 Forbidden"}


def test_delete_needs_owner_or_admin(server: SimServer, tokens: dict[str, str]) -> None:
    developer = _project_where(server, "alice", lambda level: DEVELOPER <= level < OWNER)
    owned = _project_where(server, "alice", lambda level: level >= OWNER)
    with _client(server, tokens["user"]) as alice:
        iid = alice.post(f"/projects/{developer.id}/issues", data={"title": "keep"}).json()["iid"]
        refused = alice.delete(f"/projects/{developer.id}/issues/{iid}")
        assert refused.status_code == 403
        own_iid = alice.post(f"/projects/{owned.id}/issues", data={"title": "drop"}).json()["iid"]
        deleted = alice.delete(f"/projects/{owned.id}/issues/{own_iid}")
        assert deleted.status_code == 204 and deleted.content == b""
        assert alice.get(f"/projects/{owned.id}/issues/{own_iid}").status_code == 404
        assert own_iid not in [i["iid"] for i in alice.get(f"/projects/{owned.id}/issues").json()]
    with _client(server, tokens["admin"]) as root:
        assert root.delete(f"/projects/{developer.id}/issues/{iid}").status_code == 204


def test_projects_with_issues_disabled_refuse_new_issues(server: SimServer, tokens: dict[str, str]) -> None:
    disabled = next(p for p in sorted(server.state.projects.values(), key=lambda p: p.id)
                    if not p.settings.get("issues_enabled", True))
    with _client(server, tokens["admin"]) as root:
        response = root.post(f"/projects/{disabled.id}/issues", data={"title": "nope"})
        assert response.status_code == 403
        assert root.get(f"/projects/{disabled.id}/issues").json() == []
