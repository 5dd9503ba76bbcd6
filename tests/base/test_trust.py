"""The trust store read ahead at start-up (``base/trust``): the bundle the start-up check chooses is
the one every client then uses, read once, and read again when the file changes or was bad."""

from __future__ import annotations

import ssl
from pathlib import Path

import pytest

from labdeck.api import errors
from labdeck.api.transport import build_ssl_context
from labdeck.base import trust

pytest.importorskip("cryptography.x509")
from tests.support.pki import make_pki


def test_a_bundle_read_ahead_is_the_one_clients_use_and_a_changed_file_is_read_again(tmp_path: Path) -> None:
    ca, _, _ = make_pki(tmp_path)
    locations = trust.checked_locations(str(ca), env={})
    assert locations == (str(ca),)
    trust.read_ahead(locations)  # as the console does at exec, in a thread
    first = build_ssl_context(True, ca_file=str(ca), environ={})
    assert isinstance(first, ssl.SSLContext) and len(first.get_ca_certs()) == 1
    assert build_ssl_context(str(ca), environ={}) is first  # one read, shared
    (tmp_path / "other").mkdir()
    other_ca, _, _ = make_pki(tmp_path / "other")
    ca.write_bytes(ca.read_bytes() + other_ca.read_bytes())  # the file changed: new anchors count
    again = build_ssl_context(True, ca_file=str(ca), environ={})
    assert again is not first and len(again.get_ca_certs()) == 2  # type: ignore[union-attr]


def test_a_bad_bundle_read_ahead_fails_where_it_is_used_and_is_not_remembered(tmp_path: Path) -> None:
    bad = tmp_path / "bad.pem"
    bad.write_text("not a certificate\n")
    trust.read_ahead((str(bad),))  # must not raise, in the thread or here
    with pytest.raises(errors.TlsConfigError, match="bad.pem"):
        build_ssl_context(str(bad), environ={})
    (tmp_path / "good").mkdir()
    ca, _, _ = make_pki(tmp_path / "good")
    bad.write_bytes(ca.read_bytes())  # fixed, same name: read again, now fine
    assert isinstance(build_ssl_context(str(bad), environ={}), ssl.SSLContext)


def test_the_bundle_read_ahead_is_the_one_the_start_up_check_chooses(monkeypatch: pytest.MonkeyPatch,
                                                                     tmp_path: Path) -> None:
    environ = {"SSL_CERT_FILE": "~/ca.pem", "SSL_CERT_DIR": "/etc/ssl/certs", "REQUESTS_CA_BUNDLE": "/x.pem"}
    monkeypatch.setenv("HOME", str(tmp_path))
    # The check reads the named file itself (expanded) and hands it on as the session's CA file.
    assert trust.checked_locations(None, env=environ) == (str(tmp_path / "ca.pem"),)
    assert trust.checked_locations("/profile/ca.pem", env=environ) == ("/profile/ca.pem",)
    assert trust.checked_locations(None, env={}) == trust.trust_locations(True, None, {})
    assert trust.chosen_ca_file(None, "--ca-file", {"REQUESTS_CA_BUNDLE": "/x.pem"}) == ("/x.pem", "REQUESTS_CA_BUNDLE")
