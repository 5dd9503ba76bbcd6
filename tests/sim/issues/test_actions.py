"""Issue actions over loopback HTTP: move, subscriptions, todo, time tracking, closed_by,
participants and user agent detail."""

from __future__ import annotations

from collections.abc import Callable

import httpx
import pytest

from labdeck.sim.core.state import DEVELOPER, REPORTER
from labdeck.sim.issues.model import Issue, Milestone, project_labels
from labdeck.sim.server import SimServer


@pytest.fixture
def server(sim_factory: Callable[..., SimServer]) -> SimServer:
    return sim_factory()


def _client(server: SimServer, token: str) -> httpx.Client:
    return httpx.Client(base_url=server.api_url, headers={"PRIVATE-TOKEN": token}, timeout=10)


def _issues(server: SimServer) -> list[Issue]:
    return sorted(server.state.issues.values(), key=lambda issue: issue.id)


def _alice(server: SimServer) -> int:
    return next(user.id for user in server.state.users.values() if user.username == "alice")


def _path(issue: Issue, action: str = "") -> str:
    return f"/projects/{issue.project_id}/issues/{issue.iid}" + (f"/{action}" if action else "")


def _move_pair(server: SimServer) -> tuple[Issue, int, Milestone]:
    """An issue with a milestone whose title also exists in another project."""
    milestones = sorted(server.state.milestones.values(), key=lambda m: m.id)
    for issue in _issues(server):
        if issue.milestone_id is None or issue.state != "opened" or not issue.labels:
            continue
        title = server.state.milestones[issue.milestone_id].title
        for other in milestones:
            if other.title == title and other.project_id != issue.project_id:
                return issue, other.project_id, other
    raise AssertionError("the data set has no movable issue")


def test_move_recreates_issue_in_target(server: SimServer, tokens: dict[str, str]) -> None:
    issue, target_id, target_milestone = _move_pair(server)
    shared_label = issue.labels[0]
    project_labels(server.state, target_id)[shared_label] = "#000000"
    foreign = "only-in-source"
    issue.labels.append(foreign)
    project_labels(server.state, target_id).pop(foreign, None)
    with _client(server, tokens["admin"]) as root:
        response = root.post(_path(issue, "move"), data={"to_project_id": str(target_id)})
        assert response.status_code == 201, response.text
        moved = response.json()
        assert moved["project_id"] == target_id and moved["id"] != issue.id
        assert moved["title"] == issue.title
        assert moved["milestone"]["id"] == target_milestone.id
        assert shared_label in moved["labels"] and foreign not in moved["labels"]
        assert moved["_links"]["project"].endswith(f"/projects/{target_id}")
        original = root.get(_path(issue)).json()
        assert original["state"] == "closed" and original["moved_to_id"] == moved["id"]
        again = root.post(_path(issue, "move"), data={"to_project_id": str(target_id)})
        assert again.status_code == 400


def test_move_errors(server: SimServer, tokens: dict[str, str]) -> None:
    issue = _issues(server)[0]
    with _client(server, tokens["admin"]) as root:
        same = root.post(_path(issue, "move"), data={"to_project_id": str(issue.project_id)})
        assert same.status_code == 400
        assert same.json() == {"message": "Cannot move issue to project it originates from!"}
        unknown = root.post(_path(issue, "move"), data={"to_project_id": "999999"})
        assert unknown.status_code == 404 and unknown.json() == {"message": "404 Project Not Found"}
        missing = root.post(_path(issue, "move"))
        assert missing.status_code == 400 and missing.json() == {"error": "to_project_id is missing"}


def test_move_without_permission_in_target(server: SimServer, tokens: dict[str, str]) -> None:
    me = server.state.users[_alice(server)]
    state = server.state
    source = next(i for i in _issues(server)
                  if state.access_level(me, state.projects[i.project_id]) >= DEVELOPER and not i.moved_to_id)
    target = next(p for p in sorted(state.projects.values(), key=lambda p: p.id)
                  if state.can_read(me, p) and state.access_level(me, p) < REPORTER)
    with _client(server, tokens["user"]) as alice:
        response = alice.post(_path(source, "move"), data={"to_project_id": str(target.id)})
        assert response.status_code == 400
        assert response.json() == {"message": "Cannot move issue due to insufficient permissions!"}


