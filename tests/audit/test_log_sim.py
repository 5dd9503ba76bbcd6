"""The audit log over real HTTP: the lines written on success, refusal, read-only refusal, unknown and
failed outcomes, a process killed while its request is in flight, and no secret in any file."""

from __future__ import annotations

import asyncio
import json
import os
import socket
import sys
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import httpx
import pytest

from labdeck.api import ApiClient, RetryPolicy, errors
from labdeck.audit.context import audit_context
from labdeck.audit.log import AuditLog, AuditTarget
from labdeck.audit.read import read_audit
from labdeck.base import paths
from labdeck.base.secret import Secret
from tests.support.fault_proxy import FaultProxy, StubUpstream

PROJECT = 1


def _lines() -> list[dict[str, Any]]:
    return [json.loads(line) for line in paths.audit_file().read_text().splitlines()]


def _control(server: Any, token: str, method: str, path: str, body: Any = None) -> Any:
    response = httpx.request(method, f"{server.base_url}/-/sim{path}", json=body, headers={"PRIVATE-TOKEN": token})
    response.raise_for_status()
    return response.json()


def _pending_job(server: Any, token: str) -> int:
    created = _control(server, token, "POST", f"/projects/{PROJECT}/pipelines",
                       {"stages": [{"name": "build", "jobs": [{"name": "compile", "tags": ["nowhere"]}]}]})
    return int(created["jobs"][0]["id"])


@pytest.fixture
async def private(sim_factory: Callable[..., Any], tokens: dict[str, str]) -> AsyncIterator[tuple[Any, ApiClient]]:
    server = sim_factory()
    async with ApiClient(server.base_url, Secret(tokens["admin"]), audit=AuditLog(server.base_url)) as client:
        yield server, client


async def test_success_is_two_lines_with_context_and_the_server_date(private: tuple[Any, ApiClient],
                                                                     tokens: dict[str, str]) -> None:
    server, client = private
    job = _pending_job(server, tokens["admin"])
    sent_ids: list[str] = []

    async def spy(request: httpx.Request) -> None:
        if request.method == "POST":
            sent_ids.append(request.headers["x-request-id"])

    client.http.event_hooks["request"].append(spy)
    await client.users.current()  # the console does this at start: the audit learns the account
    client.audit.bind(profile="prod")
    with audit_context(action="jobs.cancel", target=AuditTarget(project="platform/api-gateway", job=job),
                              confirmation="dialog"):
        canceled = await client.jobs.cancel(PROJECT, job)
    assert canceled.status == "canceled"
    await client.jobs.get(PROJECT, job)  # reads are not recorded
    sent, result = _lines()
    assert sent["phase"] == "sent" and result["phase"] == "result" and sent["id"] == result["id"] == sent_ids[0]
    assert sent["method"] == "POST" and sent["path"] == f"/api/v4/projects/{PROJECT}/jobs/{job}/cancel"
    assert (sent["profile"], sent["user"], sent["action"], sent["confirmation"]) == ("prod", "root", "jobs.cancel", "dialog")
    assert sent["target"] == {"project": "platform/api-gateway", "job": job}
    assert sent["instance"] == server.base_url
    assert (result["outcome"], result["status"]) == ("done", 201)
    assert result["server_date"].endswith("Z")
    assert oct(paths.audit_file().stat().st_mode & 0o777) == "0o600"
    [entry] = read_audit()
    assert entry.outcome_text() == "done (201)" and entry.server_date is not None


async def test_refusal_records_the_status_and_the_server_reason(private: tuple[Any, ApiClient],
                                                                tokens: dict[str, str]) -> None:
    server, client = private
    job = _pending_job(server, tokens["admin"])
    with pytest.raises(errors.Forbidden):
        await client.jobs.retry(PROJECT, job)  # a pending job is not retryable
    [entry] = read_audit()
    assert (entry.action, entry.outcome, entry.status) == ("jobs.retry", "refused", 403)
    assert entry.target == AuditTarget(project=PROJECT, job=job)  # inferred from the path
    assert entry.confirmation is None and entry.target.describe() == f"project {PROJECT} job {job}"
    assert entry.outcome_text() == "refused (403: 403 Forbidden - Job is not retryable)"


