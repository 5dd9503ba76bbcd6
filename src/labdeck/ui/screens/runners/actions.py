"""What the runner list and the runner detail both offer: the status word and its colour, the
runner's type, and the edit, pause/resume and delete actions.

Pause and resume go to the client as ``paused=``: it sends ``paused`` to servers that speak it
(GitLab 14.8+) and ``active`` to the others."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from rich.text import Text
from textual.app import App

from labdeck.api.models import Runner, RunnerDetail
from labdeck.audit.context import AuditTarget, audit_context
from labdeck.ui.dialogs.confirm import ConfirmScreen
from labdeck.ui.dialogs.form import FormField, FormScreen
from labdeck.ui.screens.base import SectionScreen
from labdeck.ui.widgets.cells import clean, coloured

STATUS_COLOURS: dict[str, tuple[str, ...]] = {
    "online": ("job-success", "success"),
    "paused": ("job-pending", "warning"),
    "offline": ("job-failed", "error"),
    "not_connected": ("text-muted",),
    "never_contacted": ("text-muted",),
    "stale": ("job-failed", "error"),
}
_TYPES = {"instance_type": "instance", "group_type": "group", "project_type": "project"}

def runner_status(runner: Runner) -> str:
    """The runner's status word (``paused`` when paused, even if the server says online)."""
    status = runner.status or ""
    if runner.paused and status in ("", "online"):
        return "paused"
    return status or ("online" if runner.online else "offline")


def runner_kind(runner: Runner) -> str:
    """``instance``/``group``/``project`` from ``runner_type`` (12.x+), else ``shared``/``specific``."""
    if runner.runner_type:
        return _TYPES.get(runner.runner_type, clean(runner.runner_type))
    return "shared" if runner.is_shared else "specific"


def runner_label(runner: Runner) -> str:
    """``runner #5 (docker-builder)`` for dialogs."""
    return clean(f"runner #{runner.id} ({runner.description or 'no description'})")


def status_text(app: App[Any], runner: Runner) -> Text:
    """The status cell, coloured through the theme."""
    status = runner_status(runner)
    return coloured(app, status, *STATUS_COLOURS.get(status, ()), bold=status in ("offline", "paused"))


def runner_edit_fields(runner: RunnerDetail) -> list[FormField]:
    """The editable settings of ``PUT /runners/:id``, filled from the runner detail."""
    return [
        FormField("description", "Description", value=runner.description or ""),
        FormField("paused", "Paused (takes no new jobs)", kind="bool", value=bool(runner.paused)),
        FormField("tag_list", "Tags", value=", ".join(runner.tag_list),
                  help="comma-separated; the full list the runner ends up with"),
        FormField("run_untagged", "Run untagged jobs", kind="bool", value=bool(runner.run_untagged)),
        FormField("locked", "Locked to its projects", kind="bool", value=bool(runner.locked)),
        FormField("access_level", "Access level", kind="select", required=True,
                  value=runner.access_level or "not_protected",
                  options=(("not_protected", "not_protected"), ("ref_protected (protected refs only)", "ref_protected"))),
        FormField("maximum_timeout", "Maximum timeout (s)", kind="int", value=runner.maximum_timeout,
                  help="seconds; empty = no limit"),
    ]


def runner_update_arguments(values: dict[str, Any]) -> dict[str, Any]:
    """Form values → keyword arguments of ``client.runners.update``."""
    arguments = dict(values)
    if "tag_list" in arguments:
        arguments["tag_list"] = [tag.strip() for tag in str(arguments["tag_list"]).split(",") if tag.strip()]
    return arguments


class RunnerActions:
    """Edit, pause/resume and delete, shared by the runner list and the runner detail."""

    def runner_edit(self, screen: SectionScreen, runner_id: int, after: Any) -> None:
        """Load the detail, then open the edit form; ``after(detail)`` on success."""

        async def load_and_edit() -> None:
            detail = await screen.client.runners.get(runner_id)

            async def save(values: dict[str, Any]) -> Any:
                client = screen.client
                with audit_context(target=AuditTarget(runner=runner_id), confirmation="form"):
                    return await client.runners.update(runner_id, **runner_update_arguments(values))

            def done(result: Any) -> None:
                if result is not None:
                    screen.notify(f"Runner #{runner_id} saved.", timeout=3)
                    after(result)

            screen.app.push_screen(FormScreen(f"Edit runner #{runner_id}", runner_edit_fields(detail), save,
                                              only_changed=True, target=detail.description or None), done)

        screen.run_api(load_and_edit, "edit")

    def runner_toggle_active(self, screen: SectionScreen, runner: Runner,
                             after: Callable[[RunnerDetail | None], None]) -> None:
        """Pause an active runner or resume a paused one (confirmed)."""
        pause = not runner.paused
        verb = "Pause" if pause else "Resume"
        label = runner_label(runner)
        message = (f"{verb} {label}?\n"
                   + ("It stops picking up new jobs; running jobs finish." if pause else
                      "It starts picking up jobs again."))

        def confirmed(answer: bool | None) -> None:
            if answer:
                async def send() -> None:
                    client = screen.client
                    with audit_context(action="runners.pause" if pause else "runners.resume",
                                              target=AuditTarget(runner=runner.id), confirmation="dialog"):
                        detail = await client.runners.update(runner.id, paused=pause)
                    screen.notify(f"Runner #{runner.id} {'paused' if pause else 'resumed'}.", timeout=4)
                    after(detail)

                screen.run_api(send, "active")

        screen.app.push_screen(ConfirmScreen(f"{verb} runner", message, action_label=verb, target=label,
                                             danger=pause), confirmed)

    def runner_delete(self, screen: SectionScreen, runner: Runner,
                      after: Callable[[RunnerDetail | None], None]) -> None:
        """Delete a runner after typing its id."""
        label = runner_label(runner)

        def confirmed(answer: bool | None) -> None:
            if answer:
                async def send() -> None:
                    client = screen.client
                    with audit_context(target=AuditTarget(runner=runner.id), confirmation=f"typed:{runner.id}"):
                        await client.runners.delete(runner.id)
                    screen.notify(f"Runner #{runner.id} deleted.", timeout=5)
                    after(None)

                screen.run_api(send, "delete")

        screen.app.push_screen(ConfirmScreen(
            "Delete runner", f"Delete {label}? It must be registered again to come back.",
            action_label="Delete", target=label, typed=str(runner.id)), confirmed)
