"""The issue forms: fields, validators, and form values → API arguments."""

from __future__ import annotations

import re
from datetime import date
from typing import Any

from labdeck.api import ApiClient
from labdeck.api.models import Issue, Project
from labdeck.ui.dialogs.form import FormField

_DURATION = re.compile(r"^-?(\d+(mo|[wdhms]))+$")


def check_duration(value: Any) -> str | None:
    """A human duration such as ``3h30m``, ``1w 2d`` or ``45m`` (empty is allowed)."""
    text = str(value or "").replace(" ", "")
    if text and not _DURATION.match(text):
        return "use a duration such as 3h30m, 1d, 2w 3d, 45m"
    return None


def check_day(value: Any) -> str | None:
    """A ``YYYY-MM-DD`` date (empty is allowed)."""
    text = str(value or "").strip()
    if not text:
        return None
    try:
        date.fromisoformat(text)
    except ValueError:
        return "use YYYY-MM-DD"
    return None


def check_timestamp(value: Any) -> str | None:
    """An ISO 8601 timestamp (empty is allowed)."""
    text = str(value or "").strip()
    if text and not re.match(r"^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?)?$", text):
        return "use ISO 8601, e.g. 2026-01-31T12:00:00Z"
    return None


def issue_fields(issue: Issue | None = None, *, ask_project: bool = False) -> list[FormField]:
    """Fields of ``POST`` (no ``issue``) or ``PUT /projects/:id/issues/:iid`` (every spec parameter)."""
    editing = issue is not None
    assignees = ", ".join(a.username or str(a.id) for a in (issue.assignees if issue is not None else []))
    milestone = issue.milestone.id if issue is not None and issue.milestone is not None else None
    fields: list[FormField] = []
    if ask_project:
        fields.append(FormField("project", "Project", required=True, help="path (group/project) or id"))
    fields += [
        FormField("title", "Title", required=True, value=issue.title if issue is not None else ""),
        FormField("description", "Description", kind="multiline", value=(issue.description or "") if issue is not None else ""),
        FormField("confidential", "Confidential", kind="bool", value=bool(issue is not None and issue.confidential)),
        FormField("assignees", "Assignees", value=assignees, help="comma-separated usernames or user ids"),
        FormField("milestone_id", "Milestone id", kind="int", value=milestone,
                  help="empty = none" + (" (clearing unassigns)" if editing else "")),
        FormField("labels", "Labels", value=", ".join(issue.labels) if issue is not None else "",
                  help="comma-separated" + (" (empty removes all)" if editing else "")),
        FormField("due_date", "Due date", value=issue.due_date.isoformat() if issue is not None and issue.due_date else "",
                  help="YYYY-MM-DD", validate=check_day),
    ]
    if issue is not None:
        fields += [
            FormField("discussion_locked", "Discussion locked", kind="bool", value=bool(issue.discussion_locked),
                      help="when on, only project members comment"),
            FormField("state_event", "State", kind="select", value="",
                      options=(("keep", ""), ("close", "close"), ("reopen", "reopen"))),
            FormField("updated_at", "Updated at (override)", help="ISO 8601; admin or owner only",
                      validate=check_timestamp),
        ]
    else:
        fields += [
            FormField("created_at", "Created at (override)", help="ISO 8601; admin or owner only",
                      validate=check_timestamp),
            FormField("merge_request_to_resolve_discussions_of", "Resolve discussions of MR", kind="int",
                      help="merge request IID; fills a default title/description"),
            FormField("discussion_to_resolve", "Discussion id", help="with the merge request above"),
        ]
    return fields


async def resolve_assignees(client: ApiClient, project: int | str, text: str) -> list[int]:
    """``"alice, 7"`` → user ids (usernames looked up among the project's users)."""
    ids: list[int] = []
    for word in (part.strip().lstrip("@") for part in text.split(",")):
        if not word:
            continue
        if word.isdigit():
            ids.append(int(word))
            continue
        users = await client.projects.users(project, search=word).all()
        match = next((u for u in users if (u.username or "").lower() == word.lower()), None)
        if match is None:
            raise ValueError(f"assignees: no user {word!r} in this project")
        ids.append(match.id)
    return ids


async def resolve_project(client: ApiClient, reference: str) -> Project:
    """A project by id or path (raises the client's NotFound)."""
    reference = reference.strip()
    return await client.projects.get(int(reference) if reference.isdigit() else reference)


async def issue_arguments(client: Any, project: Any, values: dict[str, Any], *, editing: bool) -> dict[str, Any]:
    """Form values → keyword arguments of ``client.issues.create``/``update``."""
    arguments = {name: value for name, value in values.items() if name not in ("assignees", "project")}
    if "assignees" in values:
        arguments["assignee_ids"] = await resolve_assignees(client, project, str(values["assignees"] or ""))
    if "labels" in arguments:
        arguments["labels"] = ",".join(p.strip() for p in str(arguments["labels"]).split(",") if p.strip())
    for name in ("due_date", "created_at", "updated_at", "discussion_to_resolve", "state_event"):
        if name in arguments and arguments[name] in ("", None):
            if editing and name == "due_date" and "due_date" in values:
                arguments[name] = ""  # clearing the field clears the due date
            else:
                arguments.pop(name)
    if editing and "milestone_id" in arguments and arguments["milestone_id"] is None:
        arguments["milestone_id"] = 0  # the spec's way to unassign the milestone
    if not editing:
        arguments = {k: v for k, v in arguments.items() if v not in (None, "") or k == "title"}
    return arguments
