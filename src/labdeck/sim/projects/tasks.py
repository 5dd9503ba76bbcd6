"""Background work of the projects family (forks, exports, imports) driven by simulated time.

GitLab runs these in Sidekiq; the simulator records each step with the simulated moment it is due
and applies the due steps at the start of every request (through :meth:`SimState.add_ticker`), so
that a manual clock moves them only when it is advanced.
"""

from __future__ import annotations

import heapq
import itertools
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from labdeck.sim.core.state import SimState

# How long each asynchronous step takes, in simulated seconds.
FORK_START_AFTER = 1.0
FORK_FINISH_AFTER = 3.0
EXPORT_AFTER_ACTION_AFTER = 2.0
EXPORT_FINISH_AFTER = 3.0
IMPORT_START_AFTER = 1.0
IMPORT_FINISH_AFTER = 3.0

_KEY = "project_tasks"


@dataclass(order=True)
class _Step:
    due: datetime
    seq: int
    action: Callable[[], None] = field(compare=False)


class TaskQueue:
    """Steps ordered by the simulated time at which they happen."""

    def __init__(self) -> None:
        self._heap: list[_Step] = []
        self._counter = itertools.count()

    def schedule(self, due: datetime, action: Callable[[], None]) -> None:
        heapq.heappush(self._heap, _Step(due, next(self._counter), action))

    def run_due(self, now: datetime) -> None:
        """Apply, in order, every step due at or before ``now``."""
        while self._heap and self._heap[0].due <= now:
            heapq.heappop(self._heap).action()

    def __len__(self) -> int:
        return len(self._heap)


def tasks(state: SimState) -> TaskQueue:
    """The state's task queue, created (and registered as a ticker) on first use."""
    queue = state.extra.get(_KEY)
    if not isinstance(queue, TaskQueue):
        queue = TaskQueue()
        state.extra[_KEY] = queue
        state.add_ticker(queue.run_due)
    return queue


def after(state: SimState, seconds: float, action: Callable[[], None]) -> None:
    """Run ``action`` once simulated time is ``seconds`` past now."""
    tasks(state).schedule(state.now() + timedelta(seconds=seconds), action)
