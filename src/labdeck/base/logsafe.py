"""Keep tokens out of log records: a redacting ``logging.Filter`` and a record factory.

Filters attached to a logger are not consulted for records of its child loggers
(``httpcore.http11`` does not pass through a filter on ``httpcore``), so :func:`install` also wraps
the log-record factory: every record is redacted when it is created, whoever handles it.
"""

from __future__ import annotations

import logging
import re
import threading
import traceback
from collections.abc import Callable
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from labdeck.base.secret import Secret

MASK = "********"

_known: set[str] = set()
_known_lock = threading.Lock()

# GitLab token formats (glpat-, gldt-, glcbt-, glft-, glrt-, …); exact values are masked too.
_TOKEN_PATTERN = re.compile(r"\bgl[a-z]{2,6}-[A-Za-z0-9_.=-]{20,}")
# Header or parameter carrying a credential, in the shapes httpx/httpcore/urllib and `curl -v` print them
# (the ``b`` of a bytes repr only before its quote: else it took the B of an unquoted ``Bearer``).
_HEADER_PATTERN = re.compile(
    r"(?i)((?:private[-_]token|job[-_]token|authorization|proxy-authorization)['\"]?\s*[:=,]\s*\(?(?:b(?=['\"]))?['\"]?"
    r"(?:bearer\s+|basic\s+)?)([^'\"\s,)&]+)"
)
_QUERY_PATTERN = re.compile(r"(?i)([?&](?:private_token|access_token|job_token)=)([^&\s'\"]+)")
_GATE_WORDS = ("token", "authorization", "_token=")
"""What :data:`_HEADER_PATTERN` (one of the first two) and :data:`_QUERY_PATTERN` (the last) need in a text."""
_FOLD = {0x130: "i", 0x131: "i", 0x212A: "k"}
"""The characters ``(?i)`` matches to a letter of :data:`_GATE_WORDS` that ``str.lower()`` does
not make that letter."""


