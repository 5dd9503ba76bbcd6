"""The demo accounts: fixed, documented tokens (not secrets) and usernames, by role.

A module of its own so that ``labdeck --demo`` can name the token without loading the simulator.
"""

from __future__ import annotations

DEMO_TOKENS: dict[str, str] = {
    "admin": "labdeck-demo-admin-token",
    "user": "labdeck-demo-user-token",
    "readonly": "labdeck-demo-readonly-token",
}
DEMO_USERS: dict[str, str] = {"admin": "root", "user": "alice", "readonly": "viewer"}
"""Username of each demo account, by role."""
