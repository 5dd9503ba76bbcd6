"""``labdeck doctor``: green against the simulator, precise lines and exit code on broken setups."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from labdeck.base import paths
from labdeck.commands.doctor import DoctorOptions, Finding, diagnose, run_doctor
from labdeck.sim.server import free_port
from tests.support.credentials import Canaries
from tests.support.process import Run


def by_topic(findings: list[Finding]) -> dict[str, Finding]:
    return {finding.topic: finding for finding in findings}


def test_green_for_an_admin_token(monkeypatch: pytest.MonkeyPatch, canaries: Canaries,
                                  capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("LABDECK_URL", canaries.url)
    monkeypatch.setenv("LABDECK_TOKEN", canaries.admin)
    assert run_doctor(DoctorOptions(), __import__("sys").stdout) == 0
    out = capsys.readouterr().out
    assert "[FAIL]" not in out and out.rstrip().endswith("labdeck is ready.")
    assert "token: from env:LABDECK_TOKEN" in out
    assert "token valid for @root (administrator)" in out
    assert "access: read-write" in out
    assert "reachability:" in out and " ms" in out
    assert "tls: plain HTTP to this machine (loopback)" in out and "keyring:" in out and "proxy:" in out


def test_green_for_a_read_only_token_that_reports_read_only(monkeypatch: pytest.MonkeyPatch,
                                                            canaries: Canaries) -> None:
    monkeypatch.setenv("GITLAB_URL", canaries.url)
    monkeypatch.setenv("GITLAB_TOKEN", canaries.readonly)
    findings = by_topic(diagnose(DoctorOptions()))
    assert all(f.level != "fail" for f in findings.values())
    assert findings["user"].text == "token valid for @viewer (not an administrator)"
    assert findings["access"].text.startswith("read-only: the token lacks the 'api' scope")
    assert findings["token"].text == "from env:GITLAB_TOKEN"


def test_a_bad_token_fails_with_a_fix(monkeypatch: pytest.MonkeyPatch, canaries: Canaries) -> None:
    monkeypatch.setenv("LABDECK_URL", canaries.url)
    monkeypatch.setenv("LABDECK_TOKEN", "glpat-revokedrevokedrevoked0")
    findings = by_topic(diagnose(DoctorOptions()))
    assert findings["reachability"].level == "ok"
    assert findings["token"].level == "fail" and "401" in findings["token"].text
    assert "labdeck login" in (findings["token"].fix or "")


def test_an_unreachable_instance_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LABDECK_URL", f"http://127.0.0.1:{free_port()}")
    monkeypatch.setenv("LABDECK_TOKEN", "tok-irrelevant-0001")
    findings = by_topic(diagnose(DoctorOptions()))
    assert findings["reachability"].level == "fail" and "cannot connect" in findings["reachability"].text
    assert "user" not in findings


@pytest.mark.parametrize("content", [None, "this is not a certificate\n"])
def test_a_bad_ca_file_fails(monkeypatch: pytest.MonkeyPatch, canaries: Canaries, tmp_path: Path,
                             content: str | None) -> None:
    ca = tmp_path / "ca.pem"
    if content is not None:
        ca.write_text(content)
    monkeypatch.setenv("LABDECK_URL", canaries.url)
    monkeypatch.setenv("LABDECK_TOKEN", canaries.admin)
    findings = by_topic(diagnose(DoctorOptions(ca_file=str(ca))))
    assert findings["tls"].level == "fail"
    assert ("does not exist" if content is None else "not a PEM") in findings["tls"].text
    assert "reachability" not in findings  # no request is sent with a CA setting that cannot work


def test_an_ssl_cert_file_variable_is_reported_as_the_ca_in_use(monkeypatch: pytest.MonkeyPatch) -> None:
    import certifi

    monkeypatch.setenv("SSL_CERT_FILE", certifi.where())
    monkeypatch.setenv("LABDECK_URL", f"https://127.0.0.1:{free_port()}")
    findings = by_topic(diagnose(DoctorOptions()))
    assert findings["tls"].level == "ok" and f"CA file {certifi.where()} (SSL_CERT_FILE)" in findings["tls"].text


def test_the_proxy_in_use_is_reported_without_its_password(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LABDECK_URL", "https://gitlab.example.com")
    monkeypatch.setenv("HTTPS_PROXY", "http://user:s3cretpw@proxy.corp:3128")
    monkeypatch.setenv("LABDECK_TOKEN", "tok-irrelevant-0001")
    monkeypatch.setattr("labdeck.commands.doctor._check_server", lambda *args: None)
    proxy = by_topic(diagnose(DoctorOptions()))["proxy"]
    assert "proxy.corp:3128" in proxy.text and "s3cretpw" not in proxy.text
    monkeypatch.setenv("NO_PROXY", "gitlab.example.com")
    assert "bypassed" in by_topic(diagnose(DoctorOptions()))["proxy"].text


def test_broken_setup_as_a_command(run_labdeck: Callable[..., Run]) -> None:
    config = paths.config_file()
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text('[profiles.w]\nurl = "ftp://x"\ntoken = "t"\n')
    result = run_labdeck("doctor")
    assert result.returncode == 1
    assert "[FAIL] config:" in result.stdout and "profiles.w.url" in result.stdout
    assert "profiles.w.token" in result.stdout
    assert "[FAIL] instance: no instance URL" in result.stdout
    assert "[warn] keyring: not usable: no keyring service is available" in result.stdout
    assert result.stdout.rstrip().endswith("problem(s) above.")


def test_no_token_fails_with_the_login_command(run_labdeck: Callable[..., Run], canaries: Canaries) -> None:
    result = run_labdeck("doctor", env={"LABDECK_URL": canaries.url})
    assert result.returncode == 1
    assert "[FAIL] token: no usable token" in result.stdout and "labdeck login" in result.stdout
    assert "[ ok ] reachability:" in result.stdout


def test_the_audit_log_folder_is_checked(monkeypatch: pytest.MonkeyPatch, canaries: Canaries, tmp_path: Path) -> None:
    """Every change is recorded before it leaves (issue 24): doctor says when it cannot be."""
    monkeypatch.setenv("LABDECK_URL", canaries.url)
    monkeypatch.setenv("LABDECK_TOKEN", canaries.admin)
    assert by_topic(diagnose(DoctorOptions()))["audit log"].level == "ok"
    blocker = tmp_path / "state-is-a-file"
    blocker.write_text("")
    monkeypatch.setenv("XDG_STATE_HOME", str(blocker))
    finding = by_topic(diagnose(DoctorOptions()))["audit log"]
    assert finding.level == "warn" and "cannot be created" in finding.text and "refused" in finding.text
    assert "writable" in (finding.fix or "")
