"""What reading a log for its cause answers: the block to read first, the ranked candidates, any
platform failure, and (with a passing log) the lines that are new since the green run."""

from __future__ import annotations

from dataclasses import dataclass

MAX_BLOCK_TEXT = 2000
"""Characters of a block's visible text kept in :attr:`ErrorBlock.text`."""
MAX_BLOCK_LINES = 40
"""Lines a block may span (a test failure's message, a compiler's error with its context)."""
MAX_TRACEBACK_LINES = 400
"""Lines a traceback may span before its exception line: a framework's frames (pytest
``--tb=native``, Django, a deep recursion) run to hundreds, and the exception line is what names it."""
MAX_LINE = 4096
"""Characters of a line the precise patterns look at: a hostile or minified line of megabytes is
read by its first characters only."""
MAX_PLATFORM_TEXT = 500
"""Characters of a platform line kept in :attr:`PlatformHit.text` (pip's network warnings run to
300): a longer line is cut there with an ellipsis."""


@dataclass(frozen=True, slots=True)
class ErrorBlock:
    """Lines ``line`` .. ``end`` (1-based, inclusive) of a log that say what went wrong.

    ``kind`` names the shape (``pytest``, ``junit``, ``compiler``, ``tail`` …); ``text`` is the
    block's visible text (no escape sequences), cut to :data:`MAX_BLOCK_TEXT` characters.
    """

    line: int
    end: int
    kind: str
    text: str


@dataclass(frozen=True, slots=True)
class PlatformHit:
    """A platform failure named by the platform's own words: ``label`` (``image pull failed`` …),
    the 1-based ``line`` that says so and its visible ``text``."""

    label: str
    line: int
    text: str


@dataclass(frozen=True, slots=True)
class LogAnswer:
    """The cause of one failed log.

    ``error`` is the block to read first (None only for an empty log or one whose job succeeded:
    ``succeeded``, the CI system's own word at its end); ``signature``
    its normalized first line(s) ('' without an error, never the runner's trailer); ``platform``
    the first platform failure, if any; ``candidates`` every block, ranked, ``error`` first (what
    the log viewer's ``e`` visits); ``new_lines`` the 1-based lines the passing log did not print
    (None without a passing log); ``line_count`` the number of lines read.
    """

    error: ErrorBlock | None
    signature: str
    platform: PlatformHit | None
    candidates: tuple[ErrorBlock, ...]
    new_lines: frozenset[int] | None
    line_count: int
    succeeded: bool = False
