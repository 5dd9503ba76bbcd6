"""A canary token never shows up in command output, debug logs, crash reports, state or config."""

from __future__ import annotations

import logging
import os
import stat
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import httpx
import pytest

from labdeck.base import crash, logsafe, paths
from tests.support.credentials import Canaries, files_containing
from tests.support.process import REPO, Run


def test_every_command_and_its_debug_log_stay_clean(run_labdeck: Callable[..., Run], canaries: Canaries,
                                                     home: Path) -> None:
    log = home / "debug.log"
    runs = [
        run_labdeck("--log-file", str(log), "login", "--url", canaries.url, "--token-stdin",
                    "--insecure-storage", stdin=canaries.admin),
        run_labdeck("--log-file", str(log), "doctor"),
        run_labdeck("doctor", "--log-file", str(log), "--token-stdin", stdin=canaries.readonly),
        run_labdeck("--log-file", str(log), "doctor", env={"LABDECK_TOKEN": canaries.admin}),
        run_labdeck("--log-file", str(log), "login", "--url", canaries.url, "--token-stdin",
                    stdin=canaries.readonly),
        run_labdeck("--log-file", str(log), "logout"),
    ]
    assert [r.returncode for r in runs] == [0, 0, 0, 0, 1, 0], [r.output for r in runs]
    text = log.read_text()
    assert "HTTP Request: GET" in text and "httpcore" in text  # the log really is at DEBUG
    assert stat.S_IMODE(os.stat(log).st_mode) == 0o600
    for run in runs:
        assert canaries.admin not in run.output and canaries.readonly not in run.output
        assert "glpat-" not in run.output
    assert canaries.admin not in text and canaries.readonly not in text
    # After logout nothing anywhere in HOME (config, state, logs) holds either token.
    assert files_containing(home, canaries.admin) == [] and files_containing(home, canaries.readonly) == []


def test_the_log_filter_masks_headers_urls_and_known_values(caplog: pytest.LogCaptureFixture) -> None:
    logsafe.install()
    logsafe.register_secret("plain-value-without-shape")
    logger = logging.getLogger("httpcore.http11")
    with caplog.at_level(logging.DEBUG):
        logger.debug("send headers=%r", [(b"PRIVATE-TOKEN", b"abc123secret"), (b"Authorization", b"Bearer xyz789")])
        logger.debug("GET /api/v4/user?private_token=qqq111&x=1")
        logger.info("value %s and glft-%s", "plain-value-without-shape", "A" * 24)
        try:
            raise RuntimeError("auth failed for plain-value-without-shape")
        except RuntimeError:
            logger.exception("boom")
    text = caplog.text + "".join(r.exc_text or "" for r in caplog.records)
    for secret in ("abc123secret", "xyz789", "qqq111", "plain-value-without-shape", "A" * 24):
        assert secret not in text, secret
    assert "x=1" in text and "boom" in text


def test_httpx_request_with_a_private_token_header_logs_nothing_secret(caplog: pytest.LogCaptureFixture,
                                                                      canaries: Canaries) -> None:
    logsafe.install()
    with caplog.at_level(logging.DEBUG):
        with httpx.Client() as client:
            client.get(f"{canaries.url}/api/v4/user", headers={"PRIVATE-TOKEN": canaries.admin})
    assert "HTTP Request" in caplog.text and canaries.admin not in caplog.text


CRASHER = """
import sys
from labdeck.base import crash
from labdeck.base.secret import Secret
crash.install_crash_handler()
def call_api(token, headers):
    raise RuntimeError("server said: bad PRIVATE-TOKEN " + headers["PRIVATE-TOKEN"])
token = sys.argv[1]
call_api(Secret(token), {"PRIVATE-TOKEN": token})
"""


def test_a_crash_writes_a_private_report_without_locals_or_token(canaries: Canaries, home: Path) -> None:
    result = subprocess.run([sys.executable, "-c", CRASHER, canaries.admin], capture_output=True, text=True,
                            env={**os.environ, "PYTHONPATH": str(REPO)}, timeout=60, check=False)
    assert result.returncode == 1
    reports = sorted(paths.crash_dir().glob("crash-*.txt"))
    assert len(reports) == 1
    report = reports[0].read_text()
    assert "RuntimeError" in report and "call_api" in report and "labdeck 0.1.0 crash report" in report
    assert stat.S_IMODE(os.stat(reports[0]).st_mode) == 0o600
    assert "headers =" not in report and "token =" not in report  # no local variables
    assert f"Details: {reports[0]}" in result.stderr and "Traceback" not in result.stderr
    assert canaries.admin not in result.stdout + result.stderr
    assert files_containing(home, canaries.admin) == []


def test_write_crash_report_for_the_console(home: Path) -> None:
    logsafe.register_secret("console-secret-value-1")
    try:
        raise ValueError("while sending console-secret-value-1")
    except ValueError as error:
        path = crash.write_crash_report(error)
    assert path.parent == paths.crash_dir() and path.name.startswith("crash-")
    text = path.read_text()
    assert "ValueError" in text and "console-secret-value-1" not in text


def test_a_dying_thread_is_recorded_without_touching_the_screen(home: Path) -> None:
    code = (
        "import threading\nfrom labdeck.base import crash\ncrash.install_crash_handler()\n"
        "t = threading.Thread(target=lambda: 1 / 0)\nt.start(); t.join()\nprint('still running')\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            env={**os.environ, "PYTHONPATH": str(REPO)}, timeout=60, check=False)
    assert result.returncode == 0 and result.stdout.strip() == "still running" and result.stderr == ""
    [report] = paths.crash_dir().glob("crash-*.txt")
    assert "ZeroDivisionError" in report.read_text()
