"""Why a job is pending: every branch of the pure explanation, with times from the server's clock."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from labdeck.triage.pending import JobFacts, RunnerFacts, age, availability, explain_pending

# The server's clock: deliberately far from the machine's, so a local-clock slip would show.
NOW = datetime(2019, 3, 4, 12, 0, tzinfo=UTC)


def runner(rid: int, description: str, tags: tuple[str, ...] = (), *, shared: bool = False, active: bool = True,
           contacted: timedelta | None = timedelta(seconds=5), untagged: bool | None = True, busy: int | None = 0,
           access_level: str = "not_protected", online: bool | None = None) -> RunnerFacts:
    contacted_at = NOW - contacted if contacted is not None else None
    if online is None and contacted_at is not None:
        online = NOW - contacted_at < timedelta(hours=1)
    status = "paused" if not active else ("online" if online else ("not_connected" if contacted_at is None else "offline"))
    return RunnerFacts(rid, description, is_shared=shared, active=active, online=online, status=status,
                       contacted_at=contacted_at, tag_list=tags, run_untagged=untagged, access_level=access_level,
                       running_jobs=busy)


MACOS = runner(7, "macos-builder", ("macos", "xcode"), contacted=timedelta(days=9, hours=3), untagged=False)
MACOS_2 = runner(11, "mac-mini", ("macos",), active=False, untagged=False)
GPU = runner(5, "gpu-trainer", ("gpu", "cuda"), active=False, untagged=False)
BUILD = runner(4, "build-box-01", ("docker", "linux"))
SHARED = runner(1, "shared-docker-01", ("docker", "linux"), shared=True)
DEPLOY = runner(6, "deploy-production", ("deploy",), access_level="ref_protected", untagged=False)


def job(tags: tuple[str, ...] | None = (), status: str = "pending", **kwargs: object) -> JobFacts:
    return JobFacts(42, status, name="build", tags=tags, ref=str(kwargs.get("ref", "main")),
                    protected_ref=kwargs.get("protected_ref"))  # type: ignore[arg-type]


def test_no_online_runner_with_the_tags_names_each_and_how_long_it_is_gone() -> None:
    answer = explain_pending(job(("macos",)), [MACOS, MACOS_2, GPU], now=NOW)
    assert answer.reason == "none_online" and answer.is_problem
    assert answer.headline == ("no online runner has tags [macos] — `macos-builder` (tags macos, xcode) is "
                               "offline since 9d; `mac-mini` (tags macos) is paused")
    assert answer.candidates == (7, 11)
    assert "`gpu-trainer` (specific, tags gpu, cuda) is paused; lacks a tag the job needs" in answer.details


def test_runners_that_refuse_untagged_jobs() -> None:
    answer = explain_pending(job(()), [MACOS, GPU], now=NOW)
    assert answer.reason == "untagged_refused"
    assert answer.headline.startswith("runners exist but do not run untagged jobs — `macos-builder`")


def test_shared_runners_disabled_when_only_shared_runners_would_match() -> None:
    answer = explain_pending(job(("docker",)), [GPU, SHARED], now=NOW, shared_runners_enabled=False)
    assert answer.reason == "shared_disabled"
    assert answer.headline == "shared runners disabled for this project — `shared-docker-01` would take the job"
    assert answer.candidates == (1,)
    # With shared runners enabled the same runner simply takes it.
    assert explain_pending(job(("docker",)), [GPU, SHARED], now=NOW, shared_runners_enabled=True).reason == "waiting"


def test_all_matching_runners_busy() -> None:
    busy_build = runner(4, "build-box-01", ("docker", "linux"), busy=2)
    busy_shared = runner(1, "shared-docker-01", ("docker", "linux"), shared=True, busy=1)
    answer = explain_pending(job(("docker",)), [busy_build, busy_shared, GPU], now=NOW)
    assert answer.reason == "all_busy"
    assert answer.headline == "all matching runners busy — `build-box-01` is running 2; `shared-docker-01` is running 1"


def test_no_runner_at_all() -> None:
    answer = explain_pending(job(("docker",)), [], now=NOW, shared_runners_enabled=False)
    assert answer.reason == "no_runners"
    assert answer.headline == "no runner is available to this project at all"
    assert answer.details == ("shared runners are disabled for this project",)


def test_waiting_names_the_runner_that_will_take_it() -> None:
    answer = explain_pending(job(("docker",)), [GPU, BUILD], now=NOW)
    assert answer.reason == "waiting" and not answer.is_problem
    assert answer.headline == "waiting for a runner to pick it up (matching online runner: `build-box-01`)"
    busy_but_unknown = runner(4, "build-box-01", ("docker",), busy=None)  # load not readable: may be free
    assert explain_pending(job(("docker",)), [busy_but_unknown], now=NOW).reason == "waiting"


def test_no_runner_has_the_tags() -> None:
    answer = explain_pending(job(("arm64", "docker")), [BUILD, GPU], now=NOW)
    assert answer.reason == "no_tag_match"
    assert answer.headline == ("no runner has tags [arm64, docker] — `build-box-01` has tags docker, linux; "
                               "`gpu-trainer` has tags gpu, cuda")


def test_only_protected_ref_runners_match() -> None:
    answer = explain_pending(job(("deploy",), ref="feature-x", protected_ref=False), [DEPLOY, BUILD], now=NOW)
    assert answer.reason == "protected_only"
    assert answer.headline == ("only runners for protected refs match (`deploy-production`) and `feature-x` "
                               "is not protected")
    assert explain_pending(job(("deploy",), ref="main", protected_ref=True), [DEPLOY], now=NOW).reason == "waiting"


@pytest.mark.parametrize(("status", "reason"), [("created", "not_queued"), ("manual", "manual"),
                                                ("running", "not_pending"), ("success", "not_pending")])
def test_jobs_that_are_not_waiting_for_a_runner(status: str, reason: str) -> None:
    answer = explain_pending(job(("docker",), status=status), [BUILD], now=NOW)
    assert answer.reason == reason and not answer.is_problem


def test_unknown_job_tags_are_said_not_guessed() -> None:
    answer = explain_pending(job(None), [GPU, BUILD], now=NOW)
    assert answer.reason == "waiting"
    assert "the server does not report the job's tags: tag matching was not checked" in answer.details


def test_never_contacted_and_online_from_contact_time() -> None:
    fresh = RunnerFacts(3, "fresh", contacted_at=NOW - timedelta(minutes=59))
    stale = RunnerFacts(3, "stale", contacted_at=NOW - timedelta(minutes=61))
    never = RunnerFacts(9, "arm64-runner", status="not_connected")
    assert availability(fresh, NOW) is None
    assert availability(stale, NOW) == "offline since 1h"
    assert availability(never, NOW) == "never contacted"
    # A paused runner can still report online: it does not ask for work.
    assert availability(RunnerFacts(3, "p", active=False, online=True, status="paused"), NOW) == "paused"


def test_age_uses_the_given_clock() -> None:
    then = NOW - timedelta(days=9, hours=23)
    assert age(then, NOW) == "9d"
    assert age(NOW - timedelta(minutes=5, seconds=10), NOW) == "5m"
    assert age(NOW - timedelta(seconds=3), NOW) == "3s"
    assert age(NOW + timedelta(seconds=30), NOW) == "0s"  # a runner clock ahead of the server's


def test_markdown_rendering() -> None:
    text = explain_pending(job(("macos",)), [MACOS], now=NOW).to_markdown()
    assert text.splitlines()[0].startswith("no online runner has tags [macos]")
    assert text.splitlines()[1] == "- `macos-builder` (specific, tags macos, xcode) is offline since 9d"
