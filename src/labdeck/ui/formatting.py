"""Small text helpers shared by every screen: relative times, counts, sizes.

They take the current time as an argument (the app's injectable clock) so that snapshots and
tests are deterministic.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime

Clock = Callable[[], datetime]
"""Returns the current time as an aware datetime; ``LabdeckApp.clock`` is one."""


def system_clock() -> datetime:
    """The real current time (UTC, aware)."""
    return datetime.now(UTC)


def relative_time(moment: datetime | None, now: datetime) -> str:
    """``"3 days ago"``-style age of ``moment`` as seen at ``now``; ``"—"`` when unknown."""
    if moment is None:
        return "—"
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    seconds = int((now - moment).total_seconds())
    future = seconds < 0
    seconds = abs(seconds)
    if seconds < 45:
        text = f"{seconds}s"
    elif seconds < 45 * 60:
        text = f"{round(seconds / 60) or 1}m"
    elif seconds < 22 * 3600:
        text = f"{round(seconds / 3600) or 1}h"
    elif seconds < 26 * 86400:
        text = f"{round(seconds / 86400) or 1}d"
    elif seconds < 320 * 86400:
        text = f"{round(seconds / (30 * 86400)) or 1}mo"
    else:
        text = f"{round(seconds / (365 * 86400)) or 1}y"
    return f"in {text}" if future else f"{text} ago"


def age(seconds: float | None) -> str:
    """Compact age for the status line: ``"<10s"``, ``"20s"``, ``"4m"``, ``"2h"``; ``"—"`` when unknown.

    Under a minute it moves in steps of ten seconds (never rounded up, so never fresher than the
    truth): a console left open repaints its status line six times a minute, not sixty.
    """
    if seconds is None:
        return "—"
    seconds = max(0, int(seconds))
    if seconds < 10:
        return "<10s"
    if seconds < 60:
        return f"{seconds // 10 * 10}s"
    if seconds < 3600:
        return f"{seconds // 60}m"
    return f"{seconds // 3600}h"


def count(value: int | None) -> str:
    """An integer for a table cell: ``1234`` → ``"1.2k"`` past 9,999; ``"—"`` when absent."""
    if value is None:
        return "—"
    if value >= 10_000:
        return f"{value / 1000:.0f}k"
    return str(value)


def size(value: int | None) -> str:
    """A byte count with a binary unit (``"3.4 MiB"``); ``"—"`` when absent."""
    if value is None:
        return "—"
    amount = float(value)
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if amount < 1024 or unit == "TiB":
            return f"{amount:.0f} {unit}" if unit == "B" else f"{amount:.1f} {unit}"
        amount /= 1024
    return f"{amount:.1f} TiB"
