"""``labdeck triage`` is never silent (issue 28): a log that could not be read is an ``unknown``
verdict with its reason, a problem, and a nonzero exit (stdout still valid JSON); a refused token or a
server that is down is one line and no "No failures" table; ``--since`` refuses what overflows.
Over real HTTP against the simulator, with the fault switch in front where a read must fail."""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest

from labdeck.api import ApiClient
from labdeck.api.retry import RetryPolicy
from labdeck.base.secret import Secret
from labdeck.commands import cli
from labdeck.sim.dataset.build import DEMO_TOKENS
from labdeck.sim.server import SimServer
from labdeck.triage.collect import Triager
from tests.sim.helpers import advance, pipeline, quiet
from tests.support.fault_switch import FaultSwitch

ADMIN = DEMO_TOKENS["admin"]
PROJECT = (2, "platform/auth-service")


def _failing_project(server: SimServer, **job: object) -> str:
    quiet(server)
    spec = {"name": "unit", "tags": ["docker"], "fail": True, "duration": 20, "script_lines": ["pytest -q"], **job}
    pipeline(server, PROJECT[0], [{"name": "test", "jobs": [spec]}])
    advance(server, 600)
    return PROJECT[1]


def test_a_log_answered_with_500_is_unknown_with_its_reason_a_problem_and_exit_1(
        sim_factory: Callable[..., SimServer], monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    server = sim_factory()
    path = _failing_project(server)
    monkeypatch.setenv("LABDECK_TOKEN", ADMIN)
    with FaultSwitch(server.base_url) as switch:
        switch.set("server_error", only="/trace")
        code = cli.main(["triage", "--url", switch.url, "--json", path])
        out, err = capsys.readouterr()
        assert code == 1
        data = json.loads(out)  # still valid JSON
        unit = next(f for f in data["failures"] if f["job_name"] == "unit")
        assert unit["verdict"] == "unknown" and unit["reason"] == "log not read: 500"
        assert unit["log_problem"] == "500"
        assert any("log not read: 500" in problem and f"#{unit['job_id']}" in problem for problem in data["problems"])
        assert "log not read: 500" in err
        # The people's table says it too, beside the verdict.
        code = cli.main(["triage", "--url", switch.url, path])
        out, err = capsys.readouterr()
        assert code == 1 and "log not read: 500" in out and "log not read: 500" in err


async def test_a_25_mb_log_that_times_out_is_unknown_with_its_reason(sim_factory: Callable[..., SimServer]) -> None:
    server = sim_factory()
    path = _failing_project(server, trace_bytes=25 * 1024 * 1024)
    with FaultSwitch(server.base_url) as switch:
        switch.set("latency", seconds=3, only="/trace")
        async with ApiClient(switch.url, Secret(ADMIN), retry=RetryPolicy(budget=1.0, max_attempts=1)) as client:
            report = await Triager(client).round([(PROJECT[0], path)])
    unit = next(f for f in report.failures if f.job.name == "unit")
    assert unit.verdict.kind == "unknown" and unit.verdict.reason.startswith("log not read: no answer within")
    assert any("log not read" in problem for problem in report.problems)


def test_a_refused_token_is_one_line_and_no_table(sim: SimServer, monkeypatch: pytest.MonkeyPatch,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("LABDECK_TOKEN", "glpat-not-a-token-anyone-has")
    for projects in ([], ["platform/auth-service", "platform/api-gateway"]):
        code = cli.main(["triage", "--url", sim.base_url, *projects])
        out, err = capsys.readouterr()
        assert code == 1
        assert "No failures" not in out and out == ""
        assert err.count("\n") == 1 and "401" in err, err


def test_a_server_that_is_down_is_one_line_and_no_table(monkeypatch: pytest.MonkeyPatch,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("LABDECK_TOKEN", ADMIN)
    for projects in ([], ["platform/auth-service", "platform/api-gateway"]):
        code = cli.main(["triage", "--url", "http://127.0.0.1:9", *projects])
        out, err = capsys.readouterr()
        assert code == 1 and out == ""
        assert err.count("\n") == 1 and "Cannot reach the server" in err, err


@pytest.mark.parametrize("since", ["99999999d", "99999999999w"])
def test_since_refuses_what_overflows_in_one_line(since: str, monkeypatch: pytest.MonkeyPatch,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("LABDECK_TOKEN", ADMIN)
    code = cli.main(["triage", "--url", "http://127.0.0.1:9", "--since", since])
    out, err = capsys.readouterr()
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and "--since" in err and "Traceback" not in err


def test_the_report_is_not_formatted_when_the_event_loop_closes(sim_factory: Callable[..., SimServer],
                                                                 monkeypatch: pytest.MonkeyPatch,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    """Python 3.11's ``asyncio.run`` formats its main task (with the task's result) when it puts the
    Ctrl+C handler back: a round's whole report, every job of every page, took seconds to format
    at the end of each ``labdeck triage``. The round's report is never its main task's result."""
    from labdeck.triage.report import TriageReport

    formatted: list[str] = []
    monkeypatch.setattr(TriageReport, "__repr__", lambda self: formatted.append("report") or "TriageReport(…)")
    server = sim_factory()
    path = _failing_project(server)
    monkeypatch.setenv("LABDECK_TOKEN", ADMIN)
    assert cli.main(["triage", "--url", server.base_url, "--json", path]) == 0
    assert json.loads(capsys.readouterr().out)["failures"]
    assert formatted == []
