"""Projects family against the simulator over loopback HTTP."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from labdeck.api import ApiClient, errors
from labdeck.api.models import Project
from tests.api.conftest import client_for


async def test_current_user_and_version(admin: ApiClient, user: ApiClient) -> None:
    me = await admin.users.current()
    alice = await user.users.current()
    assert me.username == "root" and me.is_admin is True
    assert alice.username == "alice" and not alice.is_admin
    assert (await admin.version()).version


async def test_bad_token_is_unauthorized(sim: Any) -> None:
    async with client_for(sim, "not-a-token") as client:
        with pytest.raises(errors.Unauthorized):
            await client.users.current()


async def test_list_all_projects_concurrently_matches_sequential(admin: ApiClient) -> None:
    fast = await admin.projects.list(per_page=7, order_by="id", sort="asc").all()
    slow_paginator = admin.projects.list(per_page=7, order_by="id", sort="asc", concurrency=1)
    slow = await slow_paginator.all()
    assert [p.id for p in fast] == [p.id for p in slow]
    assert len({p.id for p in fast}) == len(fast) > 7
    assert all(isinstance(p, Project) and p.created_at is not None and p.created_at.tzinfo for p in fast)


async def test_filters_reach_the_server(admin: ApiClient, user: ApiClient) -> None:
    everything = await admin.projects.list().all()
    owned = await user.projects.list(owned=True).all()
    member = await user.projects.list(membership=True).all()
    assert owned and {p.id for p in owned} <= {p.id for p in member}
    assert len(owned) < len(everything)
    private = await admin.projects.list(visibility="private").all()
    assert private and all(p.visibility == "private" for p in private)
    target = everything[0]
    found = await admin.projects.list(search=target.name or "", simple=True).all()
    assert target.id in {p.id for p in found}


async def test_anonymous_listing_sees_only_public(sim: Any) -> None:
    async with client_for(sim, None) as client:
        projects = await client.projects.list().all()
    assert projects and all(p.visibility in (None, "public") for p in projects)


async def test_get_by_path_and_statistics(admin: ApiClient) -> None:
    first = (await admin.projects.list(per_page=1).first_page())[0]
    assert first.path_with_namespace
    by_path = await admin.projects.get(first.path_with_namespace, statistics=True)
    assert by_path.id == first.id
    assert by_path.statistics is not None and by_path.statistics.commit_count is not None
    with pytest.raises(errors.NotFound):
        await admin.projects.get("no/such-project")


async def test_users_forks_and_user_projects(admin: ApiClient) -> None:
    project = (await admin.projects.list(per_page=1).first_page())[0]
    members = await admin.projects.users(project.id).all()
    assert members and all(m.username for m in members)
    await admin.projects.forks(project.id).all()
    alice_projects = await admin.projects.user_projects("alice").all()
    assert alice_projects


async def test_project_lifecycle(private_admin: ApiClient, tmp_path: Path) -> None:
    client = private_admin
    created = await client.projects.create(name="Lifecycle Demo", description="made by a test",
                                           visibility="private", tag_list=["a", "b"], merge_method="ff")
    assert created.name == "Lifecycle Demo" and created.visibility == "private"
    updated = await client.projects.update(created.id, name="Lifecycle Demo", description="changed")
    assert updated.description == "changed"

    starred = await client.projects.star(created.id)
    again = await client.projects.star(created.id)
    assert starred.changed and starred.value is not None and starred.value.star_count == 1
    assert again.changed is False and again.status == 304
    assert (await client.projects.unstar(created.id)).changed
    assert (await client.projects.unstar(created.id)).changed is False

    assert (await client.projects.archive(created.id)).archived is True
    assert (await client.projects.archive(created.id)).archived is True
    assert (await client.projects.unarchive(created.id)).archived is False

    file = tmp_path / "notes.md"
    file.write_text("# hi")
    upload = await client.projects.upload(created.id, file)
    assert upload.markdown and "notes.md" in upload.markdown

    deleted = await client.projects.delete(created.id)
    assert deleted is None or "202" in str(deleted.message)
    with pytest.raises(errors.NotFound):
        await client.projects.get(created.id)


async def test_create_validation_error_has_fields(private_admin: ApiClient) -> None:
    first = await private_admin.projects.create(name="dup-name")
    with pytest.raises(errors.ValidationError) as caught:
        await private_admin.projects.create(name="dup-name")
    assert caught.value.fields
    assert first.id


async def test_create_for_user_fork_and_share(private_admin: ApiClient, user: ApiClient) -> None:
    client = private_admin
    alice = await user.users.current()
    owned = await client.projects.create_for_user(alice.id, name="for-alice")
    assert owned.id
    source = (await client.projects.list(per_page=1).first_page())[0]
    fork = await client.projects.fork(source.id, "root")
    assert fork.id != source.id
    groups = [p.namespace for p in await client.projects.list().all() if p.namespace and p.namespace.kind == "group"]
    group_id = groups[0].id
    assert group_id is not None
    link = await client.projects.share(owned.id, group_id, 30, expires_at="2030-01-01")
    assert link is None or link.group_id == group_id
    await client.projects.unshare(owned.id, group_id)
