"""The issue actions shared by the issue list and the issue detail (create, edit, close/reopen,
lock, subscribe, todo, time tracking, move, delete), and how an issue's project is named."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from labdeck.api import ApiClient, errors
from labdeck.api.models import Issue, Project
from labdeck.audit.context import AuditTarget, audit_context
from labdeck.ui.console import ConsoleApp
from labdeck.ui.dialogs.confirm import ConfirmScreen
from labdeck.ui.dialogs.form import FormField, FormScreen
from labdeck.ui.dialogs.message import MessageScreen
from labdeck.ui.dialogs.suggest import SuggestingFormScreen
from labdeck.ui.screens.base import SectionScreen
from labdeck.ui.screens.issues.form import (
    check_duration,
    issue_arguments,
    issue_fields,
    resolve_project,
)
from labdeck.ui.widgets.cells import clean


def issue_project_path(app: ConsoleApp, issue: Issue) -> str:
    """The issue's project path: from the projects the console knows, else from its web URL."""
    known = app.known_projects
    if issue.project_id in known:
        return clean(known[issue.project_id])
    url = issue.web_url or ""
    for marker in ("/-/issues/", "/issues/"):
        if marker in url:
            head = url.split(marker)[0]
            base = app.session.base_url or ""
            if base and head.startswith(base.rstrip("/")):
                return clean(head[len(base.rstrip("/")):].strip("/"))
            parts = head.split("/")
            return clean("/".join(parts[3:]) if len(parts) > 3 else head)
    return f"project {issue.project_id}"


def issue_reference(app: ConsoleApp, issue: Issue) -> str:
    """``group/project#9``: how dialogs name an issue (an iid alone is ambiguous across projects)."""
    return f"{issue_project_path(app, issue)}#{issue.iid}"


def issue_project_id(issue: Issue) -> int:
    """The project of an issue (servers always send it; a record without it cannot be acted on)."""
    if issue.project_id is None:
        raise errors.UnexpectedResponse(f"the server sent issue #{issue.iid} without its project id")
    return issue.project_id


def _target(screen: SectionScreen, issue: Issue) -> AuditTarget:
    """The audit target of an issue action (the project by path when the console knows it)."""
    known = screen.console_app.known_projects.get(issue.project_id or -1)
    return AuditTarget(project=known or issue.project_id, issue=issue.iid)