def test_subscribe_and_unsubscribe_answer_304_when_unchanged(server: SimServer, tokens: dict[str, str]) -> None:
    me = _alice(server)
    issue = next(i for i in _issues(server) if not i.confidential and me not in i.subscriptions
                 and me != i.author_id and me not in i.assignee_ids and me not in i.commenter_ids
                 and server.state.can_read(server.state.users[me], server.state.projects[i.project_id]))
    with _client(server, tokens["user"]) as alice:
        assert alice.get(_path(issue)).json()["subscribed"] is False
        first = alice.post(_path(issue, "subscribe"))
        assert first.status_code == 201 and first.json()["subscribed"] is True
        assert first.json()["_links"]["self"].endswith(f"/issues/{issue.iid}")
        second = alice.post(_path(issue, "subscribe"))
        assert second.status_code == 304 and second.content == b""
        off = alice.post(_path(issue, "unsubscribe"))
        assert off.status_code == 201 and off.json()["subscribed"] is False
        again = alice.post(_path(issue, "unsubscribe"))
        assert again.status_code == 304 and again.content == b""


def test_todo_is_created_once(server: SimServer, tokens: dict[str, str]) -> None:
    issue = _issues(server)[0]
    with _client(server, tokens["admin"]) as root:
        response = root.post(_path(issue, "todo"))
        assert response.status_code == 201
        todo = response.json()
        assert todo["action_name"] == "marked" and todo["state"] == "pending"
        assert todo["target_type"] == "Issue" and todo["target"]["iid"] == issue.iid
        assert {"upvotes", "downvotes"} <= set(todo["target"])
        assert set(todo["project"]) == {"id", "name", "name_with_namespace", "path", "path_with_namespace"}
        assert todo["target_url"].endswith(f"/issues/{issue.iid}")
        assert todo["author"]["username"] == "root" and todo["body"] == issue.title
        repeat = root.post(_path(issue, "todo"))
        assert repeat.status_code == 304 and repeat.content == b""


def test_time_tracking_round_trip(server: SimServer, tokens: dict[str, str]) -> None:
    issue = _issues(server)[0]
    with _client(server, tokens["admin"]) as root:
        estimate = root.post(_path(issue, "time_estimate"), data={"duration": "3h30m"})
        assert estimate.status_code == 200
        assert estimate.json()["time_estimate"] == 12600
        assert estimate.json()["human_time_estimate"] == "3h 30m"
        root.post(_path(issue, "reset_spent_time"))
        spent = root.post(_path(issue, "add_spent_time"), data={"duration": "1h"})
        assert spent.status_code == 201 and spent.json()["total_time_spent"] == 3600
        less = root.post(_path(issue, "add_spent_time"), data={"duration": "-30m"})
        assert less.json()["total_time_spent"] == 1800 and less.json()["human_total_time_spent"] == "30m"
        too_much = root.post(_path(issue, "add_spent_time"), data={"duration": "-1w"})
        assert too_much.status_code == 400
        assert root.get(_path(issue, "time_stats")).json() == {
            "time_estimate": 12600, "total_time_spent": 1800,
            "human_time_estimate": "3h 30m", "human_total_time_spent": "30m",
        }
        assert root.get(_path(issue)).json()["time_stats"]["total_time_spent"] == 1800
        reset = root.post(_path(issue, "reset_time_estimate"))
        assert reset.status_code == 200 and reset.json()["time_estimate"] == 0
        assert reset.json()["human_time_estimate"] is None
        cleared = root.post(_path(issue, "reset_spent_time"))
        assert cleared.status_code == 200 and cleared.json()["total_time_spent"] == 0


