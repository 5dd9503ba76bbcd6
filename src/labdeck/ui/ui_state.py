"""What the console remembers between runs: the ``:`` history and the projects filters.

Stored in labdeck's state file (``labdeck.base.statefile.StateStore``) under the ``history`` and
``ui`` keys; a missing or corrupt file just means defaults.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass, field
from typing import Any

from labdeck.base.statefile import StateStore


@dataclass
class SavedUi:
    """The remembered parts of the UI."""

    history: list[str] = field(default_factory=list)
    project_filters: dict[str, Any] = field(default_factory=dict)


class UiState:
    """Load/save :class:`SavedUi` through a :class:`StateStore` (default: the user's state file)."""

    def __init__(self, store: StateStore | None = None) -> None:
        self.store = store or StateStore()

    def load(self) -> SavedUi:
        """The saved state (defaults when absent or unreadable)."""
        try:
            data = self.store.load()
        except Exception:  # a broken state file must never stop the console
            return SavedUi()
        history = data.get("history")
        ui = data.get("ui") if isinstance(data.get("ui"), dict) else {}
        assert isinstance(ui, dict)
        filters = ui.get("project_filters")
        return SavedUi(
            history=[str(line) for line in history][-200:] if isinstance(history, list) else [],
            project_filters=dict(filters) if isinstance(filters, dict) else {},
        )

    def save(self, history: list[str], project_filters: dict[str, Any] | None) -> None:
        """Write history and filters (keeps the file's other keys)."""
        with contextlib.suppress(Exception):
            data = self.store.load()
            ui = data.get("ui") if isinstance(data.get("ui"), dict) else {}
            assert isinstance(ui, dict)
            if project_filters is not None:
                ui["project_filters"] = project_filters
            data["ui"] = ui
            data["history"] = history[-200:]
            self.store.save(data)