class IssueActions:
    """Issue actions for a :class:`SectionScreen`; ``after(issue_or_None)`` refreshes the caller."""

    def _client(self, screen: SectionScreen) -> ApiClient:
        return screen.client

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

    def issue_edit(self, screen: SectionScreen, issue: Issue, after: Callable[[Issue | None], None]) -> None:
        """The edit form (only the changed fields are sent)."""
        client = self._client(screen)

        async def save(values: dict[str, Any]) -> Any:
            pid = issue_project_id(issue)
            return await client.issues.update(pid, issue.iid, **await issue_arguments(client, pid, values,
                                                                                      editing=True))

        def done(result: Any) -> None:
            if result is not None:
                screen.notify(f"Issue #{issue.iid} saved.", timeout=3)
                after(result)

        screen.app.push_screen(FormScreen(f"Edit issue #{issue.iid}", issue_fields(issue), save, only_changed=True,
                                          target=issue_reference(screen.console_app, issue)), done)

    def issue_close_reopen(self, screen: SectionScreen, issue: Issue, after: Callable[[Issue | None], None]) -> None:
        """Close an open issue (confirmed) or reopen a closed one."""
        client = self._client(screen)
        closing = issue.state != "closed"

        async def send() -> None:
            with audit_context(target=_target(screen, issue), confirmation="dialog" if closing else "none"):
                result = await (client.issues.close if closing else client.issues.reopen)(issue_project_id(issue),
                                                                                          issue.iid)
            screen.notify(f"Issue #{issue.iid} {'closed' if closing else 'reopened'}.", timeout=4)
            after(result)

        if not closing:
            screen.run_api(send, "state")
            return

        def confirmed(answer: bool | None) -> None:
            if answer:
                screen.run_api(send, "state")

        screen.app.push_screen(ConfirmScreen("Close issue", f"Close issue #{issue.iid}?\n{clean(issue.title)}",
                                             action_label="Close issue", target=issue_reference(screen.console_app, issue),
                                             danger=False), confirmed)

    def issue_lock(self, screen: SectionScreen, issue: Issue, after: Callable[[Issue | None], None]) -> None:
        """Lock the discussion (members only) or unlock it."""
        client = self._client(screen)
        lock = not issue.discussion_locked

        async def send() -> None:
            result = await client.issues.update(issue_project_id(issue), issue.iid, discussion_locked=lock)
            screen.notify(f"Discussion of #{issue.iid} {'locked' if lock else 'unlocked'}.", timeout=3)
            after(result)

        screen.run_api(send, "lock")

    def issue_subscribe(self, screen: SectionScreen, issue: Issue, after: Callable[[Issue | None], None]) -> None:
        """Subscribe, or unsubscribe when subscribed (304 → "already …" toast)."""
        client = self._client(screen)
        unsubscribe = bool(issue.subscribed)

        async def send() -> None:
            call = client.issues.unsubscribe if unsubscribe else client.issues.subscribe
            result = await call(issue_project_id(issue), issue.iid)
            if not result.changed:
                screen.notify(f"#{issue.iid}: already {'unsubscribed' if unsubscribe else 'subscribed'}.", timeout=3)
            else:
                screen.notify(f"#{issue.iid}: {'unsubscribed' if unsubscribe else 'subscribed'}.", timeout=3)
            after(result.value)

        screen.run_api(send, "subscribe")

    def issue_todo(self, screen: SectionScreen, issue: Issue) -> None:
        """Add the issue to the caller's todo list (304 → "already on your todo list")."""
        client = self._client(screen)

        async def send() -> None:
            result = await client.issues.todo(issue_project_id(issue), issue.iid)
            screen.notify(f"#{issue.iid}: " + ("added to your todo list." if result.changed
                                                else "already on your todo list."), timeout=3)

        screen.run_api(send, "todo")

    def issue_time(self, screen: SectionScreen, issue: Issue, after: Callable[[Issue | None], None]) -> None:
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
            pid, iid = issue_project_id(issue), issue.iid
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

        screen.app.push_screen(FormScreen(f"Time tracking · #{issue.iid}", fields, save,
                                          target=issue_reference(screen.console_app, issue),
                                          submit_label="Apply"), done)

    def issue_move(self, screen: SectionScreen, issue: Issue, after: Callable[[Issue | None], None]) -> None:
        """Move to another project: ask for it, confirm, move (a 400 is shown in a dialog)."""
        client = self._client(screen)

        async def pick(values: dict[str, Any]) -> Any:
            return await resolve_project(client, str(values["project"]))

        def picked(project: Project | None) -> None:
            if project is None:
                return
            path = clean(project.path_with_namespace or str(project.id))

            async def send() -> None:
                try:
                    with audit_context(target=_target(screen, issue), confirmation="dialog"):
                        moved = await client.issues.move(issue_project_id(issue), issue.iid, project.id)
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
                action_label="Move", target=issue_reference(screen.console_app, issue)), confirmed)

        known = sorted(set(screen.console_app.known_projects.values()))
        screen.app.push_screen(SuggestingFormScreen(f"Move issue #{issue.iid}", [
            FormField("project", "Target project", required=True,
                      help="path (completes from the projects listed; → accepts) or id")], pick,
            target=issue_reference(screen.console_app, issue), submit_label="Next",
            suggestions={"project": known}), picked)

    def issue_delete(self, screen: SectionScreen, issue: Issue, after: Callable[[Issue | None], None]) -> None:
        """Delete (admin or owner) after typing the issue iid."""
        client = self._client(screen)

        def confirmed(answer: bool | None) -> None:
            if answer:
                async def send() -> None:
                    with audit_context(target=_target(screen, issue), confirmation=f"typed:{issue.iid}"):
                        await client.issues.delete(issue_project_id(issue), issue.iid)
                    screen.notify(f"Issue #{issue.iid} deleted.", timeout=5)
                    after(None)

                screen.run_api(send, "delete")

        screen.app.push_screen(ConfirmScreen("Delete issue", f"Delete issue #{issue.iid}?\n{clean(issue.title)}",
                                             action_label="Delete", target=issue_reference(screen.console_app, issue),
                                             typed=str(issue.iid), also_accept=(f"#{issue.iid}",)), confirmed)
