"""The on-call board's core, without any UI: pipelines derived from jobs, the watched set, the one
shared poller, and alerts (with the exact terminal strings they write).

Wiring (once per session, on the app, so it all survives screen changes)::

    store = WatchStore(StateStore(), client.base_url)           # `w` and `:board group:<path>`
    watched = WatchedSet(client, store)                         # + starred projects
    poller = BoardPoller(client, PollerSettings.from_config(config.board))
    channels = AlertChannels.from_settings(config.alerts, interactive=not app.is_headless)
    alerts = AlertEngine(AlertLog(), on_alert=deliver)          # deliver: toast + terminal_output()
    poller.add_alerts(alerts)
    board = poller.subscribe_board(on_board, watched=watched, visible=False)
    table = poller.subscribe_projects(on_ci_column, visible_rows, visible=False)
    app.run_worker(poller.run(), group="poller", exclusive=True)   # poller.stop() to end

A screen calls ``sub.set_visible(True/False)`` on show/hide (hidden: not read, no callbacks;
alert targets are read regardless); the projects table calls ``table.set_projects(rows)`` as it
scrolls; after ``store.toggle(...)`` the board calls ``board.changed()``. Callbacks run on the
loop that runs ``poller.run()`` (the app's, in an async worker) and receive immutable snapshots.
The status line shows ``poller.freshness().label`` ("data 4s"), amber when ``.is_stale``.
Terminal escapes (:func:`terminal_output`, :func:`title_output`) are written the way Textual's
own ``App.bell`` does: ``app._driver.write(text)`` unless ``app.is_headless``.

No Textual or Rich import is allowed here (``tests/test_shape.py``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from labdeck.base.lazy import lazy_exports

if TYPE_CHECKING:
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

# The names are read from their modules when first asked for: a command that needs one module
# (``labdeck triage`` reads the watched set) does not import the poller, alerts and snapshots.
_HOMES: dict[str, str] = {
    "Alert": "alerts",
    "AlertChannels": "alerts",
    "AlertEngine": "alerts",
    "AlertLog": "alerts",
    "BoardPoller": "poller",
    "BoardSnapshot": "snapshots",
    "BoardSubscription": "subscriptions",
    "Freshness": "snapshots",
    "PipelineRow": "pipelines",
    "PollStats": "budget",
    "PollerSettings": "settings",
    "ProjectStatus": "snapshots",
    "ProjectsSnapshot": "snapshots",
    "ProjectsSubscription": "subscriptions",
    "RequestBudget": "budget",
    "RunningJob": "snapshots",
    "RunningNowSnapshot": "snapshots",
    "RunningNowSubscription": "subscriptions",
    "ServerClock": "clock",
    "WatchStore": "watched",
    "WatchTarget": "alerts",
    "WatchedProject": "watched",
    "WatchedProjects": "watched",
    "WatchedSet": "watched",
    "derive_pipelines": "pipelines",
    "sort_by_attention": "pipelines",
    "terminal_output": "alerts",
    "title_output": "alerts",
}


__getattr__ = lazy_exports(__name__, _HOMES, globals())


__all__ = [
    "Alert", "AlertChannels", "AlertEngine", "AlertLog", "BoardPoller", "BoardSnapshot", "BoardSubscription",
    "Freshness", "PipelineRow", "PollStats", "PollerSettings", "ProjectStatus", "ProjectsSnapshot",
    "ProjectsSubscription", "RequestBudget", "RunningJob", "RunningNowSnapshot", "RunningNowSubscription",
    "ServerClock", "WatchStore", "WatchTarget", "WatchedProject", "WatchedProjects", "WatchedSet",
    "derive_pipelines", "sort_by_attention", "terminal_output", "title_output",
]