async def test_read_only_refusal_is_recorded_and_nothing_is_sent(sim: Any, tokens: dict[str, str]) -> None:
    async with ApiClient(sim.base_url, Secret(tokens["admin"]), read_only=True, audit=AuditLog(sim.base_url)) as client:
        sent: list[str] = []

        async def spy(request: httpx.Request) -> None:
            sent.append(request.method)

        client.http.event_hooks["request"].append(spy)
        with audit_context(action="runners.pause", confirmation="dialog"), pytest.raises(errors.ReadOnlyError):
            await client.runners.update(1, active=False)
    assert sent == []
    [line] = _lines()
    assert (line["phase"], line["outcome"], line["local"], line["action"]) == ("local", "refused", True, "runners.pause")
    [entry] = read_audit()
    assert entry.outcome_text() == "refused (not sent: read-only mode)"


async def test_ambiguous_502_is_unknown(private: tuple[Any, ApiClient], tokens: dict[str, str]) -> None:
    server, client = private
    job = _pending_job(server, tokens["admin"])
    _control(server, tokens["admin"], "PUT", "/faults",
             {"error_rate": 1.0, "error_statuses": [502], "methods": ["POST"], "path_prefix": "/projects"})
    with pytest.raises(errors.OutcomeUnknown):
        await client.jobs.cancel(PROJECT, job)
    [entry] = read_audit()
    assert (entry.outcome, entry.status) == ("unknown", 502)
    assert entry.outcome_text().startswith("unknown (502")


async def test_answer_lost_after_sending_is_unknown(sim: Any, tokens: dict[str, str]) -> None:
    host, port = httpx.URL(sim.base_url).host, httpx.URL(sim.base_url).port
    async with FaultProxy(host, port or 80) as proxy, \
            ApiClient(proxy.url, Secret(tokens["admin"]), retry=RetryPolicy(max_attempts=1), audit=AuditLog(proxy.url)) as client:
        proxy.modes.append("reset_after")
        with pytest.raises(errors.OutcomeUnknown):
            await client.runners.update(10, description="team-runner")
        assert proxy.count("PUT") == 1
    [entry] = read_audit()
    assert entry.outcome == "unknown" and entry.status is None
    assert entry.detail is not None and "may or may not have been applied" in entry.detail


async def test_never_sent_is_failed(tokens: dict[str, str]) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    async with ApiClient(f"http://127.0.0.1:{port}", Secret(tokens["admin"]),
                         retry=RetryPolicy(max_attempts=1), audit=AuditLog(f"http://127.0.0.1:{port}")) as client:
        with pytest.raises(errors.TransportError):
            await client.jobs.cancel(PROJECT, 5)
    [entry] = read_audit()
    assert entry.outcome == "failed" and entry.outcome_text().startswith("failed (Cannot reach the server")


_CHILD = """
import asyncio, os, sys
from labdeck.api import ApiClient
from labdeck.audit.log import AuditLog
from labdeck.base.secret import Secret

async def main():
    async with ApiClient(sys.argv[1], Secret(os.environ["CHILD_TOKEN"]), audit=AuditLog(sys.argv[1])) as client:
        client.audit.bind(profile="crashy")
        await client.jobs.cancel(1, int(sys.argv[2]))

asyncio.run(main())
"""