# Characters that must never reach a terminal from server text: C0/C1 controls (ESC starts
# terminal escape sequences) and the bidi overrides/isolates that reorder what is displayed.
_UNPRINTABLE = re.compile("[\x00-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
_UNPRINTABLE_KEEP_NEWLINES = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


_SECRET_QUERY_KEYS = {"private_token", "access_token", "job_token", "token"}
_TOKEN_PATTERN = re.compile(r"\bgl[a-z]{2,6}-[A-Za-z0-9_.=-]{20,}")


def redact_url(url: str) -> str:
    """``url`` with credential-bearing query parameters and userinfo replaced by ``***``."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return "<unparsable url>"
    netloc = parts.netloc
    if "@" in netloc:
        netloc = "***@" + netloc.rsplit("@", 1)[1]
    query = parts.query
    if query:
        pairs = parse_qsl(query, keep_blank_values=True)
        if any(key.lower() in _SECRET_QUERY_KEYS for key, _ in pairs):
            pairs = [(k, "***" if k.lower() in _SECRET_QUERY_KEYS else v) for k, v in pairs]
            query = urlencode(pairs, safe="[]*")
    return urlunsplit((parts.scheme, netloc, parts.path, query, parts.fragment))


def redact_text(text: str) -> str:
    """Mask anything shaped like a GitLab token (``glpat-…`` and friends) in free text."""
    return _TOKEN_PATTERN.sub("gl***", text)


def _escaped_forms(raw: str) -> set[str]:
    # Exceptions often quote a value with repr() (httpx/h11: "Illegal header value b'…\\n…'"),
    # which spells control characters as escapes: mask those spellings too.
    forms = {raw, repr(raw)[1:-1], repr(raw.encode("utf-8", "backslashreplace"))[2:-1]}
    return {form for form in forms if len(form) >= 4}


def register_secret(value: str | Secret | None) -> None:
    """Mask this exact value wherever it appears in a log record, crash file or message."""
    if value is None:
        return
    raw = value.reveal() if isinstance(value, Secret) else value
    if len(raw) >= 4:
        with _known_lock:
            _known.update(_escaped_forms(raw))


def redact(text: str) -> str:
    """``text`` with every registered secret, token-shaped string and credential header masked."""
    if _known:  # most processes register none: no lock, no sort
        with _known_lock:
            known = sorted(_known, key=len, reverse=True)
        for value in known:
            if value in text:
                text = text.replace(value, MASK)
    if "gl" in text:
        text = _TOKEN_PATTERN.sub(MASK, text)
    # Each pattern below needs a word that lowering finds (a log's block of 2,000 characters is
    # scanned only when it has one). Outside ASCII, ``(?i)`` also matches three letters that
    # lowering alone does not make the word's: ``ı`` and ``İ`` are an ``i``, ``K`` a ``k``
    # (a test checks every code point).
    lowered = text.lower()
    if not text.isascii() and ("\u0130" in text or "\u0131" in text or "\u212a" in text):
        lowered = text.translate(_FOLD).lower()
    if "token" in lowered or "authorization" in lowered:
        text = _HEADER_PATTERN.sub(lambda match: match.group(1) + MASK, text)
    if "_token=" in lowered:
        text = _QUERY_PATTERN.sub(lambda match: match.group(1) + MASK, text)
    return text


def printable(text: str, *, keep_newlines: bool = False) -> str:
    """``text`` made safe to print on a terminal: secrets masked, control characters and bidi
    overrides removed. Tabs (and newlines unless ``keep_newlines``) become spaces."""
    text = redact(text)
    # Every character the patterns remove is one str.isprintable() refuses (C0/C1 controls and the
    # bidi controls): most text is printable, and that test is one C loop, not a regex scan.
    if (text.replace("\n", " ") if keep_newlines else text).isprintable():
        return text
    pattern = _UNPRINTABLE_KEEP_NEWLINES if keep_newlines else _UNPRINTABLE
    return pattern.sub(lambda match: " " if match.group() in "\t\n\r" else "", text)


class RedactingFilter(logging.Filter):
    """Rewrites a record's message, arguments and exception text with :func:`redact`."""

    def filter(self, record: logging.LogRecord) -> bool:
        redact_record(record)
        return True


def redact_record(record: logging.LogRecord) -> logging.LogRecord:
    """Format the record's message now, masked; pre-render its traceback masked (no locals)."""
    if getattr(record, "_labdeck_redacted", False):
        return record
    try:
        message = record.getMessage()
    except Exception:  # a broken format string must not stop logging
        message = f"{record.msg!r} {record.args!r}"
    record.msg = redact(message)
    record.args = None
    if record.exc_info and record.exc_info[0] is not None and not record.exc_text:
        record.exc_text = redact("".join(traceback.format_exception(*record.exc_info)).rstrip("\n"))
    elif record.exc_text:
        record.exc_text = redact(record.exc_text)
    if record.stack_info:
        record.stack_info = redact(record.stack_info)
    record._labdeck_redacted = True
    return record


_installed = False
_FILTERED_LOGGERS = ("", "httpx", "httpcore", "labdeck", "keyring", "urllib3", "gitlab")


def install() -> None:
    """Redact every log record of this process (idempotent)."""
    global _installed
    if _installed:
        return
    _installed = True
    previous: Callable[..., logging.LogRecord] = logging.getLogRecordFactory()

    def factory(*args: Any, **kwargs: Any) -> logging.LogRecord:
        return redact_record(previous(*args, **kwargs))

    logging.setLogRecordFactory(factory)
    shared = RedactingFilter()
    for name in _FILTERED_LOGGERS:
        logger = logging.getLogger(name)
        logger.addFilter(shared)
        for handler in logger.handlers:
            handler.addFilter(shared)


def configure_file_logging(path: str, level: int = logging.DEBUG) -> logging.Handler:
    """Log to ``path`` (mode 0600) at ``level``, including httpx/httpcore, with redaction."""
    import os

    install()
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    os.close(fd)
    handler = logging.FileHandler(path, encoding="utf-8")
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    handler.addFilter(RedactingFilter())
    root = logging.getLogger()
    root.addHandler(handler)
    root.setLevel(level)
    for name in ("httpx", "httpcore"):
        logging.getLogger(name).setLevel(level)
    return handler
