"""How long something took, written the same way on every screen."""

from __future__ import annotations


def format_duration(seconds: float | None, unknown: str = "—") -> str:
    """``12s``, ``3m05s``, ``1h02m`` (whole seconds, cut not rounded); ``unknown`` when not known.

    The one duration formatter of the console: job and pipeline durations in tables, headers and
    details, queue times, and log sections in the viewer.
    """
    if seconds is None:
        return unknown
    total = int(seconds)
    hours, rest = divmod(total, 3600)
    minutes, secs = divmod(rest, 60)
    if hours:
        return f"{hours}h{minutes:02d}m"
    if minutes:
        return f"{minutes}m{secs:02d}s"
    return f"{secs}s"
