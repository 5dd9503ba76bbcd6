"""Sub-commands inside one command: tox 4's environments and nox's sessions.

``tox -e lint,py311`` runs each environment's commands in turn (``lint: commands[0]> flake8 …``)
and says how each ended (``lint: OK ✔ in 4.4 seconds``, and again in its summary ``lint: OK (…)``);
nox says ``nox > Running session lint`` … ``nox > Session lint was successful.``. The error-shaped
lines of a sub-command that succeeded did not fail the job (``flake8 --exit-zero``): they are noise,
as the lines of an earlier command that succeeded are.
"""

from __future__ import annotations

import re

_START = re.compile(r"(?:(?P<env>[\w.-]+): commands\[\d+\]> |nox > Running session (?P<session>\S+)$)")
_SUCCESS = re.compile(r"\s*(?:(?P<env>[\w.-]+): OK (?:✔ in |\(\d)|nox > Session (?P<session>\S+) was successful\.?$)")

WORDS = ("commands[", "nox > ", ": OK ")
"""One of these is in every line :meth:`SubCommands.see` reads (a cheap test first)."""


class SubCommands:
    """The sub-commands started so far in the current command, and which of them succeeded."""

    def __init__(self) -> None:
        self._starts: list[tuple[int, str]] = []

    def reset(self) -> None:
        """A new command starts: its sub-commands are its own."""
        self._starts.clear()

    def see(self, text: str, line: int) -> tuple[int, int] | None:
        """Read one line (cleaned); when it says a sub-command succeeded, the lines it ran on
        (first, last), from its first start to the next other sub-command's start (or this line)."""
        started = _START.match(text)
        if started is not None:
            self._starts.append((line, started.group("env") or started.group("session")))
            return None
        succeeded = _SUCCESS.match(text)
        if succeeded is None:
            return None
        name = succeeded.group("env") or succeeded.group("session")
        first = next((at for at, named in self._starts if named == name), None)
        if first is None:
            return None
        last = next((at - 1 for at, named in self._starts if at > first and named != name), line)
        return first, last
