"""Verdicts, history, runner shares and clusters from job records (no server): the rules of issue 22,
with its hard cases."""

from __future__ import annotations

from typing import Any

from labdeck.api.models import Job
from labdeck.triage.collect import newest_failures
from labdeck.triage.history import job_history
from labdeck.triage.owners import owner, runner_shares
from labdeck.triage.report import Failure, cluster
from labdeck.triage.signature import read_log
from labdeck.triage.verdict import RETRY_HINT, decide

PULL = ('\x1b[31;1mERROR: Job failed: failed to pull image "registry.example.com/ci/builder:1.{n}" with specified '
        'policies [always]: Get "https://registry.example.com/v2/": dial tcp 10.20.{n}.4:443: i/o timeout\x1b[0;m\n')


def job(job_id: int, pipeline: int, status: str, *, name: str = "unit", ref: str = "main", sha: str | None = None,
        runner: tuple[int, str] | None = None, reason: str | None = None, title: str = "",
        author: str = "Alice", duration: float = 30.0) -> Job:
    sha = sha or f"{pipeline:040x}"
    body: dict[str, Any] = {
        "id": job_id, "name": name, "ref": ref, "status": status, "duration": duration,
        "pipeline": {"id": pipeline, "sha": sha, "ref": ref, "status": status},
        "commit": {"id": sha, "short_id": sha[:8], "title": title or f"commit {pipeline}", "author_name": author},
        "runner": {"id": runner[0], "description": runner[1]} if runner else None,
    }
    if reason:
        body["failure_reason"] = reason
    return Job.model_validate(body)


def test_system_failure_reason_is_infrastructure_before_anything_else() -> None:
    failed = job(3, 2, "failed", reason="runner_system_failure", runner=(7, "k8s-autoscaler"))
    verdict = decide(failed, [job(1, 1, "failed"), failed])
    assert verdict.kind == "infrastructure" and verdict.label == "infra"
    assert verdict.evidence == ("failure_reason runner_system_failure on runner k8s-autoscaler",)


def test_image_pull_in_the_log_of_a_script_failure_is_infrastructure() -> None:
    failed = job(3, 2, "failed", reason="script_failure")
    verdict = decide(failed, [failed], read_log(PULL.format(n=1)))
    assert verdict.kind == "infrastructure"
    assert verdict.reason == "image pull from registry.example.com failed"
    assert verdict.evidence[0].startswith('log line 1: ERROR: Job failed: failed to pull image "registry.example.com/')


def test_passed_on_retry_is_flaky() -> None:
    failed, retry = job(3, 2, "failed", sha="a" * 40), job(4, 2, "success", sha="a" * 40)
    verdict = decide(failed, [job(1, 1, "success"), failed, retry])
    assert verdict.kind == "flaky" and verdict.reason == "passed on retry"
    assert verdict.evidence == ("job #3 failed, its retry #4 passed on the same commit aaaaaaaa",)
    assert owner(verdict, failed, "group/app") == "group/app"


def test_flaky_history_makes_a_new_failure_flaky() -> None:
    history = [job(1, 1, "failed", sha="b" * 40), job(2, 1, "success", sha="b" * 40), job(3, 2, "success")]
    failed = job(5, 3, "failed")
    verdict = decide(failed, [*history, failed])
    assert verdict.kind == "flaky" and "both failed and passed on bbbbbbbb on main" in verdict.evidence[0]


def test_flaky_job_whose_retry_also_failed_is_not_called_flaky() -> None:
    # Flaky on main before (failed and passed on one commit), and now it failed again on its own retry.
    history = [job(1, 1, "failed", sha="b" * 40), job(2, 1, "success", sha="b" * 40)]
    first, retry = job(5, 3, "failed"), job(6, 3, "failed")
    verdict = decide(retry, [*history, first, retry])
    assert verdict.kind == "unknown" and verdict.reason == "failed again on retry, but flaky before"
    assert verdict.evidence[-1] == RETRY_HINT
    # Without the flaky history, failing on retry is a break.
    assert decide(retry, [job(1, 1, "success"), first, retry]).kind == "broken"


def test_break_names_the_first_failing_pipeline_after_the_last_green_run() -> None:
    runs = [job(1, 10, "success"), job(2, 11, "failed", title="Store notes in SQLite", author="Dave"),
            job(3, 12, "failed")]
    verdict = decide(runs[-1], runs)
    assert verdict.kind == "broken" and verdict.label == "broken since #11"
    assert verdict.first_failure is not None
    assert verdict.first_failure.as_json() == {"pipeline_id": 11, "sha": f"{11:040x}"[:8],
                                               "title": "Store notes in SQLite", "author": "Dave"}
    assert owner(verdict, runs[-1], "group/app") == "Dave"
    assert verdict.evidence[1] == f"first failed in #11 {f'{11:040x}'[:8]} “Store notes in SQLite” by Dave"


def test_break_with_no_green_run_before_it_has_no_first_failure() -> None:
    runs = [job(2, 11, "failed"), job(3, 12, "failed")]
    verdict = decide(runs[-1], runs)
    assert verdict.kind == "broken" and verdict.first_failure is None and verdict.label == "broken"
    assert verdict.evidence[1] == "no green run before it on main in the window: first failure unknown"


