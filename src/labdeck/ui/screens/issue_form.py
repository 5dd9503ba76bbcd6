"""Issue create/edit forms and the issue actions shared by the issue list and the issue detail
(close/reopen, lock, subscribe, todo, time tracking, move, delete)."""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import date
from typing import Any

from labdeck.api import errors
from labdeck.ui.screens.base import SectionScreen
from labdeck.ui.screens.confirm import ConfirmScreen
from labdeck.ui.screens.message import MessageScreen
from labdeck.ui.widgets.form import FormField, FormScreen, clean

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


def issue_fields(issue: Any = None, *, ask_project: bool = False) -> list[FormField]:
    """Fields of ``POST`` (no ``issue``) or ``PUT /projects/:id/issues/:iid`` (every spec parameter)."""
    editing = issue is not None
    assignees = ", ".join(a.username or str(a.id) for a in (issue.assignees if editing else []))
    milestone = issue.milestone.id if editing and issue.milestone is not None else None
    fields: list[FormField] = []
    if ask_project:
        fields.append(FormField("project", "Project", required=True, help="path (group/project) or id"))
    fields += [
        FormField("title", "Title", required=True, value=issue.title if editing else ""),
        FormField("description", "Description", kind="multiline", value=(issue.description or "") if editing else ""),
        FormField("confidential", "Confidential", kind="bool", value=bool(editing and issue.confidential)),
        FormField("assignees", "Assignees", value=assignees, help="comma-separated usernames or user ids"),
        FormField("milestone_id", "Milestone id", kind="int", value=milestone,
                  help="empty = none" + (" (clearing unassigns)" if editing else "")),
        FormField("labels", "Labels", value=", ".join(issue.labels) if editing else "",
                  help="comma-separated" + (" (empty removes all)" if editing else "")),
        FormField("due_date", "Due date", value=issue.due_date.isoformat() if editing and issue.due_date else "",
                  help="YYYY-MM-DD", validate=check_day),
    ]
    if editing:
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


async def resolve_assignees(client: Any, project: Any, text: str) -> list[int]:
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


async def resolve_project(client: Any, reference: str) -> Any:
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


