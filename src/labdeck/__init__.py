"""labdeck: a keyboard-first terminal console for GitLab-style REST API v4 instances."""

from __future__ import annotations

__version__ = "0.1.0"