def test_time_tracking_errors(server: SimServer, tokens: dict[str, str]) -> None:
    issue = _issues(server)[0]
    with _client(server, tokens["admin"]) as root:
        missing = root.post(_path(issue, "time_estimate"))
        assert missing.status_code == 400 and missing.json() == {"error": "duration is missing"}
        garbage = root.post(_path(issue, "time_estimate"), data={"duration": "soon"})
        assert garbage.status_code == 400
        assert garbage.json() == {"message": {"time_estimate": ["has an invalid format"]}}
        assert root.post(_path(issue, "add_spent_time"), data={"duration": "lots"}).status_code == 400
        assert root.post(_path(issue, "add_spent_time")).json() == {"error": "duration is missing"}
    me = server.state.users[_alice(server)]
    outsider = next(i for i in _issues(server) if not i.confidential and i.author_id != me.id
                    and me.id not in i.assignee_ids
                    and server.state.can_read(me, server.state.projects[i.project_id])
                    and server.state.access_level(me, server.state.projects[i.project_id]) < REPORTER)
    with _client(server, tokens["user"]) as alice:
        assert alice.post(_path(outsider, "time_estimate"), data={"duration": "1h"}).status_code == 403
        assert alice.get(_path(outsider, "time_stats")).status_code == 200


def test_closed_by_lists_closing_merge_requests(sim: SimServer, tokens: dict[str, str]) -> None:
    mr = next(m for m in sorted(sim.state.merge_requests.values(), key=lambda m: m.id)
              if m.closes_issue_ids and m.state == "merged")
    issue: Issue = sim.state.issues[mr.closes_issue_ids[0]]
    assert issue.state == "closed"
    with _client(sim, tokens["admin"]) as root:
        response = root.get(_path(issue, "closed_by"))
        assert response.status_code == 200 and response.headers["X-Total"]
        items = response.json()
        assert mr.id in [item["id"] for item in items]
        item = next(item for item in items if item["id"] == mr.id)
        for key in ("iid", "project_id", "source_project_id", "target_project_id", "title", "state",
                    "target_branch", "source_branch", "sha", "merge_status", "web_url", "upvotes",
                    "downvotes", "author", "assignee", "labels", "work_in_progress", "milestone",
                    "merge_when_pipeline_succeeds", "time_stats", "closed_at", "closed_by"):
            assert key in item
        assert item["state"] == "merged" and "/merge_requests/" in item["web_url"]
        untouched = next(i for i in sorted(sim.state.issues.values(), key=lambda i: i.id)
                         if not any(i.id in m.closes_issue_ids for m in sim.state.merge_requests.values()))
        assert root.get(_path(untouched, "closed_by")).json() == []


def test_participants_are_user_basics(sim: SimServer, tokens: dict[str, str]) -> None:
    issue = next(i for i in sorted(sim.state.issues.values(), key=lambda i: i.id) if i.assignee_ids)
    with _client(sim, tokens["admin"]) as root:
        people = root.get(_path(issue, "participants")).json()
    assert people[0]["id"] == issue.author_id
    assert set(issue.assignee_ids) <= {person["id"] for person in people}
    assert all(set(person) == {"id", "name", "username", "state", "avatar_url", "web_url"} for person in people)


def test_user_agent_detail_is_admin_only(sim: SimServer, tokens: dict[str, str]) -> None:
    with_detail = next(i for i in sorted(sim.state.issues.values(), key=lambda i: i.id) if i.user_agent)
    without = next(i for i in sorted(sim.state.issues.values(), key=lambda i: i.id) if not i.user_agent)
    with _client(sim, tokens["admin"]) as root:
        detail = root.get(_path(with_detail, "user_agent_detail"))
        assert detail.status_code == 200
        assert with_detail.user_agent is not None
        assert detail.json()["user_agent"] == with_detail.user_agent["user_agent"]
        assert detail.json()["ip_address"] and isinstance(detail.json()["spamcheck_submitted"], bool)
        none = root.get(_path(without, "user_agent_detail"))
        assert none.status_code == 404 and none.json() == {"message": "404 UserAgentDetail Not Found"}
    with _client(sim, tokens["user"]) as alice:
        refused = alice.get(_path(with_detail, "user_agent_detail"))
        assert refused.status_code == 403 and refused.json() == {"message": "403 Forbidden"}
