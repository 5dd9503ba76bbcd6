"""The on-call board's core, without any UI: pipelines derived from jobs, the watched set, the one
shared poller, and alerts (with the exact terminal strings they write).

Typical wiring (the UI does this once per session, on the app, so it survives screen changes)::

    watched = WatchedSet(client, WatchStore(StateStore(), client.base_url))
    poller = BoardPoller(client, PollerSettings.from_config(config.board))
    alerts = AlertEngine(AlertLog(), on_alert=show_and_ring)
    poller.add_alerts(alerts)
    board = poller.subscribe_board(on_board, watched=watched, visible=False)
    app.run_worker(poller.run(), group="poller", exclusive=True)

No Textual or Rich import is allowed here (``tests/test_shape.py``).
"""

from __future__ import annotations

from labdeck.watch.alerts import (
    Alert,
    AlertChannels,
    AlertEngine,
    AlertLog,
    WatchTarget,
    terminal_output,
    title_output,
)
from labdeck.watch.budget import PollStats, RequestBudget
from labdeck.watch.clock import ServerClock
from labdeck.watch.pipelines import PipelineRow, derive_pipelines, sort_by_attention
from labdeck.watch.poller import BoardPoller
from labdeck.watch.settings import PollerSettings
from labdeck.watch.snapshots import (
    BoardSnapshot,
    Freshness,
    ProjectsSnapshot,
    ProjectStatus,
    RunningJob,
    RunningNowSnapshot,
)
from labdeck.watch.subscriptions import BoardSubscription, ProjectsSubscription, RunningNowSubscription
from labdeck.watch.watched import WatchedProject, WatchedProjects, WatchedSet, WatchStore

__all__ = [
    "Alert", "AlertChannels", "AlertEngine", "AlertLog", "BoardPoller", "BoardSnapshot", "BoardSubscription",
    "Freshness", "PipelineRow", "PollStats", "PollerSettings", "ProjectStatus", "ProjectsSnapshot",
    "ProjectsSubscription", "RequestBudget", "RunningJob", "RunningNowSnapshot", "RunningNowSubscription",
    "ServerClock", "WatchStore", "WatchTarget", "WatchedProject", "WatchedProjects", "WatchedSet",
    "derive_pipelines", "sort_by_attention", "terminal_output", "title_output",
]
