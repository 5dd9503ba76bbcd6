"""Triage on logs written the way real CI logs are (issue 28), over real HTTP against the simulator:
the logs are appended through the control surface to jobs that generate none.

- signatures keep names: ``No module named 'yaml'`` and ``'toml'``, ``src/sync.c`` and
  ``src/cache.c`` are two clusters each; a timestamped error line is the signature, never the
  runner's ``Job failed`` trailer, and that cluster does not swallow an OOM job;
- infrastructure only from the platform's words: an assertion about ``connection reset by peer`` and
  a ``requests`` timeout in a test are not; DNS failures and a TLS handshake timeout in a ``docker
  pull`` step are, and the evidence line is shown;
- the last green run's log is the baseline: the error lines the green run printed too are not the
  cause;
- a 42 MB log is read once: the cache keeps its facts.
"""

from __future__ import annotations

from collections.abc import Callable

from labdeck.api import ApiClient
from labdeck.base.secret import Secret
from labdeck.sim.ci.engine import store
from labdeck.sim.dataset.build import DEMO_TOKENS
from labdeck.sim.server import SimServer
from labdeck.triage.collect import Triager
from labdeck.triage.logcache import LogCache
from labdeck.triage.report import Failure, TriageReport
from labdeck.triage.signature import read_log
from tests.sim.helpers import advance, control, pipeline, quiet

ADMIN = DEMO_TOKENS["admin"]
TRAILER = "\x1b[31;1mERROR: Job failed: exit code {code}\x1b[0;m\n"


def _projects(server: SimServer, count: int) -> list[tuple[int, str]]:
    """Projects the shared runners serve (a job pushed there runs at once)."""
    state = server.state
    specific = {pid for r in store(state).runners.values() if not r.is_shared for pid in r.project_ids}
    found = [(p.id, state.project_full_path(p)) for p in sorted(state.projects.values(), key=lambda p: p.id)
             if p.id not in specific and not p.archived and not p.deleted
             and p.settings.get("shared_runners_enabled", True)]
    assert len(found) >= count
    return found[:count]


def _job_with_log(server: SimServer, project: int, name: str, log: str, *, fail: bool = True,
                  trace_bytes: int | None = None) -> int:
    """A finished job whose log is ``log`` (after a bulk log of ``trace_bytes`` when given)."""
    spec: dict[str, object] = {"name": name, "tags": ["docker"], "fail": fail, "duration": 20}
    if trace_bytes is None:
        spec["generate_trace"] = False
    else:
        spec["trace_bytes"] = trace_bytes
    created = pipeline(server, project, [{"name": "test", "jobs": [spec]}])
    advance(server, 600)
    job_id = int(created["jobs"][0]["id"])
    with control(server) as admin:
        answer = admin.post(f"/-/sim/projects/{project}/jobs/{job_id}/trace", content=log.encode(), timeout=60)
    assert answer.status_code == 201, answer.text
    return job_id


async def _round(server: SimServer, projects: list[tuple[int, str]], cache: LogCache | None = None) -> TriageReport:
    async with ApiClient(server.base_url, Secret(ADMIN)) as client:
        return await Triager(client, cache).round(projects)


def _by_job(report: TriageReport, job_id: int) -> Failure:
    return next(f for f in report.failures if f.job.id == job_id)


def _groups(report: TriageReport) -> list[set[int]]:
    return sorted((set(found.job_ids) for found in report.clusters), key=sorted)


def _missing(module: str, project: int) -> str:
    return ("$ python -m pytest -q\nImportError while loading conftest '/builds/app/conftest.py'.\n"
            f"conftest.py:3: in <module>\n    import {module}\n"
            f"E   ModuleNotFoundError: No module named '{module}'\n" + TRAILER.format(code=project % 3 + 1))


def _compile(source: str, line: int) -> str:
    return ("$ make\n  CC       src/main.o\n"
            f"src/{source}.c:{line}:7: error: expected ';' before '}}' token\n"
            "make: *** [Makefile:31: all] Error 1\n" + TRAILER.format(code=2))


def _upload(when: str, request: str) -> str:
    return ("$ ./scripts/publish.sh build/app.tar\nuploading build/app.tar (41 MB)\n"
            f"{when} ERROR [req {request}] upload of build/app.tar to s3://releases failed: AccessDenied\n"
            + TRAILER.format(code=1))


OOM = "$ make -j8\n  CC       src/render.o\nKilled\n" + TRAILER.format(code=137)


