"""Platform failures, only from the platform's own words (issue point 5).

A line names a platform failure when it is the platform's: the runner's own lines (before the
first command, in the trailer, or a failed command's mark such as ``ERROR: Job failed: exit code
137``), an image pull, the system's OOM killer, a full disk, or a network failure of a package
fetch (a line printed by npm, pip, apt, curl, docker, maven, git … or any line of an install
step). The same words inside a test's output (a pytest ``E`` block, a traceback, a test failure's
message) or in an exception raised by the code under test are not the platform's.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import cache, lru_cache
from typing import Any, Literal

from labdeck.logtext.cause.matcher import Unwidenable, widen

Scope = Literal["runner", "anywhere", "fetch"]

_PATTERNS: tuple[tuple[str, Scope, re.Pattern[str]], ...] = (
    ("image pull failed", "fetch", re.compile(
        r"failed to pull image|pull access denied|ErrImagePull|ImagePullBackOff|manifest unknown|"
        r"toomanyrequests|Error response from daemon: (?:pull|manifest|Get \")", re.IGNORECASE)),
    ("runner system failure", "runner", re.compile(
        r"runner system failure|Job failed \(system failure\)|runner (?:was )?lost|job's runner|"
        r"ERROR: Preparation failed|The runner has received a shutdown signal|lost communication with the server",
        re.IGNORECASE)),
    ("execution timeout", "runner", re.compile(
        r"execution took longer than|Job execution timeout|has exceeded the maximum execution time|"
        r"The job running on runner .* has exceeded", re.IGNORECASE)),
    ("out of memory (exit code 137)", "runner", re.compile(
        r"exit code:? 137\b|exited with 137\b|exit status 137\b|status 137\b")),
    ("out of memory (exit code 137)", "anywhere", re.compile(
        r"OOMKilled|Out of memory: Kill(?:ed)? process|oom-kill(?:er)?\b|invoked oom-killer")),
    ("no space left on device", "anywhere", re.compile(r"no space left on device", re.IGNORECASE)),
    ("DNS failure", "fetch", re.compile(
        r"Temporary failure in name resolution|Could not resolve host|Name or service not known|"
        r"getaddrinfo (?:ENOTFOUND|EAI_AGAIN)|EAI_AGAIN|no such host|Could not resolve hostname|"
        r"nodename nor servname|Failed to resolve|NameResolutionError|Unknown host", re.IGNORECASE)),
    ("TLS handshake timeout", "fetch", re.compile(r"TLS handshake timeout", re.IGNORECASE)),
    ("connection reset by peer", "fetch", re.compile(r"connection reset by peer|ECONNRESET", re.IGNORECASE)),
    ("network timeout", "fetch", re.compile(
        r"ETIMEDOUT|ESOCKETTIMEDOUT|i/o timeout|Read timed out|Connection timed out|ReadTimeoutError|"
        r"Client\.Timeout exceeded|ConnectTimeoutError|operation timed out|timeout awaiting response",
        re.IGNORECASE)),
    ("registry error (HTTP 429/5xx)", "fetch", re.compile(
        r"\b(?:429 Too Many Requests|50[0234] (?:Internal Server Error|Bad Gateway|Service Unavailable|"
        r"Gateway Time-?out))|\b(?:HTTP|status(?: code)?|response code|returned error):? (?:429|50[0234])\b|"
        r"\bE(?:429|50[0234])\b", re.IGNORECASE)),
    ("artifact or cache transfer failed", "runner", re.compile(
        r"(?:Uploading|Downloading) (?:artifacts|cache)\b.*(?:failed|error|timeout|FATAL)|"
        r"Failed to (?:upload|download|create|extract) (?:the )?(?:cache|artifacts?)|"
        r"ERROR: (?:Uploading|Downloading) artifacts", re.IGNORECASE)),
)


_FETCH_COMMAND = re.compile(
    r"\b(?:pip3?(?: install| download|-compile| wheel)|-m pip\b|uv (?:pip|sync|add|lock)|poetry (?:install|lock|add|update)"
    r"|pipenv (?:install|sync)|conda (?:install|create|env|update)|mamba |micromamba |npm (?:ci|install|i|update)\b"
    r"|yarn(?: install)?(?: --\S+)*$|pnpm (?:install|i|add)\b|bun install|apt(?:-get)? |apk (?:add|update)"
    r"|yum |dnf |brew |gem install|bundle(?: install)?(?: --\S+)*$|composer (?:install|update|require)"
    r"|cargo (?:fetch|install|update)|go (?:mod|get|install)\b|mvn |gradlew? .*(?:dependencies|--refresh)"
    r"|curl |wget |git (?:clone|fetch|pull|submodule)|docker (?:pull|build|login|push|buildx|compose pull)"
    r"|podman (?:pull|build)|helm (?:repo|dep|dependency)|dotnet restore|nuget |choco |rustup |setup-|"
    r"actions/(?:checkout|setup|cache)|cpanm |luarocks |rebar3 (?:get-deps|update)|mix deps|stack (?:setup|build --only)"
    r"|cabal update|R -e .*install|Rscript -e .*install|(?:terraform|tofu|terragrunt) init|bazel (?:fetch|sync)"
    r"|sbt update)", re.IGNORECASE)
_FETCH_LINE = re.compile(
    r"(?:npm (?:ERR!|error|WARN|warn)|error An unexpected error|warning .*(?:ETIMEDOUT|ECONNRESET)|.*ERR_PNPM"
    r"|WARNING: Retrying|ERROR: Could not|Could not fetch URL|E: |W: |Err:\d+|curl: \(\d+\)|wget:|"
    r"Error response from daemon|(?:ERROR: |error: )?failed to (?:solve|fetch|copy|resolve|do request|authorize|"
    r"pull)|fatal: unable to access|go: |error: RPC failed|Could not (?:transfer|resolve|GET|HEAD) |"
    r"\[ERROR\] Failed to execute goal .*Could not|Cannot download|Failed to download|Unable to (?:download|fetch|"
    r"connect)|Retrying \(Retry|pip\._vendor|Downloading|Collecting|Get \"https?://|Pulling|WARNING: Failed to pull)",
    re.IGNORECASE)
_TEST_KINDS = frozenset({"pytest", "traceback", "unittest", "junit", "jest", "tap", "test", "rspec", "go", "dotnet",
                         "karma", "mocha", "exception", "minitest", "busted", "prove", "r", "xcodebuild", "gradle",
                         "erlang", "phpunit"})
_EXCEPTION_LINE = re.compile(r"\s*(?:E\s+|>\s+|\w+(?:\.\w+)*(?:Error|Exception)\b|.*\bassert|.*\bexpect)")
_EXCEPTION_HEAD = re.compile(r"\s*(?:E\s|>\s|\w+(?:\.\w+)*(?:Error|Exception)\b)")
_EXCEPTION_WORD = re.compile(r"\bassert|\bexpect")


def _exception_line(text: str) -> bool:
    """``_EXCEPTION_LINE.match(text)``, cheaper: its first three branches start right after the
    leading spaces (none starts with a space), and on a line (no ``\\n``) ``.*\\bassert`` is a
    search for ``\\bassert`` (a test compares the two)."""
    if "\n" in text:
        return _EXCEPTION_LINE.match(text) is not None
    return _EXCEPTION_HEAD.match(text) is not None or (
        ("assert" in text or "expect" in text) and _EXCEPTION_WORD.search(text) is not None)
_WEAK = re.compile(r"(?:WARNING|WARN|warning|W):? |.*\b(?:Retrying|retrying|will retry)\b")


_GATE = ("runner", "execution", "timeout", "time-out", "exceeded", "preparation", "shutdown", "lost", "pull",
         "manifest", "daemon", "137", "oom", "out of memory", "space left", "resolv", "name or service",
         "eai_again", "such host", "nodename", "unknown host", "handshake", "reset by peer", "econn", "etimedout",
         "esockettimedout", "timed out", "429", "500", "502", "503", "504", "too many requests", "artifact", "cache",
         "unknown host", "name resolution")
_GATE_RE = re.compile("|".join(re.escape(word) for word in _GATE))


@cache
def _gate_engine() -> Callable[[str], bool]:
    """Whether a lowered line holds a gate word: RE2 (one DFA pass, a few times faster than
    Python's ``re`` on an alternation of literals) when it is there, else :data:`_GATE_RE`."""
    try:
        import re2  # type: ignore[import-not-found, import-untyped, unused-ignore]
    except ImportError:  # pragma: no cover - exercised where google-re2 is missing
        return lambda lowered: _GATE_RE.search(lowered) is not None
    match = re2.compile(_GATE_RE.pattern.encode())._regexp.Match
    anchor = re2._Anchor.UNANCHORED
    python = _GATE_RE.search

    def gated(lowered: str) -> bool:
        try:
            data = lowered.encode()
        except UnicodeEncodeError:  # a lone surrogate: RE2 reads UTF-8 only
            return python(lowered) is not None
        # The words are ASCII: a byte match in the UTF-8 text is a match in the text.
        return match(anchor, data, 0, len(data))[0][0] >= 0

    return gated


_gated: Callable[[str], bool] | None = None
""":func:`_gate_engine`'s answer, once asked for (one global read per line, not a cached call)."""


def _gate() -> Callable[[str], bool]:
    global _gated
    _gated = _gate_engine()
    return _gated


_candidates: Callable[[str], set[int] | None] | None = None


def _candidates_engine() -> Callable[[str], set[int] | None]:
    """Which of :data:`_PATTERNS` could match a text, in one RE2 set call (each pattern widened
    to match at least what Python's does, as the shapes' set is: :func:`.matcher.widen`); the
    others need not be searched. None where that cannot be told (no google-re2, a lone surrogate)."""
    global _candidates
    _candidates = _build_candidates()
    return _candidates


def _build_candidates() -> Callable[[str], set[int] | None]:
    try:
        import re2  # type: ignore[import-not-found, import-untyped, unused-ignore]
    except ImportError:  # pragma: no cover - exercised where google-re2 is missing
        return lambda text: None
    options = re2.Options()
    options.log_errors = False
    engine: Any = re2._re2.Set(re2._Anchor.UNANCHORED, options)
    always: set[int] = set()
    for index, (_, _, pattern) in enumerate(_PATTERNS):
        try:
            flags = pattern.flags & ~re.UNICODE
            if flags & ~re.IGNORECASE:
                raise Unwidenable(pattern.pattern)
            added = engine.Add((("(?i)" if flags else "") + widen(pattern.pattern)).encode())
        except Unwidenable:
            added = -1
        if added == -1:
            always.add(index)
            engine.Add(b"[^\\x00-\\x{10ffff}]")  # keeps the set's numbering the table's
    if not engine.Compile():  # pragma: no cover - RE2 refuses the whole set
        return lambda text: None
    match = engine.Match

    def candidates(text: str) -> set[int] | None:
        try:
            data = text.encode()
        except UnicodeEncodeError:  # a lone surrogate: RE2 reads UTF-8 only
            return None
        return {*match(data), *always}

    return candidates


@lru_cache(maxsize=64)
def _fetch_step(command: str) -> bool:
    # One answer per command: its output's lines all ask.
    return _FETCH_COMMAND.search(command) is not None


def platform_label(text: str, where: Literal["prelude", "command", "trailer", "mark"], command: str,
                   in_block: str | None, *, gated: bool = False) -> tuple[str, bool] | None:
    """The platform failure ``text`` names, with whether it is weak (a warning, a retry, an artifact
    transfer: the cause only when nothing else is), or None.

    ``where`` says what part of the log the line is in, ``command`` the command whose output it is,
    ``in_block`` the kind of the error block that contains it (if any); ``gated`` that the caller
    already knows the lowered text holds one of the gate's words (:data:`_GATE`).
    """
    if not gated and not (_gated or _gate())(text.lower()):
        return None
    platform_part = where != "command"
    fetch_step = bool(command) and _fetch_step(command)
    if not platform_part and not fetch_step:
        if in_block in _TEST_KINDS or _exception_line(text):
            return None
    found = (_candidates or _candidates_engine())(text)
    if found is not None and not found:
        return None  # no pattern can match (most gated lines: ``cache``, ``pull`` in other words)
    # Whether the line is a fetch's, asked only when a fetch's pattern could match (its pattern
    # is a long case-blind alternation).
    fetch: bool | None = platform_part or fetch_step or None
    for index, (label, scope, pattern) in enumerate(_PATTERNS):
        # The cheap test of where the line is comes before the pattern.
        if scope == "runner" and not platform_part:
            continue
        if found is not None and index not in found:
            continue
        if scope == "fetch" and not fetch:
            if fetch is None:
                fetch = _FETCH_LINE.match(text) is not None
            if not fetch:
                continue
        if not pattern.search(text):
            continue
        # A network failure of a fetch counts even as a warning or a retry (pip warns, then cannot
        # find the package); the runner's own warnings are the cause only when nothing else is.
        weak = (scope != "fetch" and _WEAK.match(text) is not None) or label == "artifact or cache transfer failed"
        return (_name_host(label, text), weak)
    return None


_HOST = re.compile(r"https?://([\w.-]+\.[a-z]{2,})|image \"([\w.-]+\.[a-z]{2,})(?::\d+)?/")


def _name_host(label: str, line: str) -> str:
    """``image pull from registry.example.com failed`` when the line names the registry."""
    match = _HOST.search(line)
    if label == "image pull failed" and match:
        return f"image pull from {match.group(1) or match.group(2)} failed"
    return label
