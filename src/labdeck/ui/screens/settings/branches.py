"""Protected branches of a project (protect, unprotect, access levels, force push).

Force push on a protected branch is a GitLab 13.10+ setting (``allow_force_push``): the column
shows what the server says (``—`` when it does not say), and the protect form offers the switch
only to servers that understand it."""

from __future__ import annotations

from typing import Any, ClassVar

from textual.binding import Binding, BindingType

from labdeck.api.models import ProtectedBranch
from labdeck.audit.context import AuditTarget, audit_context
from labdeck.ui.dialogs.confirm import ConfirmScreen
from labdeck.ui.dialogs.form import FormField, FormScreen
from labdeck.ui.screens.record_detail import RecordDetailScreen
from labdeck.ui.screens.settings.list_section import ListSection
from labdeck.ui.widgets.cells import clean, shown
from labdeck.ui.widgets.resource_table import Column, TableRow

BRANCH_ACCESS = (("no access (0)", 0), ("developers + maintainers (30)", 30), ("maintainers (40)", 40))
_ACCESS_NAMES = {0: "no one", 30: "developers", 40: "maintainers", 60: "admins"}


def _levels(levels: list[Any]) -> str:
    return shown([level.access_level_description or _ACCESS_NAMES.get(level.access_level or 0, "?")
                  for level in levels])


def branch_row(branch: ProtectedBranch) -> TableRow:
    """A row of the protected branches table (force push ``—`` when the server does not say)."""
    return TableRow(key=branch.name, cells=(shown(branch.name), _levels(branch.push_access_levels),
                                            _levels(branch.merge_access_levels), shown(branch.allow_force_push)),
                    data=branch)


class ProtectedBranchesScreen(ListSection):
    """``/projects/:id/protected_branches``."""

    SECTION_TITLE = "Protected branches"
    COLUMNS = (Column("name", "Branch or wildcard", max_width=40, flex=True),
               Column("push", "Allowed to push", min_width=8, max_width=30, flex=True),
               Column("merge", "Allowed to merge", min_width=8, max_width=30, flex=True),
               Column("force", "Force push", max_width=10))
    MUTATING_ACTIONS = frozenset({"protect", "unprotect"})
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("n", "protect", "Protect", id="branches.protect"),
        Binding("D", "unprotect", "Unprotect", id="branches.unprotect"),
    ]

    def __init__(self, project_id: int, project_path: str) -> None:
        super().__init__(project_path)
        self.project_id = project_id
        self.project_path = clean(project_path)
        self.force_push = False
        """The server takes ``allow_force_push`` (GitLab 13.10+)."""

    async def fetch(self) -> list[TableRow]:
        client = self.client
        dialect = await client.discover()
        self.force_push = dialect.flavour == "gitlab" and dialect.at_least(13, 10)
        branches = await client.protected_branches.list(self.project_id).all()
        return [branch_row(branch) for branch in branches]

    def copy_target(self) -> str | None:
        branch = self.table.cursor_data
        return None if branch is None else branch.name

    def open(self, data: Any) -> None:
        """``enter``: the protection as the server has it now (``GET …/protected_branches/:name``)."""
        if data is not None:
            self.app.push_screen(RecordDetailScreen(
                "Protected branch", f"{self.project_path} · {data.name}",
                lambda: self.client.protected_branches.get(self.project_id, data.name)))

    def action_protect(self) -> None:
        """Protect a branch or wildcard with push and merge access levels."""
        if self.refuse_if_read_only():
            return
        fields = [FormField("name", "Branch or wildcard", required=True, help="e.g. main or release/*"),
                  FormField("push_access_level", "Allowed to push", kind="select", required=True, value=40,
                            options=BRANCH_ACCESS),
                  FormField("merge_access_level", "Allowed to merge", kind="select", required=True, value=40,
                            options=BRANCH_ACCESS)]
        if self.force_push:
            fields.append(FormField("allow_force_push", "Allow force push", kind="bool", value=False,
                                    help="by those allowed to push"))

        async def save(values: dict[str, Any]) -> Any:
            client = self.client
            with audit_context(target=AuditTarget(project=self.project_path, name=values["name"]),
                                      confirmation="form"):
                return await client.protected_branches.protect(
                    self.project_id, values["name"], push_access_level=values["push_access_level"],
                    merge_access_level=values["merge_access_level"], allow_force_push=values.get("allow_force_push"))

        def done(branch: Any) -> None:
            if branch is not None:
                self.notify(f"{clean(branch.name)} protected.", timeout=4, markup=False)
                self.reload()

        self.app.push_screen(FormScreen("Protect a branch", fields, save, target=self.project_path,
                                        submit_label="Protect"), done)

    def action_unprotect(self) -> None:
        """Unprotect the highlighted branch (confirmed)."""
        branch = self.current()
        if branch is None or self.refuse_if_read_only():
            return

        self.confirm_and_send(ConfirmScreen("Unprotect branch",
                                            f"Remove the protection of {clean(branch.name)}? Anyone with developer "
                                            "access can then push, force-push or delete it.", action_label="Unprotect",
                                            target=f"{self.project_path} · {clean(branch.name)}"),
                              lambda: self._unprotect(branch.name),
                              f"{clean(branch.name)} is no longer protected.", "unprotect")

    async def _unprotect(self, name: str) -> None:
        client = self.client
        with audit_context(target=AuditTarget(project=self.project_path, name=name), confirmation="dialog"):
            await client.protected_branches.unprotect(self.project_id, name)
