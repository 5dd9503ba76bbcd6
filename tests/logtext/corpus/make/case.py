"""One case of the corpus: which project, which commands, which framing, which block to read first."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class Case:
    """One failing job. ``start``/``end`` mark the block in the failing (last) command's output.

    ``hidden`` commands break the project before a failing run (they are not in the log); ``fix``
    replaces text in files for the passing run. A case with either gets a passing log."""

    tool: str
    name: str
    project: str
    framing: str
    steps: list[str]
    start: str
    end: str | None
    kind: str
    cause: str
    image: str = "python:3.11-slim"
    nth: int = 0
    extra: int = 0
    after_re: str | None = None
    fix: dict[str, list[tuple[str, str]]] = field(default_factory=dict)
    after: list[str] = field(default_factory=list)
    hidden: list[str] = field(default_factory=list)
    prepare: list[str] = field(default_factory=list)
    env: dict[str, str] = field(default_factory=dict)
    artifacts: bool = False
    timeout: int = 600
