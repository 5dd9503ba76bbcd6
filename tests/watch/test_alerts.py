"""Alert rules: once per transition, never for the state at watch time, retries followed; the
alert log; the channels (silent in tests unless enabled) and the exact terminal output."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

from labdeck.api.models import Job
from labdeck.base.config import AlertSettings
from labdeck.base.statefile import StateStore
from labdeck.watch.alerts import (
    Alert,
    AlertChannels,
    AlertEngine,
    AlertLog,
    WatchTarget,
    terminal_output,
    title_output,
)
from labdeck.watch.pipelines import PipelineRow, derive_pipelines
from tests.watch.helpers import T0, job

ESC, BEL = "\x1b", "\x07"


def rows(*jobs: Job) -> list[PipelineRow]:
    return derive_pipelines(7, "platform/api", jobs, now=T0 + timedelta(hours=1))


def engine() -> tuple[AlertEngine, list[Alert]]:
    fired: list[Alert] = []
    return AlertEngine(AlertLog(), on_alert=fired.append), fired


def test_job_alert_fires_once_when_it_fails() -> None:
    alerts, fired = engine()
    running = job(11, "unit-tests", "running", pipeline=5)
    alerts.watch(WatchTarget.for_job(7, "platform/api", running))
    alerts.observe(7, rows(running), T0)
    assert fired == []
    failed = rows(job(11, "unit-tests", "failed", pipeline=5))
    for _ in range(3):  # every poll sees it failed: one alert
        alerts.observe(7, failed, T0)
    assert [(a.event, a.title, a.body) for a in fired] == [("failed", "✗ job failed", "platform/api #5 unit-tests")]
    assert alerts.failing() == 1 and len(alerts.log.entries) == 1


def test_a_job_already_failed_when_watched_does_not_alert_until_it_fails_again() -> None:
    alerts, fired = engine()
    failed = job(11, "unit-tests", "failed", pipeline=5)
    alerts.watch(WatchTarget.for_job(7, "platform/api", failed))
    alerts.observe(7, rows(failed), T0)
    assert fired == []
    # Retried (a new job id) and failing again: the same target, a new transition.
    alerts.observe(7, rows(failed, job(12, "unit-tests", "failed", pipeline=5)), T0)
    assert [(a.event, a.job_id) for a in fired] == [("failed", 12)]


def test_job_finishing_successfully_after_a_retry() -> None:
    alerts, fired = engine()
    failed = job(11, "e2e", "failed", pipeline=5)
    alerts.watch(WatchTarget.for_job(7, "platform/api", failed))
    alerts.observe(7, rows(failed, job(12, "e2e", "running", pipeline=5)), T0)
    assert alerts.failing() == 0
    alerts.observe(7, rows(failed, job(12, "e2e", "success", pipeline=5)), T0)
    assert [(a.event, a.title) for a in fired] == [("finished", "✓ job passed")]


def test_pipeline_alert_on_failure_then_not_again_when_it_finishes() -> None:
    alerts, fired = engine()
    start = rows(job(1, "build", "success", pipeline=5), job(2, "lint", "running", pipeline=5),
                 job(3, "unit", "running", pipeline=5))
    alerts.watch(WatchTarget.for_pipeline(start[0]), start)
    failing = rows(job(1, "build", "success", pipeline=5), job(2, "lint", "failed", pipeline=5),
                   job(3, "unit", "running", pipeline=5))
    alerts.observe(7, failing, T0)
    done = rows(job(1, "build", "success", pipeline=5), job(2, "lint", "failed", pipeline=5),
                job(3, "unit", "success", pipeline=5))
    alerts.observe(7, done, T0)
    assert [(a.event, a.title, a.body) for a in fired] == [("failed", "✗ pipeline failed", "platform/api #5 · lint")]


def test_pipeline_alert_when_it_passes() -> None:
    alerts, fired = engine()
    start = rows(job(1, "build", "running", pipeline=5))
    alerts.watch(WatchTarget.for_pipeline(start[0]), start)
    alerts.observe(7, rows(job(1, "build", "success", pipeline=5), job(2, "deploy", "manual", pipeline=5)), T0)
    alerts.observe(7, rows(job(1, "build", "success", pipeline=5), job(2, "deploy", "manual", pipeline=5)), T0)
    assert [(a.event, a.status) for a in fired] == [("finished", "manual")]


def test_project_alert_on_each_new_failure_only() -> None:
    alerts, fired = engine()
    old = job(1, "lint", "failed", pipeline=4)
    alerts.watch(WatchTarget.for_project(7, "platform/api"))
    alerts.observe(7, rows(old), T0)  # baseline: already failed, no alert
    alerts.observe(7, rows(old, job(2, "unit", "running", pipeline=5)), T0)
    alerts.observe(7, rows(old, job(2, "unit", "failed", pipeline=5)), T0)
    alerts.observe(7, rows(old, job(2, "unit", "failed", pipeline=5)), T0)
    assert [(a.event, a.title, a.pipeline_id) for a in fired] == [("new_failure", "✗ new failure in platform/api", 5)]
    # The failed pipeline is retried (recovers) and fails again: a new failure.
    alerts.observe(7, rows(old, job(2, "unit", "failed", pipeline=5), job(3, "unit", "running", pipeline=5)), T0)
    alerts.observe(7, rows(old, job(2, "unit", "failed", pipeline=5), job(3, "unit", "failed", pipeline=5)), T0)
    assert [a.pipeline_id for a in fired] == [5, 5]


def test_unwatch_and_toggle() -> None:
    alerts, fired = engine()
    target = WatchTarget.for_project(7, "platform/api")
    assert alerts.toggle(target) is True and alerts.project_ids() == {7}
    assert alerts.toggle(target) is False and alerts.project_ids() == frozenset()
    alerts.observe(7, rows(job(2, "unit", "failed", pipeline=5)), T0)
    assert fired == []


def test_the_log_survives_a_restart_only_when_asked(tmp_path: Path) -> None:
    store = StateStore(tmp_path / "state.json")
    store.update(history=["board"])
    kept = AlertLog(store=store, instance_url="https://gitlab.example.com/")
    alerts = AlertEngine(kept)
    running = job(11, "unit-tests", "running", pipeline=5)
    alerts.watch(WatchTarget.for_job(7, "platform/api", running))
    alerts.observe(7, rows(job(11, "unit-tests", "failed", pipeline=5)), T0)
    again = AlertLog(store=store, instance_url="https://gitlab.example.com")
    assert [(a.event, a.target.job_name) for a in again.entries] == [("failed", "unit-tests")]
    assert store.load()["history"] == ["board"]
    assert AlertLog().entries == ()


def test_channels_are_off_in_tests_unless_enabled() -> None:
    assert AlertChannels.from_settings(AlertSettings(), interactive=False) == AlertChannels()
    on = AlertChannels.from_settings(AlertSettings(), interactive=True)
    assert (on.toast, on.bell, on.desktop, on.title) == (True, True, True, True)
    chosen = AlertChannels.from_settings(AlertSettings(bell=True, desktop=False, notify="osc777"), interactive=False)
    assert (chosen.toast, chosen.bell, chosen.desktop, chosen.title, chosen.notify) == (False, True, False, False, "osc777")
    off = AlertChannels.from_settings(AlertSettings(bell=False), interactive=True)
    assert off.bell is False and off.desktop is True


def test_terminal_output_exact_and_inert_for_hostile_names() -> None:
    alerts, fired = engine()
    evil = "unit\x1b]2;owned\x07\x1b[2J"
    running = job(11, evil, "running", pipeline=5)
    alerts.watch(WatchTarget.for_job(7, "platform/api\x1b[31m", running))
    alerts.observe(7, rows(job(11, evil, "failed", pipeline=5)), T0)
    channels = AlertChannels(bell=True, desktop=True, notify="both")
    out = terminal_output(fired[0], channels, {})
    shown = "platform/api [31m #5 unit ]2;owned [2J"  # every ESC and BEL became a space
    assert out == (f"{BEL}{ESC}]9;✗ job failed: {shown}{BEL}"
                   f"{ESC}]777;notify;✗ job failed;{shown.replace(';', ',')}{BEL}")
    tmux = terminal_output(fired[0], AlertChannels(desktop=True, notify="osc9"), {"TMUX": "/tmp/t,1,0"})
    assert tmux == f"{ESC}Ptmux;{ESC}{ESC}]9;✗ job failed: platform/api [31m #5 unit ]2;owned [2J{BEL}{ESC}\\"
    assert terminal_output(fired[0], AlertChannels(), {}) == ""
    assert title_output(2, AlertChannels(title=True)) == f"{ESC}]2;✗ 2 failed · labdeck{BEL}"
    assert title_output(2, AlertChannels()) == ""


def test_an_older_reading_than_the_watch_is_not_news() -> None:
    alerts, fired = engine()
    # The jobs screen already shows it failed; the poller's last reading still says running.
    failed = job(11, "unit-tests", "failed", pipeline=5)
    alerts.watch(WatchTarget.for_job(7, "platform/api", failed))
    alerts.observe(7, rows(job(11, "unit-tests", "running", pipeline=5)), T0)
    alerts.observe(7, rows(failed), T0)
    assert fired == []


def test_a_retry_in_a_failed_pipeline_is_not_a_second_failure() -> None:
    alerts, fired = engine()
    start = rows(job(1, "lint", "running", pipeline=5), job(2, "unit", "running", pipeline=5))
    alerts.watch(WatchTarget.for_pipeline(start[0]), start)
    alerts.observe(7, rows(job(1, "lint", "failed", pipeline=5), job(2, "unit", "failed", pipeline=5)), T0)
    alerts.observe(7, rows(job(1, "lint", "failed", pipeline=5), job(2, "unit", "failed", pipeline=5),
                           job(3, "unit", "pending", pipeline=5)), T0)  # one retried, the other still failed
    alerts.observe(7, rows(job(1, "lint", "failed", pipeline=5), job(2, "unit", "failed", pipeline=5),
                           job(3, "unit", "success", pipeline=5)), T0)
    assert [a.event for a in fired] == ["failed"]


def test_a_new_target_on_an_already_read_project_gets_its_baseline_first() -> None:
    alerts, fired = engine()
    current = rows(job(4, "lint", "failed", pipeline=4), job(5, "unit", "running", pipeline=5))
    alerts.watch(WatchTarget.for_job(7, "platform/api", job(5, "unit", "running", pipeline=5)))
    alerts.observe(7, current, T0)
    alerts.watch(WatchTarget.for_project(7, "platform/api"))  # no rows given: baseline at the next reading
    alerts.observe(7, current, T0)
    alerts.observe(7, rows(job(4, "lint", "failed", pipeline=4), job(5, "unit", "failed", pipeline=5)), T0)
    assert sorted((a.target.kind, a.event) for a in fired) == [("job", "failed"), ("project", "new_failure")]


def test_a_played_manual_job_is_followed_to_its_end() -> None:
    alerts, fired = engine()
    manual = job(5, "deploy", "manual", pipeline=5)
    start = rows(job(4, "build", "success", pipeline=5), manual)
    alerts.watch(WatchTarget.for_job(7, "platform/api", manual))
    alerts.watch(WatchTarget.for_pipeline(start[0]), start)
    alerts.observe(7, rows(job(4, "build", "success", pipeline=5), job(5, "deploy", "running", pipeline=5)), T0)
    alerts.observe(7, rows(job(4, "build", "success", pipeline=5), job(5, "deploy", "success", pipeline=5)), T0)
    assert sorted((a.target.kind, a.event, a.status) for a in fired) == [("job", "finished", "success"),
                                                                         ("pipeline", "finished", "success")]
