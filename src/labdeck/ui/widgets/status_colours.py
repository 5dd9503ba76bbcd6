"""Job and pipeline statuses in colour, from the theme's ``job-*`` variables (never hard-coded)."""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual.app import App

from labdeck.ui.widgets.cells import coloured

STATUS_THEME_KEYS: dict[str, tuple[str, ...]] = {
    "success": ("job-success", "success"),
    "failed": ("job-failed", "error"),
    "running": ("job-running", "primary"),
    "canceling": ("job-running", "primary"),
    "pending": ("job-pending", "warning"),
    "created": ("job-pending", "warning"),
    "preparing": ("job-pending", "warning"),
    "scheduled": ("job-pending", "warning"),
    "waiting_for_resource": ("job-pending", "warning"),
    "canceled": ("job-canceled", "text-muted"),
    "skipped": ("job-skipped", "text-muted"),
    "manual": ("job-manual", "accent"),
}
"""Theme variables for each status, first usable one wins."""


def status_text(app: App[Any], status: str) -> Text:
    """``status`` coloured through the theme (bold when it needs attention)."""
    return coloured(app, status, *STATUS_THEME_KEYS.get(status, ()), bold=status in ("failed", "running"))
