"""Step 1: the commands a log ran, the mark of the one that failed, and the runner's trailer.

Each CI system frames a job its own way; these are the lines that say so:

- GitLab: the runner echoes each script line as ``$ cmd`` (green); ``section_start``/``section_end``
  markers name the stages; ``Running after_script``, ``Uploading artifacts for failed job``,
  ``Cleaning up project directory …`` and ``ERROR: Job failed: …`` are the trailer.
- GitHub Actions: ``##[group]Run cmd`` starts a step; ``##[error]Process completed with exit code
  N.`` marks the failed one (raw logs put a timestamp before each line).
- Travis: ``$ cmd`` and ``The command "cmd" exited with N.``; ``Done. Your build exited with N.``.
- Jenkins: ``+ cmd`` (``sh -x``), ``[Pipeline] sh``; ``ERROR: script returned exit code N``,
  ``Build step '…' marked build as failure``, ``Finished: FAILURE``.
- Azure Pipelines (``##[section]Starting: …``, ``##[error]Bash exited with code``), Buildkite
  (``~~~``/``---``/``+++`` headings, ``🚨 Error: The command exited with status``) and CircleCI
  (``Exited with code exit status N``).

:func:`clean` gives the visible text of a line with the CI system's own prefixes removed (a raw
GitHub log's timestamp, BuildKit's ``#12 0.345``), which every later step matches against.
"""

from __future__ import annotations

import re
from typing import Literal

MarkKind = Literal["command", "failure", "trailer", "success"]

_ANSI = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?|\x1b[()][0-9A-B]|\x1b.")
_SECTION = re.compile(r"section_(?:start|end):\d{1,12}:[\w.-]{1,200}(?:\[[^\]\r]{0,200}\])?\r")
_PREFIX = re.compile(
    # A raw GitHub/Azure log's timestamp, a GitLab runner's timestamp and stream tag (00O, 01E+), or
    # any other ISO time in front of every line.
    r"(?:\[?\d{4}-\d\d-\d\d[T ]\d\d:\d\d:\d\d(?:[.,]\d+)?(?:Z|[+-]\d\d:?\d\d)?\]? (?:[0-9a-f]{2}[OE]\+? )?)?"
    # Jenkins' timestamper, ``[2024-01-02T03:04:05.678Z] `` or ``[03:04:05] ``.
    r"(?:\[(?:\d{4}-\d\d-\d\dT)?\d\d:\d\d:\d\d(?:\.\d+)?Z?\] )?"
    # BuildKit's step and time, ``#12 0.345 ``.
    r"(?:#\d{1,4} \d+\.\d+ )?"
)
PREFIX_FIRST = frozenset("0123456789#[")
"""The first characters of a line :func:`clean` may strip a CI prefix from (a line starting with
none of them, with no escape and no carriage return, is cleaned by a strip alone)."""
_PREFIX_ASCII = re.compile(_PREFIX.pattern, re.ASCII)
""":data:`_PREFIX` for an ASCII line (where ``\\d`` can only meet ``0-9``): a quarter cheaper, the
Unicode digit test left out."""


def clean(line: str) -> str:
    """The visible text of a raw log line, without CI prefixes, trailing spaces and escapes."""
    if "\x1b" in line or "\r" in line:
        if "section_" in line:
            line = _SECTION.sub("", line)
        if "\r" in line:
            # Most parts carry no escape: skip the regex for those (same result, fewer calls).
            parts = [part for part in line.split("\r")
                     if (_ANSI.sub("", part) if "\x1b" in part else part).strip()]
            line = parts[-1] if parts else ""
        if "\x1b" in line:
            line = _ANSI.sub("", line)
    first = line[:1]
    # Every prefix starts with a digit, or with ``[`` or ``#`` and then a digit (``\d``: what
    # str.isdecimal() says): ``[INFO]`` and ``# comment`` lines skip the pattern.
    if (first in "0123456789" and first) or (first in "#[" and first and line[1:2].isdecimal()):
        match = (_PREFIX_ASCII if line.isascii() else _PREFIX).match(line)
        if match and match.end():
            line = line[match.end():]
    return line.rstrip()


