"""The audit file itself: rotation, reading back (merge by id, damaged lines), what a path says about
an action, and ``labdeck audit`` (table, ``--json``, ``--since``, ``--profile``)."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from labdeck.api.recorder import READ_METHODS, record_answer
from labdeck.api.retry import IDEMPOTENT_METHODS
from labdeck.audit.log import AuditLog, AuditTarget, rotated_path
from labdeck.audit.read import parse_since, read_audit, read_audit_file
from labdeck.audit.shape import field_names, infer_from_path, request_values
from labdeck.base import paths
from labdeck.commands import cli

NOW = datetime(2024, 5, 1, 12, 0, tzinfo=UTC)


class FakeResponse:
    def __init__(self, status: int, body: bytes = b"", date: str | None = "Wed, 01 May 2024 12:00:03 GMT") -> None:
        self.status_code = status
        self.content = body
        self.headers = {"date": date} if date else {}


def _log(clock: list[datetime], **kwargs: Any) -> AuditLog:
    return AuditLog("https://gitlab.example.com", clock=lambda: clock[0], **kwargs)


def test_reads_are_never_recorded_and_match_the_engine() -> None:
    assert READ_METHODS == IDEMPOTENT_METHODS


@pytest.mark.parametrize(("method", "path", "action", "target"), [
    ("POST", "/api/v4/projects/g%2Fp/jobs/12/cancel", "jobs.cancel", AuditTarget(project="g/p", job=12)),
    ("POST", "/api/v4/projects/5/jobs/12/artifacts/keep", "jobs.artifacts.keep", AuditTarget(project=5, job=12)),
    ("PUT", "/api/v4/runners/5", "runners.update", AuditTarget(runner=5)),
    ("DELETE", "/api/v4/projects/5", "projects.delete", AuditTarget(project=5)),
    ("POST", "/api/v4/projects/5/archive", "projects.archive", AuditTarget(project=5)),
    ("POST", "/api/v4/projects/5/hooks", "hooks.create", AuditTarget(project=5)),
    ("DELETE", "/api/v4/projects/5/runners/7", "runners.delete", AuditTarget(project=5, runner=7)),
    ("PUT", "/api/v4/projects/5/services/chat-b", "services.update", AuditTarget(project=5, name="chat-b")),
    ("DELETE", "/api/v4/projects/5/protected_branches/release%2A", "protected_branches.delete",
     AuditTarget(project=5, name="release*")),
    ("POST", "/api/v4/projects/5/issues/3/move", "issues.move", AuditTarget(project=5, issue=3)),
    ("POST", "/api/v4/projects", "projects.create", AuditTarget()),
    ("PUT", "/gitlab/api/v4/notification_settings", "notification_settings.update", AuditTarget()),
    ("DELETE", "/api/v4/groups/4/badges/2", "badges.delete", AuditTarget(group=4, name="badge 2")),
])
def test_action_and_target_from_the_path(method: str, path: str, action: str, target: AuditTarget) -> None:
    assert infer_from_path(method, path) == (action, target)


def test_field_names_never_values() -> None:
    names = field_names(data={"password": "hunter22", "tag_list[]": ["a"]}, json_body={"token": "t0ken"},
                        params={"private_token": "x"}, files=lambda: {})
    assert names == ["password", "tag_list[]", "token", "private_token", "(files)"]
    # Values are collected only to be masked out of server messages; flags stay readable.
    assert request_values({"active": "false", "token": "abcd1234", "ids": ["12345", 7]}) == {"abcd1234", "12345"}


def test_the_two_lines_merge_and_a_lost_answer_shows(tmp_path: Path) -> None:
    clock = [NOW]
    log = _log(clock, path=tmp_path / "audit.jsonl")
    log.bind(profile="prod", user="alice")
    with log.context(action="jobs.erase", target=AuditTarget(project="g/p", job=9), confirmation="typed:9"):
        first = log.begin("POST", "/api/v4/projects/3/jobs/9/erase", data=None)
        second = log.begin("POST", "/api/v4/projects/3/jobs/10/erase")
    clock[0] = NOW + timedelta(seconds=2)
    record_answer(log, first, FakeResponse(201))
    entries = read_audit(path=tmp_path / "audit.jsonl")
    assert [(e.id, e.outcome) for e in entries] == [(first.id, "done"), (second.id, "sent")]
    done, lost = entries
    assert done.target == AuditTarget(project="g/p", job=9) and lost.target == AuditTarget(project="g/p", job=10)
    assert done.finished_at == NOW + timedelta(seconds=2)
    assert done.server_date == datetime(2024, 5, 1, 12, 0, 3, tzinfo=UTC)
    assert done.operation == lost.operation is not None
    assert lost.outcome_text() == "sent (no answer recorded)"
    assert (done.user, done.profile, done.confirmation) == ("alice", "prod", "typed:9")


def test_damaged_lines_are_skipped_and_counted(tmp_path: Path) -> None:
    path = tmp_path / "audit.jsonl"
    log = _log([NOW], path=path)
    record_answer(log, log.begin("DELETE", "/api/v4/projects/3"), FakeResponse(202))
    with path.open("a") as handle:
        handle.write('{"id": "half-writ\n[1, 2]\n\n{"id": "x", "phase": "result", "outcome": "done"}\n')
    read = read_audit_file(path)
    assert [e.action for e in read.entries] == ["projects.delete"]
    assert read.skipped_lines == 3


def test_rotation_keeps_five_files_and_the_reader_spans_them(tmp_path: Path) -> None:
    path = tmp_path / "audit.jsonl"
    clock = [NOW]
    log = _log(clock, path=path, max_bytes=2_000)
    ids = []
    for number in range(60):
        clock[0] = NOW + timedelta(seconds=number)
        attempt = log.begin("POST", f"/api/v4/projects/1/jobs/{number}/cancel")
        record_answer(log, attempt, FakeResponse(201))
        ids.append(attempt.id)
    files = sorted(tmp_path.glob("audit.jsonl*"))
    assert [f.name for f in files if not f.name.endswith(".lock")] == [
        "audit.jsonl", "audit.jsonl.1", "audit.jsonl.2", "audit.jsonl.3", "audit.jsonl.4"]
    for file in files:
        assert file.stat().st_size <= 2_000 and file.stat().st_mode & 0o777 == 0o600
    entries = read_audit(path=path)
    kept = [e.id for e in entries]
    assert kept == ids[-len(kept):] and 15 < len(kept) < 60  # the oldest went with the oldest file
    assert all(e.outcome in ("done", "sent") for e in entries)
    assert not rotated_path(path, 5).exists()


def test_since_filters_and_parses() -> None:
    assert parse_since("2h", NOW) == NOW - timedelta(hours=2)
    assert parse_since("30m", NOW) == NOW - timedelta(minutes=30)
    assert parse_since("1d", NOW) == NOW - timedelta(days=1)
    assert parse_since("2024-04-30", NOW) == datetime(2024, 4, 30, tzinfo=UTC)
    assert parse_since("2024-04-30T10:00:00+02:00", NOW) == datetime(2024, 4, 30, 8, tzinfo=UTC)
    with pytest.raises(ValueError, match="cannot read 'yesterday'"):
        parse_since("yesterday", NOW)


def _history() -> None:
    """Three changes an hour apart, the newest 30 minutes ago, on two profiles."""
    now = datetime.now(UTC)
    clock = [now]
    log = _log(clock)
    for hours, profile, action, status in ((2.5, "prod", "jobs.cancel", 201), (1.5, "staging", "jobs.retry", 403),
                                           (0.5, "prod", "runners.update", 200)):
        clock[0] = now - timedelta(hours=hours)
        log.bind(profile=profile, user="alice")
        body = b'{"message": "403 Forbidden - Job is not retryable"}' if status == 403 else b"{}"
        with log.context(action=action, confirmation="dialog", target=AuditTarget(project="g/p", job=7)):
            record_answer(log, log.begin("POST", "/api/v4/projects/g%2Fp/jobs/7/x"), FakeResponse(status, body))


def test_cli_table(capsys: pytest.CaptureFixture[str]) -> None:
    _history()
    assert cli.main(["audit"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].split() == ["TIME", "(UTC)", "USER", "PROFILE", "ACTION", "TARGET", "OUTCOME", "CONFIRMED", "REQUEST"]
    assert len(out) == 4
    assert "jobs.retry" in out[2] and "refused (403: 403 Forbidden - Job is not retryable)" in out[2]
    assert out[3].split()[2:5] == ["alice", "prod", "runners.update"] and "g/p job 7" in out[3]
    assert out[3].rstrip().endswith("POST /api/v4/projects/g%2Fp/jobs/7/x")


def test_cli_json_since_and_profile(capsys: pytest.CaptureFixture[str]) -> None:
    _history()
    assert cli.main(["audit", "--json", "--since", "2h"]) == 0
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [(r["action"], r["outcome"], r["status"]) for r in rows] == [("jobs.retry", "refused", 403),
                                                                        ("runners.update", "done", 200)]
    assert rows[0]["target"] == {"project": "g/p", "job": 7} and rows[0]["confirmation"] == "dialog"
    assert cli.main(["audit", "--json", "--profile", "prod"]) == 0
    assert [json.loads(line)["action"] for line in capsys.readouterr().out.splitlines()] == ["jobs.cancel", "runners.update"]
    assert cli.main(["audit", "--since", "10m"]) == 0
    assert capsys.readouterr().out == "No changes recorded in that period.\n"


def test_cli_rejects_a_bad_since(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["audit", "--since", "last week"]) == cli.EXIT_USAGE
    assert "cannot read 'last week'" in capsys.readouterr().err


def test_cli_prints_no_terminal_controls(capsys: pytest.CaptureFixture[str]) -> None:
    # A reason quoted from a server could carry escape sequences: the file stores them escaped, and
    # the table prints them inert.
    log = _log([datetime.now(UTC)])
    attempt = log.begin("PUT", "/api/v4/runners/3")
    record_answer(log, attempt, FakeResponse(400, b'{"message": "bad \\u001b]52;c;cm0gLXJm\\u0007 value \\u202e"}'))
    assert b"\x1b" not in paths.audit_file().read_bytes()
    assert cli.main(["audit"]) == 0
    out = capsys.readouterr().out
    assert "\x1b" not in out and "\u202e" not in out and "\x07" not in out
    assert "refused (400: bad ]52;c;cm0gLXJm value)" in out
