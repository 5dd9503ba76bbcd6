"""What the board's poller plans in a step: work items ranked by lane, and the constants that pace
them (split out of :mod:`labdeck.watch.poller`)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from labdeck.watch.tracking import COLD, ERROR, HOT, SLOW, ProjectTrack

_LANE_RANK = {HOT: 4, SLOW: 5, ERROR: 7, COLD: 8}
_BACKGROUND = 6
_OVERDUE = 2.5
"""Rank of a project its rotation period has come round for: before busy ones, so that projects
with running jobs cannot starve the quiet ones (five running projects once took the whole budget)."""
FAILING_EVERY = 25.0
"""Seconds between reads of a project whose newest pipeline is broken (within the busy share;
not where GraphQL batches confirm them every round)."""
PROGRESS_EVERY = 0.5
"""Seconds (real time) between two snapshots sent while a step's reads are still under way: rows
show as their pages arrive (at 3 s a request, not when the slowest read of the step ends), and a
300-project start-up is not one board rebuild per project."""
DETACHED = frozenset({"activity", "runners"})
"""Work that does not hold up a step in the live loop: the change check (several pages, the
pipelines-API question) and the running-now strip (one read per runner) can take many round trips;
a step that waited for them showed no row before they ended (36 s at 3 s a request)."""
MOVED_RANK = 2.4
"""Rank of a project a change source saw move since its last read: after the watched listing and
alert targets, before projects the rotation has come round for (:data:`_OVERDUE`)."""
PROGRESS_RANK = 3.5
"""Rank of a project whose move was only progress (a GraphQL batch saw its running count move):
after the change check (which finds the moves that may show a failure), before the busy projects'
own rounds. Where the running counts of twenty busy monorepos move at every check, their reads
took the budget before the next check, which then came every 16 s instead of 5, and a deep
failure waited up to 44 s."""
URGENT_KINDS = frozenset({"activity", "runners"})
"""The change sources (the activity list and GraphQL batches; the runners' job lists)."""


def lane_rank(track: ProjectTrack) -> float:
    """Where a project due now goes in the step's plan. A broken pipeline's project is due at its
    own (failing) cadence and its row promises that freshness: it ranks with the busy ones, not
    with the cold sweep, which counts as background and waits for a reserve the steady reads never
    leave (its rows went 30-120 s old while a third of the budget was unused)."""
    rank = _LANE_RANK.get(track.lane, 8)
    return min(rank, _LANE_RANK[HOT]) if track.failing else rank


ROTATION_SHARE = 0.5
"""Share of the budget left after the change check that the fair rotation may use; the busy
projects are capped at the rest."""


@dataclass
class _Work:
    rank: tuple[float, ...]
    kind: str
    run: Callable[[], Awaitable[None]]
    startup: bool = False
    track: ProjectTrack | None = None

    @property
    def background(self) -> bool:
        """Work that can wait while the budget is tight (the running-now strip, retries of refused
        projects, the sweep)."""
        return self.rank[0] >= _BACKGROUND

    @property
    def urgent(self) -> bool:
        """A change source, or the read of a project one saw move since its last read (a push, a
        job that stopped, the console's own action): these take the places of the minute's window
        the other reads leave (:attr:`~labdeck.watch.budget.RequestBudget.check_room`). Where the
        board's reads fill the minute, a push seen at the check's cadence was read 22 s late."""
        if self.kind in URGENT_KINDS:
            return True
        return self.track is not None and self.track.move_unread()
