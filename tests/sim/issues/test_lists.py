"""Issue lists over loopback HTTP: scopes, every filter of spec 001, ordering, paging, visibility.

These tests only read, so they share the session simulator.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from labdeck.sim.core.clock import iso
from labdeck.sim.core.state import REPORTER
from labdeck.sim.issues.model import Issue
from labdeck.sim.server import SimServer


@pytest.fixture
def alice(sim: SimServer, tokens: dict[str, str]) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=sim.api_url, headers={"PRIVATE-TOKEN": tokens["user"]}, timeout=10) as client:
        yield client


@pytest.fixture
def root(sim: SimServer, tokens: dict[str, str]) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=sim.api_url, headers={"PRIVATE-TOKEN": tokens["admin"]}, timeout=10) as client:
        yield client


def _all(client: httpx.Client, path: str, **params: Any) -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = []
    page = 1
    while True:
        response = client.get(path, params={**params, "per_page": 100, "page": page})
        assert response.status_code == 200, response.text
        items += response.json()
        if not response.headers["X-Next-Page"]:
            return items
        page += 1


def _alice_id(sim: SimServer) -> int:
    return next(user.id for user in sim.state.users.values() if user.username == "alice")


def _busiest_project(sim: SimServer) -> int:
    counts: dict[int, int] = {}
    for issue in sim.state.issues.values():
        project = sim.state.projects[issue.project_id]
        if project.visibility == "public":
            counts[issue.project_id] = counts.get(issue.project_id, 0) + 1
    return max(counts, key=lambda pid: counts[pid])


def test_every_issue_list_needs_a_token(sim: SimServer) -> None:
    for path in ("/issues", "/projects/1/issues", "/groups/1/issues", "/projects/1/issues/1"):
        response = httpx.get(sim.api_url + path)
        assert response.status_code == 401
        assert response.json() == {"message": "401 Unauthorized"}


def test_global_list_defaults_to_issues_created_by_the_caller(sim: SimServer, alice: httpx.Client) -> None:
    mine = _all(alice, "/issues")
    assert mine and {issue["author"]["username"] for issue in mine} == {"alice"}
    everything = _all(alice, "/issues", scope="all")
    assert len(everything) > len(mine)
    assigned = _all(alice, "/issues", scope="assigned-to-me")
    assert assigned and all("alice" in [a["username"] for a in issue["assignees"]] for issue in assigned)
    # author_id combines with scope all
    bob = next(user.id for user in sim.state.users.values() if user.username == "bob")
    by_bob = _all(alice, "/issues", scope="all", author_id=bob)
    assert by_bob and {issue["author"]["id"] for issue in by_bob} == {bob}


def test_unknown_scope_state_or_order_is_rejected(alice: httpx.Client) -> None:
    for name, value in (("scope", "everything"), ("state", "merged"), ("order_by", "title"), ("sort", "up")):
        response = alice.get("/issues", params={name: value})
        assert response.status_code == 400
        assert response.json() == {"error": f"{name} does not have a valid value"}


def test_project_list_defaults_to_all_states_and_twenty_per_page(sim: SimServer, root: httpx.Client) -> None:
    busiest = max(
        {issue.project_id for issue in sim.state.issues.values()},
        key=lambda pid: sum(1 for issue in sim.state.issues.values() if issue.project_id == pid),
    )
    total = sum(1 for issue in sim.state.issues.values() if issue.project_id == busiest and not issue.deleted)
    response = root.get(f"/projects/{busiest}/issues")
    assert response.status_code == 200
    assert len(response.json()) == min(20, total)
    assert response.headers["X-Per-Page"] == "20"
    assert response.headers["X-Total"] == str(total)
    everything = _all(root, f"/projects/{busiest}/issues")
    assert {issue["state"] for issue in everything} == {"opened", "closed"}
    opened = _all(root, f"/projects/{busiest}/issues", state="opened")
    closed = _all(root, f"/projects/{busiest}/issues", state="closed")
    assert {i["state"] for i in opened} == {"opened"} and {i["state"] for i in closed} == {"closed"}
    assert len(opened) + len(closed) == total


def test_default_order_is_newest_created_first_and_sort_flips_it(root: httpx.Client, sim: SimServer) -> None:
    pid = _busiest_project(sim)
    default = _all(root, f"/projects/{pid}/issues")
    created = [issue["created_at"] for issue in default]
    assert created == sorted(created, reverse=True)
    ascending = _all(root, f"/projects/{pid}/issues", order_by="updated_at", sort="asc")
    updated = [issue["updated_at"] for issue in ascending]
    assert updated == sorted(updated)


def test_label_filter_needs_every_label_and_no_label_finds_unlabelled(root: httpx.Client, sim: SimServer) -> None:
    def has_unlabelled(project_id: int) -> bool:
        return any(i.project_id == project_id and not i.labels for i in sim.state.issues.values())

    pair = next(
        issue for issue in sorted(sim.state.issues.values(), key=lambda i: i.id)
        if len(issue.labels) >= 2 and has_unlabelled(issue.project_id)
    )
    labels = sorted(pair.labels)[:2]
    found = _all(root, f"/projects/{pair.project_id}/issues", labels=",".join(labels))
    assert pair.iid in [issue["iid"] for issue in found]
    assert all(set(labels) <= set(issue["labels"]) for issue in found)
    unlabelled = root.get(f"/projects/{pair.project_id}/issues?labels=No+Label&per_page=100").json()
    assert unlabelled and all(issue["labels"] == [] for issue in unlabelled)
    expected = sum(
        1 for issue in sim.state.issues.values() if issue.project_id == pair.project_id and not issue.labels
    )
    assert len(unlabelled) == expected


def test_milestone_author_assignee_and_iids_filters(root: httpx.Client, sim: SimServer) -> None:
    issue = next(
        issue for issue in sorted(sim.state.issues.values(), key=lambda i: i.id)
        if issue.milestone_id and issue.assignee_ids
    )
    title = sim.state.milestones[issue.milestone_id].title
    path = f"/projects/{issue.project_id}/issues"
    by_milestone = _all(root, path, milestone=title)
    assert issue.iid in [i["iid"] for i in by_milestone]
    assert {i["milestone"]["title"] for i in by_milestone} == {title}
    by_author = _all(root, path, author_id=issue.author_id)
    assert by_author and {i["author"]["id"] for i in by_author} == {issue.author_id}
    assignee = issue.assignee_ids[0]
    by_assignee = _all(root, path, assignee_id=assignee)
    assert by_assignee and all(assignee in [a["id"] for a in i["assignees"]] for i in by_assignee)
    response = root.get(path, params={"iids[]": [issue.iid, 999999]})
    assert [i["iid"] for i in response.json()] == [issue.iid]


def test_my_reaction_emoji_filter(alice: httpx.Client, sim: SimServer) -> None:
    me = _alice_id(sim)
    reacted = _all(alice, "/issues", scope="all", my_reaction_emoji="thumbsup")
    expected = {
        issue.id for issue in sim.state.issues.values() if "thumbsup" in issue.award_emoji.get(me, set())
    }
    assert reacted
    assert {issue["id"] for issue in reacted} <= expected


def test_search_matches_title_and_description(root: httpx.Client, sim: SimServer) -> None:
    issue = next(i for i in sorted(sim.state.issues.values(), key=lambda i: i.id) if i.description)
    in_title = _all(root, f"/projects/{issue.project_id}/issues", search=issue.title.split()[-1].upper())
    assert issue.iid in [i["iid"] for i in in_title]
    assert issue.description is not None
    word = issue.description.split()[-1].rstrip(".")
    in_description = _all(root, f"/projects/{issue.project_id}/issues", search=word)
    assert issue.iid in [i["iid"] for i in in_description]
    assert _all(root, f"/projects/{issue.project_id}/issues", search="zzz-no-such-text") == []


def test_date_bounds_are_inclusive(root: httpx.Client, sim: SimServer) -> None:
    issue: Issue = next(iter(sorted(sim.state.issues.values(), key=lambda i: i.id)))
    path = f"/projects/{issue.project_id}/issues"
    stamp = iso(issue.created_at)
    exact = _all(root, path, created_after=stamp, created_before=stamp)
    assert issue.iid in [i["iid"] for i in exact]
    assert all(i["created_at"] == stamp for i in exact)
    updated = iso(issue.updated_at)
    later = _all(root, path, updated_after=updated)
    assert all(i["updated_at"] >= updated for i in later) and issue.iid in [i["iid"] for i in later]
    earlier = _all(root, path, updated_before=updated)
    assert all(i["updated_at"] <= updated for i in earlier) and issue.iid in [i["iid"] for i in earlier]
    assert root.get(path, params={"created_after": "yesterday"}).status_code == 400


def test_confidential_issues_are_hidden_from_guests_and_outsiders(
    alice: httpx.Client, root: httpx.Client, sim: SimServer
) -> None:
    me = next(user for user in sim.state.users.values() if user.username == "alice")
    hidden = next(
        issue for issue in sorted(sim.state.issues.values(), key=lambda i: i.id)
        if issue.confidential
        and sim.state.can_read(me, sim.state.projects[issue.project_id])
        and sim.state.access_level(me, sim.state.projects[issue.project_id]) < REPORTER
        and issue.author_id != me.id and me.id not in issue.assignee_ids
    )
    path = f"/projects/{hidden.project_id}/issues"
    assert hidden.iid not in [i["iid"] for i in _all(alice, path)]
    assert hidden.iid in [i["iid"] for i in _all(root, path)]
    response = alice.get(f"{path}/{hidden.iid}")
    assert response.status_code == 404
    assert response.json() == {"message": "404 Not found"}
    assert root.get(f"{path}/{hidden.iid}").json()["confidential"] is True


def test_group_list_covers_the_group_and_its_subgroups(root: httpx.Client, sim: SimServer) -> None:
    platform = next(group for group in sim.state.groups.values() if group.path == "platform")
    infra = next(group for group in sim.state.groups.values() if group.path == "infra")
    items = _all(root, f"/groups/{platform.id}/issues")
    namespaces = {sim.state.projects[i["project_id"]].namespace_id for i in items}
    assert namespaces == {platform.id, infra.id}
    assert root.get("/groups/999999/issues").json() == {"message": "404 Group Not Found"}


def test_single_issue_shape(root: httpx.Client, sim: SimServer) -> None:
    issue = next(i for i in sorted(sim.state.issues.values(), key=lambda i: i.id) if i.time_estimate)
    response = root.get(f"/projects/{issue.project_id}/issues/{issue.iid}")
    assert response.status_code == 200
    body = response.json()
    for key in ("id", "iid", "project_id", "title", "description", "state", "created_at", "updated_at",
                "closed_at", "closed_by", "labels", "milestone", "assignees", "author", "assignee",
                "user_notes_count", "upvotes", "downvotes", "due_date", "confidential", "discussion_locked",
                "web_url", "time_stats", "subscribed", "_links"):
        assert key in body
    assert body["_links"]["self"].endswith(f"/api/v4/projects/{issue.project_id}/issues/{issue.iid}")
    assert body["_links"]["notes"].endswith(f"/issues/{issue.iid}/notes")
    assert body["time_stats"]["time_estimate"] == issue.time_estimate
    assert body["time_stats"]["human_time_estimate"]
    assert set(body["author"]) == {"id", "name", "username", "state", "avatar_url", "web_url"}
    listed = root.get(f"/projects/{issue.project_id}/issues", params={"iids[]": issue.iid}).json()[0]
    assert "_links" not in listed and "subscribed" not in listed
    missing = root.get(f"/projects/{issue.project_id}/issues/999999")
    assert missing.status_code == 404 and missing.json() == {"message": "404 Not found"}


def test_private_project_issues_are_a_missing_project(alice: httpx.Client, sim: SimServer) -> None:
    me = next(user for user in sim.state.users.values() if user.username == "alice")
    hidden = next(
        project for project in sim.state.projects.values() if not sim.state.can_read(me, project)
    )
    response = alice.get(f"/projects/{hidden.id}/issues")
    assert response.status_code == 404
    assert response.json() == {"message": "404 Project Not Found"}


def test_closed_issues_carry_closer_and_time(root: httpx.Client, sim: SimServer) -> None:
    issue = next(
        i for i in sorted(sim.state.issues.values(), key=lambda i: i.id) if i.state == "closed" and i.closed_by_id
    )
    body = root.get(f"/projects/{issue.project_id}/issues/{issue.iid}").json()
    assert body["closed_by"]["id"] == issue.closed_by_id
    assert body["closed_at"] is not None