async def test_a_process_killed_in_flight_leaves_the_attempt_on_record(sim: Any, tokens: dict[str, str]) -> None:
    host, port = httpx.URL(sim.base_url).host, httpx.URL(sim.base_url).port
    async with FaultProxy(host, port or 80) as proxy:
        proxy.default = "blackhole"  # the request arrives; no answer ever comes back
        env = {**os.environ, "CHILD_TOKEN": tokens["admin"]}
        child = await asyncio.create_subprocess_exec(sys.executable, "-c", _CHILD, proxy.url, "4242", env=env)
        try:
            for _ in range(300):
                if proxy.received:
                    break
                await asyncio.sleep(0.1)
            assert proxy.received == [("POST", "/api/v4/projects/1/jobs/4242/cancel")]
        finally:
            child.kill()
            await child.wait()
    [entry] = read_audit()
    assert (entry.profile, entry.action, entry.outcome) == ("crashy", "jobs.cancel", "sent")
    assert entry.outcome_text() == "sent (no answer recorded)"


CANARIES = ("canary-pass-Zq81", "canary-token-Yw02", "https://chat.example/hooks/canary-webhook-Xe93",
            "canary-hook-secret-Vu74", "canary-api-key-Ts65")


async def test_no_secret_or_token_in_any_audit_file(sim_factory: Callable[..., Any], tokens: dict[str, str]) -> None:
    server = sim_factory()
    token = tokens["admin"]
    async with ApiClient(server.base_url, Secret(token), audit=AuditLog(server.base_url)) as client:
        await client.integrations.update(PROJECT, "ci-server-a", {"ci_server_a_url": "https://ci.example",
                                                                  "build_key": "KEY", "username": "ci",
                                                                  "password": CANARIES[0]})
        await client.integrations.update(PROJECT, "chat-b", {"token": CANARIES[1]})
        await client.integrations.update(PROJECT, "chat-d", {"webhook": CANARIES[2], "channel": "ops"})
        await client.integrations.update(PROJECT, "task-tracker", {"api_key": CANARIES[4]})
        hook = await client.hooks.create(PROJECT, "https://hooks.example/ci", token=CANARIES[3], job_events=True)
        await client.hooks.update(PROJECT, hook.id, url="https://hooks.example/ci2", token=CANARIES[3])
    # A server that quotes the value it refuses: the quoted value is masked before it is recorded.
    upstream = await StubUpstream().start()
    try:
        upstream.responses["/api/v4/projects/1/services/chat-d"] = (
            400, {"message": {"webhook": [f"{CANARIES[2]} is blocked: requests to the local network are not allowed"]}}, {})
        async with ApiClient(f"http://127.0.0.1:{upstream.port}", Secret(token), audit=AuditLog(f"http://127.0.0.1:{upstream.port}")) as client:
            with pytest.raises(errors.ValidationError):
                await client.integrations.update(PROJECT, "chat-d", {"webhook": CANARIES[2]})
    finally:
        await upstream.stop()
    entries = read_audit()
    assert [e.outcome for e in entries] == ["done"] * 6 + ["refused"]
    assert entries[0].fields == ("ci_server_a_url", "build_key", "username", "password")
    assert entries[4].fields == ("url", "token", "job_events")
    assert entries[-1].detail == "webhook *** is blocked: requests to the local network are not allowed"
    files = list(paths.state_dir().rglob("*"))
    assert paths.audit_file() in files
    for file in files:
        if file.is_file():
            data = file.read_bytes()
            for secret in (*CANARIES, token):
                assert secret.encode() not in data, f"{secret} in {file}"


async def test_bulk_action_shares_one_operation_and_tasks_inherit_the_context(
        private: tuple[Any, ApiClient], tokens: dict[str, str]) -> None:
    server, client = private
    jobs = [_pending_job(server, tokens["admin"]) for _ in range(3)]
    with audit_context(action="jobs.cancel", confirmation="typed:3 jobs"):
        async def one(job: int) -> None:
            with audit_context(target=AuditTarget(project="platform/api-gateway", job=job)):
                await client.jobs.cancel(PROJECT, job)

        await asyncio.gather(*(asyncio.create_task(one(job)) for job in jobs))
    entries = read_audit()
    assert sorted(e.target.job or 0 for e in entries) == sorted(jobs)
    assert {e.operation for e in entries} != {None} and len({e.operation for e in entries}) == 1
    assert {(e.action, e.confirmation, e.outcome) for e in entries} == {("jobs.cancel", "typed:3 jobs", "done")}