async def test_signatures_keep_names_and_never_the_trailer(sim_factory: Callable[..., SimServer]) -> None:
    server = quiet(sim_factory())
    projects = _projects(server, 9)
    ids = [pid for pid, _ in projects]
    yaml = [_job_with_log(server, pid, "import", _missing("yaml", pid)) for pid in ids[0:2]]
    toml = [_job_with_log(server, pid, "import", _missing("toml", pid)) for pid in ids[2:4]]
    sync = [_job_with_log(server, pid, "build", _compile("sync", 40 + pid)) for pid in ids[0:2]]
    cache = [_job_with_log(server, pid, "build", _compile("cache", 40 + pid)) for pid in ids[2:4]]
    upload = [_job_with_log(server, pid, "publish", _upload(when, request)) for pid, when, request in (
        (ids[4], "2026-11-27T21:01:39Z", "8f3a2c1e-77d0-4c1a-9a55-0d6f1e2b3c4d"),
        (ids[5], "2026-11-27T21:14:02.118Z", "c2b7e8a0-1f3d-4e5a-8b6c-9d0e1f2a3b4c"))]
    oom = _job_with_log(server, ids[6], "publish", OOM)
    report = await _round(server, projects)

    assert {_by_job(report, job).signature for job in yaml} == {"E ModuleNotFoundError: No module named 'yaml'"}
    assert {_by_job(report, job).signature for job in toml} == {"E ModuleNotFoundError: No module named 'toml'"}
    groups = _groups(report)
    for members in (yaml, toml, sync, cache):
        assert set(members) in groups, (members, groups)
    # The timestamped error line is the signature; the runner's trailer never is.
    signatures = {_by_job(report, job).signature for job in upload}
    assert len(signatures) == 1 and "upload of build/app.tar to s3://releases failed" in next(iter(signatures))
    assert all("Job failed" not in f.signature for f in report.failures)
    assert set(upload) in groups and not any(oom in members for members in groups)
    assert _by_job(report, oom).verdict.kind == "infrastructure"


TEST_SAYS_RESET = """$ pytest -q tests/test_client.py
F
=================================== FAILURES ===================================
________________________ test_reports_a_reset_connection ________________________
    def test_reports_a_reset_connection():
>       assert 'connection reset by peer' in describe(err)
E       AssertionError: assert 'connection reset by peer' in 'socket closed'
FAILED tests/test_client.py::test_reports_a_reset_connection - AssertionError: assert 'connection reset by peer' in 'socket closed'
1 failed in 0.31s
""" + TRAILER.format(code=1)
FLAKY_REQUESTS = """$ pytest -q tests/test_sync.py
F
=================================== FAILURES ===================================
______________________________ test_sync_remote ______________________________
    def test_sync_remote():
>       resp = requests.get(REMOTE, timeout=5)
E       requests.exceptions.ReadTimeout: HTTPSConnectionPool(host='api.example.com', port=443): Read timed out. (read timeout=5)
FAILED tests/test_sync.py::test_sync_remote - requests.exceptions.ReadTimeout: HTTPSConnectionPool(host='api.example.com', port=443): Read timed out.
1 failed in 5.12s
""" + TRAILER.format(code=1)
PIP_DNS = """$ pip install -r requirements.txt
Collecting requests==2.32.3
ERROR: Could not install packages due to an OSError: HTTPSConnectionPool(host='pypi.org', port=443): Max retries exceeded with url: /simple/requests/ (Caused by NewConnectionError('<pip._vendor.urllib3.connection.HTTPSConnection object at 0x7f1c>: Failed to establish a new connection: [Errno -3] Temporary failure in name resolution'))
""" + TRAILER.format(code=1)
PIP_RETRIES = """$ pip install -r requirements.txt
Collecting requests==2.32.3
WARNING: Retrying (Retry(total=4, connect=None, read=None, redirect=None, status=None)) after connection broken by 'NewConnectionError('<pip._vendor.urllib3.connection.HTTPSConnection object at 0x7f1c>: Failed to establish a new connection: [Errno -3] Temporary failure in name resolution')': /simple/requests/
ERROR: Could not find a version that satisfies the requirement requests==2.32.3 (from versions: none)
ERROR: No matching distribution found for requests==2.32.3
""" + TRAILER.format(code=1)
CURL_DNS = """$ curl -fsSL https://get.example.com/install.sh -o install.sh
curl: (6) Could not resolve host: get.example.com
""" + TRAILER.format(code=6)
DOCKER_TLS = """$ docker pull registry.example.com/base/python:3.12
Error response from daemon: Get "https://registry.example.com/v2/": net/http: TLS handshake timeout
""" + TRAILER.format(code=1)