class IssueActions:
    """Issue actions for a :class:`SectionScreen`; ``after(issue_or_None)`` refreshes the caller."""

    def _client(self, screen: SectionScreen) -> Any:
        return screen.app.client  # type: ignore[attr-defined]

    def issue_create(self, screen: SectionScreen, project_id: int | None, project_path: str | None,
                     after: Callable[[Any], None]) -> None:
        """The new-issue form (asks for the project when there is none)."""
        client = self._client(screen)

        async def save(values: dict[str, Any]) -> Any:
            project: Any = project_id
            if project is None:
                project = (await resolve_project(client, str(values["project"]))).id
            arguments = await issue_arguments(client, project, values, editing=False)
            title = arguments.pop("title")
            return await client.issues.create(project, title, **arguments)

        def done(issue: Any) -> None:
            if issue is not None:
                screen.notify(f"Issue #{issue.iid} created.", timeout=4)
                after(issue)

        screen.app.push_screen(FormScreen("New issue", issue_fields(ask_project=project_id is None), save,
                                          target=project_path, submit_label="Create"), done)

    def issue_edit(self, screen: SectionScreen, issue: Any, after: Callable[[Any], None]) -> None:
        """The edit form (only the changed fields are sent)."""
        client = self._client(screen)
        pid = issue.project_id

        async def save(values: dict[str, Any]) -> Any:
            return await client.issues.update(pid, issue.iid, **await issue_arguments(client, pid, values,
                                                                                      editing=True))

        def done(result: Any) -> None:
            if result is not None:
                screen.notify(f"Issue #{issue.iid} saved.", timeout=3)
                after(result)

        screen.app.push_screen(FormScreen(f"Edit issue #{issue.iid}", issue_fields(issue), save, only_changed=True,
                                          target=issue.title), done)

    def issue_close_reopen(self, screen: SectionScreen, issue: Any, after: Callable[[Any], None]) -> None:
        """Close an open issue (confirmed) or reopen a closed one."""
        client = self._client(screen)
        closing = issue.state != "closed"

        async def send() -> None:
            result = await (client.issues.close if closing else client.issues.reopen)(issue.project_id, issue.iid)
            screen.notify(f"Issue #{issue.iid} {'closed' if closing else 'reopened'}.", timeout=4)
            after(result)

        if not closing:
            screen.run_api(send, "state")
            return

        def confirmed(answer: bool | None) -> None:
            if answer:
                screen.run_api(send, "state")

        screen.app.push_screen(ConfirmScreen("Close issue", f"Close issue #{issue.iid}?\n{clean(issue.title)}",
                                             action_label="Close issue", target=f"issue #{issue.iid}",
                                             danger=False), confirmed)

    def issue_lock(self, screen: SectionScreen, issue: Any, after: Callable[[Any], None]) -> None:
        """Lock the discussion (members only) or unlock it."""
        client = self._client(screen)
        lock = not issue.discussion_locked

        async def send() -> None:
            result = await client.issues.update(issue.project_id, issue.iid, discussion_locked=lock)
            screen.notify(f"Discussion of #{issue.iid} {'locked' if lock else 'unlocked'}.", timeout=3)
            after(result)

        screen.run_api(send, "lock")

    def issue_subscribe(self, screen: SectionScreen, issue: Any, after: Callable[[Any], None]) -> None:
        """Subscribe, or unsubscribe when subscribed (304 → "already …" toast)."""
        client = self._client(screen)
        unsubscribe = bool(issue.subscribed)

        async def send() -> None:
            call = client.issues.unsubscribe if unsubscribe else client.issues.subscribe
            result = await call(issue.project_id, issue.iid)
            if not result.changed:
                screen.notify(f"#{issue.iid}: already {'unsubscribed' if unsubscribe else 'subscribed'}.", timeout=3)
            else:
                screen.notify(f"#{issue.iid}: {'unsubscribed' if unsubscribe else 'subscribed'}.", timeout=3)
            after(result.value)

        screen.run_api(send, "subscribe")

    def issue_todo(self, screen: SectionScreen, issue: Any) -> None:
        """Add the issue to the caller's todo list (304 → "already on your todo list")."""
        client = self._client(screen)

        async def send() -> None:
            result = await client.issues.todo(issue.project_id, issue.iid)
            screen.notify(f"#{issue.iid}: " + ("added to your todo list." if result.changed
                                                else "already on your todo list."), timeout=3)

        screen.run_api(send, "todo")

    def issue_time(self, screen: SectionScreen, issue: Any, after: Callable[[Any], None]) -> None:
        """Time tracking: set the estimate, add spent time, reset either (human durations)."""
        client = self._client(screen)
        stats = issue.time_stats
        estimate = (stats.human_time_estimate or "—") if stats else "—"
        spent = (stats.human_total_time_spent or "—") if stats else "—"
        fields = [
            FormField("estimate", "Set estimate", help=f"now {estimate}; e.g. 3h30m", validate=check_duration),
            FormField("spent", "Add spent time", help=f"spent so far {spent}; e.g. 45m (-30m subtracts)",
                      validate=check_duration),
            FormField("reset_estimate", "Reset estimate to 0", kind="bool"),
            FormField("reset_spent", "Reset spent time to 0", kind="bool"),
        ]

        async def save(values: dict[str, Any]) -> Any:
            pid, iid = issue.project_id, issue.iid
            result = None
            if values.get("reset_estimate"):
                result = await client.issues.reset_time_estimate(pid, iid)
            if values.get("estimate"):
                result = await client.issues.time_estimate(pid, iid, str(values["estimate"]).replace(" ", ""))
            if values.get("reset_spent"):
                result = await client.issues.reset_spent_time(pid, iid)
            if values.get("spent"):
                result = await client.issues.add_spent_time(pid, iid, str(values["spent"]).replace(" ", ""))
            if result is None:
                raise ValueError("Nothing to do: fill a duration or switch a reset on.")
            return result

        def done(result: Any) -> None:
            if result is not None:
                screen.notify(f"#{issue.iid}: estimate {result.human_time_estimate or '0'}, "
                              f"spent {result.human_total_time_spent or '0'}.", timeout=4, markup=False)
                after(None)

        screen.app.push_screen(FormScreen(f"Time tracking · #{issue.iid}", fields, save, target=issue.title,
                                          submit_label="Apply"), done)

    def issue_move(self, screen: SectionScreen, issue: Any, after: Callable[[Any], None]) -> None:
        """Move to another project: ask for it, confirm, move (a 400 is shown in a dialog)."""
        client = self._client(screen)

        async def pick(values: dict[str, Any]) -> Any:
            return await resolve_project(client, str(values["project"]))

        def picked(project: Any) -> None:
            if project is None:
                return
            path = clean(project.path_with_namespace or str(project.id))

            async def send() -> None:
                try:
                    moved = await client.issues.move(issue.project_id, issue.iid, project.id)
                except errors.ValidationError as error:
                    screen.app.push_screen(MessageScreen("Issue not moved", clean(error.message)))
                    return
                screen.notify(f"Moved to {path} as #{moved.iid}.", timeout=6, markup=False)
                after(moved)

            def confirmed(answer: bool | None) -> None:
                if answer:
                    screen.run_api(send, "move")

            screen.app.push_screen(ConfirmScreen(
                "Move issue", f"Move issue #{issue.iid} to {path}?\nIt is closed here and re-created there.",
                action_label="Move", target=f"issue #{issue.iid}"), confirmed)

        screen.app.push_screen(FormScreen(f"Move issue #{issue.iid}", [
            FormField("project", "Target project", required=True, help="path (group/project) or id")], pick,
            target=issue.title, submit_label="Next"), picked)

    def issue_delete(self, screen: SectionScreen, issue: Any, after: Callable[[Any], None]) -> None:
        """Delete (admin or owner) after typing the issue iid."""
        client = self._client(screen)

        def confirmed(answer: bool | None) -> None:
            if answer:
                async def send() -> None:
                    await client.issues.delete(issue.project_id, issue.iid)
                    screen.notify(f"Issue #{issue.iid} deleted.", timeout=5)
                    after(None)

                screen.run_api(send, "delete")

        screen.app.push_screen(ConfirmScreen("Delete issue", f"Delete issue #{issue.iid}?\n{clean(issue.title)}",
                                             action_label="Delete", target=f"issue #{issue.iid}",
                                             typed=str(issue.iid), also_accept=(f"#{issue.iid}",)), confirmed)