def test_single_new_failure_is_unknown_with_the_retry_hint() -> None:
    failed = job(1, 1, "failed")
    verdict = decide(failed, [failed])
    assert verdict.kind == "unknown" and verdict.label == "?" and verdict.reason == RETRY_HINT
    assert verdict.evidence == ("no earlier run of this job on main", RETRY_HINT)
    # One earlier green run is not enough to call it broken either.
    assert decide(failed, [job(0, 0, "success"), failed]).kind == "unknown"


def test_history_is_the_last_twenty_runs_drawn_newest_first_with_durations_in_the_same_order() -> None:
    jobs = [job(i, i, "success" if i % 3 else "failed", duration=60.0 + i) for i in range(1, 26)]
    jobs.append(job(100, 25, "success", duration=5.0))  # a retry: the run's newest attempt counts
    history = job_history(jobs, "unit", "main")
    assert len(history.runs) == 20 and history.runs[0].pipeline_id == 6
    # Newest first: pipeline 25 (its retry passed in 5s) is the first mark and the first duration.
    assert history.strip() == "✓✗✓✓✗✓✓✗✓✓✗✓✓✗✓✓✗✓✓✗"
    assert history.durations()[0] == "5s" and history.durations()[-1] == "1m06s"
    assert history.describe().endswith("(last 20 runs of unit on main, newest first)")
    assert history.runs[-1].passed_on_retry is False and history.runs[-1].attempts == 2


def test_newest_failures_skip_a_job_that_passed_in_a_later_pipeline() -> None:
    jobs = [job(1, 1, "failed"), job(2, 2, "success"),
            job(3, 1, "failed", name="lint"), job(4, 2, "failed", name="lint"),
            job(5, 2, "failed", name="docs", ref="feature")]
    chosen = newest_failures(jobs)
    assert [(j.name, j.id) for j in chosen] == [("docs", 5), ("lint", 4)]


def test_a_runner_failing_well_above_the_fleet_is_flagged() -> None:
    bad = (8, "k8s-autoscaler")
    jobs = [job(i, i, "failed" if i <= 5 else "success", runner=bad) for i in range(1, 9)]
    jobs += [job(100 + i, 100 + i, "failed" if i == 0 else "success", runner=(1, "shared-01")) for i in range(10)]
    shares = runner_shares(jobs)
    assert shares[8].describe() == "k8s-autoscaler: 5 of its last 8 jobs failed" and shares[8].flagged
    assert not shares[1].flagged
    # Two failures are not enough, however high the rate.
    few = runner_shares([job(1, 1, "failed", runner=bad), job(2, 2, "failed", runner=bad),
                         job(3, 3, "success", runner=(1, "shared-01"))])
    assert not few[8].flagged


def test_same_error_on_two_runners_in_two_projects_is_one_cluster() -> None:
    failures = []
    for index, (path, runner) in enumerate((("a/one", (1, "shared-01")), ("b/two", (2, "shared-02")))):
        failed = job(10 + index, 5, "failed", reason="script_failure", runner=runner)
        facts = read_log(PULL.format(n=index + 3))
        failures.append(Failure(path, index + 1, failed, decide(failed, [failed], facts), facts.signature))
    lone = job(20, 6, "failed")
    failures.append(Failure("c/three", 3, lone, decide(lone, [lone]), "E assert <n> == <n>"))
    clusters = cluster(failures)
    assert len(clusters) == 1
    assert clusters[0].projects == ["a/one", "b/two"] and clusters[0].job_ids == [10, 11]
    assert clusters[0].verdict == "infrastructure"
    assert clusters[0].title == "image pull from registry.example.com failed · 2 projects · infra"


def test_a_long_platform_line_is_evidence_whole_up_to_500_characters() -> None:
    """pip's network warnings run to 300 characters: the evidence is the whole line (a person reads
    which host and what failed), cut with an ellipsis only past 500."""
    dns = ("WARNING: Retrying (Retry(total=4, connect=None, read=None, redirect=None, status=None)) after connection "
           "broken by 'NewConnectionError('<pip._vendor.urllib3.connection.HTTPSConnection object at 0x7f3a2b1c>: "
           "Failed to establish a new connection: [Errno -3] Temporary failure in name resolution')': "
           "/simple/requests/")
    assert 250 < len(dns) < 500
    failed = job(3, 2, "failed")
    facts = read_log(f"$ pip install requests\n{dns}\nERROR: Job failed: exit code 1\n")
    assert facts.platform is not None and facts.platform.text == dns
    verdict = decide(failed, [failed], facts)
    assert verdict.kind == "infrastructure" and verdict.evidence == (f"log line 2: {dns}",)
    long = read_log(f"$ pip install requests\n{dns} {'x' * 600}\nERROR: Job failed: exit code 1\n")
    assert long.platform is not None and len(long.platform.text) == 500 and long.platform.text.endswith("…")
    assert long.platform.text.startswith(dns)
