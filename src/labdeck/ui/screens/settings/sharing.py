"""Sharing a project with a group (by path, completed from what the console has listed, or by id)
and stopping it.

The API takes a group *id*; people know groups by path. With no groups endpoint in the client, a
path is resolved through the projects the console listed: a project directly in the group gives
the group's id (its ``namespace``), a project in a subgroup gives it as the subgroup's parent.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from labdeck.api import ApiClient, errors
from labdeck.audit.context import AuditTarget, audit_context
from labdeck.ui.dialogs.confirm import ConfirmScreen
from labdeck.ui.dialogs.form import FormField, FormScreen
from labdeck.ui.dialogs.suggest import SuggestingFormScreen, group_paths
from labdeck.ui.screens.settings.list_section import ListSection
from labdeck.ui.widgets.cells import clean

GROUP_ACCESS = (("guest (10)", 10), ("reporter (20)", 20), ("developer (30)", 30), ("maintainer (40)", 40))
_LOOKUPS = 3
"""Projects read at most to find one group's id."""


async def resolve_group(client: ApiClient, reference: str, known_paths: Iterable[str]) -> tuple[int, str]:
    """``platform`` (a group path) or ``12`` (an id) → ``(id, path or "group #12")``.

    Raises ValueError (shown in the form) when the path is not a group the console can place."""
    text = reference.strip().strip("/")
    if not text:
        raise ValueError("Give a group path or id.")
    if text.isdigit():
        return int(text), f"group #{text}"
    paths = sorted(set(known_paths))
    direct = [path for path in paths if path.rpartition("/")[0] == text][:_LOOKUPS]
    nested = [path for path in paths if path.startswith(text + "/") and path.count("/") == text.count("/") + 2]
    for path in direct + nested[:_LOOKUPS]:
        try:
            namespace = (await client.projects.get(path)).namespace
        except errors.NotFound:
            continue  # gone since it was listed
        if namespace is None:
            continue
        full_path = namespace.full_path or namespace.path or ""
        if full_path == text and namespace.id is not None:
            if namespace.kind == "user":
                raise ValueError(f"{text} is a user's personal namespace, not a group.")
            return namespace.id, text
        if full_path.rpartition("/")[0] == text and namespace.parent_id is not None:
            return namespace.parent_id, text
    raise ValueError(f"No group {text!r} among the projects listed so far: give the group's id, or list one "
                     "of its projects first (projects section, :projects search=…).")


class SharingActions(ListSection):
    """Share / unshare for the project settings menu (``project_id``, ``project_path``, ``project``)."""

    project_id: int
    project_path: str
    project: Any

    def action_share(self) -> None:
        """Share the project with a group (path or id) at an access level."""
        if self.refuse_if_read_only():
            return
        known = list(self.console_app.known_projects.values())
        fields = [FormField("group", "Group", required=True, help="path (completes from the projects listed; "
                            "→ accepts) or id"),
                  FormField("group_access", "Access level", kind="select", required=True, value=30,
                            options=GROUP_ACCESS),
                  FormField("expires_at", "Expires at", help="YYYY-MM-DD; empty = never")]

        async def save(values: dict[str, Any]) -> Any:
            client = self.client
            group_id, group_path = await resolve_group(client, str(values["group"]), known)
            with audit_context(target=AuditTarget(project=self.project_path, group=group_path),
                                      confirmation="form"):
                await client.projects.share(self.project_id, group_id, values["group_access"],
                                            expires_at=values.get("expires_at") or None)
            return group_path

        def done(group_path: Any) -> None:
            if group_path is not None:
                self.notify(f"{self.project_path} shared with {clean(group_path)}.", timeout=4)
                self.reload()

        self.app.push_screen(SuggestingFormScreen("Share with a group", fields, save, target=self.project_path,
                                                  submit_label="Share", suggestions={"group": group_paths(known)}),
                             done)

    def action_unshare(self) -> None:
        """Stop sharing with one of the groups (confirmed)."""
        if self.project is None or self.refuse_if_read_only():
            return
        groups = self.project.shared_with_groups
        if not groups:
            self.notify("The project is not shared with any group.", timeout=4)
            return
        options = [(f"{g.group_name or g.group_id} (#{g.group_id})", g.group_id) for g in groups]
        names = {g.group_id: clean(g.group_name or f"#{g.group_id}") for g in groups}

        def picked(values: Any) -> None:
            if not values:
                return
            group_id = int(values["group_id"])

            async def send() -> None:
                client = self.client
                with audit_context(target=AuditTarget(project=self.project_path, group=group_id),
                                          confirmation="dialog"):
                    await client.projects.unshare(self.project_id, group_id)

            self.confirm_and_send(ConfirmScreen("Stop sharing", f"Remove {names[group_id]}'s access (group "
                                                f"#{group_id}) to {self.project_path}?", action_label="Unshare",
                                                target=self.project_path),
                                  send, f"No longer shared with {names[group_id]}.", "unshare")

        self.app.push_screen(FormScreen("Stop sharing with a group", [
            FormField("group_id", "Group", kind="select", required=True, options=options)],
            target=self.project_path, submit_label="Next"), picked)
