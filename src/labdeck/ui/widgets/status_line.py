"""The status line at the bottom of every section: who, where, how safe, how fresh.

``[profile] instance  user  READ-ONLY|WRITE  rate 1990/2000  ● ok  data 12s  ⚠ plaintext token``

Each part is its own label so that colours come only from theme variables (app.tcss). The line
refreshes every second from the app's ``status_info()`` and the screen's ``data_loaded_at``.
"""

from __future__ import annotations

from datetime import datetime

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.widgets import Label

from labdeck.ui.console import console_app
from labdeck.ui.formatting import age


class StatusLine(Horizontal):
    """One row, docked at the bottom of a section screen."""

    DEFAULT_CSS = """
    StatusLine { height: 1; width: 100%; background: $ld-status-background; color: $ld-status-text; }
    StatusLine > Label { height: 1; padding: 0 1 0 0; }
    StatusLine #status-profile { background: $ld-env-accent; color: $ld-env-accent-text; text-style: bold; padding: 0 1; }
    StatusLine #status-instance { width: 1fr; padding: 0 1; text-overflow: ellipsis; text-wrap: nowrap; }
    StatusLine #status-source { color: $text-muted; }
    StatusLine #status-mode { text-style: bold; padding: 0 1; }
    StatusLine #status-mode.-read-only { background: $ld-mode-readonly; color: $background; }
    StatusLine #status-mode.-write { background: $ld-mode-write; color: $background; }
    StatusLine #status-health.-reconnecting { color: $text-warning; text-style: bold; }
    StatusLine #status-health.-error { color: $text-error; text-style: bold; }
    StatusLine #status-age.-stale { color: $text-warning; }
    StatusLine #status-warning { background: $ld-warning-banner; color: $background; text-style: bold; padding: 0 1; }
    StatusLine #status-warning.-hidden { display: none; }
    """

    STALE_AFTER_SECONDS = 120

    def __init__(self) -> None:
        super().__init__()
        self.data_loaded_at: datetime | None = None
        """When the screen's data was last fetched (the screen sets it); None before the first load."""

    def compose(self) -> ComposeResult:
        yield Label("", id="status-profile", markup=False)
        yield Label("", id="status-instance", markup=False)
        yield Label("", id="status-user", markup=False)
        yield Label("", id="status-source", markup=False)
        yield Label("", id="status-mode", markup=False)
        yield Label("", id="status-rate", markup=False)
        yield Label("", id="status-health", markup=False)
        yield Label("", id="status-age", markup=False)
        yield Label("", id="status-warning", classes="-hidden", markup=False)

    def on_mount(self) -> None:
        self.update_status()
        self.set_interval(1.0, self.update_status)

    def update_status(self) -> None:
        """Re-read the app's state and the screen's data age."""
        info = console_app(self.app).status_info()
        self.query_one("#status-profile", Label).update(Text(info.profile + (" (demo)" if info.demo and info.profile != "demo" else "")))
        self.query_one("#status-instance", Label).update(Text(info.instance))
        if info.user:
            user = f"@{info.user}"
        elif info.signed_out:
            user = "signed out"
        else:  # not known yet: still connecting, or the server is unreachable
            user = "not connected" if info.health != "ok" else "…"
        self.query_one("#status-user", Label).update(Text(user))
        source = self.query_one("#status-source", Label)
        # Demo sessions say "demo" already; "none" means signed out.
        shown = info.token_source not in ("none", "demo")
        source.update(Text(f"via {info.token_source}") if shown else "")
        source.display = shown
        mode = self.query_one("#status-mode", Label)
        mode.update("READ-ONLY" if info.read_only else "WRITE")
        mode.set_class(info.read_only, "-read-only")
        mode.set_class(not info.read_only, "-write")
        self.query_one("#status-rate", Label).update(Text(f"rate {info.rate_limit}" if info.rate_limit else ""))
        health = self.query_one("#status-health", Label)
        if info.health == "ok":
            health.update("● online")
        elif info.health == "reconnecting":
            health.update(Text(f"◌ reconnecting{': ' + info.last_error if info.last_error else ''}"))
        else:
            health.update(Text(f"✕ {info.last_error or 'offline'}"))
        health.set_class(info.health == "reconnecting", "-reconnecting")
        health.set_class(info.health not in ("ok", "reconnecting"), "-error")
        loaded_at = self.data_loaded_at
        seconds = None if loaded_at is None else (info.now - loaded_at).total_seconds()
        age_label = self.query_one("#status-age", Label)
        age_label.update(f"data {age(seconds)}" if seconds is not None else "data —")
        age_label.set_class(seconds is not None and seconds > self.STALE_AFTER_SECONDS, "-stale")
        warning = self.query_one("#status-warning", Label)
        warning.update("⚠ token in plaintext file" if info.insecure_storage else "")
        warning.set_class(not info.insecure_storage, "-hidden")
