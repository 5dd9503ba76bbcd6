"""Times as people and servers write them: ``--since`` values (``2h``, an ISO date) and HTTP
``Date`` headers. Standard library only: the one-shot commands read them before anything else."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from email.utils import parsedate_to_datetime

_DURATION = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([smhdw])\s*$", re.IGNORECASE)
_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 604800}


def parse_time(text: str | None) -> datetime | None:
    """An ISO 8601 time as an aware UTC datetime (``Z`` accepted; a naive time is UTC)."""
    if not text:
        return None
    try:
        moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return None
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)


def parse_since(text: str, now: datetime | None = None) -> datetime:
    """``2h``, ``30m``, ``1d``, ``45s``, ``2w`` (before ``now``) or an ISO date/time (naive = UTC).

    Raises ValueError with a message fit for the command line.
    """
    match = _DURATION.match(text)
    if match:
        amount = float(match.group(1)) * _UNITS[match.group(2).lower()]
        return (now or datetime.now(UTC)) - timedelta(seconds=amount)
    moment = parse_time(text.strip())
    if moment is None:
        raise ValueError(f"cannot read {text!r} as a time: use 30m, 2h, 1d, 1w or an ISO date such as "
                         "2024-05-01 or 2024-05-01T14:00Z")
    return moment


def server_time(date_header: str | None, fallback: datetime | None = None) -> datetime:
    """The time in an HTTP ``Date`` header (UTC), or ``fallback`` / the local clock."""
    if date_header:
        try:
            return parsedate_to_datetime(date_header).astimezone(UTC)
        except (TypeError, ValueError, IndexError, OverflowError):
            pass
    return fallback or datetime.now(UTC)