async def test_infrastructure_only_from_the_platforms_words(sim_factory: Callable[..., SimServer]) -> None:
    server = quiet(sim_factory())
    projects = _projects(server, 5)
    logs = {"reset-in-assertion": TEST_SAYS_RESET, "requests-timeout": FLAKY_REQUESTS, "pip-dns": PIP_DNS,
            "curl-dns": CURL_DNS, "docker-tls": DOCKER_TLS}
    jobs = {name: _job_with_log(server, pid, name, log) for (pid, _), (name, log) in zip(projects, logs.items(), strict=True)}
    report = await _round(server, projects)
    kinds = {name: _by_job(report, job).verdict for name, job in jobs.items()}
    assert kinds["reset-in-assertion"].kind != "infrastructure"
    assert kinds["requests-timeout"].kind != "infrastructure"
    for name, labels, line in (("pip-dns", {"DNS failure"}, 3), ("curl-dns", {"DNS failure"}, 2),
                               ("docker-tls", {"TLS handshake timeout", "image pull from registry.example.com failed"},
                                2)):
        verdict = kinds[name]
        assert verdict.kind == "infrastructure" and verdict.reason in labels, (name, verdict)
        # The evidence is the platform's own line, with its line number.
        assert verdict.evidence[0].startswith(f"log line {line}: "), verdict.evidence
    assert "Could not resolve host: get.example.com" in kinds["curl-dns"].evidence[0]
    assert "TLS handshake timeout" in kinds["docker-tls"].evidence[0]
    # The test's own failure is what it shows instead.
    assert "AssertionError: assert 'connection reset by peer'" in kinds["reset-in-assertion"].evidence[0]


GREEN = """$ mvn -B verify
[INFO] Scanning for projects...
[ERROR] Failed to load class "org.slf4j.impl.StaticLoggerBinder" (build {build})
warning: No space left on device while writing the cache of {build}; continuing without it
[INFO] Tests run: 41, Failures: 0, Errors: 0, Skipped: 0
[INFO] BUILD SUCCESS
Job succeeded
"""
RED = """$ mvn -B verify
[INFO] Scanning for projects...
[ERROR] Failed to load class "org.slf4j.impl.StaticLoggerBinder" (build {build})
warning: No space left on device while writing the cache of {build}; continuing without it
[ERROR] Tests run: 41, Failures: 1, Errors: 0, Skipped: 0
[ERROR] testTotals(com.example.InvoiceTest)  Time elapsed: 0.012 s  <<< FAILURE!
org.opentest4j.AssertionFailedError: expected: <42> but was: <41>
[INFO] BUILD FAILURE
""" + TRAILER.format(code=1)


async def test_what_the_green_run_printed_too_is_not_the_cause(sim_factory: Callable[..., SimServer]) -> None:
    server = quiet(sim_factory())
    projects = _projects(server, 1)
    pid = projects[0][0]
    green = _job_with_log(server, pid, "verify", GREEN.format(build=101), fail=False)
    red = _job_with_log(server, pid, "verify", RED.format(build=102))
    cache = LogCache()
    report = await _round(server, projects, cache)
    failure = _by_job(report, red)
    assert failure.log is not None and failure.log.passing_job == green
    assert failure.log.new_lines is not None and 1 not in failure.log.new_lines
    assert failure.log.error is not None and failure.log.error.line in failure.log.new_lines
    assert "StaticLoggerBinder" not in failure.signature and "No space left" not in failure.signature
    assert failure.verdict.kind != "infrastructure"  # the green run had the full-disk warning too
    assert f"new since the green run #{green}" in failure.verdict.evidence[0]
    # Both logs are cached like any finished log: the next round reads none.
    again = await _round(server, projects, LogCache())
    assert again.logs_read == 0 and _by_job(again, red).signature == failure.signature


async def test_a_42_mb_log_is_read_once(sim_factory: Callable[..., SimServer]) -> None:
    server = quiet(sim_factory())
    projects = _projects(server, 1)
    job = _job_with_log(server, projects[0][0], "bulk", "$ make\nsrc/db.c:42:7: error: expected ';' before '}' token\n"
                        + TRAILER.format(code=2), trace_bytes=42 * 1024 * 1024)
    first = await _round(server, projects, LogCache())
    assert first.logs_read == 1
    assert _by_job(first, job).signature == "src/db.c:<n>:<n>: error: expected ';' before '}' token"
    second = await _round(server, projects, LogCache())
    assert second.logs_read == 0 and _by_job(second, job).signature == _by_job(first, job).signature


def test_pip_that_found_nothing_after_dns_retries_is_infrastructure() -> None:
    facts = read_log(PIP_RETRIES)
    assert facts.platform is not None and facts.platform.label == "DNS failure"
