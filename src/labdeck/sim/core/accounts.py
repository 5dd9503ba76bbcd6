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


def instance_tokens(index: int) -> dict[str, str]:
    """The demo tokens of the ``index``-th simulated instance (0 is the first) of ``labdeck serve
    --instances N``: the first has :data:`DEMO_TOKENS`, the others the same with ``-2``, ``-3`` …
    appended, so no instance accepts another's token."""
    if index <= 0:
        return dict(DEMO_TOKENS)
    return {role: f"{token}-{index + 1}" for role, token in DEMO_TOKENS.items()}
