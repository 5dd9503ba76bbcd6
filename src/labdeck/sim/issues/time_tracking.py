"""GitLab's human time-tracking durations (``3h30m``, ``1w 2d``, ``1mo``).

GitLab parses them with ChronicDuration configured for a working calendar: a day is 8 hours, a
week 5 days and a month 4 weeks; a bare number means hours. It prints them with
``Gitlab::TimeTrackingFormatter.output`` in the short form, largest unit first (``1h 30m``).
"""

from __future__ import annotations

import re

MINUTE = 60
HOUR = 60 * MINUTE
DAY = 8 * HOUR
WEEK = 5 * DAY
MONTH = 4 * WEEK

_UNIT_SECONDS: dict[str, int] = {}
for _names, _seconds in (
    (("s", "sec", "secs", "second", "seconds"), 1),
    (("m", "min", "mins", "minute", "minutes"), MINUTE),
    (("h", "hr", "hrs", "hour", "hours"), HOUR),
    (("d", "day", "days"), DAY),
    (("w", "wk", "wks", "week", "weeks"), WEEK),
    (("mo", "mos", "month", "months"), MONTH),
):
    for _name in _names:
        _UNIT_SECONDS[_name] = _seconds

_TOKEN = re.compile(r"(\d+(?:\.\d+)?|\.\d+)\s*([a-z]*)")
_FILLER = re.compile(r"\band\b|,")

_OUTPUT_UNITS = (("mo", MONTH), ("w", WEEK), ("d", DAY), ("h", HOUR), ("m", MINUTE), ("s", 1))


def parse_human_time(text: str) -> int | None:
    """Seconds for a human time-tracking duration (``1h 30m``), or None when it cannot be parsed.

    A leading ``-`` makes the result negative (``add_spent_time`` subtracts with it).
    """
    cleaned = text.strip().lower()
    negative = cleaned.startswith("-")
    if negative:
        cleaned = cleaned[1:].strip()
    cleaned = _FILLER.sub(" ", cleaned).strip()
    if not cleaned:
        return None
    total = 0.0
    position = 0
    matched = False
    while position < len(cleaned):
        if cleaned[position].isspace():
            position += 1
            continue
        match = _TOKEN.match(cleaned, position)
        if match is None:
            return None
        number, unit = match.groups()
        if unit == "":
            seconds = HOUR
        elif unit in _UNIT_SECONDS:
            seconds = _UNIT_SECONDS[unit]
        else:
            return None
        total += float(number) * seconds
        matched = True
        position = match.end()
    if not matched:
        return None
    result = round(total)
    return -result if negative else result


def human_time(seconds: int | None) -> str | None:
    """The wire form of ``human_time_estimate`` and ``human_total_time_spent``: GitLab's short human form
    (``1h 30m``, ``1w 2d``); None for zero or no value. Not a display formatter."""
    if not seconds:
        return None
    sign = "-" if seconds < 0 else ""
    remaining = abs(seconds)
    parts = []
    for suffix, size in _OUTPUT_UNITS:
        count, remaining = divmod(remaining, size)
        if count:
            parts.append(f"{count}{suffix}")
    return sign + " ".join(parts)
