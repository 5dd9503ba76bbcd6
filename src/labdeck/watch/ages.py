"""How old each board row is, and when it is too old to trust.

A row is as old as its project's last successful read (the poller's clock). Rows that can change
any second (failed, running, pending) are stale past :data:`LIVE_LIMIT`; the others past
:data:`QUIET_LIMIT`. Both grow when the budget cannot read that often (many busy projects, or
more projects than the rotation reads in five minutes): stale means "older than the board
promises", never a fixed number the budget cannot keep. A pending row whose jobs have waited long
(a runner offline: the poller's ``slow`` lane, read every ``slow_interval``) may be as old as that
pace allows: it flipped the header to ``stale`` once a minute (``oldest 36–57s``) on a quiet board.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from labdeck.watch.pipelines import FAILED, PENDING, RUNNING, PipelineRow

LIVE_LIMIT = 30.0
"""Seconds a failed, running or pending row may be old (with the default budget)."""
QUIET_LIMIT = 300.0
"""Seconds any other row may be old (with the default budget)."""
_LIVE = frozenset({FAILED, RUNNING, PENDING})


def short(seconds: float) -> str:
    """``8s``, ``4m``, ``2h`` (whole units, rounded down)."""
    whole = max(0, int(seconds))
    for size, unit in ((3600, "h"), (60, "m")):
        if whole >= size:
            return f"{whole // size}{unit}"
    return f"{whole}s"


@dataclass(frozen=True)
class RowAges:
    """Ages of board rows at one moment (``now`` and ``read_at`` on the poller's clock)."""

    now: float
    read_at: Mapping[int, float | None]
    """Project id → when it was last read successfully (None: never)."""
    live_limit: float = LIVE_LIMIT
    quiet_limit: float = QUIET_LIMIT
    slow: frozenset[int] = frozenset()
    """Projects whose unfinished jobs are stuck (read at the slow pace): their pending rows allow
    :attr:`slow_limit`."""
    slow_limit: float = LIVE_LIMIT
    failed_limit: float | None = None
    """How old a failed row may be when its project is read at its own (failing) cadence, faster
    than busy ones slowed to the runners' lists' pace (None: :attr:`live_limit`)."""

    def age(self, row: PipelineRow) -> float | None:
        """Seconds since the row's project was last read (None: never read)."""
        moment = self.read_at.get(row.project_id)
        return None if moment is None else max(0.0, self.now - moment)

    def limit(self, row: PipelineRow) -> float:
        """How old the row may be before it is stale."""
        if row.status not in _LIVE:
            return self.quiet_limit
        if row.status == FAILED and self.failed_limit is not None:
            return self.failed_limit
        if row.status == PENDING and row.project_id in self.slow:
            return max(self.live_limit, self.slow_limit)
        return self.live_limit

    def stale(self, row: PipelineRow) -> bool:
        """True when the row is older than its class allows."""
        age = self.age(row)
        return age is not None and age > self.limit(row)

    def oldest(self, rows: Iterable[PipelineRow]) -> float | None:
        """The oldest age among ``rows`` (None when there is none)."""
        ages = [age for row in rows if (age := self.age(row)) is not None]
        return max(ages) if ages else None

    def label(self, rows: Iterable[PipelineRow]) -> str:
        """Status-line text: ``oldest 4m`` (``oldest <10s`` while every row is that fresh)."""
        oldest = self.oldest(rows)
        if oldest is None:
            return "oldest —"
        return "oldest <10s" if oldest < 10 else f"oldest {short(oldest)}"