_COMMAND = re.compile(
    r"(?:\$ (?P<dollar>\S.*)"
    r"|\+ (?P<plus>[\w./~-].*)"
    r"|##\[group\]Run (?P<gha>.+)"
    r"|##\[section\]Starting: (?P<azure>.+)"
    # A Buildkite heading, not a unified diff's ``+++ b/src/x.py`` or ``+++ out.md<TAB>2026-…`` (one
    # path, maybe a tab and a time).
    r"|(?:~~~|\+\+\+) (?P<bk>(?!\S*/\S*(?:\t.*)?$|\S+\t):?\w.*)"
    r"|\[Pipeline\] (?P<jenkins>sh|bat|powershell|stage)\b.*"
    r")$")
# Searched for whether it is there (never where): each branch starts with a literal character,
# which lets Python's re skip to the places where one could start (the optional
# ``(?:##\[error\])?(?:Error: )?`` before ``Process completed`` would make it try every place).
_FAILURE = re.compile(
    r"Process completed with exit code [1-9]\d*\."
    r"|The command \".*\" exited with [1-9]\d*\."
    r"|Build step '.*' marked build as failure"
    r"|ERROR: script returned exit code [1-9]\d*"
    r"|##\[error\](?:Bash|PowerShell|Cmd|Script) (?:exited|failed) with (?:code|exit code) '?[1-9]"
    r"|🚨 Error: The command exited with status [1-9]"
    r"|Exited with code (?:exit status )?[1-9]\d*"
    r"|Error: Process completed with exit code [1-9]"
)
_TRAILER = re.compile(
    r"(?:Running after_script|Running after script\.\.\."
    r"|Uploading artifacts for failed job|Cleaning up project directory and file based variables"
    r"|Cleaning up file based variables|ERROR: Job failed\b|Job failed\b"
    r"|Done\. Your build exited with [1-9]|Finished: (?:FAILURE|UNSTABLE|ABORTED)"
    r"|##\[section\]Finishing: |Post job cleanup\.)"
)
_SUCCESS = re.compile(r"Job succeeded$|Finished: SUCCESS$|Done\. Your build exited with 0\.$")
"""The CI system's own word that the job passed (GitLab, Jenkins, Travis)."""
_TRAILER_FIRST = frozenset("RUCEJDF#P")
_SUCCESS_FIRST = frozenset("JFD")
"""The first characters of every :data:`_TRAILER` and :data:`_SUCCESS` line (most lines are
neither: one look at a character, not two patterns)."""
_TRAILER_SECTION = re.compile(r"section_start:\d+:(?:after_script|upload_artifacts_on_failure|cleanup_file_variables)")



def mark(raw: str, text: str) -> tuple[MarkKind, str] | None:
    """What framing line ``text`` (cleaned; ``raw`` as read) is: a command start (with the command),
    the failed command's mark, the start of the trailer, or the job's success; None for any other
    line."""
    if "section_start:" in raw and _TRAILER_SECTION.search(raw):
        return ("trailer", "")
    if not text:
        return None
    if text[0] in "$+#~-[" and (match := _COMMAND.match(text)):
        # Each branch holds one group, never empty: the last group matched is the command.
        branch = match.lastgroup
        command = match.group(branch) if branch else ""
        if branch == "jenkins":
            return ("command", "[Pipeline] " + command)
        return ("command", command.strip())
    if ("xit" in text or "marked build" in text) and _FAILURE.search(text):
        return ("failure", "")
    first = text[0]
    if first in _TRAILER_FIRST and _TRAILER.match(text):
        return ("trailer", "")
    if first in _SUCCESS_FIRST and _SUCCESS.match(text):
        return ("success", "")
    return None