async def test_an_unwritable_log_refuses_the_change_unless_allowed(sim_factory: Callable[..., Any],
                                                                  tokens: dict[str, str], tmp_path: Path) -> None:
    """No change leaves without its record (issue 24): refused, nothing sent, and why; sent only
    once the user agreed to go without records."""
    server = sim_factory()
    blocker = tmp_path / "not-a-directory"
    blocker.write_text("")
    job = _pending_job(server, tokens["admin"])
    log = AuditLog(server.base_url, path=blocker / "audit.jsonl")
    assert log.problem() is not None
    async with ApiClient(server.base_url, Secret(tokens["admin"]), audit=log) as client:
        with pytest.raises(errors.AuditUnavailable) as refused:
            await client.jobs.cancel(PROJECT, job)
        assert (await client.jobs.get(PROJECT, job)).status == "pending"  # nothing left
        assert "audit log" in refused.value.user_message() and "Not sent" in refused.value.user_message()
        log.allow_unrecorded = True
        assert (await client.jobs.cancel(PROJECT, job)).status == "canceled"
    assert log.write_error is not None and "could not be written" in log.write_error


def _read_only_folder(folder: Path) -> Callable[[], None]:
    """Make ``folder`` take no new file (chmod; as root, which ignores modes, ``chattr +i``);
    returns the undo. Skips when this machine cannot do either."""
    import shutil
    import subprocess

    folder.chmod(0o500)
    if os.geteuid() != 0:
        return lambda: folder.chmod(0o700)
    chattr = shutil.which("chattr")
    if chattr is None or subprocess.run([chattr, "+i", str(folder)], capture_output=True).returncode != 0:
        folder.chmod(0o700)
        pytest.skip("root here, and no chattr +i: a read-only folder cannot be made")

    def undo() -> None:
        subprocess.run([chattr, "-i", str(folder)], check=True)
        folder.chmod(0o700)

    return undo


async def test_the_start_up_probe_agrees_with_what_writes_do(sim_factory: Callable[..., Any],
                                                             tokens: dict[str, str], tmp_path: Path) -> None:
    """Issue 32.5: a read-only folder holding a writable log takes records (the probe says so, and
    the change is sent and recorded); the same folder without a log takes none (the probe says
    so, and the change is refused, nothing sent)."""
    server = sim_factory()
    used, fresh = tmp_path / "used", tmp_path / "fresh"
    used.mkdir()
    fresh.mkdir()
    job = _pending_job(server, tokens["admin"])
    other = _pending_job(server, tokens["admin"])
    earlier = _pending_job(server, tokens["admin"])
    kept = AuditLog(server.base_url, path=used / "audit.jsonl")
    async with ApiClient(server.base_url, Secret(tokens["admin"]), audit=kept) as client:
        await client.jobs.cancel(PROJECT, earlier)  # a log from an earlier session
    undo = [_read_only_folder(used), _read_only_folder(fresh)]
    try:
        assert kept.problem() is None  # start-up: no "changes are refused"
        async with ApiClient(server.base_url, Secret(tokens["admin"]), audit=kept) as client:
            assert (await client.jobs.cancel(PROJECT, job)).status == "canceled"
        assert [entry.outcome for entry in read_audit(path=kept.path)] == ["done", "done"]
        new = AuditLog(server.base_url, path=fresh / "audit.jsonl")
        assert new.problem() is not None and "not writable" in new.problem()
        async with ApiClient(server.base_url, Secret(tokens["admin"]), audit=new) as client:
            with pytest.raises(errors.AuditUnavailable):
                await client.jobs.cancel(PROJECT, other)
            assert (await client.jobs.get(PROJECT, other)).status == "pending"
        assert sorted(p.name for p in fresh.iterdir()) == []  # the probe left nothing behind
    finally:
        for step in undo:
            step()
