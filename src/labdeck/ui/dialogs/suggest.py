"""Completion for form fields that take a project or group path.

    SuggestingFormScreen("Move issue #4", [FormField("project", "Target project", required=True)], pick,
                         suggestions={"project": sorted(app.known_projects.values())})

While the user types, the first known path starting with the text (any case) shows after the
cursor; ``right`` (or ``end``) accepts it. The paths come from what the console has listed
(``known_projects``): projects as they are, groups derived from the projects' namespaces
(:func:`group_paths`). A numeric id is still accepted everywhere.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from textual.suggester import SuggestFromList
from textual.widgets import Input

from labdeck.ui.dialogs.form import FormField, FormScreen, Submit

MAX_SUGGESTIONS = 2000
"""Paths offered at most per field (the console may have listed tens of thousands of projects)."""


def group_paths(project_paths: Iterable[str]) -> list[str]:
    """Every namespace above the given project paths: ``a/b/p`` gives ``a`` and ``a/b`` (sorted).

    Personal namespaces look the same as groups from a path; the server tells them apart."""
    groups: set[str] = set()
    for path in project_paths:
        parts = path.strip("/").split("/")[:-1]
        groups.update("/".join(parts[: depth + 1]) for depth in range(len(parts)))
    return sorted(groups)


class SuggestingFormScreen(FormScreen):
    """A :class:`FormScreen` whose text fields named in ``suggestions`` complete from those values."""

    def __init__(self, title: str, fields: Sequence[FormField], submit: Submit | None = None, *,
                 suggestions: Mapping[str, Iterable[str]], **options: Any) -> None:
        super().__init__(title, fields, submit, **options)
        self.suggestions = {name: list(values)[:MAX_SUGGESTIONS] for name, values in suggestions.items()}

    def on_mount(self) -> None:
        # Textual then runs FormScreen.on_mount too (handlers of every class of the MRO run).
        for name, values in self.suggestions.items():
            self.query_one(f"#f-{name}", Input).suggester = SuggestFromList(values, case_sensitive=False)
