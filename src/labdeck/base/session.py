"""What the command line hands to the console: where to connect, with which token, how."""

from __future__ import annotations

from dataclasses import dataclass, field

from labdeck.base.config import AlertSettings, BoardSettings
from labdeck.base.secret import Secret


@dataclass
class Session:
    """Everything the console needs to start, resolved before the TUI takes the terminal."""

    base_url: str
    """Instance root, e.g. ``https://gitlab.example.com`` (the client appends ``/api/v4``)."""
    token: Secret | None
    token_source: str = "none"
    """Where the token came from, shown in the status line: ``keyring``, ``env:LABDECK_TOKEN``,
    ``stdin``, ``prompt``, ``file (insecure)``, ``encrypted file``, ``demo``."""
    profile: str = "default"
    short_name: str | None = None
    """The profile's ``short`` name: it marks the instance's rows on a board over several profiles."""
    read_only: bool = False
    """Forced read-only (``--read-only`` or the profile); the console also switches to read-only
    by itself when the token's writes are refused."""
    read_only_reason: str | None = None
    """Why the console is read-only (``--read-only``, the profile, or the token's scope)."""
    theme: str | None = None
    keymap: dict[str, str] = field(default_factory=dict)
    """Binding id → keys (comma-separated), from the config file's ``[keymap]``."""
    ca_file: str | None = None
    insecure: bool = False
    """TLS verification off (explicit ``--insecure`` only)."""
    insecure_storage: bool = False
    """The token is stored in a plaintext file: the status bar warns permanently."""
    demo: bool = False
    start_command: str | None = None
    """An optional ``:command`` to run at start (e.g. ``jobs group/project``)."""
    start: str = "projects"
    """The first screen: ``projects`` or ``board`` (a profile's ``start``)."""
    board: BoardSettings = field(default_factory=BoardSettings)
    """The on-call board's poller (``[board]``)."""
    alerts: AlertSettings = field(default_factory=AlertSettings)
    """Alert channels (``[alerts]``)."""
