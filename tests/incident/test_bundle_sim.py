"""The incident bundle against the simulator, file by file: a pipeline with a failed job whose log is
hostile (OSC 52, OSC 8, ESC[2J, RIS, C1 controls, bidi, invalid UTF-8) and a pending job nobody
can run; raw bytes identical to what the server serves, plain text without a single escape."""

from __future__ import annotations

import json
import re
import tarfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest

from labdeck.api import ApiClient, errors
from labdeck.audit.log import AuditLog
from labdeck.base.secret import Secret
from labdeck.incident.bundle import BundleExists, build_bundle, write_bundle
from labdeck.incident.collect import REDACTED, collect_incident
from tests.support.sim_control import call, sim_now

PROJECT = 1
ESC, BEL, ST = "\x1b", "\x07", "\x1b\\"
HOSTILE = (
    f"{ESC}[0KRunning with gitlab-runner 16.5.0 (853330f9){ESC}[0;m\n"
    f"section_start:1700000000:step_script\r{ESC}[0K{ESC}[0K{ESC}[36;1mExecuting \"step_script\" stage{ESC}[0;m\n"
    f"{ESC}[32;1m$ make{ESC}[0;m\n"
    f"before {ESC}]52;c;cm0gLXJmIH4={BEL}after\n"
    f"see {ESC}]8;;https://evil.example/x{ST}the docs{ESC}]8;;{ST} now\n"
    f"{ESC}[2J{ESC}[3J{ESC}[Hscreen kept\n"
    f"one{ESC}ctwo\n"
    "c1 \x9b31mcsi\x9d0;title\x07 \x84done\n"
    "access = \u202eresu\u202c; \u2066admin\u2069\n"
    "Downloading 10%\rDownloading 100%\n"
    f"{ESC}[01m{ESC}[Ksrc/app.c:3:5:{ESC}[m{ESC}[K {ESC}[01;31m{ESC}[Kerror: {ESC}[m{ESC}[Kexpected ';' before '}}' token\n"
    "make: *** [Makefile:4: app.o] Error 1\n"
    f"section_end:1700000009:step_script\r{ESC}[0K\n"
    f"{ESC}[31;1mERROR: Job failed: exit code 1\n{ESC}[0;m\n"
).encode() + b"invalid \xff\xfe utf-8 tail\n"
TXT_ERROR_LINE = 11  # 1-based line of the compiler error in the plain text


def _api(server: Any, token: str, path: str) -> httpx.Response:
    response = httpx.get(f"{server.base_url}/api/v4/{path}", headers={"PRIVATE-TOKEN": token})
    response.raise_for_status()
    return response


def _incident_pipeline(server: Any, token: str) -> tuple[int, int, int]:
    """A pipeline whose ``compile`` job failed with the hostile log and whose ``mac-build`` waits."""
    created = call(server, token, "POST", f"/projects/{PROJECT}/pipelines", json={"stages": [{"name": "build", "jobs": [
        {"name": "compile", "tags": ["docker"], "fail": True, "duration": 5, "generate_trace": False},
        {"name": "mac-build", "tags": ["macos"], "duration": 5}]}]})
    ids = {job["name"]: job["id"] for job in created["jobs"]}
    for _ in range(60):
        if _api(server, token, f"projects/{PROJECT}/jobs/{ids['compile']}").json()["status"] == "failed":
            break
        call(server, token, "POST", "/clock/advance", params={"seconds": 60})
    else:
        pytest.fail("the compile job never ran")
    call(server, token, "POST", f"/projects/{PROJECT}/jobs/{ids['compile']}/trace", content=HOSTILE)
    return int(created["id"]), int(ids["compile"]), int(ids["mac-build"])


def _members(path: Path) -> dict[str, bytes]:
    with tarfile.open(path) as archive:
        out = {}
        for member in archive.getmembers():
            handle = archive.extractfile(member)
            assert handle is not None and member.mode == 0o600 and member.uname == ""
            out[member.name] = handle.read()
        return out


