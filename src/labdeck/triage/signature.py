"""Error signatures and platform patterns of a job log, without any I/O.

:func:`read_log` looks at a finished job's log once and returns :class:`LogFacts`: the first real
error line (the one the log viewer's ``e`` finds, :mod:`labdeck.logtext.error_lines`), its normalized
:attr:`~LogFacts.signature`, and the first line that matches a known platform failure
(:data:`PLATFORM_PATTERNS`: image pull, OOM, disk full, registry/artifact timeouts, runner lost,
execution timeout). Only the part before ``Running after_script`` is read: cleanup noise is not the
failure.

Normalizing (:func:`normalize`) removes what differs between two runs of the same failure: ANSI
sequences, timestamps, UUIDs, hex ids and shas, IP addresses and ports, temporary paths, numbers
and durations. Two failures with the same signature are the same failure.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from labdeck.logtext.error_lines import ErrorMatch, find_errors

SYSTEM_FAILURE_REASONS: frozenset[str] = frozenset({
    "runner_system_failure", "stuck_or_timeout_failure", "scheduler_failure", "data_integrity_failure",
    "stale_schedule", "environment_creation_failure", "job_router_failure", "api_failure",
    "job_execution_timeout", "runner_unsupported", "no_matching_runner", "trace_size_exceeded",
})
"""``failure_reason`` values that are the platform's doing, not the job's (GitLab's pipeline
observability list, plus API failures, timeouts and runner mismatches)."""

MAX_SIGNATURE = 200

# (label, pattern): the label names the platform failure in a reason and a cluster title.
PLATFORM_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("image pull failed", re.compile(
        r"failed to pull image|pull access denied|ErrImagePull|ImagePullBackOff|"
        r"manifest unknown|Failed to pull image", re.IGNORECASE)),
    ("out of memory (exit code 137)", re.compile(r"exit code 137\b|OOMKilled|out of memory", re.IGNORECASE)),
    ("no space left on device", re.compile(r"no space left on device", re.IGNORECASE)),
    ("connection reset by peer", re.compile(r"connection reset by peer", re.IGNORECASE)),
    ("registry or artifact store timeout", re.compile(
        r"(?:registry|artifact|coordinator|storage|cache)\S*.{0,120}?(?:i/o timeout|timed? ?out|"
        r"TLS handshake timeout|Client\.Timeout exceeded|502 Bad Gateway|503 Service Unavailable|"
        r"504 Gateway Time-?out)", re.IGNORECASE)),
    ("runner lost", re.compile(r"runner (?:system failure|lost|was lost)|job's runner", re.IGNORECASE)),
    ("execution timeout", re.compile(r"execution took longer than", re.IGNORECASE)),
)

_AFTER_SCRIPT = re.compile(r"Running after_script")
_ANSI = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b\][^\x07]*\x07|\r")
_SECTION = re.compile(r"section_(?:start|end):\d+:[\w.-]+(?:\[[^\]]*\])?\r")
_REPLACEMENTS: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"\b\d{4}-\d\d-\d\d[T ]\d\d:\d\d(?::\d\d(?:[.,]\d+)?)?(?:Z|[+-]\d\d:?\d\d)?"), "<time>"),
    (re.compile(r"\b\d\d:\d\d:\d\d(?:[.,]\d+)?\b"), "<time>"),
    (re.compile(r"\b[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\b"), "<uuid>"),
    (re.compile(r"\bsha256:[0-9a-fA-F]{16,}\b"), "<hex>"),
    (re.compile(r"\b0x[0-9a-fA-F]+\b"), "<hex>"),
    (re.compile(r"\b(?=[0-9a-fA-F]*\d)(?=[0-9a-fA-F]*[a-fA-F])[0-9a-fA-F]{7,}\b"), "<hex>"),
    (re.compile(r"\b(?:\d{1,3}\.){3}\d{1,3}(?::\d{1,5})?\b"), "<ip>"),
    (re.compile(r"\[[0-9a-fA-F:]*:[0-9a-fA-F:]+\](?::\d{1,5})?"), "<ip>"),
    (re.compile(r"(?<![\w.])(?:/tmp|/var/tmp|/private/var/folders|C:\\Users\\[^\\\s]+\\AppData\\Local\\Temp)"
                r"(?:[/\\][^\s'\":]*)?"), "<tmp>"),
    (re.compile(r"(?<=[a-z0-9]\.[a-z]{2})(?::\d{2,5})\b|(?<=[a-z0-9]\.[a-z]{3})(?::\d{2,5})\b|"
                r"(?<=localhost)(?::\d{2,5})\b"), ":<port>"),
    (re.compile(r"\b\d+(?:\.\d+)?(?:ms|µs|us|ns|s|m|h)\b"), "<dur>"),
    (re.compile(r"\d+(?:\.\d+)?"), "<n>"),
)
_SPACES = re.compile(r"\s+")
# Lines that say that something failed, not what.
_GENERIC = re.compile(r"^(?:Traceback \(most recent call last\):|Return code: <n>|ERROR: Job failed: exit code <n>)$")


def normalize(line: str) -> str:
    """The signature of one error line: volatile parts replaced by stand-ins (``<time>``, ``<hex>``
    …), spaces collapsed, cut to :data:`MAX_SIGNATURE` characters."""
    text = _ANSI.sub("", _SECTION.sub("", line))
    for pattern, stand_in in _REPLACEMENTS:
        text = pattern.sub(stand_in, text)
    text = _SPACES.sub(" ", text).strip()
    return text if len(text) <= MAX_SIGNATURE else text[: MAX_SIGNATURE - 1] + "…"


def platform_failure(reason: str | None) -> bool:
    """True for a ``failure_reason`` that is the platform's (see :data:`SYSTEM_FAILURE_REASONS`)."""
    return reason in SYSTEM_FAILURE_REASONS


