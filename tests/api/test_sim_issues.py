"""Issues family against the simulator."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from labdeck.api import ApiClient, errors
from labdeck.api.models import IssueState

PROJECT = "platform/api-gateway"


async def test_issue_lists_and_filters(admin: ApiClient) -> None:
    mine = await admin.issues.list().all()
    everything = await admin.issues.list(scope="all").all()
    assert len(everything) >= len(mine) and everything
    opened = await admin.issues.list(scope="all", state="opened").all()
    assert opened and all(i.state == IssueState.OPENED for i in opened)
    labelled = next(i for i in everything if i.labels)
    with_label = await admin.issues.list(scope="all", labels=[labelled.labels[0]]).all()
    assert with_label and all(labelled.labels[0] in i.labels for i in with_label)
    project_issues = await admin.issues.project_issues(PROJECT, order_by="updated_at", sort="asc").all()
    assert project_issues
    stamps = [i.updated_at for i in project_issues if i.updated_at]
    assert stamps == sorted(stamps) and all(s.tzinfo for s in stamps)
    picked = await admin.issues.project_issues(PROJECT, iids=[project_issues[0].iid]).all()
    assert [i.iid for i in picked] == [project_issues[0].iid]
    recent = await admin.issues.project_issues(PROJECT, created_after=datetime(2000, 1, 1, tzinfo=UTC)).all()
    assert len(recent) == len(project_issues)
    group = await admin.issues.group_issues("platform", per_page=5).all()
    assert group


async def test_issue_lifecycle(private_admin: ApiClient, user: ApiClient) -> None:
    client = private_admin
    me = await client.users.current()
    created = await client.issues.create(PROJECT, "Client test issue", description="body", labels=["bug", "ui"],
                                         assignee_ids=[me.id], due_date="2030-01-31", confidential=False)
    assert created.title == "Client test issue" and sorted(created.labels) == ["bug", "ui"]
    assert created.due_date is not None and created.due_date.isoformat() == "2030-01-31"
    fetched = await client.issues.get(PROJECT, created.iid)
    assert fetched.id == created.id and fetched.links is not None

    closed = await client.issues.close(PROJECT, created.iid)
    assert closed.state == "closed" and closed.closed_at is not None
    reopened = await client.issues.reopen(PROJECT, created.iid)
    assert reopened.state == "opened"
    unassigned = await client.issues.update(PROJECT, created.iid, assignee_ids=[], title="Renamed")
    assert unassigned.assignees == [] and unassigned.title == "Renamed"

    first = await client.issues.subscribe(PROJECT, created.iid)
    second = await client.issues.subscribe(PROJECT, created.iid)
    assert (first.changed, second.changed) in ((True, False), (False, False))
    assert second.status == 304
    assert (await client.issues.unsubscribe(PROJECT, created.iid)).changed
    assert (await client.issues.unsubscribe(PROJECT, created.iid)).changed is False

    todo = await client.issues.todo(PROJECT, created.iid)
    assert todo.changed and todo.value is not None and todo.value.state == "pending"
    assert (await client.issues.todo(PROJECT, created.iid)).changed is False

    estimate = await client.issues.time_estimate(PROJECT, created.iid, "3h30m")
    assert estimate.time_estimate == 3 * 3600 + 30 * 60
    spent = await client.issues.add_spent_time(PROJECT, created.iid, "1h")
    assert spent.total_time_spent == 3600
    assert (await client.issues.time_stats(PROJECT, created.iid)).total_time_spent == 3600
    assert (await client.issues.reset_spent_time(PROJECT, created.iid)).total_time_spent == 0
    assert (await client.issues.reset_time_estimate(PROJECT, created.iid)).time_estimate == 0
    with pytest.raises(errors.ValidationError):
        await client.issues.time_estimate(PROJECT, created.iid, "not a duration")

    participants = await client.issues.participants(PROJECT, created.iid).all()
    assert me.id in {p.id for p in participants}
    await client.issues.closed_by(PROJECT, created.iid).all()
    try:
        detail = await client.issues.user_agent_detail(PROJECT, created.iid)
        assert detail.user_agent is not None
    except errors.NotFound:
        pass

    with pytest.raises(errors.ValidationError):
        await client.issues.move(PROJECT, created.iid, fetched.project_id or 0)
    target = next(p for p in await client.projects.list().all() if p.id != fetched.project_id)
    moved = await client.issues.move(PROJECT, created.iid, target.id)
    assert moved.project_id == target.id

    other = await client.issues.create(PROJECT, "to delete")
    await client.issues.delete(PROJECT, other.iid)
    with pytest.raises(errors.NotFound):
        await client.issues.get(PROJECT, other.iid)


async def test_issue_validation_and_permissions(admin: ApiClient, sim: object, tokens: dict[str, str]) -> None:
    from tests.api.conftest import client_for

    with pytest.raises(errors.ValidationError) as caught:
        await admin.issues.create(PROJECT, "")
    assert caught.value.user_message()
    async with client_for(sim, None) as anonymous:
        with pytest.raises(errors.Unauthorized):
            await anonymous.issues.list().all()