async def test_pipeline_bundle_file_by_file(sim_factory: Callable[..., Any], tokens: dict[str, str], tmp_path: Path) -> None:
    server = sim_factory()
    token = tokens["admin"]
    pipeline, failed, pending = _incident_pipeline(server, token)
    now = sim_now(server, token)
    async with ApiClient(server.base_url, Secret(token), audit=AuditLog(server.base_url)) as client:
        await client.users.current()
        with pytest.raises(errors.Forbidden):
            await client.jobs.retry(PROJECT, pending)  # on record for these targets
        await client.jobs.cancel(PROJECT, 1)  # on record, but about another job
        result = await build_bundle(client, PROJECT, pipeline=pipeline, dest=tmp_path, now=now)
    assert result.path.parent == tmp_path and result.path.name.startswith("incident-platform-api-gateway-pipeline-")
    assert result.path.stat().st_mode & 0o777 == 0o600 and not result.renamed
    files = _members(result.path)
    runner_id = _api(server, token, f"projects/{PROJECT}/jobs/{failed}").json()["runner"]["id"]
    assert set(files) == {"summary.md", f"jobs/{failed}.json", f"jobs/{failed}.log.raw", f"jobs/{failed}.log.txt",
                          f"jobs/{pending}.json", f"jobs/{pending}.log.raw", f"jobs/{pending}.log.txt",
                          f"runners/{runner_id}.json", f"pipeline-{pipeline}.json", "audit.jsonl"}

    # The job record and the log bytes exactly as the server serves them.
    assert files[f"jobs/{failed}.json"] == _api(server, token, f"projects/{PROJECT}/jobs/{failed}").content
    served = _api(server, token, f"projects/{PROJECT}/jobs/{failed}/trace").content
    assert files[f"jobs/{failed}.log.raw"] == served == HOSTILE
    assert files[f"jobs/{pending}.log.raw"] == b""

    # The plain text: no escape sequence, no control or bidi character; the visible text stays.
    plain = files[f"jobs/{failed}.log.txt"].decode("utf-8")
    assert re.search("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]", plain) is None
    lines = plain.split("\n")
    assert lines[3:10] == ["before after", "see the docs now", "screen kept", "onetwo", "c1 csi done",
                           "access = resu; admin", "Downloading 100%"]
    assert lines[TXT_ERROR_LINE - 1] == "src/app.c:3:5: error: expected ';' before '}' token"
    assert "cm0gLXJm" not in plain and "evil.example" not in plain and "\ufffd" in lines[-2]

    # The runner, without its token; the pipeline's job list; only the audit lines about these jobs.
    runner = json.loads(files[f"runners/{runner_id}.json"])
    assert runner["id"] == runner_id and runner["token"] == REDACTED
    real_runner_token = _api(server, token, f"runners/{runner_id}").json()["token"]
    assert all(real_runner_token.encode() not in data and token.encode() not in data for data in files.values())
    assert sorted(job["id"] for job in json.loads(files[f"pipeline-{pipeline}.json"])) == sorted([failed, pending])
    audit = [json.loads(line) for line in files["audit.jsonl"].decode().splitlines()]
    assert {line["phase"] for line in audit} == {"sent", "result"} and len({line["id"] for line in audit}) == 1
    assert audit[0]["target"] == {"project": PROJECT, "job": pending} and audit[1]["status"] == 403

    # The summary says what failed, where, why the other job waits, and the first error by line.
    summary = files["summary.md"].decode()
    assert summary == result.summary
    assert summary.startswith("# Incident: `platform/api-gateway` — pipeline")
    assert f"## Job {failed} `compile` — failed" in summary
    assert f"- line {TXT_ERROR_LINE} (compiler): `src/app.c:3:5: error: expected ';' before '}}' token`" in summary
    assert f"- line {TXT_ERROR_LINE + 1} (make): `make: *** [Makefile:4: app.o] Error 1`" in summary
    assert "the runner's last word: `ERROR: Job failed: exit code 1`" in summary
    assert f"## Job {pending} `mac-build` — pending" in summary
    assert "### Why it is pending\n\nno runner has tags [macos]" in summary
    assert f"<{server.base_url}/platform/api-gateway/-/jobs/{failed}>" in summary
    assert f"`jobs.retry` project 1 job {pending} by root: refused (403: 403 Forbidden - Job is not retryable)" in summary
    assert f"## Job {pending} `mac-build` — pending" in summary and "The log is empty." in summary
    assert "\x1b" not in summary and "evil.example" not in summary


async def test_an_existing_file_is_never_replaced(sim: Any, tokens: dict[str, str], tmp_path: Path) -> None:
    async with ApiClient(sim.base_url, Secret(tokens["admin"])) as client:
        failed = (await client.jobs.list(PROJECT, scope="failed").first_page())[0].id
        with await collect_incident(client, PROJECT, job=failed) as incident:
            target = tmp_path / "incident.tar.gz"
            target.write_bytes(b"someone else's file")
            second = write_bundle(incident, target)
            third = write_bundle(incident, target)
            with pytest.raises(BundleExists):
                write_bundle(incident, target, on_exists="refuse")
    assert target.read_bytes() == b"someone else's file"
    assert (second.path.name, third.path.name) == ("incident (1).tar.gz", "incident (2).tar.gz")
    assert second.renamed and second.message == f"incident.tar.gz already exists: saved the incident bundle as {second.path}"
    listing = sorted(p.name for p in tmp_path.iterdir())  # noqa: ASYNC240 - the test's own folder
    assert listing == ["incident (1).tar.gz", "incident (2).tar.gz", "incident.tar.gz"]
    assert incident.workdir.exists() is False  # temporary logs deleted


async def test_default_destination_is_the_download_folder(sim: Any, tokens: dict[str, str]) -> None:
    downloads = Path.home() / "Downloads"  # HOME is a temporary folder in tests
    downloads.mkdir()
    async with ApiClient(sim.base_url, Secret(tokens["user"])) as client:
        failed = (await client.jobs.list(PROJECT, scope="failed").first_page())[0].id
        result = await build_bundle(client, PROJECT, job=failed)
    assert result.path.parent == downloads and result.message == f"Saved the incident bundle to {result.path}"
    files = _members(result.path)
    assert f"jobs/{failed}.log.raw" in files and "summary.md" in files
