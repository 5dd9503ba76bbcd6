"""``labdeck triage`` reads its CA bundle once: in a thread while the command imports, and the
session's check and the client take that read (a wrong guess would read the bundle twice)."""

from __future__ import annotations

import ssl
import threading

import certifi
import pytest

from labdeck.base import trust
from labdeck.commands import cli
from labdeck.sim.dataset.build import DEMO_TOKENS
from labdeck.sim.server import SimServer


@pytest.mark.parametrize("from_env", [False, True], ids=["default store", "SSL_CERT_FILE and SSL_CERT_DIR"])
def test_the_ca_bundle_is_read_once(sim: SimServer, monkeypatch: pytest.MonkeyPatch,
                                    capsys: pytest.CaptureFixture[str], from_env: bool) -> None:
    reads: list[tuple[tuple[str, ...], str]] = []
    real = trust._verifying_context

    def counted(locations: tuple[str, ...]) -> ssl.SSLContext:
        reads.append((locations, threading.current_thread().name))
        return real(locations)

    monkeypatch.setattr(trust, "_verifying_context", counted)
    monkeypatch.setattr(trust, "_contexts", {})
    for name in ("SSL_CERT_FILE", "SSL_CERT_DIR", "REQUESTS_CA_BUNDLE", "CURL_CA_BUNDLE"):
        monkeypatch.delenv(name, raising=False)
    if from_env:  # what many machines set (the session's check picks the file, not the folder)
        monkeypatch.setenv("SSL_CERT_FILE", certifi.where())
        monkeypatch.setenv("SSL_CERT_DIR", "/etc/ssl/certs")
    monkeypatch.setenv("LABDECK_TOKEN", DEMO_TOKENS["admin"])
    code = cli.main(["triage", "--url", sim.base_url, "--json", "platform/auth-service"])
    capsys.readouterr()
    assert code in (0, 1)
    assert [locations for locations, _ in reads] == [(certifi.where(),)]