@dataclass(frozen=True)
class LogFacts:
    """What one failed job's log says.

    ``error``: the first real error (the runner's ``Job failed`` trailer only when nothing else
    matched); ``signature``: its normalized text ('' when the log has no error line);
    ``platform``: ``(label, line)`` of the first platform failure line, or None."""

    error: ErrorMatch | None
    signature: str
    platform: tuple[str, str] | None

    @property
    def error_text(self) -> str:
        """The error line as the log shows it (a traceback's exception line when there is one)."""
        if self.error is None:
            return ""
        return self.error.detail or self.error.text


def _visible_lines(text: str) -> list[str]:
    lines = text.split("\n")
    for index, line in enumerate(lines):
        if _AFTER_SCRIPT.search(line):
            return lines[:index]
    return lines


_PLATFORM_PREFILTER = re.compile(r"(?i:pull|137|OOM|out of memory|space left|reset by peer|time ?out|timed out|"
                                 r"runner|took longer|50[234] )")


def _platform_line(lines: list[str]) -> tuple[str, str] | None:
    """The first platform failure line, preferring one that says ERROR (the runner's verdict comes
    after its warnings)."""
    found: tuple[str, str] | None = None
    for line in lines:
        if line.startswith("$ ") or not _PLATFORM_PREFILTER.search(line):
            continue
        clean = _ANSI.sub("", _SECTION.sub("", line)).strip()
        for label, pattern in PLATFORM_PATTERNS:
            if pattern.search(clean):
                named = _name_host(label, clean)
                if "ERROR" in clean or "error:" in clean.lower():
                    return named, clean
                found = found or (named, clean)
                break
    return found


_HOST = re.compile(r"https?://([\w.-]+\.[a-z]{2,})|image \"([\w.-]+\.[a-z]{2,})(?::\d+)?/")


def _name_host(label: str, line: str) -> str:
    """``image pull from registry.example.com failed`` when the line names the registry."""
    match = _HOST.search(line)
    if label == "image pull failed" and match:
        return f"image pull from {match.group(1) or match.group(2)} failed"
    return label


def read_log(data: bytes | str) -> LogFacts:
    """Find the error, its signature and any platform failure in a job log (see the module doc)."""
    text = data.decode("utf-8", "replace") if isinstance(data, bytes) else data
    lines = _visible_lines(text)
    index = find_errors(lines)
    first = index.first
    signature = ""
    if first is not None:
        candidates = [first.detail or first.text, *(m.text for m in index.matches[1:4])]
        for candidate in candidates:
            normalized = normalize(candidate)
            if normalized and not _GENERIC.match(normalized):
                signature = normalized
                break
        else:
            signature = normalize(candidates[0])
    platform = _platform_line(lines)
    if platform is not None and (first is None or first.is_trailer):
        signature = normalize(platform[1])
    return LogFacts(first, signature, platform)
