"""Hooks, group badges, protected branches, export/import, integrations, notification settings."""

from __future__ import annotations

import tarfile
from pathlib import Path

import pytest

from labdeck.api import ApiClient, errors
from labdeck.api.models import NOTIFICATION_EVENTS, ExportStatusValue
from labdeck.api.resources.integrations import INTEGRATIONS, missing_required

PROJECT = "platform/api-gateway"


async def test_hooks_crud(private_admin: ApiClient) -> None:
    client = private_admin
    hook = await client.hooks.create(PROJECT, "https://hooks.example/in", push_events=True, job_events=True,
                                     enable_ssl_verification=True, token="s3cret")
    assert hook.url == "https://hooks.example/in" and hook.job_events is True
    assert "s3cret" not in hook.model_dump_json()
    assert (await client.hooks.get(PROJECT, hook.id)).id == hook.id
    updated = await client.hooks.update(PROJECT, hook.id, url="https://hooks.example/v2", pipeline_events=True)
    assert updated.url == "https://hooks.example/v2"
    assert hook.id in {h.id for h in await client.hooks.list(PROJECT).all()}
    await client.hooks.delete(PROJECT, hook.id)
    with pytest.raises(errors.NotFound):
        await client.hooks.get(PROJECT, hook.id)


async def test_group_badges_crud_and_render(private_admin: ApiClient) -> None:
    client = private_admin
    badge = await client.badges.create("platform", "https://ci.example/%{project_path}",
                                       "https://ci.example/%{project_id}/badge.svg")
    assert badge.kind == "group" and badge.rendered_link_url and "%{" not in badge.rendered_link_url
    assert (await client.badges.get("platform", badge.id)).id == badge.id
    changed = await client.badges.update("platform", badge.id, link_url="https://other.example/%{default_branch}")
    assert changed.link_url == "https://other.example/%{default_branch}"
    preview = await client.badges.render("platform", "https://x/%{project_id}", "https://x/%{commit_sha}.svg")
    assert preview.rendered_link_url and "%{" not in preview.rendered_link_url
    assert badge.id in {b.id for b in await client.badges.list("platform").all()}
    await client.badges.delete("platform", badge.id)
    with pytest.raises(errors.NotFound):
        await client.badges.get("platform", badge.id)


async def test_protected_branches(private_admin: ApiClient) -> None:
    client = private_admin
    branch = await client.protected_branches.protect(PROJECT, "release/*", push_access_level=30,
                                                     merge_access_level=40)
    assert branch.name == "release/*"
    assert [a.access_level for a in branch.push_access_levels] == [30]
    with pytest.raises(errors.Conflict):
        await client.protected_branches.protect(PROJECT, "release/*")
    assert (await client.protected_branches.get(PROJECT, "release/*")).name == "release/*"
    assert "release/*" in {b.name for b in await client.protected_branches.list(PROJECT).all()}
    await client.protected_branches.unprotect(PROJECT, "release/*")
    with pytest.raises(errors.NotFound):
        await client.protected_branches.get(PROJECT, "release/*")


async def test_export_download_and_import(private_admin: ApiClient, tmp_path: Path) -> None:
    client = private_admin
    state = client.server.state  # type: ignore[attr-defined]
    accepted = await client.exports.export(PROJECT, description="exported by a test")
    assert accepted is None or "202" in str(accepted.message)
    status = await client.exports.export_status(PROJECT)
    for _ in range(10):
        if status.export_status == ExportStatusValue.FINISHED:
            break
        state.clock.advance(5)
        status = await client.exports.export_status(PROJECT)
    assert status.export_status == ExportStatusValue.FINISHED and status.links
    progress: list[int] = []
    archive = await client.exports.download(PROJECT, tmp_path, progress=lambda done, total: progress.append(done))
    assert archive.name.endswith("export.tar.gz") and tarfile.is_tarfile(archive) and progress
    imported = await client.exports.import_project(archive, "imported-copy", namespace="platform",
                                                   override_params={"description": "copy"})
    assert imported.import_status == "scheduled"
    state.clock.advance(10)
    final = await client.exports.import_status(imported.id)
    assert final.import_status == "finished"
    with pytest.raises(errors.NotFound):
        await client.exports.download(imported.id, tmp_path / "none.tar.gz")


async def test_integrations(private_admin: ApiClient) -> None:
    client = private_admin
    blank = await client.integrations.get(PROJECT, "chat-d")
    assert blank.active is False
    settings = {"webhook": "https://chat.example/hook", "channel": "#ci", "notify_only_broken_pipelines": True}
    assert missing_required("chat-d", settings) == []
    assert missing_required("push-notifier", {}) == ["api_key", "user_key", "priority"]
    assert len(INTEGRATIONS) == 29
    await client.integrations.update(PROJECT, "chat-d", settings)
    configured = await client.integrations.get(PROJECT, "chat-d")
    assert configured.active is True and configured.properties
    assert "webhook" not in repr(configured)
    with pytest.raises(errors.ValidationError):
        await client.integrations.update(PROJECT, "pipelines-email", {})
    await client.integrations.delete(PROJECT, "chat-d")
    assert (await client.integrations.get(PROJECT, "chat-d")).active is False


async def test_notification_settings(private_admin: ApiClient) -> None:
    client = private_admin
    global_settings = await client.notifications.global_settings()
    assert global_settings.level and global_settings.notification_email
    changed = await client.notifications.update_global(level="watch")
    assert changed.level == "watch"
    custom = await client.notifications.update_project(PROJECT, level="custom",
                                                       events={"failed_pipeline": True, "new_note": False})
    assert custom.level == "custom" and custom.events is not None and custom.events.get("failed_pipeline") is True
    assert set(custom.events) <= set(NOTIFICATION_EVENTS)
    assert (await client.notifications.project_settings(PROJECT)).level == "custom"
    group = await client.notifications.update_group("platform", level="participating")
    assert group.level == "participating"
    assert (await client.notifications.group_settings("platform")).level == "participating"
    with pytest.raises(ValueError):
        await client.notifications.update_group("platform", events={"not_an_event": True})
